//! The skinned meshes of a scene as one DashVertex document: a vertex per control point
//! with every influence (raw weights, bones merged when two clusters share one), and the
//! skeleton's rest pose (`spec/fbx.md`).

use dashvertex_core::{
    Bone, Document, InfluenceSet, Mesh, SLOTS, Skeleton, Vertex, canonical_order,
};

use crate::bones::{Bones, bones, skinned_meshes};
use crate::{DashDocument, FbxError, Scene};

/// Name of the bone added above several top-level bones (DashVertex has one root).
const ADDED_ROOT: &str = "RootNode";
/// Longest bone name DashVertex holds, in bytes.
const MAX_NAME: usize = 31;

/// The skinned meshes of `scene` as one DashVertex document (every mesh without a skin
/// when none has one); positions in the bind pose, in metres with +Y up.
pub fn to_document(scene: &Scene) -> Result<DashDocument, FbxError> {
    let s = scene.ufbx();
    let skins = skinned_meshes(s);
    let mut notes = vec![scene.conversion()];
    if skins.is_empty() {
        let mut vertices = Vec::new();
        for m in &s.meshes {
            vertices.extend(positions(m).map(Vertex::at));
        }
        notes.push(format!(
            "no mesh has a skin: {} control point(s) of {} mesh(es) written unskinned",
            vertices.len(),
            s.meshes.len()
        ));
        return Ok(DashDocument {
            document: Document {
                mesh: Mesh::unskinned(vertices),
                skeleton: None,
            },
            notes,
        });
    }
    let b = bones(&skins);
    let (skeleton, shift) = skeleton(&b)?;
    let mut rows: Vec<Vec<(u32, f32)>> = Vec::new();
    let mut vertices = Vec::new();
    for (mesh, skin) in &skins {
        let start = vertices.len();
        let bone_of: Vec<Option<u32>> = skin
            .clusters
            .iter()
            .map(|c| {
                let n = c.bone_node.as_ref()?;
                Some(b.index.get(&n.element.element_id)? + shift)
            })
            .collect();
        for (v, p) in positions(mesh).enumerate() {
            vertices.push(Vertex::at(p));
            rows.push(influences(skin, v, &bone_of));
        }
        notes.push(format!(
            "vertices {start}..{} are the control points of Geometry::{}",
            vertices.len(),
            mesh.element.name
        ));
        if mesh.skin_deformers.len() > 1 {
            notes.push(format!(
                "Geometry::{}: {} skin deformers; the first is written",
                mesh.element.name,
                mesh.skin_deformers.len()
            ));
        }
    }
    let sets = rows
        .iter()
        .map(|r| r.len().div_ceil(SLOTS))
        .max()
        .unwrap_or(1)
        .max(1);
    let mut extra = vec![vec![InfluenceSet::ZERO; vertices.len()]; sets - 1];
    for (v, row) in rows.iter().enumerate() {
        for (k, chunk) in row.chunks(SLOTS).enumerate() {
            let set = InfluenceSet::from_pairs(chunk).unwrap_or(InfluenceSet::ZERO);
            if k == 0 {
                if let Some(vx) = vertices.get_mut(v) {
                    vx.skin = set;
                }
            } else if let Some(slot) = extra.get_mut(k - 1).and_then(|e| e.get_mut(v)) {
                *slot = set;
            }
        }
    }
    let mesh =
        Mesh::from_parts(true, vertices, extra).map_err(|e| FbxError::Convert(e.to_string()))?;
    Ok(DashDocument {
        document: Document {
            mesh,
            skeleton: Some(skeleton),
        },
        notes,
    })
}

/// The control points of `mesh`, placed in the scene by its first instance (bind pose).
fn positions(mesh: &ufbx::Mesh) -> impl Iterator<Item = [f32; 3]> + '_ {
    let to_world = mesh
        .element
        .instances
        .first()
        .map_or_else(identity, |n| n.geometry_to_world);
    mesh.vertices.iter().map(move |p| {
        let w = ufbx::transform_position(&to_world, *p);
        [narrow(w.x), narrow(w.y), narrow(w.z)]
    })
}

fn identity() -> ufbx::Matrix {
    ufbx::Matrix {
        m00: 1.0,
        m11: 1.0,
        m22: 1.0,
        ..Default::default()
    }
}

#[allow(
    clippy::cast_possible_truncation,
    reason = "rounded to binary32, DashVertex's float"
)]
pub(crate) fn narrow(x: f64) -> f32 {
    x as f32
}

/// Every influence of control point `v`: bones merged when two clusters share one, zero
/// weights dropped, heaviest first.
fn influences(skin: &ufbx::SkinDeformer, v: usize, bone_of: &[Option<u32>]) -> Vec<(u32, f32)> {
    let Some(sv) = skin.vertices.get(v) else {
        return Vec::new();
    };
    let mut row: Vec<(u32, f64)> = Vec::new();
    for w in crate::weights_of(skin, sv) {
        let Some(Some(bone)) = bone_of.get(w.cluster_index as usize) else {
            continue;
        };
        if w.weight == 0.0 {
            continue;
        }
        match row.iter_mut().find(|(b, _)| b == bone) {
            Some(e) => e.1 += w.weight,
            None => row.push((*bone, w.weight)),
        }
    }
    let mut out: Vec<(u32, f32)> = row.into_iter().map(|(b, w)| (b, narrow(w))).collect();
    out.sort_by(canonical_order);
    out
}

/// The skeleton of `b`: one root (a `RootNode` bone above several top-level bones), names
/// DashVertex can hold or a refusal naming the one it cannot; and how far the bone indices
/// shift for the added root.
fn skeleton(b: &Bones<'_>) -> Result<(Skeleton, u32), FbxError> {
    let tops = b.parents.iter().filter(|p| p.is_none()).count();
    let shift = u32::from(tops != 1);
    let mut bones = Vec::with_capacity(b.nodes.len() + 1);
    if shift == 1 {
        bones.push(Bone::new(ADDED_ROOT, None));
    }
    for (n, parent) in b.nodes.iter().zip(&b.parents) {
        let t = n.local_transform;
        bones.push(Bone {
            name: n.element.name.to_string(),
            parent: parent.map(|p| p + shift).or((shift == 1).then_some(0)),
            position: [
                narrow(t.translation.x),
                narrow(t.translation.y),
                narrow(t.translation.z),
            ],
            rotation: [
                narrow(t.rotation.x),
                narrow(t.rotation.y),
                narrow(t.rotation.z),
                narrow(t.rotation.w),
            ],
            scale: [narrow(t.scale.x), narrow(t.scale.y), narrow(t.scale.z)],
        });
    }
    let mut names = std::collections::HashSet::new();
    for bone in &bones {
        let bad = if bone.name.is_empty() || bone.name.len() > MAX_NAME || bone.name.contains('\0')
        {
            Some("is empty, longer than 31 bytes or holds NUL")
        } else if !names.insert(bone.name.as_str()) {
            Some("names two bones")
        } else {
            None
        };
        if let Some(why) = bad {
            return Err(FbxError::Convert(format!(
                "bone name {} {why}: DashVertex cannot hold it; write glTF (.glb) instead, which keeps any name",
                dashvertex_core::text::short(&bone.name)
            )));
        }
    }
    Ok((Skeleton { bones }, shift))
}
