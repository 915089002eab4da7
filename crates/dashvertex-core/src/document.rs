//! A mesh together with its optional skeleton.

use crate::{Mesh, Skeleton};

/// What a DashVertex file holds that dash models: the vertices and, when present, the
/// skeleton whose bone indices the influences refer to.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Document {
    /// The vertices and their influence sets.
    pub mesh: Mesh,
    /// The bones, when the file carries them.
    pub skeleton: Option<Skeleton>,
}

impl Document {
    /// Bit-exact equality of the modelled content.
    pub fn bit_eq(&self, other: &Self) -> bool {
        self.mesh.bit_eq(&other.mesh)
            && match (&self.skeleton, &other.skeleton) {
                (None, None) => true,
                (Some(a), Some(b)) => a.bit_eq(b),
                _ => false,
            }
    }
}
