//! The pose set a fit is measured over: each pose's joint matrices, by input bone.

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
}

impl Poses {
    /// An empty set for `bones` bones.
    pub fn new(bones: usize) -> Poses {
        Poses {
            bones,
            rows: Vec::new(),
        }
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
