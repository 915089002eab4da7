//! How far reduction moves vertices: a primitive skinned with its original influences
//! and with the reduced ones, at the rest pose, at every keyframe time of every animation
//! and between keyframes, compared vertex by vertex, within a work budget tied to the
//! input's size (spec/reduction.md §4).

use std::collections::HashMap;

mod figures;
mod nodes;
mod plan;

use dashvertex_core::Limits;
use dashvertex_core::par::prelude::*;
use dashvertex_gltf::Gltf;
use dashvertex_gltf::import::Primitive;

use crate::motion::{MotionPose, RangeOfMotion};
use crate::skin::Joints;
use crate::{Animation, Rig, Skin, SkinError, animations, skin_point};
use figures::{Best, rest_diagonal, summary, used_joints};
pub(crate) use nodes::Nodes;
pub(crate) use plan::{Plan, Posing, REST_SAMPLE, Sample};

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
pub(crate) const MATRIX_WORK: u64 = 16;

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
    let paired = Paired::read(original, reduced, &a, &b, limits)?;
    let skins = paired.skin_order();
    // dash's output keeps the node list and the node transforms: one hierarchy poses both
    // documents, and each skin takes its own joints from it.
    let rig = Rig::new(original);
    let nodes = Nodes::new(&rig, &skins.list, anims);
    let per_moment = moment_cost(&nodes, &skins.list, &paired.pairs);
    let affordable = (budget / per_moment).min(MAX_MOMENTS as u64);
    // No animation moves a joint: the range-of-motion poses over the joints the
    // original's vertices carry weight on (spec/reduction.md §4).
    let motion = if nodes.channels() == 0 {
        RangeOfMotion::new(used_joints(&paired.pairs, &paired.skins_a, rig.len()))
    } else {
        RangeOfMotion::default()
    };
    let (posing, plan) = posing_and_plan(&nodes, anims, &motion, affordable);
    let names = |n: usize| original.root.nodes.get(n).and_then(|n| n.name.clone());
    let best = largest_displacements(&paired.pairs, &skins, &nodes, &posing, &plan);
    // The skins' joint matrices at the rest pose: the box the figures are read against.
    let rest = skins.matrices(&nodes, &posing, &REST_SAMPLE);
    let mut out = Vec::with_capacity(paired.pairs.len());
    for ((pa, _, sa, _), best) in paired.pairs.iter().zip(&best) {
        if let Some((v, b)) = best.iter().enumerate().find(|(_, b)| b.non_finite) {
            return Err(SkinError::NonFiniteSkinning {
                mesh: pa.mesh,
                primitive: pa.primitive,
                vertex: v,
                at: plan.moment(&posing, b.at, &names).describe(),
            });
        }
        let at_rest = skins.slot_a.get(sa).and_then(|&i| rest.get(i));
        let diagonal = at_rest.map_or(0.0, |j| rest_diagonal(&pa.document.mesh, j));
        let mut loss = summary(pa, best, &plan, &posing, &names, diagonal);
        loss.pose_set = pose_set_of(&posing);
        out.push(loss);
    }
    Ok(out)
}

/// An original primitive, the reduced one it is compared with, and their skins.
pub(crate) type Pair<'p> = (&'p Primitive, &'p Primitive, usize, usize);

/// The primitives both documents hold with a skin, and each document's skins read once
/// (however many primitives use them).
pub(crate) struct Paired<'p> {
    pub(crate) pairs: Vec<Pair<'p>>,
    pub(crate) skins_a: HashMap<usize, Skin>,
    skins_b: HashMap<usize, Skin>,
}

impl<'p> Paired<'p> {
    /// Pairs the primitives of `a` (from `original`) with those of `b` (from `reduced`)
    /// by mesh and primitive, refusing a position that is not finite.
    pub(crate) fn read(
        original: &Gltf,
        reduced: &Gltf,
        a: &'p [Primitive],
        b: &'p [Primitive],
        limits: &Limits,
    ) -> Result<Paired<'p>, SkinError> {
        let by_key: HashMap<(usize, usize), &Primitive> =
            b.iter().map(|p| ((p.mesh, p.primitive), p)).collect();
        let mut skins_a: HashMap<usize, Skin> = HashMap::new();
        let mut skins_b: HashMap<usize, Skin> = HashMap::new();
        let mut pairs = Vec::new();
        for pa in a {
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
            finite_positions(pa)?;
            finite_positions(pb)?;
            pairs.push((pa, pb, sa, sb));
        }
        Ok(Paired {
            pairs,
            skins_a,
            skins_b,
        })
    }

    /// The skins in a fixed order: the original's, then the reduced document's, each by
    /// index.
    fn skin_order(&self) -> Skins<'_> {
        let mut s = Skins {
            list: Vec::new(),
            slot_a: HashMap::new(),
            slot_b: HashMap::new(),
        };
        for (skins, a) in [(&self.skins_a, true), (&self.skins_b, false)] {
            let mut keys: Vec<usize> = skins.keys().copied().collect();
            keys.sort_unstable();
            for k in keys {
                if let Some(skin) = skins.get(&k) {
                    let slots = if a { &mut s.slot_a } else { &mut s.slot_b };
                    slots.insert(k, s.list.len());
                    s.list.push(skin);
                }
            }
        }
        s
    }
}

/// Refuses a primitive with a position that is not finite.
pub(crate) fn finite_positions(p: &Primitive) -> Result<(), SkinError> {
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
    Ok(())
}

/// Both documents' skins in one list, with the place of each document's skin in it.
struct Skins<'s> {
    list: Vec<&'s Skin>,
    slot_a: HashMap<usize, usize>,
    slot_b: HashMap<usize, usize>,
}

impl Skins<'_> {
    /// Every skin's joint matrices at sample `s`.
    fn matrices(&self, nodes: &Nodes, posing: &Posing<'_>, s: &Sample) -> Vec<Joints> {
        let globals = nodes.globals(posing, s);
        self.list
            .iter()
            .map(|skin| skin.joint_matrices_by(|n| nodes.global(&globals, n)))
            .collect()
    }
}

/// Work units one moment costs: its node and joint matrices, its channels, and every
/// influence slot of both documents' primitives skinned.
fn moment_cost(nodes: &Nodes, skins: &[&Skin], pairs: &[Pair<'_>]) -> u64 {
    let joints: u64 = skins.iter().map(|s| s.joints.len() as u64).sum();
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
    MATRIX_WORK
        .saturating_mul((nodes.len() as u64).saturating_add(joints))
        .saturating_add(nodes.channels() as u64)
        .saturating_add(slots)
        .max(1)
}

/// What poses the moments (the animations when a channel drives a needed node, else
/// the range-of-motion poses) and the moments the budget affords.
pub(crate) fn posing_and_plan<'a>(
    nodes: &Nodes,
    anims: &'a [Animation],
    motion: &'a RangeOfMotion,
    affordable: u64,
) -> (Posing<'a>, Plan) {
    if nodes.channels() > 0 {
        (Posing::Animations(anims), Plan::new(anims, affordable))
    } else {
        let poses: Vec<f64> = (0..motion.len()).map(|k| k as f64).collect();
        (
            Posing::Motion(motion),
            Plan::of(&[(poses, false)], affordable),
        )
    }
}

/// The pose set a posing measures over.
fn pose_set_of(posing: &Posing<'_>) -> PoseSet {
    match posing {
        Posing::Animations(_) => PoseSet::Animations,
        Posing::Motion(m) if !m.is_empty() => PoseSet::RangeOfMotion,
        Posing::Motion(_) => PoseSet::RestPose,
    }
}

/// Each vertex's largest displacement over the plan's moments, per pair. Moments go in
/// batches whose joint matrices are held at once (at most about 32 MiB): the moments of
/// a batch in parallel, then the vertices in parallel; each result depends on nothing
/// else, so none depends on the threads.
fn largest_displacements(
    pairs: &[Pair<'_>],
    skins: &Skins<'_>,
    nodes: &Nodes,
    posing: &Posing<'_>,
    plan: &Plan,
) -> Vec<Vec<Best>> {
    let joints: usize = skins.list.iter().map(|s| s.joints.len()).sum();
    let batch = (BATCH_BYTES / joints.saturating_mul(96).max(1)).clamp(1, MOMENT_BATCH);
    let mut best: Vec<Vec<Best>> = pairs
        .iter()
        .map(|(pa, pb, _, _)| {
            vec![Best::default(); pa.document.mesh.len().min(pb.document.mesh.len())]
        })
        .collect();
    for (chunk, samples) in plan.samples.chunks(batch).enumerate() {
        let matrices: Vec<Vec<Joints>> = samples
            .par_iter()
            .map(|s| skins.matrices(nodes, posing, s))
            .collect();
        for ((pa, pb, sa, sb), best) in pairs.iter().zip(best.iter_mut()) {
            let (Some(&ia), Some(&ib)) = (skins.slot_a.get(sa), skins.slot_b.get(sb)) else {
                continue;
            };
            let (ma, mb) = (&pa.document.mesh, &pb.document.mesh);
            let first = chunk * batch;
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
    best
}

/// Moments whose joint matrices are held at once, at most.
const MOMENT_BATCH: usize = 64;

/// Bytes of joint matrices a batch of moments may hold.
const BATCH_BYTES: usize = 32 << 20;
