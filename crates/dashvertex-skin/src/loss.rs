//! How far reduction moves vertices: a primitive skinned with its original influences
//! and with the reduced ones, at the rest pose and at every keyframe time of every
//! animation, compared vertex by vertex.

use dashvertex_core::Limits;
use dashvertex_gltf::Gltf;
use rayon::prelude::*;

use crate::{Animation, Rig, Skin, SkinError, animations, skin_point};

/// A moment the displacement was sampled at.
#[derive(Clone, Debug, PartialEq)]
pub struct Moment {
    /// The animation (`None`: the rest pose).
    pub animation: Option<usize>,
    /// Its name, if it has one.
    pub name: Option<String>,
    /// Seconds into the animation (0 for the rest pose).
    pub time: f64,
}

/// A vertex and the moment it moves most.
#[derive(Clone, Debug, PartialEq)]
pub struct Worst {
    /// The vertex.
    pub vertex: usize,
    /// How far it moves, in model units.
    pub displacement: f64,
    /// When.
    pub at: Moment,
}

/// The displacement reduction causes in one primitive. For each vertex its largest
/// displacement over the sampled moments is taken; the figures are over the vertices.
#[derive(Clone, Debug, PartialEq)]
pub struct PrimitiveLoss {
    /// Mesh index.
    pub mesh: usize,
    /// Primitive index within the mesh.
    pub primitive: usize,
    /// Vertices compared.
    pub vertices: usize,
    /// Moments sampled: the rest pose and every keyframe time of every animation.
    pub moments: usize,
    /// Largest displacement, in model units.
    pub max: f64,
    /// 99th percentile (nearest rank) of the vertices' largest displacements.
    pub p99: f64,
    /// Mean of the vertices' largest displacements.
    pub mean: f64,
    /// The diagonal of the primitive's bounding box (its POSITION values), the scale the
    /// figures are read against.
    pub diagonal: f64,
    /// The vertices that move most, largest first (at most 5).
    pub worst: Vec<Worst>,
}

/// The loss of every skinned primitive `reduced` shares with `original` (same meshes,
/// primitives, vertex order and nodes: what `dash reduce` writes). Each document is
/// skinned with its own skin and joint order, on the original's hierarchy and animations.
pub fn loss(
    original: &Gltf,
    reduced: &Gltf,
    limits: &Limits,
) -> Result<Vec<PrimitiveLoss>, SkinError> {
    loss_with(original, reduced, &animations(original, limits)?, limits)
}

/// [`loss`] over the moments of `anims` (node indices of `original`, which `reduced`
/// shares: dash's output keeps the node list), for instance poses from another file
/// ([`crate::retarget`]).
pub fn loss_with(
    original: &Gltf,
    reduced: &Gltf,
    anims: &[Animation],
    limits: &Limits,
) -> Result<Vec<PrimitiveLoss>, SkinError> {
    let a = dashvertex_gltf::import::import(original, limits).map_err(SkinError::Import)?;
    let b = dashvertex_gltf::import::import(reduced, limits).map_err(SkinError::Import)?;
    let moments = moments(anims);
    if moments.len() > MAX_MOMENTS {
        return Err(SkinError::TooManyMoments(moments.len()));
    }
    // dash's output keeps the node list and the node transforms: one hierarchy poses both
    // documents, and each skin takes its own joints from it.
    let rig = Rig::new(original);
    let mut out = Vec::new();
    for pa in &a {
        let Some(pb) = b
            .iter()
            .find(|p| p.mesh == pa.mesh && p.primitive == pa.primitive)
        else {
            continue;
        };
        let (Some(sa), Some(sb)) = (pa.skin, pb.skin) else {
            continue;
        };
        let (skin_a, skin_b) = (
            Skin::read(original, sa, limits)?,
            Skin::read(reduced, sb, limits)?,
        );
        let (ma, mb) = (&pa.document.mesh, &pb.document.mesh);
        let n = ma.len().min(mb.len());
        // Per vertex, its largest displacement and the moment of it. Moments are taken a
        // batch at a time (their joint matrices only are held), vertices in parallel:
        // each vertex's result depends on nothing else, so it is the same at any thread
        // count, and memory is one entry per vertex however many moments there are.
        let mut best = vec![(0.0f64, 0usize); n];
        for (start, batch) in moments.chunks(MOMENT_BATCH).enumerate() {
            let joints: Vec<_> = batch
                .iter()
                .map(|moment| {
                    let g = rig.globals(&pose(&rig, anims, moment));
                    (skin_a.joint_matrices(&g), skin_b.joint_matrices(&g))
                })
                .collect();
            best.par_iter_mut()
                .enumerate()
                .with_min_len(4096)
                .for_each(|(v, most)| {
                    let p = ma.vertices().get(v).map_or([0.0; 3], |x| x.position);
                    for (k, (ja, jb)) in joints.iter().enumerate() {
                        let x = skin_point(p, ma.sets_of(v), ja);
                        let y = skin_point(p, mb.sets_of(v), jb);
                        let d =
                            ((x[0] - y[0]).powi(2) + (x[1] - y[1]).powi(2) + (x[2] - y[2]).powi(2))
                                .sqrt();
                        if d > most.0 {
                            *most = (d, start * MOMENT_BATCH + k);
                        }
                    }
                });
        }
        let mut sorted: Vec<f64> = best.iter().map(|b| b.0).collect();
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
                best.get(x).map_or(0.0, |b| b.0),
                best.get(y).map_or(0.0, |b| b.0),
            );
            dy.total_cmp(&dx).then(x.cmp(&y))
        });
        let worst = order
            .iter()
            .take(5)
            .filter_map(|&v| {
                let (d, k) = *best.get(v)?;
                (d > 0.0).then(|| Worst {
                    vertex: v,
                    displacement: d,
                    at: moments.get(k).cloned().unwrap_or(REST),
                })
            })
            .collect();
        out.push(PrimitiveLoss {
            mesh: pa.mesh,
            primitive: pa.primitive,
            vertices: n,
            moments: moments.len(),
            max: sorted.last().copied().unwrap_or(0.0),
            p99,
            mean: if n == 0 {
                0.0
            } else {
                sorted.iter().sum::<f64>() / n as f64
            },
            diagonal: diagonal(ma.vertices().iter().map(|v| v.position)),
            worst,
        });
    }
    Ok(out)
}

/// The most moments (the rest pose and keyframe times) a loss is measured over: each
/// costs a pass over every vertex, so a file cannot make the work unbounded.
pub const MAX_MOMENTS: usize = 1 << 16;

/// Moments whose joint matrices are held at once.
const MOMENT_BATCH: usize = 64;

const REST: Moment = Moment {
    animation: None,
    name: None,
    time: 0.0,
};

/// The rest pose, then each animation's keyframe times in order.
fn moments(anims: &[Animation]) -> Vec<Moment> {
    let mut out = vec![REST];
    for a in anims {
        for t in a.times() {
            out.push(Moment {
                animation: Some(a.index),
                name: a.name.clone(),
                time: t,
            });
        }
    }
    out
}

fn pose(rig: &Rig, anims: &[Animation], m: &Moment) -> crate::Pose {
    match m
        .animation
        .and_then(|i| anims.iter().find(|a| a.index == i))
    {
        Some(a) => a.pose_at(rig.rest(), m.time),
        None => rig.rest().clone(),
    }
}

fn diagonal(points: impl Iterator<Item = [f32; 3]>) -> f64 {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for p in points {
        for ((l, h), x) in lo.iter_mut().zip(hi.iter_mut()).zip(p) {
            let x = f64::from(x);
            if x.is_finite() {
                *l = l.min(x);
                *h = h.max(x);
            }
        }
    }
    let d: f64 = lo
        .iter()
        .zip(&hi)
        .map(|(l, h)| if h >= l { (h - l).powi(2) } else { 0.0 })
        .sum();
    d.sqrt()
}
