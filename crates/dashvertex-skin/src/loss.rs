//! How far reduction moves vertices: a primitive skinned with its original influences
//! and with the reduced ones, at the rest pose, at every keyframe time of every animation
//! and between keyframes, compared vertex by vertex, within a work budget tied to the
//! input's size (spec/reduction.md §4).

use std::collections::HashMap;

use dashvertex_core::Limits;
use dashvertex_gltf::Gltf;
use dashvertex_gltf::import::Primitive;
use rayon::prelude::*;

use crate::math::{IDENTITY, Mat4, mul};
use crate::motion::{MotionPose, RangeOfMotion, turn};
use crate::rig::Local;
use crate::skin::Joints;
use crate::{Animation, Channel, Interpolation, Rig, Skin, SkinError, animations, skin_point};

/// A moment the displacement was sampled at.
#[derive(Clone, Debug, PartialEq)]
pub struct Moment {
    /// The animation (`None`: the rest pose, or a range-of-motion pose).
    pub animation: Option<usize>,
    /// Its name, if it has one.
    pub name: Option<String>,
    /// Seconds into the animation (0 for the rest pose and the range-of-motion poses).
    pub time: f64,
    /// The range-of-motion pose (spec/reduction.md §4), when the loss was measured over
    /// them (no animation moves a joint) and this is one of them, not the rest pose.
    pub pose: Option<MotionPose>,
}

impl Moment {
    /// The moment in words: "at the rest pose", "in animation 2 ("walk") at t=0.500 s",
    /// "in range-of-motion pose 4: joint node 3 ("arm") turned +45° about its local Z axis".
    pub fn describe(&self) -> String {
        if let Some(p) = &self.pose {
            return p.describe();
        }
        match (self.animation, &self.name) {
            (None, _) => "at the rest pose".to_owned(),
            (Some(i), Some(n)) => format!("in animation {i} ({n:?}) at t={:.3} s", self.time),
            (Some(i), None) => format!("in animation {i} at t={:.3} s", self.time),
        }
    }
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

/// The poses a loss was measured over (spec/reduction.md §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoseSet {
    /// The rest pose and the animations' moments (the model's own, or a pose file's).
    Animations,
    /// No animation moves a joint: the rest pose and the range-of-motion poses, each used
    /// joint turned ±45° about its local X, Y and Z axes ([`RangeOfMotion`]).
    RangeOfMotion,
    /// The rest pose alone: no animation moves a joint, and no joint carries weight.
    RestPose,
}

impl PoseSet {
    /// The name the reduce report gives it: `animations`, `rangeOfMotion`, `restPose`.
    pub fn name(self) -> &'static str {
        match self {
            PoseSet::Animations => "animations",
            PoseSet::RangeOfMotion => "rangeOfMotion",
            PoseSet::RestPose => "restPose",
        }
    }
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
    /// The poses measured: the animations', or the range-of-motion poses when no
    /// animation moves a joint (the same for every primitive).
    pub pose_set: PoseSet,
    /// Moments sampled: the rest pose, keyframe times and moments between them (or the
    /// range-of-motion poses), as many as the work budget allows (the same for every
    /// primitive).
    pub moments: usize,
    /// Moments the sampling rule takes without a budget; more than [`Self::moments`]
    /// when the budget cut the sampling (spec/reduction.md §4).
    pub moments_full: usize,
    /// Of [`Self::moments`], the rest pose and keyframe times (the others are between
    /// keyframes); every range-of-motion pose counts as a keyframe.
    pub keyframe_moments: usize,
    /// Largest displacement, in model units.
    pub max: f64,
    /// Largest displacement at the rest pose and keyframe times only (between keyframes
    /// a curve can swing further than at its keys).
    pub max_at_keyframes: f64,
    /// 99th percentile (nearest rank) of the vertices' largest displacements.
    pub p99: f64,
    /// Mean of the vertices' largest displacements.
    pub mean: f64,
    /// The diagonal of the primitive's skinned rest-pose bounding box: its vertices
    /// skinned with their original influences at the rest pose, in the space the
    /// displacement is measured in (vertices without any weight left out), the scale the
    /// figures are read against. 0 when every vertex is at one place (the share of it
    /// is then undefined).
    pub diagonal: f64,
    /// The vertices that move most, largest first (at most 5).
    pub worst: Vec<Worst>,
}

/// The loss of every skinned primitive `reduced` shares with `original` (same meshes,
/// primitives, vertex order and nodes: what `dashvertex reduce` writes). Each document is
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
/// ([`crate::retarget`]), within [`work_budget`].
pub fn loss_with(
    original: &Gltf,
    reduced: &Gltf,
    anims: &[Animation],
    limits: &Limits,
) -> Result<Vec<PrimitiveLoss>, SkinError> {
    let budget = work_budget(original, anims);
    loss_within(original, reduced, anims, limits, budget)
}

/// Work units (one influence slot skinned; a node or joint matrix counts
/// `MATRIX_WORK`) a loss may take per byte of its input.
pub const WORK_PER_BYTE: u64 = 64;

/// Work units any loss may take, however small its input: about a second.
pub const WORK_FLOOR: u64 = 1 << 26;

/// Moments sampled inside each keyframe interval of an animation (at 1/4, 1/2 and 3/4
/// of it), unless every channel of the animation is STEP.
pub const INTERIOR_SAMPLES: usize = 3;

/// The most moments a loss is measured at, whatever the budget (each is held while the
/// loss is measured): 2^20.
pub const MAX_MOMENTS: usize = 1 << 20;

/// The work units a node or joint matrix counts: a 4 × 4 product is about sixteen
/// influence slots' worth.
const MATRIX_WORK: u64 = 16;

/// The budget [`loss_with`] measures within: [`WORK_PER_BYTE`] per byte of the original
/// (its JSON and buffers) and of the animations' distinct keyframe data (a pose file's,
/// for `--poses`), at least [`WORK_FLOOR`].
pub fn work_budget(original: &Gltf, anims: &[Animation]) -> u64 {
    let mut bytes = original.text.len() as u64;
    for b in original.buffers().flatten() {
        bytes = bytes.saturating_add(b.len() as u64);
    }
    // Channels of one sampler share its keyframes: each is counted once.
    let mut seen = std::collections::HashSet::new();
    for c in anims.iter().flat_map(|a| &a.channels) {
        for (at, len) in [
            (c.times.as_ptr().addr(), c.times.len()),
            (c.values.as_ptr().addr(), c.values.len()),
        ] {
            if seen.insert(at) {
                bytes = bytes.saturating_add(4 * len as u64);
            }
        }
    }
    bytes.saturating_mul(WORK_PER_BYTE).max(WORK_FLOOR)
}

/// [`loss_with`] within `budget` work units: when the sampling rule's moments cost more,
/// fewer interior samples are taken (1, then none), then the keyframe moments are
/// thinned evenly; [`PrimitiveLoss::moments_full`] says so.
pub fn loss_within(
    original: &Gltf,
    reduced: &Gltf,
    anims: &[Animation],
    limits: &Limits,
    budget: u64,
) -> Result<Vec<PrimitiveLoss>, SkinError> {
    let a = dashvertex_gltf::import::import(original, limits).map_err(SkinError::Import)?;
    let b = dashvertex_gltf::import::import(reduced, limits).map_err(SkinError::Import)?;
    let by_key: HashMap<(usize, usize), &Primitive> =
        b.iter().map(|p| ((p.mesh, p.primitive), p)).collect();
    // Each skin read once per document, however many primitives use it.
    let mut skins_a: HashMap<usize, Skin> = HashMap::new();
    let mut skins_b: HashMap<usize, Skin> = HashMap::new();
    let mut pairs = Vec::new();
    for pa in &a {
        let Some(&pb) = by_key.get(&(pa.mesh, pa.primitive)) else {
            continue;
        };
        let (Some(sa), Some(sb)) = (pa.skin, pb.skin) else {
            continue;
        };
        if let std::collections::hash_map::Entry::Vacant(e) = skins_a.entry(sa) {
            e.insert(Skin::read(original, sa, limits)?);
        }
        if let std::collections::hash_map::Entry::Vacant(e) = skins_b.entry(sb) {
            e.insert(Skin::read(reduced, sb, limits)?);
        }
        for p in [pa, pb] {
            for (v, vertex) in p.document.mesh.vertices().iter().enumerate() {
                if let Some(&value) = vertex.position.iter().find(|c| !c.is_finite()) {
                    return Err(SkinError::NonFinitePosition {
                        mesh: p.mesh,
                        primitive: p.primitive,
                        vertex: v,
                        value,
                    });
                }
            }
        }
        pairs.push((pa, pb, sa, sb));
    }
    // The skins in a fixed order: the original's, then the reduced document's.
    let mut skin_list: Vec<&Skin> = Vec::new();
    let mut slot_a: HashMap<usize, usize> = HashMap::new();
    let mut slot_b: HashMap<usize, usize> = HashMap::new();
    let mut keys_a: Vec<usize> = skins_a.keys().copied().collect();
    let mut keys_b: Vec<usize> = skins_b.keys().copied().collect();
    keys_a.sort_unstable();
    keys_b.sort_unstable();
    for (keys, skins, slots) in [
        (&keys_a, &skins_a, &mut slot_a),
        (&keys_b, &skins_b, &mut slot_b),
    ] {
        for k in keys {
            if let Some(s) = skins.get(k) {
                slots.insert(*k, skin_list.len());
                skin_list.push(s);
            }
        }
    }
    // dash's output keeps the node list and the node transforms: one hierarchy poses both
    // documents, and each skin takes its own joints from it.
    let rig = Rig::new(original);
    let nodes = Nodes::new(&rig, &skin_list, anims);
    let joints: u64 = skin_list.iter().map(|s| s.joints.len() as u64).sum();
    let slots: u64 = pairs
        .iter()
        .map(|(pa, pb, _, _)| {
            let m = |p: &Primitive| {
                let mesh = &p.document.mesh;
                (mesh.len() as u64).saturating_mul(4 * mesh.set_count() as u64)
            };
            m(pa).saturating_add(m(pb))
        })
        .sum();
    let per_moment = MATRIX_WORK
        .saturating_mul((nodes.len() as u64).saturating_add(joints))
        .saturating_add(nodes.channels() as u64)
        .saturating_add(slots)
        .max(1);
    let affordable = (budget / per_moment).min(MAX_MOMENTS as u64);
    // No animation moves a joint: the range-of-motion poses over the joints the
    // original's vertices carry weight on (spec/reduction.md §4).
    let motion = if nodes.channels() == 0 {
        RangeOfMotion::new(used_joints(&pairs, &skins_a, rig.len()))
    } else {
        RangeOfMotion::default()
    };
    let (posing, plan) = if nodes.channels() > 0 {
        (Posing::Animations(anims), Plan::new(anims, affordable))
    } else {
        let poses: Vec<f64> = (0..motion.len()).map(|k| k as f64).collect();
        (
            Posing::Motion(&motion),
            Plan::of(&[(poses, false)], affordable),
        )
    };
    let pose_set = match posing {
        Posing::Animations(_) => PoseSet::Animations,
        Posing::Motion(m) if !m.is_empty() => PoseSet::RangeOfMotion,
        Posing::Motion(_) => PoseSet::RestPose,
    };
    let names = |n: usize| original.root.nodes.get(n).and_then(|n| n.name.clone());
    // Joint matrices are held for a batch of moments at a time, at most about 32 MiB.
    let per_moment_bytes = usize::try_from(joints)
        .unwrap_or(usize::MAX)
        .saturating_mul(96)
        .max(1);
    let batch = (BATCH_BYTES / per_moment_bytes).clamp(1, MOMENT_BATCH);
    let mut best: Vec<Vec<Best>> = pairs
        .iter()
        .map(|(pa, pb, _, _)| {
            vec![Best::default(); pa.document.mesh.len().min(pb.document.mesh.len())]
        })
        .collect();
    for (chunk, samples) in plan.samples.chunks(batch).enumerate() {
        // Each moment's joint matrices, for every skin: the moments of a batch in
        // parallel, each computed alone, so the result does not depend on the threads.
        let matrices: Vec<Vec<Joints>> = samples
            .par_iter()
            .map(|s| {
                let globals = nodes.globals(&posing, s);
                skin_list
                    .iter()
                    .map(|skin| skin.joint_matrices_by(|n| nodes.global(&globals, n)))
                    .collect()
            })
            .collect();
        for ((pa, pb, sa, sb), best) in pairs.iter().zip(best.iter_mut()) {
            let (Some(&ia), Some(&ib)) = (slot_a.get(sa), slot_b.get(sb)) else {
                continue;
            };
            let (ma, mb) = (&pa.document.mesh, &pb.document.mesh);
            let first = chunk * batch;
            // Vertices in parallel: each vertex's result depends on nothing else.
            best.par_iter_mut()
                .enumerate()
                .with_min_len(4096)
                .for_each(|(v, most)| {
                    let p = ma.vertices().get(v).map_or([0.0; 3], |x| x.position);
                    for (k, (m, sample)) in matrices.iter().zip(samples).enumerate() {
                        let (Some(ja), Some(jb)) = (m.get(ia), m.get(ib)) else {
                            continue;
                        };
                        let x = skin_point(p, ma.sets_of(v), ja);
                        let y = skin_point(p, mb.sets_of(v), jb);
                        let d =
                            ((x[0] - y[0]).powi(2) + (x[1] - y[1]).powi(2) + (x[2] - y[2]).powi(2))
                                .sqrt();
                        most.add(d, first + k, sample.key);
                    }
                });
        }
    }
    // The skins' joint matrices at the rest pose: the box the figures are read against.
    let rest: Vec<Joints> = {
        let globals = nodes.globals(&posing, &REST_SAMPLE);
        skin_list
            .iter()
            .map(|skin| skin.joint_matrices_by(|n| nodes.global(&globals, n)))
            .collect()
    };
    let mut out = Vec::with_capacity(pairs.len());
    for ((pa, _, sa, _), best) in pairs.iter().zip(&best) {
        if let Some((v, b)) = best.iter().enumerate().find(|(_, b)| b.non_finite) {
            return Err(SkinError::NonFiniteSkinning {
                mesh: pa.mesh,
                primitive: pa.primitive,
                vertex: v,
                at: plan.moment(&posing, b.at, &names).describe(),
            });
        }
        let at_rest = slot_a.get(sa).and_then(|&i| rest.get(i));
        let diagonal = at_rest.map_or(0.0, |j| rest_diagonal(&pa.document.mesh, j));
        let mut loss = summary(pa, best, &plan, &posing, &names, diagonal);
        loss.pose_set = pose_set;
        out.push(loss);
    }
    Ok(out)
}

/// The nodes the original's vertices carry a non-zero weight on, through their skins'
/// joint lists: the joints the range-of-motion poses turn. Nodes past the last are left
/// out.
fn used_joints(
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
fn rest_diagonal(mesh: &dashvertex_core::Mesh, joints: &Joints) -> f64 {
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

/// Moments whose joint matrices are held at once, at most.
const MOMENT_BATCH: usize = 64;

/// Bytes of joint matrices a batch of moments may hold.
const BATCH_BYTES: usize = 32 << 20;

/// One vertex's largest displacement so far.
#[derive(Clone, Copy, Debug, Default)]
struct Best {
    /// The largest displacement.
    d: f64,
    /// The sample it was at.
    at: usize,
    /// The largest at the rest pose and keyframe times.
    at_keys: f64,
    /// A displacement was NaN or infinite (the first such sample is `at`).
    non_finite: bool,
}

impl Best {
    fn add(&mut self, d: f64, sample: usize, key: bool) {
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
fn summary(
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

/// One sampled moment: an animation (its position in the list given) at a time, or the
/// rest pose; when the loss is measured over the range-of-motion poses, their one
/// sequence, the pose numbered `index`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Sample {
    /// Position in the sequences' list; `None` for the rest pose.
    anim: Option<usize>,
    /// Seconds.
    time: f64,
    /// The rest pose or a keyframe time (not a moment between keyframes).
    key: bool,
    /// The keyframe's place in its sequence (for a moment between keyframes, the one
    /// before it).
    index: usize,
}

/// The rest pose, always the first moment.
const REST_SAMPLE: Sample = Sample {
    anim: None,
    time: 0.0,
    key: true,
    index: 0,
};

/// What poses the moments: the animations, or the range-of-motion poses.
enum Posing<'a> {
    /// Sample `anim` is the animation at that position in the list.
    Animations(&'a [Animation]),
    /// Sample `index` of the one sequence is that range-of-motion pose.
    Motion(&'a RangeOfMotion),
}

/// The moments a loss is measured at (spec/reduction.md §4): the rest pose; each
/// animation's keyframe times (every channel's, each once) with [`INTERIOR_SAMPLES`]
/// moments inside each interval between them (none for an animation whose channels are
/// all STEP: nothing moves between its keys). When more moments than the budget affords,
/// one interior moment per interval, then none; then the keyframe moments evenly
/// thinned: of K, the ⌊i × K / m⌋-th for i < m, m = what the budget affords less the
/// rest pose.
struct Plan {
    samples: Vec<Sample>,
    /// The moments without a budget.
    full: usize,
}

impl Plan {
    /// The moments of `anims`.
    fn new(anims: &[Animation], affordable: u64) -> Plan {
        let times: Vec<(Vec<f64>, bool)> = anims
            .iter()
            .map(|a| {
                let moves_between = a
                    .channels
                    .iter()
                    .any(|c| c.interpolation != Interpolation::Step);
                (a.times(), moves_between)
            })
            .collect();
        Plan::of(&times, affordable)
    }

    /// The moments of sequences of keyframe times, each with whether anything moves
    /// between its keys.
    fn of(times: &[(Vec<f64>, bool)], affordable: u64) -> Plan {
        let count = |interior: usize| -> usize {
            1 + times
                .iter()
                .map(|(t, between)| {
                    let gaps = if *between {
                        t.len().saturating_sub(1)
                    } else {
                        0
                    };
                    t.len().saturating_add(gaps.saturating_mul(interior))
                })
                .fold(0usize, usize::saturating_add)
        };
        let full = count(INTERIOR_SAMPLES);
        let affordable = usize::try_from(affordable).unwrap_or(usize::MAX).max(1);
        let mut samples = vec![REST_SAMPLE];
        if let Some(interior) = [INTERIOR_SAMPLES, 1, 0]
            .into_iter()
            .find(|&s| count(s) <= affordable)
        {
            samples.reserve(count(interior).saturating_sub(1));
            for (i, (t, between)) in times.iter().enumerate() {
                for (k, &t0) in t.iter().enumerate() {
                    samples.push(Sample {
                        anim: Some(i),
                        time: t0,
                        key: true,
                        index: k,
                    });
                    let Some(&t1) = t.get(k + 1).filter(|_| *between) else {
                        continue;
                    };
                    for q in 1..=interior {
                        samples.push(Sample {
                            anim: Some(i),
                            time: t0 + (t1 - t0) * q as f64 / (interior + 1) as f64,
                            key: false,
                            index: k,
                        });
                    }
                }
            }
        } else {
            let keys = count(0) - 1;
            let keep = affordable - 1;
            samples.reserve(keep);
            // The ⌊i × K / m⌋-th keyframe moment, for i = 0, 1, … m − 1.
            let mut i = 0usize;
            let mut next = 0usize;
            let mut k = 0usize;
            'all: for (a, (t, _)) in times.iter().enumerate() {
                for (index, &time) in t.iter().enumerate() {
                    if i >= keep {
                        break 'all;
                    }
                    if k == next {
                        samples.push(Sample {
                            anim: Some(a),
                            time,
                            key: true,
                            index,
                        });
                        i += 1;
                        next = usize::try_from((i as u128 * keys as u128) / keep.max(1) as u128)
                            .unwrap_or(usize::MAX);
                    }
                    k += 1;
                }
            }
        }
        Plan { samples, full }
    }

    /// Sample `k` as a [`Moment`] of the document's animations or range-of-motion
    /// poses (joints named by `names`).
    fn moment(
        &self,
        posing: &Posing<'_>,
        k: usize,
        names: &dyn Fn(usize) -> Option<String>,
    ) -> Moment {
        let Some(s) = self.samples.get(k) else {
            return REST;
        };
        match (posing, s.anim) {
            (_, None) => REST,
            (Posing::Animations(anims), Some(i)) => match anims.get(i) {
                Some(a) => Moment {
                    animation: Some(a.index),
                    name: a.name.clone(),
                    time: s.time,
                    pose: None,
                },
                None => REST,
            },
            (Posing::Motion(m), Some(_)) => Moment {
                pose: m.pose(s.index, names),
                ..REST
            },
        }
    }
}

const REST: Moment = Moment {
    animation: None,
    name: None,
    time: 0.0,
    pose: None,
};

/// The nodes skinning needs (every joint of the skins and their ancestors), numbered
/// compactly parents first, with their rest transforms and the channels that drive
/// them: a moment costs these nodes and channels, not every node of the document.
struct Nodes {
    /// Compact number of each document node, `u32::MAX` for nodes no joint needs.
    compact: Vec<u32>,
    /// Compact parent of each needed node.
    parent: Vec<Option<usize>>,
    /// Rest transform of each needed node.
    rest: Vec<Local>,
    /// Per animation: (compact node, channel) for the channels on needed nodes.
    channels: Vec<Vec<(usize, usize)>>,
}

impl Nodes {
    fn new(rig: &Rig, skins: &[&Skin], anims: &[Animation]) -> Nodes {
        let needed = rig.needed(skins.iter().flat_map(|s| s.joints.iter().copied()));
        let mut compact = vec![u32::MAX; rig.len()];
        for (c, &n) in needed.iter().enumerate() {
            if let Some(slot) = compact.get_mut(n) {
                *slot = u32::try_from(c).unwrap_or(u32::MAX);
            }
        }
        let of = |n: usize| -> Option<usize> {
            compact
                .get(n)
                .copied()
                .filter(|&c| c != u32::MAX)
                .and_then(|c| usize::try_from(c).ok())
        };
        let parent = needed.iter().map(|&n| rig.parent(n).and_then(of)).collect();
        let rest = needed
            .iter()
            .map(|&n| {
                rig.rest()
                    .local
                    .get(n)
                    .copied()
                    .unwrap_or(Local::Matrix(IDENTITY))
            })
            .collect();
        let channels = anims
            .iter()
            .map(|a| {
                a.channels
                    .iter()
                    .enumerate()
                    .filter_map(|(i, c)| Some((of(c.node)?, i)))
                    .collect()
            })
            .collect();
        Nodes {
            compact,
            parent,
            rest,
            channels,
        }
    }

    /// Needed nodes.
    fn len(&self) -> usize {
        self.rest.len()
    }

    /// Channels on needed nodes, over every animation.
    fn channels(&self) -> usize {
        self.channels.iter().map(Vec::len).sum()
    }

    /// The global matrix of every needed node at sample `s`, by compact number.
    fn globals(&self, posing: &Posing<'_>, s: &Sample) -> Vec<Mat4> {
        let mut local = self.rest.clone();
        match (posing, s.anim) {
            (_, None) => {}
            (Posing::Animations(anims), Some(i)) => {
                let drive = self.channels.get(i).map_or(&[][..], Vec::as_slice);
                let chans: &[Channel] = anims.get(i).map_or(&[][..], |a| &a.channels);
                for &(n, c) in drive {
                    if let (Some(l), Some(c)) = (local.get_mut(n), chans.get(c)) {
                        c.apply(l, s.time);
                    }
                }
            }
            (Posing::Motion(m), Some(_)) => {
                if let Some((node, axis, degrees)) = m.turn_at(s.index) {
                    let c = self.compact.get(node).copied().filter(|&c| c != u32::MAX);
                    let slot = c
                        .and_then(|c| usize::try_from(c).ok())
                        .and_then(|c| local.get_mut(c));
                    if let Some(l) = slot {
                        turn(l, axis, degrees);
                    }
                }
            }
        }
        let mut g: Vec<Mat4> = Vec::with_capacity(local.len());
        for (i, l) in local.iter().enumerate() {
            let m = l.matrix();
            let m = match self.parent.get(i).copied().flatten() {
                Some(p) => mul(g.get(p).unwrap_or(&IDENTITY), &m),
                None => m,
            };
            g.push(m);
        }
        g
    }

    /// Document node `n`'s global matrix among `globals`, if skinning needs it.
    fn global<'g>(&self, globals: &'g [Mat4], n: usize) -> Option<&'g Mat4> {
        let c = self.compact.get(n).copied().filter(|&c| c != u32::MAX)?;
        globals.get(usize::try_from(c).ok()?)
    }
}

/// The diagonal of the box from `lo` to `hi` (0 for an empty box).
fn diagonal_of(lo: [f64; 3], hi: [f64; 3]) -> f64 {
    let d: f64 = lo
        .iter()
        .zip(&hi)
        .map(|(l, h)| if h >= l { (h - l).powi(2) } else { 0.0 })
        .sum();
    d.sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn anim(times: &[f64], interpolation: Interpolation) -> Animation {
        Animation {
            index: 0,
            name: None,
            channels: vec![Channel {
                node: 0,
                path: crate::Path::Translation,
                interpolation,
                times: Arc::from(times),
                values: Arc::from(vec![0.0; times.len() * 9]),
            }],
        }
    }

    #[test]
    fn the_sampling_rule_takes_interior_moments_then_thins_keyframes() {
        // spec: LS1
        let a = [anim(&[0.0, 1.0, 2.0], Interpolation::Linear)];
        let times = |p: &Plan| p.samples.iter().map(|s| s.time).collect::<Vec<_>>();
        // Unlimited: rest, 3 keys, 3 interior moments in each of 2 intervals.
        let p = Plan::new(&a, u64::MAX);
        assert_eq!(p.full, 1 + 3 + 6);
        assert_eq!(
            times(&p),
            [0.0, 0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0]
        );
        // Room for 6: one interior moment per interval.
        let p = Plan::new(&a, 6);
        assert_eq!(times(&p), [0.0, 0.0, 0.5, 1.0, 1.5, 2.0]);
        assert_eq!(p.full, 10);
        // Room for 4: the keyframes alone.
        assert_eq!(times(&Plan::new(&a, 4)), [0.0, 0.0, 1.0, 2.0]);
        // Room for 3: the rest pose and 2 of the 3 keyframes, evenly.
        let p = Plan::new(&a, 3);
        assert_eq!(times(&p), [0.0, 0.0, 1.0]);
        assert!(p.samples.iter().all(|s| s.key));
        // STEP moves nothing between keys: no interior moments.
        let step = [anim(&[0.0, 1.0, 2.0], Interpolation::Step)];
        assert_eq!(Plan::new(&step, u64::MAX).full, 4);
        // Thinning spreads over every animation, in order.
        let many: Vec<f64> = (0..1000).map(f64::from).collect();
        let p = Plan::new(&[anim(&many, Interpolation::Step)], 11);
        assert_eq!(
            times(&p),
            [
                0.0, 0.0, 100.0, 200.0, 300.0, 400.0, 500.0, 600.0, 700.0, 800.0, 900.0
            ]
        );
    }
}
