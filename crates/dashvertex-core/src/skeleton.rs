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
