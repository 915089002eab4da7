//! Joint matrices and linear blend skinning.

use dashvertex_core::{InfluenceSet, Limits};
use dashvertex_gltf::Gltf;

use crate::SkinError;
use crate::math::{IDENTITY, Mat4, mul};

/// A skin's joints and inverse bind matrices, read once.
#[derive(Clone, Debug, PartialEq)]
pub struct Skin {
    /// The skin's index in the document.
    pub index: usize,
    /// Joint `j`'s node.
    pub joints: Vec<usize>,
    /// Joint `j`'s inverse bind matrix (the identity when the skin has none).
    pub inverse_bind: Vec<Mat4>,
}

impl Skin {
    /// Reads skin `index` of `gltf`.
    pub fn read(gltf: &Gltf, index: usize, limits: &Limits) -> Result<Skin, SkinError> {
        let s = gltf.root.skins.get(index).ok_or(SkinError::NoSkin(index))?;
        let joints: Vec<usize> = s
            .joints
            .iter()
            .map(|&j| usize::try_from(j).unwrap_or(usize::MAX))
            .collect();
        let inverse_bind = match s.inverse_bind_matrices {
            None => vec![IDENTITY; joints.len()],
            Some(a) => {
                let data = dashvertex_gltf::accessor::read(gltf, a, limits)
                    .map_err(SkinError::Accessor)?;
                let mut out = Vec::with_capacity(joints.len().min(data.count));
                for j in 0..joints.len() {
                    let mut m = IDENTITY;
                    for (c, slot) in m.iter_mut().enumerate() {
                        let x = data.get(j, c);
                        // A NaN matrix would skin to NaN, which compares as no movement.
                        if !x.is_finite() {
                            return Err(SkinError::NonFiniteInverseBind {
                                skin: index,
                                accessor: a,
                                joint: j,
                                value: x,
                            });
                        }
                        *slot = x;
                    }
                    out.push(m);
                }
                out
            }
        };
        Ok(Skin {
            index,
            joints,
            inverse_bind,
        })
    }

    /// The joint matrices for nodes at `globals`: global(joint) × inverse bind, the
    /// matrices glTF's skinning equation blends (the skinned node's own transform does
    /// not enter). A joint whose node does not exist gets the identity.
    pub fn joint_matrices(&self, globals: &[Mat4]) -> Joints {
        self.joint_matrices_by(|n| globals.get(n))
    }

    /// [`Skin::joint_matrices`] with node `n`'s global matrix given by `global(n)`
    /// (for globals held for some nodes only).
    pub fn joint_matrices_by<'g>(&self, global: impl Fn(usize) -> Option<&'g Mat4>) -> Joints {
        Joints::from_matrices(
            &self
                .joints
                .iter()
                .zip(&self.inverse_bind)
                .map(|(&n, ibm)| mul(global(n).unwrap_or(&IDENTITY), ibm))
                .collect::<Vec<_>>(),
        )
    }
}

/// Joint matrices ready for skinning: the top three rows of each (affine transforms, as
/// joint matrices are), row-major, so a point costs 9 multiplications and 9 additions.
#[derive(Clone, Debug, PartialEq)]
pub struct Joints(Vec<[f64; 12]>);

impl Joints {
    /// From full column-major matrices (their bottom row is dropped).
    pub fn from_matrices(m: &[Mat4]) -> Joints {
        Joints(
            m.iter()
                .map(|m| {
                    let mut a = [0.0; 12];
                    for (i, slot) in a.iter_mut().enumerate() {
                        let (r, c) = (i / 4, i % 4);
                        *slot = m.get(c * 4 + r).copied().unwrap_or(0.0);
                    }
                    a
                })
                .collect(),
        )
    }

    /// Each joint's matrix, its top three rows row-major (`[a b c d; e f g h; i k l m]`).
    pub fn rows(&self) -> &[[f64; 12]] {
        &self.0
    }

    /// Number of joints.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Linear blend skinning of one position: Σ weight × (joint matrix × position) over every
/// slot of every influence set, weights as stored (not renormalised). Slots of weight 0
/// and joints without a matrix contribute nothing.
pub fn skin_point<'s>(
    position: [f32; 3],
    sets: impl IntoIterator<Item = &'s InfluenceSet>,
    joints: &Joints,
) -> [f64; 3] {
    let [x, y, z] = position.map(f64::from);
    let (mut ox, mut oy, mut oz) = (0.0, 0.0, 0.0);
    for set in sets {
        for (&j, &w) in set.joints.iter().zip(&set.weights) {
            if w == 0.0 {
                continue;
            }
            let Some(&[a, b, c, d, e, f, g, h, i, k, l, m]) =
                usize::try_from(j).ok().and_then(|j| joints.0.get(j))
            else {
                continue;
            };
            let w = f64::from(w);
            ox += w * (a * x + b * y + c * z + d);
            oy += w * (e * x + f * y + g * z + h);
            oz += w * (i * x + k * y + l * z + m);
        }
    }
    [ox, oy, oz]
}
