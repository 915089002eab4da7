//! A primitive's figures from its vertices' largest displacements, and the box they are
//! read against.

use std::collections::HashMap;

use dashvertex_core::par::prelude::*;
use dashvertex_gltf::import::Primitive;

use super::plan::{Plan, Posing};
use super::{PoseSet, PrimitiveLoss, Worst};
use crate::skin::Joints;
use crate::{Skin, skin_point};

/// The nodes the original's vertices carry a non-zero weight on, through their skins'
/// joint lists: the joints the range-of-motion poses turn. Nodes past the last are left
/// out.
pub(crate) fn used_joints(
    pairs: &[(&Primitive, &Primitive, usize, usize)],
    skins: &HashMap<usize, Skin>,
    nodes: usize,
) -> Vec<usize> {
    let mut used = Vec::new();
    for (pa, _, sa, _) in pairs {
        let Some(skin) = skins.get(sa) else {
            continue;
        };
        let mut weighted = vec![false; skin.joints.len()];
        let mesh = &pa.document.mesh;
        for v in 0..mesh.len() {
            for set in mesh.sets_of(v) {
                for (&j, &w) in set.joints.iter().zip(&set.weights) {
                    if w != 0.0
                        && let Some(slot) =
                            usize::try_from(j).ok().and_then(|j| weighted.get_mut(j))
                    {
                        *slot = true;
                    }
                }
            }
        }
        used.extend(
            skin.joints
                .iter()
                .zip(&weighted)
                .filter(|(n, w)| **w && **n < nodes)
                .map(|(n, _)| *n),
        );
    }
    used
}

/// The diagonal of `mesh`'s vertices skinned with `joints` (the original's at the rest
/// pose), vertices whose weights are all 0 left out (they skin to the origin, which says
/// nothing of the model's size). Minimum and maximum are exact, so the result is the
/// same in any order and at any thread count.
pub(crate) fn rest_diagonal(mesh: &dashvertex_core::Mesh, joints: &Joints) -> f64 {
    let empty = || ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    let (lo, hi) = (0..mesh.len())
        .into_par_iter()
        .with_min_len(4096)
        .fold(empty, |(mut lo, mut hi), v| {
            let weighted = mesh.sets_of(v).any(|s| s.weights.iter().any(|&w| w != 0.0));
            if let (true, Some(vertex)) = (weighted, mesh.vertices().get(v)) {
                let p = skin_point(vertex.position, mesh.sets_of(v), joints);
                for ((l, h), x) in lo.iter_mut().zip(hi.iter_mut()).zip(p) {
                    if x.is_finite() {
                        *l = l.min(x);
                        *h = h.max(x);
                    }
                }
            }
            (lo, hi)
        })
        .reduce(empty, |(a, b), (c, d)| {
            (
                [a[0].min(c[0]), a[1].min(c[1]), a[2].min(c[2])],
                [b[0].max(d[0]), b[1].max(d[1]), b[2].max(d[2])],
            )
        });
    diagonal_of(lo, hi)
}

/// One vertex's largest displacement so far.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Best {
    /// The largest displacement.
    pub(crate) d: f64,
    /// The sample it was at.
    pub(crate) at: usize,
    /// The largest at the rest pose and keyframe times.
    pub(crate) at_keys: f64,
    /// A displacement was NaN or infinite (the first such sample is `at`).
    pub(crate) non_finite: bool,
}

impl Best {
    pub(crate) fn add(&mut self, d: f64, sample: usize, key: bool) {
        if self.non_finite {
            return;
        }
        if !d.is_finite() {
            *self = Best {
                d: f64::INFINITY,
                at: sample,
                at_keys: self.at_keys,
                non_finite: true,
            };
            return;
        }
        if d > self.d {
            self.d = d;
            self.at = sample;
        }
        if key && d > self.at_keys {
            self.at_keys = d;
        }
    }
}

/// The figures of one primitive from its vertices' largest displacements, read against
/// `diagonal`.
pub(crate) fn summary(
    pa: &Primitive,
    best: &[Best],
    plan: &Plan,
    posing: &Posing<'_>,
    names: &dyn Fn(usize) -> Option<String>,
    diagonal: f64,
) -> PrimitiveLoss {
    let n = best.len();
    let mut sorted: Vec<f64> = best.iter().map(|b| b.d).collect();
    sorted.sort_by(f64::total_cmp);
    // Nearest rank: the ⌈0.99 n⌉-th smallest.
    let p99_rank = (sorted.len().saturating_mul(99)).div_ceil(100);
    let p99 = sorted
        .get(p99_rank.saturating_sub(1))
        .copied()
        .unwrap_or(0.0);
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| {
        let (dx, dy) = (
            best.get(x).map_or(0.0, |b| b.d),
            best.get(y).map_or(0.0, |b| b.d),
        );
        dy.total_cmp(&dx).then(x.cmp(&y))
    });
    let worst = order
        .iter()
        .take(5)
        .filter_map(|&v| {
            let b = best.get(v)?;
            (b.d > 0.0).then(|| Worst {
                vertex: v,
                displacement: b.d,
                at: plan.moment(posing, b.at, names),
            })
        })
        .collect();
    PrimitiveLoss {
        mesh: pa.mesh,
        primitive: pa.primitive,
        vertices: n,
        pose_set: PoseSet::Animations,
        moments: plan.samples.len(),
        moments_full: plan.full,
        keyframe_moments: plan.samples.iter().filter(|s| s.key).count(),
        max: sorted.last().copied().unwrap_or(0.0),
        max_at_keyframes: best.iter().map(|b| b.at_keys).fold(0.0, f64::max),
        p99,
        mean: if n == 0 {
            0.0
        } else {
            sorted.iter().sum::<f64>() / n as f64
        },
        diagonal,
        worst,
    }
}

/// The diagonal of the box from `lo` to `hi` (0 for an empty box).
pub(crate) fn diagonal_of(lo: [f64; 3], hi: [f64; 3]) -> f64 {
    let d: f64 = lo
        .iter()
        .zip(&hi)
        .map(|(l, h)| if h >= l { (h - l).powi(2) } else { 0.0 })
        .sum();
    d.sqrt()
}
