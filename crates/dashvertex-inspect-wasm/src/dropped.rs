//! What a reduction to K influences would drop, per vertex: the dash reducer
//! (`spec/reduction.md`: merge repeated bones, order by weight then bone index, keep K)
//! run on a decoded primitive, and the input weight of every influence whose bone the
//! output no longer carries. With the fit (`spec/reduction.md` §6), the page's own fitted
//! reduction of the whole file ([`crate::reduced::reduce_to_glb`]) is read back, and the
//! same weight counted against the bones it kept.

use dashvertex_core::{InfluenceSet, Limits, Mesh, Vertex};
use dashvertex_reduce::input::Input;
use dashvertex_reduce::{Config, Empty, Normalize};

use crate::scene::{Primitive, Scene};

/// Why the preview cannot be computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DroppedError(pub String);

impl std::fmt::Display for DroppedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DroppedError {}

/// The primitive's influences as the reducer's input. A weight that is not a finite
/// number counts as 0 here (the report has it as an error; the preview shows the rest).
fn mesh_of(p: &Primitive) -> Mesh {
    let count = p.info.vertex_count;
    let set_at = |s: &crate::scene::Set, v: usize| {
        let mut set = InfluenceSet::ZERO;
        let joints = s.joints.get(4 * v..4 * v + 4).unwrap_or_default();
        let weights = s.weights.get(4 * v..4 * v + 4).unwrap_or_default();
        for (slot, &j) in set.joints.iter_mut().zip(joints) {
            *slot = j;
        }
        for (slot, &w) in set.weights.iter_mut().zip(weights) {
            *slot = if w.is_finite() { w } else { 0.0 };
        }
        set
    };
    let first = p.sets.first();
    let vertices = (0..count)
        .map(|v| Vertex {
            position: [0.0; 3],
            skin: first.map_or(InfluenceSet::ZERO, |s| set_at(s, v)),
        })
        .collect();
    let extra = p
        .sets
        .iter()
        .skip(1)
        .map(|s| (0..count).map(|v| set_at(s, v)).collect())
        .collect();
    Mesh::from_parts(true, vertices, extra).unwrap_or_default()
}

/// Per vertex, the weight a reduction to `k` influences drops (0 where it drops none).
pub fn dropped(p: &Primitive, k: usize) -> Result<Vec<f32>, DroppedError> {
    let mesh = mesh_of(p);
    let input = Input::from_mesh(&mesh, Vec::new()).map_err(|e| DroppedError(e.to_string()))?;
    let map = input.unnamed_indices().unwrap_or_default();
    // Unit normalization: the preview is about which influences go, and unit output
    // never refuses a sum above 1 (the report already flags it).
    let cfg = Config::default()
        .with_max_influences(k)
        .with_normalize(Normalize::Unit)
        .with_empty(Empty::Zero);
    let reduced = dashvertex_reduce::reduce(&input, &map, None, &cfg)
        .map_err(|e| DroppedError(e.to_string()))?;
    let sets = reduced.sets.max(1);
    Ok(lost(&mesh, reduced.influences.chunks(sets)))
}

/// The fitted reduction of the opened document to `k` influences (the bytes the download gives) and
/// its scene read back: made once per K, every primitive's preview compares with it.
pub fn fitted(opened: &crate::reduced::Opened, k: usize) -> Result<(Vec<u8>, Scene), DroppedError> {
    let bytes = crate::reduced::reduce_to_glb(opened, k, true).map_err(|e| DroppedError(e.0))?;
    let out = dashvertex_gltf::load(&bytes, &dashvertex_gltf::NoFiles, &Limits::default())
        .map_err(|e| DroppedError(format!("the fitted output cannot be read back: {e}")))?;
    let scene = crate::scene::decode(&out);
    Ok((bytes, scene))
}

/// Per vertex of `p`, the weight the fitted reduction drops: `out` is that reduction read
/// back ([`fitted`]). Its joints keep the file's order (no manifest), so they are `p`'s
/// joint indices.
pub fn dropped_fitted(out: &Scene, p: &Primitive) -> Result<Vec<f32>, DroppedError> {
    let q = out
        .data
        .iter()
        .find(|q| (q.info.mesh, q.info.primitive) == (p.info.mesh, p.info.primitive))
        .filter(|q| q.info.vertex_count == p.info.vertex_count)
        .ok_or_else(|| DroppedError("the fitted output lost the primitive".into()))?;
    let kept = mesh_of(q);
    let sets: Vec<Vec<InfluenceSet>> = (0..kept.len())
        .map(|v| kept.sets_of(v).copied().collect())
        .collect();
    Ok(lost(&mesh_of(p), sets.iter().map(Vec::as_slice)))
}

/// Per vertex of `mesh`, the weight of its influences whose bone `kept` (the output's
/// sets, vertex by vertex) no longer carries.
fn lost<'a>(mesh: &Mesh, kept: impl Iterator<Item = &'a [InfluenceSet]>) -> Vec<f32> {
    let mut out = Vec::with_capacity(mesh.len());
    for (v, kept) in kept.enumerate() {
        let keeps = |bone: u32| {
            kept.iter()
                .flat_map(InfluenceSet::pairs)
                .any(|(j, w)| j == bone && w > 0.0)
        };
        let mut lost = 0.0f32;
        for (j, w) in mesh.sets_of(v).flat_map(InfluenceSet::pairs) {
            if w > 0.0 && !keeps(j) {
                lost += w;
            }
        }
        out.push(lost);
    }
    out.resize(mesh.len(), 0.0);
    out
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::scene::{PrimitiveInfo, Set};

    fn prim(joints: Vec<u32>, weights: Vec<f32>, extra: Option<(Vec<u32>, Vec<f32>)>) -> Primitive {
        let count = joints.len() / 4;
        let mut sets = vec![Set {
            n: 0,
            joints,
            weights,
        }];
        if let Some((joints, weights)) = extra {
            sets.push(Set {
                n: 1,
                joints,
                weights,
            });
        }
        Primitive {
            info: PrimitiveInfo {
                vertex_count: count,
                set_count: sets.len(),
                ..PrimitiveInfo::default()
            },
            positions: vec![0.0; count * 3],
            indices: None,
            sets,
        }
    }

    #[test]
    fn the_lightest_go_and_ties_keep_the_lower_bone() {
        let p = prim(
            vec![0, 1, 2, 3, 0, 0, 0, 0],
            vec![0.4, 0.3, 0.2, 0.1, 1.0, 0.0, 0.0, 0.0],
            Some((
                vec![4, 5, 0, 0, 0, 0, 0, 0],
                vec![0.1, 0.2, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            )),
        );
        // Vertex 0: 0.4 0.3 0.2 0.2(bone 5) 0.1(bone 3) 0.1(bone 4); K = 4 keeps
        // bones 0, 1, 2, 5; drops 3 and 4 (0.1 each). Vertex 1 loses nothing.
        let d = dropped(&p, 4).unwrap_or_default();
        assert_eq!(d.len(), 2);
        assert!((d[0] - 0.2).abs() < 1e-6, "{d:?}");
        assert_eq!(d[1], 0.0);
        let d1 = dropped(&p, 1).unwrap_or_default();
        assert!((d1[0] - 0.9).abs() < 1e-6, "{d1:?}");
    }

    #[test]
    fn nothing_to_drop_and_bad_numbers() {
        let p = prim(vec![0, 1, 0, 0], vec![f32::NAN, 0.5, 0.0, 0.0], None);
        assert_eq!(dropped(&p, 4).unwrap_or_default(), vec![0.0]);
        assert!(dropped(&p, 0).is_err());
    }
}
