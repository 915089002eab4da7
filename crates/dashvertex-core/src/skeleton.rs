//! Bones and skeletons.

/// One bone: a name, its parent and its local bind transform.
#[derive(Clone, Debug, PartialEq)]
pub struct Bone {
    /// Unique name; the stable key that bone manifests map to indices.
    pub name: String,
    /// Index of the parent bone, `None` for the root.
    pub parent: Option<u32>,
    /// Local translation relative to the parent.
    pub position: [f32; 3],
    /// Local rotation quaternion `(x, y, z, w)`.
    pub rotation: [f32; 4],
    /// Local scale factors along x, y and z; 1, 1, 1 in [`Bone::new`] and for a JSON bone
    /// without `scale` (`spec/dashvertex.md` §7).
    pub scale: [f32; 3],
}

impl Bone {
    /// A bone with the identity transform.
    pub fn new(name: impl Into<String>, parent: Option<u32>) -> Self {
        Bone {
            name: name.into(),
            parent,
            position: [0.0; 3],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
        }
    }

    /// True when name, parent and every transform component are equal, the floats bit for
    /// bit (`-0.0` differs from `0.0`, NaN payloads are compared).
    pub fn bit_eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.parent == other.parent
            && crate::f32_bits_eq(&self.position, &other.position)
            && crate::f32_bits_eq(&self.rotation, &other.rotation)
            && crate::f32_bits_eq(&self.scale, &other.scale)
    }
}

/// The bones whose positions give influence bone indices their meaning.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Skeleton {
    /// Bones in index order; bone `i` is addressed by bone index `i`.
    pub bones: Vec<Bone>,
}

impl Skeleton {
    /// The root bone: the first bone without a parent (bone 0 in a valid skeleton,
    /// `spec/dashvertex.md` §7).
    pub fn root(&self) -> Option<u32> {
        self.bones
            .iter()
            .position(|b| b.parent.is_none())
            .and_then(|i| u32::try_from(i).ok())
    }

    /// Each bone's global rest matrix: parent × local, parents first
    /// ([`globals_of`]).
    pub fn globals(&self) -> Vec<crate::math::Mat4> {
        globals_of(&self.bones)
    }

    /// Each bone's rest position in model space (the translation of its global rest
    /// matrix), rounded to binary32.
    pub fn model_positions(&self) -> Vec<[f32; 3]> {
        // Rounded once to binary32, as the bones' own values are stored.
        #[allow(clippy::cast_possible_truncation)]
        self.globals()
            .iter()
            .map(|m| [m[12] as f32, m[13] as f32, m[14] as f32])
            .collect()
    }

    /// Number of bones.
    pub fn len(&self) -> usize {
        self.bones.len()
    }

    /// True when there is no bone.
    pub fn is_empty(&self) -> bool {
        self.bones.is_empty()
    }

    /// Index of the first bone with this exact name.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.bones.iter().position(|b| b.name == name)
    }

    /// True when both skeletons have the same number of bones and each pair is
    /// [`Bone::bit_eq`].
    pub fn bit_eq(&self, other: &Self) -> bool {
        self.bones.len() == other.bones.len()
            && self
                .bones
                .iter()
                .zip(&other.bones)
                .all(|(a, b)| a.bit_eq(b))
    }
}

/// Each bone's global rest matrix (parent × local, column-major). A bone whose parent is
/// out of range, not before it, or itself (an invalid skeleton, `spec/dashvertex.md` §7)
/// counts as a root, so every chain ends: linear in the bones, no recursion.
pub fn globals_of(bones: &[Bone]) -> Vec<crate::math::Mat4> {
    use crate::math;
    let mut out: Vec<math::Mat4> = Vec::with_capacity(bones.len());
    for (i, b) in bones.iter().enumerate() {
        let local = math::from_trs(
            b.position.map(f64::from),
            b.rotation.map(f64::from),
            b.scale.map(f64::from),
        );
        let parent = b
            .parent
            .and_then(|p| usize::try_from(p).ok())
            .filter(|&p| p < i)
            .and_then(|p| out.get(p));
        out.push(match parent {
            Some(g) => math::mul(g, &local),
            None => local,
        });
    }
    out
}
