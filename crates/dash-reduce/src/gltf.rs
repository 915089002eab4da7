//! glTF in and out of the reducer.

use dash_core::Limits;
use dash_gltf::export::{Editor, ExportError, Influences, JointSlot, Weights};
use dash_gltf::import::{self, ImportError};
use dash_gltf::{Container, Gltf};

use crate::input::{Input, InputError, bone_refs};
use crate::manifest::{BoneRef, Manifest};
use crate::reduce::{Quantize, Reduced};

/// The reducer input of one skinned primitive.
#[derive(Clone, Debug)]
pub struct PrimitiveInput {
    /// Mesh index.
    pub mesh: usize,
    /// Primitive index.
    pub primitive: usize,
    /// The skin its joint indices refer to.
    pub skin: Option<usize>,
    /// The input (bones = the skin's joints).
    pub input: Input,
    /// True when the input came from per-bone attributes rather than JOINTS/WEIGHTS.
    pub from_attributes: bool,
}

/// Why a glTF file cannot be reduced.
#[derive(Debug, thiserror::Error)]
pub enum GltfReduceError {
    /// The file cannot be imported.
    #[error(transparent)]
    Import(#[from] ImportError),
    /// Influence sets refer to missing joints.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The output cannot be written.
    #[error(transparent)]
    Export(#[from] ExportError),
    /// Something the reducer cannot do with this file.
    #[error("{0}")]
    Unsupported(String),
}

/// The inputs of every primitive with influences. A primitive with per-bone weight
/// attributes (Blender's "export attributes") is read from them — they hold every
/// influence — and otherwise from its JOINTS_n / WEIGHTS_n sets.
pub fn inputs(gltf: &Gltf, limits: &Limits) -> Result<Vec<PrimitiveInput>, GltfReduceError> {
    let mut out = Vec::new();
    for p in import::import(gltf, limits)? {
        let bones: Vec<BoneRef> = p
            .document
            .skeleton
            .as_ref()
            .map(bone_refs)
            .unwrap_or_default();
        let mut seen = std::collections::BTreeSet::new();
        if let Some(dup) = bones.iter().find(|b| !seen.insert(b.name.as_str())) {
            return Err(GltfReduceError::Unsupported(format!(
                "skin {} has two joints named {:?}; bone names must be unique",
                p.skin.unwrap_or(0),
                dup.name
            )));
        }
        let positions: Vec<[f32; 3]> = p
            .document
            .mesh
            .vertices()
            .iter()
            .map(|v| v.position)
            .collect();
        if !p.bone_attributes.is_empty() {
            let mut bones = bones;
            let mut attrs: Vec<Option<String>> = vec![None; bones.len()];
            let mut columns: Vec<(u32, Vec<f32>)> = Vec::new();
            for a in &p.bone_attributes {
                let index = match a.joint {
                    Some(j) => j as usize,
                    None => {
                        bones.push(BoneRef {
                            name: a.bone.clone(),
                            parent: None,
                        });
                        attrs.push(None);
                        bones.len() - 1
                    }
                };
                if let Some(slot) = attrs.get_mut(index) {
                    *slot = Some(a.attribute.clone());
                }
                columns.push((index as u32, a.weights.clone()));
            }
            out.push(PrimitiveInput {
                mesh: p.mesh,
                primitive: p.primitive,
                skin: p.skin,
                input: Input::from_columns(bones, positions, columns, attrs),
                from_attributes: true,
            });
        } else if p.document.mesh.is_skinned() {
            out.push(PrimitiveInput {
                mesh: p.mesh,
                primitive: p.primitive,
                skin: p.skin,
                input: Input::from_mesh(&p.document.mesh, bones)?,
                from_attributes: false,
            });
        }
    }
    Ok(out)
}

/// Writes the reduced influences back into a copy of `gltf`: every skin used by a reduced
/// primitive gets its joints in manifest order (placeholder nodes for retired bones and
/// for bones this file does not have), and each primitive gets new JOINTS_n / WEIGHTS_n.
pub fn write(
    gltf: &Gltf,
    manifest: &Manifest,
    reduced: &[(PrimitiveInput, Reduced)],
    quantize: Quantize,
    container: Container,
) -> Result<Vec<u8>, GltfReduceError> {
    let users = dash_gltf::skinning::mesh_nodes(&gltf.root);
    let mut ed = Editor::new(gltf)?;
    let mut done = Vec::new();
    for (p, _) in reduced {
        let skins: std::collections::BTreeSet<u64> = users
            .get(p.mesh)
            .into_iter()
            .flatten()
            .filter_map(|&n| gltf.root.nodes.get(n)?.skin)
            .collect();
        if skins.len() > 1 {
            return Err(GltfReduceError::Unsupported(format!(
                "mesh {} is used with {} different skins; its joint indices cannot follow one manifest",
                p.mesh,
                skins.len()
            )));
        }
        let Some(skin) = p.skin else { continue };
        if done.contains(&skin) {
            continue;
        }
        done.push(skin);
        let names: Vec<String> = p.input.bones.iter().map(|b| b.name.clone()).collect();
        let slots: Vec<JointSlot> = manifest
            .bones
            .iter()
            .map(|e| match names.iter().position(|n| *n == e.name) {
                Some(old) if old < gltf.root.skins.get(skin).map_or(0, |s| s.joints.len()) => {
                    JointSlot::Existing(old)
                }
                _ => JointSlot::Placeholder(e.name.clone()),
            })
            .collect();
        ed.reorder_skin(gltf, skin, &slots)?;
    }
    for (p, r) in reduced {
        let joints: Vec<Vec<[u32; 4]>> = (0..r.sets)
            .map(|s| r.set(s).map(|x| x.joints).collect())
            .collect();
        let ints = |s: usize| -> Vec<[u32; 4]> {
            r.integers
                .as_ref()
                .map(|q| q.iter().skip(s).step_by(r.sets.max(1)).copied().collect())
                .unwrap_or_default()
        };
        let weights = match quantize {
            Quantize::F32 => Weights::F32(
                (0..r.sets)
                    .map(|s| r.set(s).map(|x| x.weights).collect())
                    .collect(),
            ),
            Quantize::Unorm8 => Weights::Unorm8(
                (0..r.sets)
                    .map(|s| ints(s).into_iter().map(|x| x.map(|c| c as u8)).collect())
                    .collect(),
            ),
            Quantize::Unorm16 => Weights::Unorm16(
                (0..r.sets)
                    .map(|s| ints(s).into_iter().map(|x| x.map(|c| c as u16)).collect())
                    .collect(),
            ),
        };
        ed.set_influences(p.mesh, p.primitive, &Influences { joints, weights })?;
    }
    Ok(ed.finish(container)?)
}
