//! The pose set a fit is measured over: each pose's joint matrices, by input bone.

/// Groups a pose set may be split into ([`Poses::begin_group`]): the fit weighs each
/// group's displacement against the plain output's in the same group, so the file's
/// animation and the range-of-motion poses both count, whatever their scale.
pub const MAX_POSE_GROUPS: usize = 2;

/// The affine part of a joint matrix (global × inverse bind), row-major 3 × 4:
/// `[a b c d; e f g h; i k l m]`, so a point `p` goes to `(a·x + b·y + c·z + d, …)`.
pub type Rows = [f64; 12];

/// Joint matrices for every pose of a pose set, evaluated once per pose (not per vertex),
/// indexed by input bone ([`crate::input::Input::bones`]): a glTF input's bone `b` is the
/// skin's joint `b`. A bone without a matrix skins to nothing, as in
/// `dashvertex_skin::skin_point`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Poses {
    bones: usize,
    rows: Vec<Rows>,
    /// The first pose of each group after the first, ascending.
    starts: Vec<usize>,
}

impl Poses {
    /// An empty set for `bones` bones.
    pub fn new(bones: usize) -> Poses {
        Poses {
            bones,
            rows: Vec::new(),
            starts: Vec::new(),
        }
    }

    /// Starts a new group: the poses pushed from now on are measured apart from those
    /// before (`spec/reduction.md` \[RF1\]). Nothing changes while the current group is
    /// empty. `false`, and nothing changes, when the set already holds
    /// [`MAX_POSE_GROUPS`] groups.
    pub fn begin_group(&mut self) -> bool {
        let at = self.len();
        if at == 0 || self.starts.last() == Some(&at) {
            return true;
        }
        if self.starts.len() + 1 >= MAX_POSE_GROUPS {
            return false;
        }
        self.starts.push(at);
        true
    }

    /// Groups in the set (1 when it was never split, or is empty).
    pub fn groups(&self) -> usize {
        self.starts.len() + 1
    }

    /// The group pose `pose` belongs to.
    #[inline]
    pub fn group_of(&self, pose: usize) -> usize {
        self.starts.iter().take_while(|&&s| s <= pose).count()
    }

    /// Adds a pose: the matrices of bones `0, 1, …` in order. Bones past the end of
    /// `matrices` get the zero matrix (they move nothing), extra matrices are ignored.
    pub fn push(&mut self, matrices: impl IntoIterator<Item = Rows>) {
        self.rows.extend(
            matrices
                .into_iter()
                .take(self.bones)
                .chain(std::iter::repeat([0.0; 12]))
                .take(self.bones),
        );
    }

    /// Bones per pose.
    pub fn bones(&self) -> usize {
        self.bones
    }

    /// Poses in the set.
    pub fn len(&self) -> usize {
        self.rows.len().checked_div(self.bones).unwrap_or(0)
    }

    /// Whether the set holds no pose.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bone `bone`'s matrix in pose `pose`.
    #[inline]
    pub fn get(&self, pose: usize, bone: usize) -> Option<&Rows> {
        if bone >= self.bones {
            return None;
        }
        self.rows
            .get(pose.checked_mul(self.bones)?.checked_add(bone)?)
    }
}

/// `m` applied to the point `p`.
#[inline]
pub(crate) fn apply(m: &Rows, p: [f64; 3]) -> [f64; 3] {
    let [a, b, c, d, e, f, g, h, i, k, l, n] = *m;
    let [x, y, z] = p;
    [
        a * x + b * y + c * z + d,
        e * x + f * y + g * z + h,
        i * x + k * y + l * z + n,
    ]
}
