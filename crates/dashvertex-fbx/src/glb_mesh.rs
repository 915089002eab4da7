//! A mesh's glTF primitives: faces triangulated, a glTF vertex per distinct (control
//! point, normal, UV) corner, one primitive per material, and the skin's influences per
//! control point with every influence kept, normalized to sum to 1.

use std::collections::HashMap;

use dashvertex_core::{SLOTS, canonical_order};
use serde_json::{Value, json};

use crate::FbxError;
use crate::buffer::{Buffer, VERTICES};
use crate::dash::narrow;
use crate::glb::Changes;

/// A skin as the primitives use it: the joint of each cluster, and the joint of the
/// mesh's own node (for unweighted control points).
pub(crate) struct SkinJoints<'s> {
    pub skin: &'s ufbx::SkinDeformer,
    pub cluster_joint: Vec<Option<u16>>,
    pub own: u16,
}

/// The primitives of `mesh` (none for a mesh without a triangle).
pub(crate) fn primitives(
    buf: &mut Buffer,
    mesh: &ufbx::Mesh,
    skin: Option<&SkinJoints<'_>>,
    materials: &HashMap<u32, usize>,
    changes: &mut Changes,
) -> Result<Vec<Value>, FbxError> {
    let (corners, lists) = triangles(mesh, changes)?;
    if lists.is_empty() {
        return Ok(Vec::new());
    }
    let attributes = attributes(buf, mesh, &corners, skin, changes)?;
    let mut out = Vec::new();
    for (mat, indices) in lists {
        let acc = buf.indices(&indices);
        let mut p = json!({ "attributes": attributes.clone(), "indices": acc, "mode": 4 });
        let material = mat
            .and_then(|i| mesh.materials.get(i as usize))
            .and_then(|m| materials.get(&m.element.typed_id));
        if let (Some(m), Some(o)) = (material, p.as_object_mut()) {
            o.insert("material".into(), json!(m));
        }
        out.push(p);
    }
    Ok(out)
}

/// A glTF vertex: the (position, normal, UV) indices of a face corner.
type Corner = (u32, u32, u32);

/// What makes two corners one vertex: the position index, and the bits of the normal and
/// UV values in binary32.
fn value_key(mesh: &ufbx::Mesh, (p, n, t): Corner) -> (u32, [u32; 5]) {
    let normal = if mesh.vertex_normal.exists {
        vec3(mesh.vertex_normal.values.get(n as usize))
    } else {
        [0.0; 3]
    };
    let uv = if mesh.vertex_uv.exists {
        let v = mesh
            .vertex_uv
            .values
            .get(t as usize)
            .copied()
            .unwrap_or_default();
        [narrow(v.x), narrow(v.y)]
    } else {
        [0.0; 2]
    };
    let [a, b, c] = normal.map(f32::to_bits);
    let [d, e] = uv.map(f32::to_bits);
    (p, [a, b, c, d, e])
}

/// The faces triangulated: the distinct corners, and each material part's indices into
/// them (parts without a triangle left out).
#[allow(
    clippy::type_complexity,
    reason = "a pair of plain lists, built together"
)]
fn triangles(
    mesh: &ufbx::Mesh,
    changes: &mut Changes,
) -> Result<(Vec<Corner>, Vec<(Option<u32>, Vec<u32>)>), FbxError> {
    // Corners are one vertex when their position index and normal and UV values (in
    // binary32, as written) agree: files index normals per corner even when they are equal.
    let mut corner_of: HashMap<(u32, [u32; 5]), u32> = HashMap::new();
    let mut corners: Vec<Corner> = Vec::new();
    let mut tri = vec![0u32; mesh.max_face_triangles.saturating_mul(3)];
    let all: Vec<u32>;
    let parts: Vec<(Option<u32>, &[u32])> = if mesh.material_parts.is_empty() {
        all = (0..u32::try_from(mesh.num_faces).unwrap_or(u32::MAX)).collect();
        vec![(None, &all[..])]
    } else {
        mesh.material_parts
            .iter()
            .map(|p| (Some(p.index), p.face_indices.as_ref()))
            .collect()
    };
    let attr = |a: &ufbx::VertexVec3, c: u32| {
        if a.exists {
            a.indices.get(c as usize).copied().unwrap_or(0)
        } else {
            0
        }
    };
    let uv_index = |c: u32| {
        if mesh.vertex_uv.exists {
            mesh.vertex_uv.indices.get(c as usize).copied().unwrap_or(0)
        } else {
            0
        }
    };
    let mut lists = Vec::new();
    for (mat, faces) in parts {
        let mut indices: Vec<u32> = Vec::new();
        for &f in faces {
            let Some(face) = mesh.faces.get(f as usize).copied() else {
                continue;
            };
            if face.num_indices < 3 {
                changes.skipped_faces += 1;
                continue;
            }
            let n = ufbx::triangulate_face(&mut tri, mesh, face) as usize;
            for &c in tri.get(..n * 3).unwrap_or_default() {
                let corner = (
                    attr(&mesh.vertex_position, c),
                    attr(&mesh.vertex_normal, c),
                    uv_index(c),
                );
                let next = u32::try_from(corners.len())
                    .map_err(|_| FbxError::Convert("more than 2^32 vertices".into()))?;
                let v = *corner_of.entry(value_key(mesh, corner)).or_insert_with(|| {
                    corners.push(corner);
                    next
                });
                indices.push(v);
            }
        }
        if !indices.is_empty() {
            lists.push((mat, indices));
        }
    }
    Ok((corners, lists))
}

/// The vertex attributes of `corners`: POSITION (refused when not finite), NORMAL and
/// TEXCOORD_0 when the mesh has them, and the skin's JOINTS_n/WEIGHTS_n.
fn attributes(
    buf: &mut Buffer,
    mesh: &ufbx::Mesh,
    corners: &[Corner],
    skin: Option<&SkinJoints<'_>>,
    changes: &mut Changes,
) -> Result<serde_json::Map<String, Value>, FbxError> {
    let mut attributes = serde_json::Map::new();
    let positions: Vec<[f32; 3]> = corners
        .iter()
        .map(|k| vec3(mesh.vertex_position.values.get(k.0 as usize)))
        .collect();
    if let Some(k) = positions
        .iter()
        .position(|p| p.iter().any(|x| !x.is_finite()))
    {
        let point = corners.get(k).map_or(0, |c| c.0);
        return Err(FbxError::Convert(format!(
            "Geometry::{}: control point {point} is NaN, infinite or beyond binary32, which glTF cannot hold",
            mesh.element.name
        )));
    }
    attributes.insert(
        "POSITION".into(),
        json!(buf.floats(&positions, Some(VERTICES), true)),
    );
    if mesh.vertex_normal.exists {
        let normals: Vec<[f32; 3]> = corners
            .iter()
            .map(|k| unit(vec3(mesh.vertex_normal.values.get(k.1 as usize)), changes))
            .collect();
        attributes.insert(
            "NORMAL".into(),
            json!(buf.floats(&normals, Some(VERTICES), false)),
        );
    }
    if mesh.vertex_uv.exists {
        let uvs: Vec<[f32; 2]> = corners
            .iter()
            .map(|k| {
                let uv = mesh
                    .vertex_uv
                    .values
                    .get(k.2 as usize)
                    .copied()
                    .unwrap_or_default();
                let (u, v) = (narrow(uv.x), narrow(1.0 - uv.y));
                if !(u.is_finite() && v.is_finite()) {
                    changes.bad_uvs += 1;
                }
                [
                    if u.is_finite() { u } else { 0.0 },
                    if v.is_finite() { v } else { 0.0 },
                ]
            })
            .collect();
        attributes.insert(
            "TEXCOORD_0".into(),
            json!(buf.floats(&uvs, Some(VERTICES), false)),
        );
    }
    if let Some(sj) = skin {
        let rows = influence_rows(mesh, sj, changes);
        let sets = rows
            .iter()
            .map(|r| r.len().div_ceil(SLOTS))
            .max()
            .unwrap_or(1)
            .max(1);
        for set in 0..sets {
            let mut joints = Vec::with_capacity(corners.len());
            let mut weights = Vec::with_capacity(corners.len());
            for k in corners {
                let row = rows
                    .get(k.0 as usize)
                    .map(Vec::as_slice)
                    .unwrap_or_default();
                let mut j = [0u16; 4];
                let mut w = [0f32; 4];
                for (slot, (jj, ww)) in row.iter().skip(set * SLOTS).take(SLOTS).enumerate() {
                    if let (Some(a), Some(b)) = (j.get_mut(slot), w.get_mut(slot)) {
                        *a = *jj;
                        *b = *ww;
                    }
                }
                joints.push(j);
                weights.push(w);
            }
            attributes.insert(format!("JOINTS_{set}"), json!(buf.joints(&joints)));
            attributes.insert(
                format!("WEIGHTS_{set}"),
                json!(buf.floats(&weights, Some(VERTICES), false)),
            );
        }
    }
    Ok(attributes)
}

/// A vector in binary32 (a missing one is zero; the caller judges non-finite values).
fn vec3(v: Option<&ufbx::Vec3>) -> [f32; 3] {
    let v = v.copied().unwrap_or_default();
    [narrow(v.x), narrow(v.y), narrow(v.z)]
}

fn unit(v: [f32; 3], changes: &mut Changes) -> [f32; 3] {
    let len = v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    if !(len.is_finite() && len > 1e-12) {
        changes.zero_normals += 1;
        return [0.0, 0.0, 1.0];
    }
    v.map(|x| narrow(f64::from(x) / len))
}

/// Each control point's influences as joints and weights, heaviest first, normalized to
/// sum to 1 (the glTF rule); an unweighted control point is bound to the mesh's node.
fn influence_rows(
    mesh: &ufbx::Mesh,
    sj: &SkinJoints<'_>,
    changes: &mut Changes,
) -> Vec<Vec<(u16, f32)>> {
    let mut rows = Vec::with_capacity(mesh.num_vertices);
    for v in 0..mesh.num_vertices {
        let mut row: Vec<(u32, f64)> = Vec::new();
        if let Some(sv) = sj.skin.vertices.get(v) {
            for w in crate::weights_of(sj.skin, sv) {
                let Some(Some(j)) = sj.cluster_joint.get(w.cluster_index as usize) else {
                    continue;
                };
                if !(w.weight.is_finite() && w.weight >= 0.0) {
                    changes.dropped += 1;
                    continue;
                }
                if w.weight == 0.0 {
                    continue;
                }
                match row.iter_mut().find(|(b, _)| *b == u32::from(*j)) {
                    Some(e) => e.1 += w.weight,
                    None => row.push((u32::from(*j), w.weight)),
                }
            }
        }
        let total: f64 = row.iter().map(|(_, w)| w).sum();
        if row.is_empty() || !(total.is_finite() && total > 0.0) {
            changes.unweighted += 1;
            rows.push(vec![(sj.own, 1.0)]);
            continue;
        }
        let mut narrow_row: Vec<(u32, f32)> = row.iter().map(|(j, w)| (*j, narrow(*w))).collect();
        narrow_row.sort_by(canonical_order);
        let mut ws: Vec<f32> = narrow_row.iter().map(|(_, w)| *w).collect();
        let before = ws.clone();
        dashvertex_core::weights::normalize_unit(&mut ws);
        if ws != before {
            changes.normalized += 1;
        }
        rows.push(
            narrow_row
                .iter()
                .zip(ws)
                .filter(|(_, w)| *w > 0.0)
                .map(|((j, _), w)| (u16::try_from(*j).unwrap_or(u16::MAX), w))
                .collect(),
        );
    }
    rows
}
