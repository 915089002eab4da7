//! One part's influences (a DashVertex mesh, a glTF primitive) held as flat slots, and
//! its repair: every vertex, then the vertices left without weight under
//! `--zero-sum nearest`, then the trailing sets no vertex uses.

use std::collections::BTreeMap;

use dashvertex_core::SLOTS;

use crate::nearest::Tree;
use crate::policy::{Policy, ZeroSum};
use crate::report::{PartReport, Slots, VertexChange, Weight};
use crate::step::{Step, Steps};
use crate::vertex::{self, Context, Outcome, Refusal, RefusalKind, Scratch, Storage};

/// The influences of one part, slot by slot: vertex `v`, set `s`, slot `k` is element
/// `(v × sets + s) × 4 + k`.
#[derive(Clone, Debug, PartialEq)]
pub struct Influences {
    /// Number of sets.
    pub sets: usize,
    /// Joint indices.
    pub joints: Vec<u32>,
    /// Weights: binary32 values, or stored integers for [`Storage::Unorm`].
    pub weights: Vec<f64>,
    /// Weight storage.
    pub storage: Storage,
}

impl Influences {
    /// Number of vertices.
    pub fn vertices(&self) -> usize {
        self.joints.len() / (self.sets * SLOTS).max(1)
    }

    fn width(&self) -> usize {
        self.sets * SLOTS
    }

    fn slots_of(&self, v: usize) -> Slots {
        let w = self.width();
        let range = v * w..(v + 1) * w;
        Slots {
            joints: self.joints.get(range.clone()).unwrap_or_default().to_vec(),
            weights: self
                .weights
                .get(range)
                .unwrap_or_default()
                .iter()
                .map(|&x| Weight::of(x, self.storage))
                .collect(),
        }
    }
}

/// What a part's repair needs besides its influences.
#[derive(Clone, Copy, Debug)]
pub struct PartContext<'a> {
    /// The policies.
    pub policy: &'a Policy,
    /// Joint count, when known.
    pub bones: Option<u64>,
    /// The root bone.
    pub root: u32,
    /// Whether the part is skinned (an unskinned DashVertex mesh is left alone).
    pub skinned: bool,
    /// How many changed vertices the report lists with their slots before and after
    /// (`None`: all of them); the others are only counted. A caller that shows the first
    /// few changes of a part that changes in every vertex does not hold them all.
    pub listed: Option<usize>,
}

/// A vertex that cannot be repaired.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartRefusal {
    /// The policy that refused.
    pub kind: RefusalKind,
    /// How many vertices of the part it refused.
    pub vertices: u64,
    /// The first of them.
    pub vertex: u64,
    /// Its set and slot, when one slot is at fault.
    pub slot: Option<(usize, usize)>,
    /// What is wrong.
    pub message: String,
}

/// Repairs every vertex of `inf`, in place, at its own width: [`fill_and_repair`]
/// without leaving out the sets the policy cannot use (the reference the narrower repair
/// is tested against). `positions` (one per vertex) are needed for `--zero-sum nearest`
/// only. On a refusal `inf` is left empty.
pub fn fix(
    inf: &mut Influences,
    positions: &dyn Fn(usize) -> [f32; 3],
    ctx: &PartContext<'_>,
) -> Result<PartReport, Vec<PartRefusal>> {
    if !ctx.skinned || inf.sets == 0 {
        return Ok(PartReport {
            vertices: inf.vertices() as u64,
            ..PartReport::default()
        });
    }
    let whole = std::mem::replace(
        inf,
        Influences {
            joints: Vec::new(),
            weights: Vec::new(),
            ..*inf
        },
    );
    let width = whole.width();
    let fill =
        |first: usize, j: &mut [u32], w: &mut [f64]| -> Result<(), std::convert::Infallible> {
            let at = first * width;
            j.copy_from_slice(whole.joints.get(at..at + j.len()).unwrap_or_default());
            w.copy_from_slice(whole.weights.get(at..at + w.len()).unwrap_or_default());
            Ok(())
        };
    let filled = match repair_chunks(
        whole.vertices(),
        whole.sets,
        whole.sets,
        whole.storage,
        &fill,
        ctx,
    ) {
        Ok(filled) => filled,
        Err(never) => match never {},
    };
    let (repaired, report) = filled.finish(positions, ctx)?;
    *inf = repaired;
    Ok(report)
}

/// A part filled and repaired chunk by chunk ([`fill_and_repair`]), its chunks not yet
/// joined: [`Filled::finish`] does that.
pub struct Filled {
    inf: Influences,
    chunks: Vec<ChunkResult>,
    sets_before: usize,
}

/// [`fix`]'s per-vertex repair of a part whose `count` vertices of `sets` sets `fill`
/// writes chunk by chunk (as for [`untouched`], but failing with the fill's own error,
/// the first in vertex order). Each chunk is filled and repaired in a buffer of its own,
/// and only the sets the policy can leave used go into the part: under a target's
/// influence count K, the first ⌈K / 4⌉ (a repaired vertex holds its influences packed
/// from slot 0, at most K of them). A part that every vertex of an export with all
/// influences changes is then never held at its input width. With
/// [`Filled::finish`], the result is [`fix`]'s, slot for slot, report included.
pub fn fill_and_repair<E: Send>(
    count: usize,
    sets: usize,
    storage: Storage,
    fill: &TryFill<'_, E>,
    ctx: &PartContext<'_>,
) -> Result<Filled, E> {
    let kept = ctx
        .policy
        .max_influences
        .map_or(sets, |k| k.div_ceil(SLOTS).max(1))
        .min(sets);
    repair_chunks(count, sets, kept, storage, fill, ctx)
}

/// Fills and repairs the part chunk by chunk, keeping the first `kept` of its `sets`
/// sets of each vertex.
fn repair_chunks<E: Send>(
    count: usize,
    sets: usize,
    kept: usize,
    storage: Storage,
    fill: &TryFill<'_, E>,
    ctx: &PartContext<'_>,
) -> Result<Filled, E> {
    use dashvertex_core::par::prelude::*;
    let (width, narrow) = (sets * SLOTS, kept * SLOTS);
    let mut inf = Influences {
        sets: kept,
        joints: vec![0; count * narrow],
        weights: vec![0.0; count * narrow],
        storage,
    };
    if !ctx.skinned || narrow == 0 {
        return Ok(Filled {
            inf,
            chunks: Vec::new(),
            sets_before: sets,
        });
    }
    let vctx = Context {
        policy: ctx.policy,
        storage,
        bones: ctx.bones,
        root: ctx.root,
    };
    let chunks: Vec<Result<ChunkResult, E>> = inf
        .joints
        .par_chunks_mut(narrow * CHUNK_VERTICES)
        .zip(inf.weights.par_chunks_mut(narrow * CHUNK_VERTICES))
        .enumerate()
        .map_init(
            || (Vec::new(), Vec::new()),
            |(joints, weights): &mut (Vec<u32>, Vec<f64>), (c, (out_j, out_w))| {
                let first = c * CHUNK_VERTICES;
                let n = out_j.len() / narrow;
                joints.clear();
                joints.resize(n * width, 0);
                weights.clear();
                weights.resize(n * width, 0.0);
                fill(first, joints, weights)?;
                let chunk = fix_chunk(first, joints, weights, width, &vctx, ctx.listed);
                let rows = joints.chunks_exact(width).zip(weights.chunks_exact(width));
                let out = out_j
                    .chunks_exact_mut(narrow)
                    .zip(out_w.chunks_exact_mut(narrow));
                for ((j, w), (oj, ow)) in rows.zip(out) {
                    oj.copy_from_slice(j.get(..narrow).unwrap_or_default());
                    ow.copy_from_slice(w.get(..narrow).unwrap_or_default());
                }
                Ok(chunk)
            },
        )
        .collect();
    Ok(Filled {
        inf,
        chunks: chunks.into_iter().collect::<Result<_, E>>()?,
        sets_before: sets,
    })
}

impl Filled {
    /// Joins the chunks: refusals, `--zero-sum nearest`, trailing sets, the report.
    pub fn finish(
        mut self,
        positions: &dyn Fn(usize) -> [f32; 3],
        ctx: &PartContext<'_>,
    ) -> Result<(Influences, PartReport), Vec<PartRefusal>> {
        let report = PartReport {
            vertices: self.inf.vertices() as u64,
            ..PartReport::default()
        };
        if !ctx.skinned || self.sets_before == 0 {
            return Ok((self.inf, report));
        }
        let report = join(
            &mut self.inf,
            self.chunks,
            positions,
            ctx,
            report,
            self.sets_before,
        )?;
        Ok((self.inf, report))
    }
}

/// Joins the repaired chunks of `inf` (in vertex order) into the part's report: the
/// refusals, the vertices waiting for `--zero-sum nearest`, the trailing sets no vertex
/// uses (of the `sets_before` the part had), and the changes listed.
fn join(
    inf: &mut Influences,
    chunks: Vec<ChunkResult>,
    positions: &dyn Fn(usize) -> [f32; 3],
    ctx: &PartContext<'_>,
    mut report: PartReport,
    sets_before: usize,
) -> Result<PartReport, Vec<PartRefusal>> {
    let listed = ctx.listed.unwrap_or(usize::MAX);
    let mut before_of: Vec<(usize, Slots, Steps)> = Vec::new();
    let mut pending: Vec<usize> = Vec::new();
    // Every kind of refusal, the first vertex of each (chunks are in vertex order).
    let mut refused: Vec<PartRefusal> = Vec::new();
    for chunk in chunks {
        // Each chunk listed its own first changes; the part lists the first overall.
        let room = listed.saturating_sub(before_of.len());
        let mut changed = chunk.changed;
        for (_, _, steps) in changed.drain(room.min(changed.len())..) {
            report.unlisted += 1;
            tally(&mut report.steps, steps);
        }
        before_of.extend(changed);
        report.unlisted += chunk.unlisted;
        for (step, n) in chunk.tally {
            *report.steps.entry(step).or_default() += n;
        }
        pending.extend(chunk.pending);
        for r in chunk.refused {
            match refused.iter_mut().find(|e| e.kind == r.kind) {
                Some(e) => e.vertices += r.vertices,
                None => refused.push(r),
            }
        }
    }
    if !refused.is_empty() {
        refused.sort_by_key(|r| (r.vertex, r.kind));
        return Err(refused);
    }
    if !pending.is_empty() {
        let unlisted = nearest(inf, positions, &pending, &mut before_of).map_err(|r| vec![r])?;
        if unlisted > 0 {
            *report.steps.entry(Step::ZeroSumNearest).or_default() += unlisted;
        }
    }
    drop_trailing_sets(inf, &mut report, sets_before);
    for (v, before, steps) in before_of {
        let after = inf.slots_of(v);
        report.changes.push(VertexChange {
            vertex: v as u64,
            steps: steps.iter().collect(),
            before,
            after,
        });
    }
    for c in &report.changes {
        for s in &c.steps {
            *report.steps.entry(*s).or_default() += 1;
        }
    }
    Ok(report)
}

/// Adds one vertex's steps to a tally of vertices per step.
fn tally(into: &mut BTreeMap<Step, u64>, steps: Steps) {
    for step in steps.iter() {
        *into.entry(step).or_default() += 1;
    }
}

/// Vertices per parallel chunk, for every chunked pass over a part's vertices.
pub const CHUNK_VERTICES: usize = 16 * 1024;

/// [`Fill`] that says why a slot cannot be held ([`fill_and_repair`]).
pub type TryFill<'a, E> = dyn Fn(usize, &mut [u32], &mut [f64]) -> Result<(), E> + Sync + 'a;

/// Writes the slots of the vertices from a first one on, as [`untouched`] asks for them.
pub type Fill<'a> = dyn Fn(usize, &mut [u32], &mut [f64]) -> bool + Sync + 'a;

/// Whether the repair of a part would leave every vertex exactly as it is, and keep
/// every set: the per-vertex repair of [`fix`], run over chunks of 16 Ki vertices in
/// parallel without ever holding the whole part's slots. A large valid file is checked in
/// a few chunk-sized buffers per thread instead of a copy of all its influences.
///
/// `fill(first, joints, weights)` writes the slots of the vertices from `first` on
/// (`joints.len() / (sets × 4)` of them) in [`Influences`]'s layout and returns `false`
/// when a slot cannot be held (a joint that is not a whole number in 0 ..= 65535); the
/// part is then not untouched, and the caller's full repair reports why.
pub fn untouched(
    count: usize,
    sets: usize,
    storage: Storage,
    fill: &Fill<'_>,
    ctx: &PartContext<'_>,
) -> bool {
    use dashvertex_core::par::prelude::*;
    if !ctx.skinned || sets == 0 {
        return true;
    }
    let width = sets * SLOTS;
    let vctx = Context {
        policy: ctx.policy,
        storage,
        bones: ctx.bones,
        root: ctx.root,
    };
    let chunks = count.div_ceil(CHUNK_VERTICES);
    // Once one chunk needs the full repair, the others are not looked at: the answer is
    // no whichever chunk said it, so stopping early changes nothing but the time.
    let needs_repair = std::sync::atomic::AtomicBool::new(false);
    // The highest set any vertex uses, or `None` once a chunk needs the full repair.
    let used = (0..chunks)
        .into_par_iter()
        .map_init(
            || (Vec::new(), Vec::new()),
            |(joints, weights): &mut (Vec<u32>, Vec<f64>), c| {
                use std::sync::atomic::Ordering::Relaxed;
                if needs_repair.load(Relaxed) {
                    return None;
                }
                let first = c * CHUNK_VERTICES;
                let n = CHUNK_VERTICES.min(count - first);
                joints.clear();
                joints.resize(n * width, 0);
                weights.clear();
                weights.resize(n * width, 0.0);
                let out = fill(first, joints, weights)
                    .then(|| fix_chunk(first, joints, weights, width, &vctx, Some(0)));
                if !out.is_some_and(|o| {
                    o.unlisted == 0 && o.pending.is_empty() && o.refused.is_empty()
                }) {
                    needs_repair.store(true, Relaxed);
                    return None;
                }
                Some(highest_set_used(joints, weights, sets))
            },
        )
        .try_reduce(|| 1, |a, b| Some(a.max(b)));
    used == Some(sets)
}

/// The number of leading sets that hold any joint or weight (at least 1): the sets after
/// them are the ones [`drop_trailing_sets`] drops.
fn highest_set_used(joints: &[u32], weights: &[f64], sets: usize) -> usize {
    let width = sets * SLOTS;
    let mut used = 1;
    for (j, w) in joints.chunks_exact(width).zip(weights.chunks_exact(width)) {
        for s in (used..sets).rev() {
            let range = s * SLOTS..(s + 1) * SLOTS;
            let any = w
                .get(range.clone())
                .is_some_and(|x| x.iter().any(|&x| x != 0.0))
                || j.get(range).is_some_and(|x| x.iter().any(|&x| x != 0));
            if any {
                used = s + 1;
                break;
            }
        }
        if used == sets {
            break;
        }
    }
    used
}

/// What one chunk of vertices gave: the changed vertices with their slots before, and
/// those waiting for `--zero-sum nearest`.
type ChunkResult = Chunk;

struct Chunk {
    changed: Vec<(usize, Slots, Steps)>,
    /// Changed vertices past the chunk's `listed` first ones, and their steps' tally
    /// (without `--zero-sum nearest`, tallied once the nearest vertices are found).
    unlisted: u64,
    tally: BTreeMap<Step, u64>,
    pending: Vec<usize>,
    /// The first refusal of each kind, with how many vertices it refused.
    refused: Vec<PartRefusal>,
}

/// Repairs the vertices of one chunk (`first` is its first vertex); a refused vertex is
/// counted, and the rest still checked.
fn fix_chunk(
    first: usize,
    joints: &mut [u32],
    weights: &mut [f64],
    width: usize,
    vctx: &Context<'_>,
    listed: Option<usize>,
) -> ChunkResult {
    let storage = vctx.storage;
    let listed = listed.unwrap_or(usize::MAX);
    let mut scratch = Scratch::default();
    let mut out = Chunk {
        changed: Vec::new(),
        unlisted: 0,
        tally: BTreeMap::new(),
        pending: Vec::new(),
        refused: Vec::new(),
    };
    let (mut old_j, mut old_w) = (vec![0u32; width], vec![0f64; width]);
    for (k, (j, w)) in joints
        .chunks_exact_mut(width)
        .zip(weights.chunks_exact_mut(width))
        .enumerate()
    {
        let v = first + k;
        // The slots before are kept only while the chunk still lists changes.
        let listing = out.changed.len() < listed;
        if listing {
            old_j.copy_from_slice(j);
            old_w.copy_from_slice(w);
        }
        let outcome = match vertex::fix(j, w, vctx, &mut scratch) {
            Ok(o) => o,
            Err(refusals) => {
                for Refusal {
                    kind,
                    slot,
                    message,
                } in refusals
                {
                    match out.refused.iter_mut().find(|e| e.kind == kind) {
                        Some(e) => e.vertices += 1,
                        None => out.refused.push(PartRefusal {
                            kind,
                            vertices: 1,
                            vertex: v as u64,
                            slot: slot.map(|i| (i / SLOTS, i % SLOTS)),
                            message,
                        }),
                    }
                }
                continue;
            }
        };
        let (steps, nearest) = match outcome {
            Outcome::Fixed(steps) => (steps, false),
            Outcome::NeedsNearest(steps) => (steps, true),
        };
        if nearest {
            out.pending.push(v);
        }
        if (!steps.is_empty() || nearest) && !listing {
            out.unlisted += 1;
            tally(&mut out.tally, steps);
        } else if !steps.is_empty() || nearest {
            let before = Slots {
                joints: old_j.clone(),
                weights: old_w.iter().map(|&x| Weight::of(x, storage)).collect(),
            };
            out.changed.push((v, before, steps));
        }
    }
    out
}

/// `--zero-sum nearest`: each pending vertex takes the repaired influences of the nearest
/// vertex that has a weight.
fn nearest(
    inf: &mut Influences,
    positions: &dyn Fn(usize) -> [f32; 3],
    pending: &[usize],
    before_of: &mut [(usize, Slots, Steps)],
) -> Result<u64, PartRefusal> {
    let mut unlisted = 0;
    let width = inf.width();
    let weighted = (0..inf.vertices()).filter(|&v| {
        inf.weights
            .get(v * width..(v + 1) * width)
            .is_some_and(|w| w.iter().any(|&x| x != 0.0))
    });
    let wide = |p: [f32; 3]| p.map(f64::from);
    let tree = Tree::new(
        weighted
            .map(|v| (wide(positions(v)), v as u64))
            .collect::<Vec<_>>(),
    );
    for &v in pending {
        let q = wide(positions(v));
        let source = if q.iter().all(|c| c.is_finite()) {
            tree.nearest(q)
        } else {
            None
        };
        let Some(source) = source.and_then(|s| usize::try_from(s).ok()) else {
            return Err(PartRefusal {
                kind: RefusalKind::NoNearest,
                vertices: 1,
                vertex: v as u64,
                slot: None,
                message: if tree.is_empty() {
                    "the vertex has no non-zero weight, and no vertex of its part has one \
                     to copy (the `root` zero-sum policy binds it to the root bone)"
                        .into()
                } else {
                    "the vertex has no non-zero weight, and its position is not finite, so \
                     it has no nearest vertex (the `root` zero-sum policy binds it to the root bone)"
                        .into()
                },
            });
        };
        let from = source * width..(source + 1) * width;
        let joints: Vec<u32> = inf.joints.get(from.clone()).unwrap_or_default().to_vec();
        let weights: Vec<f64> = inf.weights.get(from).unwrap_or_default().to_vec();
        let to = v * width..(v + 1) * width;
        if let Some(j) = inf.joints.get_mut(to.clone()) {
            j.copy_from_slice(&joints);
        }
        if let Some(w) = inf.weights.get_mut(to) {
            w.copy_from_slice(&weights);
        }
        // Sorted by vertex (chunks are joined in order): a binary search, not a scan.
        match before_of.binary_search_by_key(&v, |e| e.0) {
            Ok(i) => {
                if let Some(entry) = before_of.get_mut(i) {
                    entry.2.add(Step::ZeroSumNearest);
                }
            }
            Err(_) => unlisted += 1,
        }
    }
    Ok(unlisted)
}

/// Sets after the last one any vertex uses are dropped (set 0 always stays). `inf` may
/// hold fewer sets than the part had (`sets_before`), when the others were left unused.
fn drop_trailing_sets(inf: &mut Influences, report: &mut PartReport, sets_before: usize) {
    let width = inf.width();
    if sets_before <= 1 || width == 0 {
        return;
    }
    let used = highest_set_used(&inf.joints, &inf.weights, inf.sets);
    if used == sets_before {
        return;
    }
    report.sets_dropped = sets_before - used;
    report.sets_before = sets_before;
    if used == inf.sets {
        return;
    }
    let keep = used * SLOTS;
    let n = inf.vertices();
    let mut joints = Vec::with_capacity(n * keep);
    let mut weights = Vec::with_capacity(n * keep);
    for v in 0..n {
        joints.extend_from_slice(
            inf.joints
                .get(v * width..v * width + keep)
                .unwrap_or_default(),
        );
        weights.extend_from_slice(
            inf.weights
                .get(v * width..v * width + keep)
                .unwrap_or_default(),
        );
    }
    inf.sets = used;
    inf.joints = joints;
    inf.weights = weights;
}

/// Whether `zero_sum` needs positions.
pub fn needs_positions(policy: &Policy) -> bool {
    policy.zero_sum == ZeroSum::Nearest
}

#[cfg(test)]
mod tests {
    use dashvertex_core::SLOTS;
    use proptest::prelude::*;

    use super::{Influences, PartContext, fill_and_repair, fix};
    use crate::policy::{OutOfRange, Policy, SumRule, ZeroSum};
    use crate::vertex::Storage;

    /// The part both ways: held whole and repaired ([`fix`]), and filled and repaired
    /// chunk by chunk at the width the policy can leave used ([`fill_and_repair`]).
    fn both_ways(inf: &Influences, policy: &Policy) {
        let ctx = PartContext {
            policy,
            bones: Some(20),
            root: 3,
            skinned: true,
            listed: Some(5),
        };
        let positions = |v: usize| [(v % 7) as f32, (v / 7 % 5) as f32, (v % 3) as f32];
        let mut whole = inf.clone();
        let whole_report = fix(&mut whole, &positions, &ctx);
        let width = inf.sets * SLOTS;
        let fill = |first: usize, j: &mut [u32], w: &mut [f64]| -> Result<(), ()> {
            let range = first * width..first * width + j.len();
            j.copy_from_slice(&inf.joints[range.clone()]);
            w.copy_from_slice(&inf.weights[range]);
            Ok(())
        };
        let count = inf.vertices();
        let filled = fill_and_repair(count, inf.sets, inf.storage, &fill, &ctx)
            .expect("the fill does not fail");
        match (whole_report, filled.finish(&positions, &ctx)) {
            (Ok(a), Ok((narrow, b))) => {
                // Compared as printed: a NaN weight before a repair equals itself there.
                assert_eq!(format!("{a:?}"), format!("{b:?}"));
                assert_eq!(whole, narrow);
            }
            (Err(a), Err(b)) => assert_eq!(a, b),
            (a, b) => panic!("{a:?} against {b:?}"),
        }
    }

    fn weight() -> impl Strategy<Value = f64> {
        prop_oneof![
            4 => Just(0.0),
            6 => (1u32..=16).prop_map(|k| f64::from(k) / 16.0),
            1 => Just(-0.0),
            1 => Just(-0.25),
            1 => Just(f64::NAN),
            1 => Just(1.5),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

        /// The chunked repair at the policy's width is the whole repair, slot for slot,
        /// report and refusals included, whatever the faults and policies.
        #[test]
        fn the_narrow_repair_is_the_whole_one(
            sets in 1usize..5,
            slots in proptest::collection::vec((0u32..24, weight()), 4..400),
            limit in proptest::option::of(1usize..10),
            zero_sum in prop_oneof![Just(ZeroSum::Keep), Just(ZeroSum::Error), Just(ZeroSum::Root), Just(ZeroSum::Nearest)],
            gltf in any::<bool>(),
        ) {
            let width = sets * SLOTS;
            let n = slots.len() / width * width;
            let inf = Influences {
                sets,
                joints: slots.iter().take(n).map(|s| s.0).collect(),
                weights: slots.iter().take(n).map(|s| s.1).collect(),
                storage: Storage::Float,
            };
            let policy = Policy {
                out_of_range: OutOfRange::Drop,
                zero_sum,
                max_influences: limit,
                ..Policy::for_rule(if gltf { SumRule::Gltf } else { SumRule::Dash })
            };
            both_ways(&inf, &policy);
        }
    }

    /// Several chunks: an export with sixteen influences per vertex under a target of
    /// four, and a few vertices left without weight for `--zero-sum nearest`.
    #[test]
    fn the_narrow_repair_is_the_whole_one_over_several_chunks() {
        let count = super::CHUNK_VERTICES * 2 + 123;
        let sets = 4;
        let mut joints = Vec::new();
        let mut weights = Vec::new();
        for v in 0..count {
            let empty = v % 997 == 5;
            for k in 0u32..16 {
                let joint = u32::try_from(v % 20).unwrap_or(0) + k * 7;
                joints.push(if empty { 0 } else { joint % 20 });
                weights.push(if empty {
                    0.0
                } else {
                    f64::from(16 - k) / 136.0
                });
            }
        }
        let inf = Influences {
            sets,
            joints,
            weights,
            storage: Storage::Float,
        };
        for zero_sum in [ZeroSum::Nearest, ZeroSum::Root] {
            let policy = Policy {
                zero_sum,
                max_influences: Some(4),
                ..Policy::for_rule(SumRule::Gltf)
            };
            both_ways(&inf, &policy);
        }
    }
}
