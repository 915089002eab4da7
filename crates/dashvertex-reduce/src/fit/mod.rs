//! Fitted reduction (`spec/reduction.md` §6): after the plain reduction keeps each
//! vertex's K heaviest influences, [`fit`] looks, for every vertex that lost weight, for
//! the K bones and the weights (non-negative, summing to one, exact in the storage) that
//! minimize the vertex's squared displacement from its full-influence skinning summed
//! over a pose set ([`Poses`]), and writes them only where they move the vertex less
//! than the plain weights do. So the fitted output is never worse than plain top-K at any
//! vertex on that objective; vertices that dropped nothing are not touched.
//!
//! - [`poses`]: the pose set's joint matrices, evaluated once per pose.
//! - `gram`: the poses folded once per bone pair; each vertex's Gram matrix from them.
//! - `solve`: the objective, the constrained least squares, the greedy support search.
//! - `vertex`: one vertex, its two candidate supports and its exact weights.
//! - [`support`]: one vertex's weights fitted on bones another rule chose (split).
//! - [`precision`]: the storage (float, unorm16, unorm8) chosen by an error budget.
//! - [`gltf`]: a whole glTF run with the fit and the storage choice.

pub mod gltf;
mod gram;
pub mod poses;
pub mod precision;
mod solve;
pub mod support;
mod vertex;

use dashvertex_core::par::prelude::*;

pub use gram::DENSE_BONES;
pub use poses::{MAX_POSE_GROUPS, Poses, Rows};

use crate::input::{CandidateBlock, Input};
use crate::reduce::{Config, Dropped, Normalize, Reduced, bone_label};
use vertex::{Choice, Ctx, Outcome, Scratch, fit_vertex, plain_by_group};

/// The most influences per vertex a fit keeps (K): the greedy search solves K systems of
/// up to K + 1 unknowns per vertex.
pub const MAX_FIT_INFLUENCES: usize = 16;

/// How a fit runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitOptions {
    /// Work units (one multiply-add) the fit may spend on the pose set: when folding the
    /// poses (or, past [`DENSE_BONES`] used bones, skinning every candidate at every pose)
    /// would cost more, the poses are thinned evenly (of P, the ⌊i × P / m⌋-th for i < m)
    /// to what it affords, at least one.
    pub max_work: u64,
    /// Used bones up to which the poses are folded per bone pair ([`DENSE_BONES`]).
    pub dense_bones: usize,
    /// How much the pose set's later groups (a glTF input's range of motion) count
    /// against the first (its animations) once both are weighed to count alike: 1 by
    /// default, 0 for the first group alone, above 1 to favour the later ones. It applies
    /// only when every group moves a sampled vertex (`spec/reduction.md`, rule RF1);
    /// finite and at least 0 ([`FitError::MotionWeight`]).
    pub motion_weight: f64,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            max_work: u64::MAX,
            dense_bones: DENSE_BONES,
            motion_weight: 1.0,
        }
    }
}

/// What a fit did, beside the plain reduction's [`crate::Report`].
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FitReport {
    /// Vertices that lost weight in the plain reduction, so the fit looked at them.
    pub considered: u64,
    /// Of those, vertices written with fitted weights (the rest keep the plain ones,
    /// which no fit improved).
    pub fitted: u64,
    /// Of the fitted, vertices whose bones came from the greedy support search rather
    /// than the plain top K.
    pub greedy_support: u64,
    /// Influences the plain reduction kept that the fitted vertices no longer hold
    /// (their fitted weight was 0), beside those it dropped already.
    pub left_out: u64,
    /// Poses the objective was summed over.
    pub poses: u64,
    /// Poses given; more than `poses` when the work budget thinned them.
    pub poses_given: u64,
    /// Over a pose set in groups (`Poses::begin_group`; for an animated glTF input the
    /// animations and the range of motion), the weight of each group's squared
    /// displacement in the objective: 1 for the first, and for each other the first's
    /// plain displacement over its own, so every group counts alike (`spec/reduction.md`,
    /// rule RF1). Empty when the set is not in groups.
    pub pose_group_weights: Vec<f64>,
    /// Sum over the considered vertices of the plain output's objective: its squared
    /// displacement summed over the poses, each weighed by its group's weight (model
    /// units squared).
    pub objective_plain: f64,
    /// The same for the output written.
    pub objective_fitted: f64,
}

/// Why a fit cannot run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FitError {
    /// The weights do not sum to one (`Normalize::None`): the fit's constraint is the
    /// glTF rule.
    #[error("fitted weights sum to one: the fit needs unit normalization")]
    NeedsUnit,
    /// A threshold is set: fitted weights are not bounded below.
    #[error("the fit chooses every weight; it cannot be combined with a minimum weight")]
    Threshold,
    /// [`FitOptions::motion_weight`] is negative or not finite.
    #[error("the range of motion's weight is a finite number of at least 0, not {0}")]
    MotionWeight(String),
    /// K is above [`MAX_FIT_INFLUENCES`].
    #[error("the fit keeps at most {MAX_FIT_INFLUENCES} influences per vertex, not {0}")]
    TooManyInfluences(usize),
    /// Positions and vertices differ in number.
    #[error("{positions} positions for {vertices} vertices")]
    Positions {
        /// Positions given.
        positions: usize,
        /// Vertices in the input.
        vertices: usize,
    },
    /// The reduced output is not the one of this input.
    #[error("the reduced output holds {got} influence sets, not {sets} per vertex of the input")]
    Reduced {
        /// Sets held.
        got: usize,
        /// Sets per vertex.
        sets: usize,
    },
}

/// Vertices per parallel chunk of the fit.
const CHUNK: usize = 1 << 12;

/// Refits `reduced` (the plain reduction of `input` with `cfg`, `map` its output bone
/// indices) in place over `poses`, with `positions` one per vertex. Deterministic at any
/// thread count: every vertex is fitted alone, and chunks of fixed size are joined in
/// order.
pub fn fit(
    input: &Input<'_>,
    map: &[u32],
    positions: &[[f32; 3]],
    poses: &Poses,
    cfg: &Config,
    opts: &FitOptions,
    reduced: &mut Reduced,
) -> Result<FitReport, FitError> {
    fit_used(input, map, positions, poses, cfg, opts, None, reduced)
}

/// [`fit`], with the bones any vertex names with a positive weight ([`used_bones`]) when
/// the caller has them already (a whole pass over the input saved).
#[allow(
    clippy::too_many_arguments,
    reason = "fit's arguments and what the caller knows of them"
)]
pub(crate) fn fit_used(
    input: &Input<'_>,
    map: &[u32],
    positions: &[[f32; 3]],
    poses: &Poses,
    cfg: &Config,
    opts: &FitOptions,
    used: Option<&[bool]>,
    reduced: &mut Reduced,
) -> Result<FitReport, FitError> {
    check(input, positions, cfg, reduced)?;
    if !(opts.motion_weight.is_finite() && opts.motion_weight >= 0.0) {
        return Err(FitError::MotionWeight(opts.motion_weight.to_string()));
    }
    let sets = reduced.sets.max(1);
    let given = poses.len() as u64;
    let found;
    let used = match used {
        Some(u) => u,
        None => {
            found = used_bones(input, poses.bones());
            &found
        }
    };
    let thinned = thin(poses, used, input, opts);
    let poses = thinned.as_ref().unwrap_or(poses);
    let table = gram::Table::new(poses, used, opts.dense_bones);
    let ctx = Ctx {
        input,
        map,
        positions,
        table: &table,
        k: cfg.max_influences.min(sets * 4),
        qmax: cfg.quantize.max(),
    };
    // A grouped pose set: its groups weighed (from a sample of the plain output) and
    // folded into one table.
    let (weighed, weights) = if table.groups() > 1 {
        let w = group_weights(&ctx, reduced, opts.motion_weight);
        (Some(table.weighed(&w)), w)
    } else {
        (None, Vec::new())
    };
    let ctx = match &weighed {
        Some(t) => Ctx { table: t, ..ctx },
        None => ctx,
    };
    let mut ints = reduced
        .integers
        .as_mut()
        .map(|q| q.chunks_mut(CHUNK * sets))
        .into_iter()
        .flatten();
    let parts: Vec<_> = reduced
        .influences
        .chunks_mut(CHUNK * sets)
        .enumerate()
        .map(|(c, s)| (c, s, ints.next()))
        .collect();
    // Each chunk tallies its vertices in order (nothing is held per vertex); the
    // chunks, of fixed size, are joined in order: the same sums at any thread count.
    let chunks: Vec<Tally> = parts
        .into_par_iter()
        .map_init(Scratch::default, |sc, (c, s, mut q)| {
            let mut t = Tally::default();
            for (i, vs) in s.chunks_mut(sets).enumerate() {
                let v = c * CHUNK + i;
                let vq = q
                    .as_deref_mut()
                    .and_then(|q| q.get_mut(i * sets..(i + 1) * sets));
                t.add(v, &fit_vertex(&ctx, v, vs, vq, sc));
            }
            t
        })
        .collect();
    let mut report = FitReport {
        poses: poses.len() as u64,
        poses_given: given,
        pose_group_weights: weights,
        ..FitReport::default()
    };
    let mut all = Tally::default();
    for t in chunks {
        all.join(t);
    }
    report.considered = all.considered;
    report.fitted = all.fitted;
    report.greedy_support = all.greedy;
    report.left_out = all.left_out;
    report.objective_plain = all.plain;
    report.objective_fitted = all.written;
    let largest = all.largest.map(|(w, v, bone, by_fit)| {
        let why = if by_fit { " (left out by the fit)" } else { "" };
        Dropped {
            weight: w,
            vertex: v,
            bone,
            at: format!("vertex {v}, {}{why}", bone_label(input, map, bone)),
        }
    });
    if report.fitted > 0 {
        reduced.report.largest_dropped = largest;
    }
    Ok(report)
}

/// Vertices sampled to weigh the pose groups: the ⌊i × V / S⌋-th of V, i < S.
const WEIGH_SAMPLES: usize = 4096;

/// The weights of a grouped pose set (`spec/reduction.md` \[RF1\]): over the sampled vertices the plain
/// output lost weight at, each group's summed squared displacement S_g; group g > 0 weighs
/// `motion` × S_0 / S_g. When a group's displacement is rounding only (at most 10⁻¹² of its
/// scale, as with the rest pose alone), or no sampled vertex lost weight, every group
/// weighs 1.
fn group_weights(ctx: &Ctx<'_>, reduced: &Reduced, motion: f64) -> Vec<f64> {
    let groups = ctx.table.groups();
    let (count, sets) = (ctx.input.len(), reduced.sets.max(1));
    let samples = count.min(WEIGH_SAMPLES);
    let mut sums = vec![(0.0f64, 0.0f64); groups];
    let (mut sc, mut out) = (Scratch::default(), Vec::new());
    for i in 0..samples {
        let v = usize::try_from(i as u128 * count as u128 / samples as u128).unwrap_or(0);
        let Some(vs) = reduced.influences.get(v * sets..(v + 1) * sets) else {
            continue;
        };
        if plain_by_group(ctx, v, vs, &mut sc, &mut out).is_none() {
            continue;
        }
        for (sum, &(e, scale)) in sums.iter_mut().zip(&out) {
            sum.0 += e;
            sum.1 += scale;
        }
    }
    let moved = |&(e, scale): &(f64, f64)| e.is_finite() && scale.is_finite() && e > 1e-12 * scale;
    match sums.first() {
        Some(&(first, _)) if sums.iter().all(moved) => {
            let later = |g: usize| if g == 0 { 1.0 } else { motion };
            sums.iter()
                .enumerate()
                .map(|(g, s)| later(g) * first / s.0)
                .collect()
        }
        _ => vec![1.0; groups],
    }
}

/// What the fit did to a run of vertices.
#[derive(Default)]
struct Tally {
    considered: u64,
    fitted: u64,
    greedy: u64,
    left_out: u64,
    plain: f64,
    written: f64,
    /// The heaviest candidate left out: (weight, vertex, output bone, by the fit).
    largest: Option<(f32, u64, u32, bool)>,
}

impl Tally {
    /// Adds vertex `v`'s outcome.
    fn add(&mut self, v: usize, o: &Outcome) {
        if o.choice == Choice::Untouched {
            return;
        }
        self.considered += 1;
        self.plain += o.plain;
        self.written += o.written;
        if matches!(o.choice, Choice::TopK | Choice::Greedy) {
            self.fitted += 1;
            self.greedy += u64::from(o.choice == Choice::Greedy);
            self.left_out += o.kept_plain.saturating_sub(o.kept) as u64;
        }
        if let Some((w, bone, by_fit)) = o.dropped {
            self.note(w, v as u64, bone, by_fit);
        }
    }

    /// Keeps `(w, v, bone)` when it is the heaviest left out so far (as heavy: the
    /// earlier vertex, then the lower bone).
    fn note(&mut self, w: f32, v: u64, bone: u32, by_fit: bool) {
        let beats = self
            .largest
            .is_none_or(|(lw, lv, lb, _)| w > lw || (w == lw && (v, bone) < (lv, lb)));
        if beats {
            self.largest = Some((w, v, bone, by_fit));
        }
    }

    /// Adds the tally of the vertices that follow.
    fn join(&mut self, later: Tally) {
        self.considered += later.considered;
        self.fitted += later.fitted;
        self.greedy += later.greedy;
        self.left_out += later.left_out;
        self.plain += later.plain;
        self.written += later.written;
        if let Some((w, v, b, f)) = later.largest {
            self.note(w, v, b, f);
        }
    }
}

/// Refuses settings and inputs the fit cannot run with.
fn check(
    input: &Input<'_>,
    positions: &[[f32; 3]],
    cfg: &Config,
    reduced: &Reduced,
) -> Result<(), FitError> {
    if cfg.normalize != Normalize::Unit {
        return Err(FitError::NeedsUnit);
    }
    if cfg.min_weight > 0.0 {
        return Err(FitError::Threshold);
    }
    if cfg.max_influences > MAX_FIT_INFLUENCES {
        return Err(FitError::TooManyInfluences(cfg.max_influences));
    }
    if positions.len() != input.len() {
        return Err(FitError::Positions {
            positions: positions.len(),
            vertices: input.len(),
        });
    }
    let sets = reduced.sets.max(1);
    if reduced.influences.len() != input.len() * sets {
        return Err(FitError::Reduced {
            got: reduced.influences.len(),
            sets,
        });
    }
    Ok(())
}

/// Which input bones (below `bones`) any vertex names with a positive weight: the bones
/// the fit folds poses for, and a glTF input's range of motion turns.
pub fn used_bones(input: &Input<'_>, bones: usize) -> Vec<bool> {
    (0..input.len())
        .into_par_iter()
        .with_min_len(CHUNK)
        .fold(
            || (vec![false; bones], Vec::new(), CandidateBlock::default()),
            |(mut used, mut cands, mut block), v| {
                input.candidates_near(v, &mut block, &mut cands);
                for c in &cands {
                    if c.weight > 0.0
                        && let Some(u) = used.get_mut(c.bone as usize)
                    {
                        *u = true;
                    }
                }
                (used, cands, block)
            },
        )
        .map(|x| x.0)
        .reduce(
            || vec![false; bones],
            |a, b| a.iter().zip(&b).map(|(x, y)| *x || *y).collect(),
        )
}

/// Work units folding one pose into the pair table costs for `bones` used bones: 48 per
/// pair of them (`spec/reduction.md` \[RF3\]).
pub fn fold_work(bones: usize) -> u64 {
    let bones = bones as u64;
    bones.saturating_mul(bones + 1) / 2 * 48
}

/// The poses thinned evenly to what `opts.max_work` affords, or `None` when all fit.
fn thin(poses: &Poses, used: &[bool], input: &Input<'_>, opts: &FitOptions) -> Option<Poses> {
    let count = used.iter().filter(|&&u| u).count();
    let per_pose = if count <= opts.dense_bones {
        fold_work(count)
    } else {
        let n = input.max_per_vertex() as u64;
        (input.len() as u64).saturating_mul(n.saturating_mul(n).saturating_mul(3) + n * 12)
    }
    .max(1);
    let p = poses.len();
    let afford = usize::try_from(opts.max_work / per_pose)
        .unwrap_or(usize::MAX)
        .max(1);
    if p <= afford {
        return None;
    }
    let mut out = Poses::new(poses.bones());
    let mut group = 0;
    for i in 0..afford {
        let k = usize::try_from(i as u128 * p as u128 / afford as u128).unwrap_or(0);
        // A kept pose stays in its group.
        while group < poses.group_of(k) {
            out.begin_group();
            group += 1;
        }
        out.push((0..poses.bones()).map(|b| poses.get(k, b).copied().unwrap_or([0.0; 12])));
    }
    Some(out)
}
