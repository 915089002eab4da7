//! The reduction algorithm (`spec/reduction.md` §2), one vertex at a time.

use std::cmp::Ordering;

use dashvertex_core::weights::SumCheck;
use dashvertex_core::{InfluenceSet, Mesh, Vertex};

use crate::input::{Data, Input};

/// Weight normalization.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Normalize {
    /// Keep the weights as they are (the seed: sums need not be 1).
    None,
    /// Scale so the float32 sum passes the glTF rule exactly as the official validator
    /// computes it.
    Unit,
}

/// Weight storage precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantize {
    /// binary32.
    F32,
    /// 16-bit normalized integers summing to exactly 65535.
    Unorm16,
    /// 8-bit normalized integers summing to exactly 255.
    Unorm8,
}

impl Quantize {
    /// The integer a full weight is, for integer storage.
    pub fn max(self) -> Option<u32> {
        match self {
            Quantize::F32 => None,
            Quantize::Unorm16 => Some(65535),
            Quantize::Unorm8 => Some(255),
        }
    }
}

/// What to do with a vertex left without influence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Empty {
    /// Fail, naming the vertex.
    Error,
    /// Write all-zero weights (bone 0, weight 0 in every slot).
    Zero,
    /// Bind it to the root bone with weight 1.
    Root,
}

/// Reducer settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Config {
    /// Influences kept per vertex (K).
    pub max_influences: usize,
    /// Normalization.
    pub normalize: Normalize,
    /// Precision.
    pub quantize: Quantize,
    /// Influences lighter than this are dropped, except a vertex's heaviest.
    pub min_weight: f32,
    /// Vertices without influence.
    pub empty: Empty,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_influences: 4,
            normalize: Normalize::None,
            quantize: Quantize::F32,
            min_weight: 0.0,
            empty: Empty::Error,
        }
    }
}

/// A dropped influence worth reporting.
#[derive(Clone, Debug, PartialEq)]
pub struct Dropped {
    /// Its weight.
    pub weight: f32,
    /// The vertex.
    pub vertex: u64,
    /// The output bone index.
    pub bone: u32,
    /// Where it was, as text.
    pub at: String,
}

impl Dropped {
    /// True when `(weight, vertex, bone)` should replace this one as "largest": heavier,
    /// or as heavy and earlier (by vertex, then bone index), so the choice never depends
    /// on input order.
    fn beaten_by(&self, weight: f32, vertex: u64, bone: u32) -> bool {
        weight > self.weight || (weight == self.weight && (vertex, bone) < (self.vertex, self.bone))
    }
}

/// What the reduction did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    /// Vertices processed.
    pub vertices: u64,
    /// Vertices whose influences changed (anything dropped, merged, scaled or rounded).
    pub changed: u64,
    /// Influences dropped because a vertex had more than K.
    pub dropped: u64,
    /// Influences dropped by the minimum-weight threshold.
    pub below_threshold: u64,
    /// Influences rounded to 0 by quantization (or, with `unit` and `f32`, a share too
    /// small for binary32), and dropped.
    pub quantized_away: u64,
    /// Duplicate bones merged into one influence.
    pub merged: u64,
    /// Negative weights dropped.
    pub negative: u64,
    /// The first negative weight.
    pub first_negative: Option<Dropped>,
    /// The heaviest influence dropped (by K, threshold or quantization).
    pub largest_dropped: Option<Dropped>,
    /// Vertices that had no influence.
    pub empty: u64,
    /// The first of them.
    pub first_empty: Option<u64>,
    /// The most influences any vertex had.
    pub max_influences_in: u64,
}

/// Why a reduction failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReduceError {
    /// NaN or infinity in the input.
    #[error("{at}: weight {weight} is not finite")]
    NonFinite {
        /// Where.
        at: String,
        /// The value.
        weight: String,
    },
    /// A vertex has no influence and the policy is `error`.
    #[error(
        "vertex {0} has no influence (use --empty zero or --empty root to accept such vertices)"
    )]
    Empty(u64),
    /// With `--normalize none`, a kept weight is above 1 (as written, or after repeated
    /// bones were merged): the output would break the weight range rule.
    #[error("vertex {vertex}: weight {weight} of {bone} is above 1{merged} (use --normalize unit)")]
    AboveOne {
        /// The vertex.
        vertex: u64,
        /// The bone, as "bone NAME (index N)".
        bone: String,
        /// The weight kept, as text.
        weight: String,
        /// " after merging repeats of the bone" when that made it so, else empty.
        merged: &'static str,
    },
    /// Settings that contradict each other.
    #[error("{0}")]
    Config(String),
}

/// The reduced influences.
#[derive(Clone, Debug, PartialEq)]
pub struct Reduced {
    /// Sets per vertex.
    pub sets: usize,
    /// `influences[v * sets + s]`: bone indices (manifest indices) and weights.
    pub influences: Vec<InfluenceSet>,
    /// For integer storage, the integers behind the weights (same layout).
    pub integers: Option<Vec<[u32; 4]>>,
    /// What happened.
    pub report: Report,
}

impl Reduced {
    /// Set `s` of every vertex.
    pub fn set(&self, s: usize) -> impl Iterator<Item = &InfluenceSet> {
        self.influences.iter().skip(s).step_by(self.sets.max(1))
    }

    /// A mesh with these influences at `positions`.
    pub fn to_mesh(&self, positions: &[[f32; 3]]) -> Mesh {
        let vertices: Vec<Vertex> = positions
            .iter()
            .zip(self.set(0))
            .map(|(&position, &skin)| Vertex { position, skin })
            .collect();
        let extra = (1..self.sets)
            .map(|s| self.set(s).copied().collect())
            .collect();
        Mesh::from_parts(true, vertices, extra).unwrap_or_default()
    }
}

/// Total order of influences: weight descending, then bone index ascending.
fn order(a: &(u32, f32), b: &(u32, f32)) -> Ordering {
    b.1.total_cmp(&a.1).then(a.0.cmp(&b.0))
}

fn note_drop(
    report: &mut Report,
    weight: f32,
    vertex: u64,
    bone: u32,
    at: impl FnOnce() -> String,
) {
    if report
        .largest_dropped
        .as_ref()
        .is_none_or(|d| d.beaten_by(weight, vertex, bone))
    {
        report.largest_dropped = Some(Dropped {
            weight,
            vertex,
            bone,
            at: at(),
        });
    }
}

/// The glTF sum check of weights laid out influence `i` → set `i / 4`, slot `i % 4`,
/// taken in the reference order (slot-major, set-minor).
#[inline]
fn layout_check(w: &[f32]) -> SumCheck {
    let sets = w.len().div_ceil(4);
    let mut check = SumCheck::new();
    for slot in 0..4 {
        for set in 0..sets {
            if let Some(&x) = w.get(set * 4 + slot).filter(|x| **x != 0.0) {
                check.add_f32(x);
            }
        }
    }
    check
}

/// Makes `w` (heaviest first) pass the glTF sum rule in the output layout: weights that
/// already pass are kept; otherwise each becomes `w / Σw` and the heaviest absorbs the
/// rounding residual.
#[inline]
fn unit(w: &mut [f32]) {
    if layout_check(w).passes() {
        return;
    }
    let total: f64 = w.iter().map(|&x| f64::from(x)).sum();
    if total <= 0.0 {
        return;
    }
    for x in w.iter_mut() {
        *x = (f64::from(*x) / total) as f32;
    }
    for _ in 0..8 {
        let check = layout_check(w);
        if check.passes() {
            return;
        }
        let Some(first) = w.first_mut() else { return };
        let residual = 1.0 - f64::from(check.sum);
        let adjusted = (f64::from(*first) + residual) as f32;
        *first = if adjusted == *first {
            // The residual is below one ulp of the heaviest weight: step one ulp.
            if residual > 0.0 {
                f32::from_bits(first.to_bits() + 1)
            } else {
                f32::from_bits(first.to_bits() - 1)
            }
        } else {
            adjusted
        };
    }
}

/// What the threshold multiplies a weight by: `1 / Σw` with `unit` (Σ in float64, summed
/// in ascending order so it never depends on input order), 1 otherwise.
fn share_scale(weights: impl Iterator<Item = f32>, normalize: Normalize) -> f64 {
    if normalize != Normalize::Unit {
        return 1.0;
    }
    let mut w: Vec<f32> = weights.collect();
    w.sort_unstable_by(f32::total_cmp);
    let total: f64 = w.iter().map(|&x| f64::from(x)).sum();
    if total > 0.0 { 1.0 / total } else { 1.0 }
}

/// Largest-remainder rounding of `w` to integers summing to exactly `max`; ties give the
/// extra unit to the influence that comes first (heavier, then lower bone index).
fn largest_remainder(w: &[f32], max: u32, out: &mut Vec<u32>, rems: &mut Vec<(f64, usize)>) {
    out.clear();
    rems.clear();
    let total: f64 = w.iter().map(|&x| f64::from(x)).sum();
    if total <= 0.0 {
        out.resize(w.len(), 0);
        return;
    }
    let mut used: u64 = 0;
    for (i, &x) in w.iter().enumerate() {
        let exact = f64::from(x) / total * f64::from(max);
        let floor = exact.floor();
        out.push(floor as u32);
        used += floor as u64;
        rems.push((exact - floor, i));
    }
    rems.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let deficit = u64::from(max).saturating_sub(used) as usize;
    for &(_, i) in rems.iter().take(deficit) {
        if let Some(q) = out.get_mut(i) {
            *q += 1;
        }
    }
}

/// Influences the fast selection keeps per vertex at most; a larger K takes the general
/// path.
const TOP: usize = 16;
/// Vertices selected together from per-bone columns (a block of each column is scanned
/// in turn, so memory access stays sequential).
const BLOCK: usize = 256;

/// A sort key ordering like [`order`] for positive finite weights: their bit patterns grow
/// with the value, so `(!bits, bone)` ascending is weight descending, bone ascending.
fn key(bone: u32, w: f32) -> u64 {
    (u64::from(!w.to_bits()) << 32) | u64::from(bone)
}

/// The influence behind a [`key`].
fn unkey(k: u64) -> (u32, f32) {
    (
        (k & 0xFFFF_FFFF) as u32,
        f32::from_bits(!((k >> 32) as u32)),
    )
}

/// What a weight means to the fast selection.
enum Weight {
    /// Zero (either sign): not an influence.
    Zero,
    /// Positive and finite.
    Fast,
    /// Negative, NaN or infinite: the general path decides.
    Other,
}

#[inline(always)]
fn classify(w: f32) -> Weight {
    let bits = w.to_bits();
    // Positive finite non-zero weights are exactly the bit patterns 1 ..= 0x7F7F_FFFF.
    if bits.wrapping_sub(1) < 0x7F7F_FFFF {
        Weight::Fast
    } else if bits << 1 == 0 {
        Weight::Zero
    } else {
        Weight::Other
    }
}

/// The fast selection of one vertex: its `K` first keys, sorted (unused slots
/// `u64::MAX`), how many influences it was offered and the first key it dropped.
#[derive(Clone, Copy)]
struct Sel<const K: usize> {
    keys: [u64; K],
    offered: u64,
    best_dropped: u64,
}

impl<const K: usize> Sel<K> {
    const EMPTY: Self = Sel {
        keys: [u64::MAX; K],
        offered: 0,
        best_dropped: u64::MAX,
    };

    /// Offers a positive finite influence. Branch-free when it is kept: the key walks
    /// down the sorted slots, each keeping the smaller of itself and the key, and what
    /// falls off the end is dropped; influences often come heaviest first, and then a
    /// full selection drops the key at once.
    #[inline(always)]
    fn offer(&mut self, bone: u32, w: f32) {
        let mut x = key(bone, w);
        if self.keys.last().is_none_or(|&last| x < last) {
            for slot in &mut self.keys {
                let low = (*slot).min(x);
                x = (*slot).max(x);
                *slot = low;
            }
        }
        self.best_dropped = self.best_dropped.min(x);
        self.offered += 1;
    }

    /// The selection for `k ≤ K`: the kept influences into `list`, and the number
    /// dropped with the first of them.
    fn take(&self, k: usize, list: &mut Vec<(u32, f32)>) -> (u64, u64) {
        list.clear();
        list.extend(self.keys.iter().take(self.kept(k)).map(|&x| unkey(x)));
        self.dropped(k)
    }

    /// How many influences the selection for `k ≤ K` keeps.
    #[inline(always)]
    fn kept(&self, k: usize) -> usize {
        (self.offered as usize).min(k)
    }

    /// The number of influences the selection for `k ≤ K` drops, with the first of them.
    #[inline(always)]
    fn dropped(&self, k: usize) -> (u64, u64) {
        // Keys k.. were kept only because K > k: the first of them was dropped too.
        let best = self
            .best_dropped
            .min(self.keys.get(k).copied().unwrap_or(u64::MAX));
        (self.offered - self.kept(k) as u64, best)
    }
}

/// Bit `i` set when `w[i] != 0` (at most 64 weights). Full chunks go through one flag
/// byte per weight, which compiles to vector compares, and a multiply that gathers eight
/// flags into a byte.
#[inline]
fn nonzero_mask(w: &[f32]) -> u64 {
    if let Ok(w) = <&[f32; 64]>::try_from(w) {
        let mut flags = [0u8; 64];
        for (f, &x) in flags.iter_mut().zip(w) {
            *f = u8::from(x != 0.0);
        }
        let mut m = 0u64;
        for (g, eight) in flags.chunks_exact(8).enumerate() {
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(eight);
            // Byte k (0 or 1) lands on bit 56 + k.
            let x = u64::from_le_bytes(bytes).wrapping_mul(0x0102_0408_1020_4080) >> 56;
            m |= x << (g * 8);
        }
        return m;
    }
    let mut m = 0u64;
    for (i, &x) in w.iter().enumerate() {
        m |= u64::from(x != 0.0) << (i & 63);
    }
    m
}

/// Tells repeated bones apart within one vertex: bit `bone` of `low` for bones below 64,
/// else `stamp[bone] == generation` when the vertex listed `bone` already; bones beyond
/// the table (indices a file can name without having the bones, up to 2^32) go to a
/// map, so memory follows the influences, not the largest index.
#[derive(Default)]
struct Stamps {
    low: u64,
    stamp: Vec<u64>,
    far: std::collections::HashMap<u32, u64>,
    generation: u64,
}

/// The largest bone index kept in the direct table of [`Stamps`] (32 MiB of stamps).
const STAMP_TABLE: usize = 1 << 22;

impl Stamps {
    #[inline(always)]
    fn next_vertex(&mut self) {
        self.low = 0;
        self.generation += 1;
    }

    /// Marks `bone`; true when this vertex had marked it already.
    #[inline(always)]
    fn repeated(&mut self, bone: u32) -> bool {
        if bone < 64 {
            let bit = 1u64 << bone;
            let seen = self.low & bit != 0;
            self.low |= bit;
            return seen;
        }
        let generation = self.generation;
        let st = match self.stamp.get_mut(bone as usize) {
            Some(st) => st,
            None => self.far.entry(bone).or_insert(0),
        };
        if *st == generation {
            true
        } else {
            *st = generation;
            false
        }
    }
}

/// Reusable per-vertex buffers.
#[derive(Default)]
struct Scratch {
    stamps: Stamps,
    list: Vec<(u32, f32)>,
    weights: Vec<f32>,
    ints: Vec<u32>,
    rems: Vec<(f64, usize)>,
    fin: Vec<(u32, f32, u32)>,
}

impl Scratch {
    /// A scratch whose direct bone table covers the output indices of `map` (up to
    /// [`STAMP_TABLE`]; larger indices go to the map beside it).
    fn for_map(map: &[u32]) -> Scratch {
        let mut sc = Scratch::default();
        sc.stamps.stamp = vec![
            0;
            map.iter()
                .copied()
                .max()
                .map_or(0, |m| m as usize + 1)
                .min(STAMP_TABLE)
        ];
        sc
    }
}

/// The vertex-by-vertex stage after selection: empty vertices, normalization,
/// quantization, final order and output.
struct Finish<'a> {
    /// The vertices this run reduces (a chunk of the input).
    range: std::ops::Range<usize>,
    input: &'a Input<'a>,
    map: &'a [u32],
    root: Option<u32>,
    cfg: &'a Config,
    qmax: Option<u32>,
    max_sets: usize,
    report: Report,
    influences: Vec<InfluenceSet>,
    integers: Option<Vec<[u32; 4]>>,
    widest: usize,
}

impl Finish<'_> {
    /// Puts the fast selection of vertex `v` into `sc.list` and records what it dropped.
    /// Returns whether it dropped anything.
    fn take_fast<const K: usize>(&mut self, v: usize, sel: &Sel<K>, sc: &mut Scratch) -> bool {
        sel.take(self.cfg.max_influences, &mut sc.list);
        self.record_fast(v, sel)
    }

    /// Records what the fast selection of vertex `v` dropped; returns whether it dropped
    /// anything.
    #[inline(always)]
    fn record_fast<const K: usize>(&mut self, v: usize, sel: &Sel<K>) -> bool {
        let (dropped, best_dropped) = sel.dropped(self.cfg.max_influences);
        let listed = sel.kept(self.cfg.max_influences) as u64 + dropped;
        self.report.max_influences_in = self.report.max_influences_in.max(listed);
        if dropped > 0 {
            let (b, w) = unkey(best_dropped);
            let (input, map) = (self.input, self.map);
            note_drop(&mut self.report, w, v as u64, b, || {
                format!("vertex {v}, {}", bone_label(input, map, b))
            });
            self.report.dropped += dropped;
        }
        dropped > 0
    }

    /// Finishes vertex `v` from its fast selection. When at most four influences are
    /// kept into a single set, nothing is quantized and normalizing neither reorders nor
    /// zeroes a weight (the usual case), this is [`Finish::take_fast`] followed by
    /// [`Finish::vertex`] without the buffers; otherwise it is exactly those two.
    #[inline(always)]
    fn fast_vertex<const K: usize>(
        &mut self,
        v: usize,
        sel: &Sel<K>,
        sc: &mut Scratch,
    ) -> Result<(), ReduceError> {
        let k = self.cfg.max_influences;
        let kept = sel.kept(k);
        if self.max_sets == 1 && self.qmax.is_none() && kept > 0 {
            let mut set = InfluenceSet::ZERO;
            for ((&x, j), w) in sel
                .keys
                .iter()
                .take(kept)
                .zip(set.joints.iter_mut())
                .zip(set.weights.iter_mut())
            {
                (*j, *w) = unkey(x);
            }
            let listed = set.weights;
            let weights = set.weights.get_mut(..kept).unwrap_or_default();
            if self.cfg.normalize == Normalize::Unit {
                unit(weights);
            }
            let ordered = weights.iter().all(|&w| w != 0.0)
                && set
                    .joints
                    .iter()
                    .zip(set.weights.iter())
                    .take(kept)
                    .zip(
                        set.joints
                            .iter()
                            .zip(set.weights.iter())
                            .skip(1)
                            .take(kept - 1),
                    )
                    .all(|((&ba, &wa), (&bb, &wb))| {
                        order(&(ba, wa), &(bb, wb)) != Ordering::Greater
                    });
            if ordered {
                let dropped = self.record_fast(v, sel);
                let changed = dropped
                    || listed
                        .iter()
                        .zip(&set.weights)
                        .any(|(a, b)| a.to_bits() != b.to_bits());
                self.influences.push(set);
                self.report.changed += u64::from(changed);
                return Ok(());
            }
        }
        let dirty = self.take_fast(v, sel, sc);
        self.vertex(v, dirty, sc)
    }

    /// Runs the general path on vertex `v` (reading its candidates into `cands`), leaving
    /// the kept influences in `sc.list`. Returns whether anything changed.
    fn general(
        &mut self,
        v: usize,
        cands: &mut Vec<crate::input::Cand>,
        sc: &mut Scratch,
    ) -> Result<bool, ReduceError> {
        self.input.candidates(v, cands);
        let listed = cands.iter().filter(|c| c.weight != 0.0).count();
        self.report.max_influences_in = self.report.max_influences_in.max(listed as u64);
        select_general(
            self.input,
            self.map,
            v,
            cands,
            self.cfg,
            &mut self.report,
            sc,
        )
    }

    /// Finishes vertex `v`, whose kept influences are in `sc.list` in the total order.
    /// `dirty`: the selection changed something already.
    fn vertex(&mut self, v: usize, mut dirty: bool, sc: &mut Scratch) -> Result<(), ReduceError> {
        let (input, map, cfg, qmax) = (self.input, self.map, self.cfg, self.qmax);
        let report = &mut self.report;
        if sc.list.is_empty() {
            report.empty += 1;
            report.first_empty.get_or_insert(v as u64);
            match cfg.empty {
                Empty::Error => return Err(ReduceError::Empty(v as u64)),
                Empty::Zero => {}
                Empty::Root => {
                    sc.list.push((self.root.unwrap_or(0), 1.0));
                    dirty = true;
                }
            }
        }
        loop {
            sc.weights.clear();
            sc.weights.extend(sc.list.iter().map(|x| x.1));
            if cfg.normalize == Normalize::Unit {
                unit(&mut sc.weights);
            }
            sc.ints.clear();
            if let Some(max) = qmax {
                largest_remainder(&sc.weights, max, &mut sc.ints, &mut sc.rems);
                for (x, q) in sc.weights.iter_mut().zip(&sc.ints) {
                    *x = (f64::from(*q) / f64::from(max)) as f32;
                }
            }
            dirty |= sc
                .list
                .iter()
                .zip(&sc.weights)
                .any(|(a, b)| a.1.to_bits() != b.to_bits());
            // Order by the final weights: rounding can make two weights equal, and equal
            // weights go by bone index (so reducing the output again changes nothing).
            sc.fin.clear();
            for (i, (&(b, _), &w)) in sc.list.iter().zip(&sc.weights).enumerate() {
                let q = sc.ints.get(i).copied().unwrap_or(0);
                // Rounded to nothing: a unorm of 0, or a float share below the smallest
                // subnormal. Dropped, so no slot holds a bone with weight 0.
                let gone = if qmax.is_some() { q == 0 } else { w == 0.0 };
                if gone {
                    report.quantized_away += 1;
                    note_drop(
                        report,
                        sc.list.get(i).map_or(0.0, |x| x.1),
                        v as u64,
                        b,
                        || format!("vertex {v}, {} (rounded to 0)", bone_label(input, map, b)),
                    );
                    continue;
                }
                sc.fin.push((b, w, q));
            }
            if !sc.fin.windows(2).all(|p| {
                p.first()
                    .zip(p.get(1))
                    .is_none_or(|(a, b)| order(&(a.0, a.1), &(b.0, b.1)) != Ordering::Greater)
            }) {
                sc.fin
                    .sort_unstable_by(|a, b| order(&(a.0, a.1), &(b.0, b.1)));
                if cfg.normalize == Normalize::Unit && qmax.is_none() {
                    sc.weights.clear();
                    sc.weights.extend(sc.fin.iter().map(|x| x.1));
                    unit(&mut sc.weights);
                    for (x, w) in sc.fin.iter_mut().zip(&sc.weights) {
                        x.1 = *w;
                    }
                }
            }
            // With `unit` the threshold holds for the weights written, too: anything now
            // below it (as a share of the written weights, which is what reducing this
            // output again would see) is dropped and the rest finished again.
            if cfg.normalize != Normalize::Unit || cfg.min_weight <= 0.0 || sc.fin.len() < 2 {
                break;
            }
            let scale = share_scale(sc.fin.iter().map(|x| x.1), cfg.normalize);
            let min = f64::from(cfg.min_weight);
            let heaviest = sc.fin.first().map(|x| x.0);
            let fin = &sc.fin;
            let before = sc.list.len();
            let mut below = 0u64;
            sc.list.retain(|&(b, w)| {
                // Bones rounded away were counted already.
                let Some(&(_, written, _)) = fin.iter().find(|x| x.0 == b) else {
                    return false;
                };
                let keep = Some(b) == heaviest || f64::from(written) * scale >= min;
                if !keep {
                    below += 1;
                    note_drop(report, w, v as u64, b, || {
                        format!("vertex {v}, {}", bone_label(input, map, b))
                    });
                }
                keep
            });
            if below == 0 {
                break;
            }
            debug_assert!(sc.list.len() < before);
            report.below_threshold += below;
            dirty = true;
        }
        // Vertices are finished in order: vertex v's sets start at v × max_sets.
        let base = self.influences.len();
        self.influences
            .resize(base + self.max_sets, InfluenceSet::ZERO);
        if let Some(q) = self.integers.as_mut() {
            q.resize(base + self.max_sets, [0; 4]);
        }
        for (i, &(b, w, q)) in sc.fin.iter().enumerate() {
            if let Some(set) = self.influences.get_mut(base + i / 4) {
                if let Some(j) = set.joints.get_mut(i % 4) {
                    *j = b;
                }
                if let Some(x) = set.weights.get_mut(i % 4) {
                    *x = w;
                }
            }
            if let Some(x) = self
                .integers
                .as_mut()
                .and_then(|q| q.get_mut(base + i / 4))
                .and_then(|slot| slot.get_mut(i % 4))
            {
                *x = q;
            }
        }
        self.widest = self.widest.max(sc.fin.len().div_ceil(4));
        report.changed += u64::from(dirty);
        Ok(())
    }
}

/// The fast selection of every vertex of `input` from sets or lists, with `K ≥ k` known
/// at compile time. A vertex the fast selection cannot take goes down the general path.
fn reduce_rows<const K: usize>(
    f: &mut Finish,
    sc: &mut Scratch,
    cands: &mut Vec<crate::input::Cand>,
) -> Result<(), ReduceError> {
    let (input, map) = (f.input, f.map);
    let out = |b: u32| map.get(b as usize).copied().unwrap_or(u32::MAX);
    for v in f.range.clone() {
        sc.stamps.next_vertex();
        let mut sel = Sel::<K>::EMPTY;
        let mut fast = true;
        let mut offer = |b: u32, w: f32, stamps: &mut Stamps| match classify(w) {
            Weight::Zero => {}
            Weight::Fast => {
                let b = out(b);
                if stamps.repeated(b) {
                    fast = false;
                } else {
                    sel.offer(b, w);
                }
            }
            Weight::Other => fast = false,
        };
        match &input.data {
            Data::Sets(sets) => {
                for set in sets {
                    if let Some(x) = set.get(v) {
                        for (&b, &w) in x.joints.iter().zip(&x.weights) {
                            offer(b, w, &mut sc.stamps);
                        }
                    }
                }
            }
            Data::Lists(lists) => {
                for c in lists.of(v) {
                    offer(c.bone, c.weight, &mut sc.stamps);
                }
            }
            Data::Views(sets) => {
                for set in sets {
                    let x = set.get(v);
                    for (&b, &w) in x.joints.iter().zip(&x.weights) {
                        offer(b, w, &mut sc.stamps);
                    }
                }
            }
            Data::Columns(_) => fast = false,
        }
        if fast {
            f.fast_vertex(v, &sel, sc)?;
        } else {
            let dirty = f.general(v, cands, sc)?;
            f.vertex(v, dirty, sc)?;
        }
    }
    Ok(())
}

/// The fast selection from per-bone columns: a block of vertices at a time, each column's
/// block scanned in turn with zeros skipped 64 at a time. A column lists a bone once per
/// vertex and the columns' bones are distinct, so there is no repeat to look for.
fn reduce_columns<const K: usize>(
    f: &mut Finish,
    cols: &[(u32, Vec<f32>)],
    sc: &mut Scratch,
    cands: &mut Vec<crate::input::Cand>,
) -> Result<(), ReduceError> {
    let map = f.map;
    let n = f.range.end;
    let mut sels: Vec<Sel<K>> = std::iter::repeat_n(Sel::EMPTY, BLOCK).collect();
    let mut bail = [false; BLOCK];
    for start in f.range.clone().step_by(BLOCK) {
        let end = (start + BLOCK).min(n);
        sels.fill(Sel::EMPTY);
        bail.fill(false);
        for (bone, col) in cols {
            let b = map.get(*bone as usize).copied().unwrap_or(u32::MAX);
            let col = col.get(start..end.min(col.len())).unwrap_or_default();
            for (c, chunk) in col.chunks(64).enumerate() {
                let mut m = nonzero_mask(chunk);
                while m != 0 {
                    let j = m.trailing_zeros() as usize;
                    m &= m - 1;
                    let w = chunk.get(j).copied().unwrap_or(0.0);
                    match classify(w) {
                        Weight::Fast => {
                            if let Some(s) = sels.get_mut(c * 64 + j) {
                                s.offer(b, w);
                            }
                        }
                        _ => {
                            if let Some(x) = bail.get_mut(c * 64 + j) {
                                *x = true;
                            }
                        }
                    }
                }
            }
        }
        for (v, (sel, bailed)) in (start..end).zip(sels.iter().zip(bail)) {
            if bailed {
                let dirty = f.general(v, cands, sc)?;
                f.vertex(v, dirty, sc)?;
            } else {
                f.fast_vertex(v, sel, sc)?;
            }
        }
    }
    Ok(())
}

/// The general path for vertex `v` (`cands` are its candidates): drops negative weights,
/// merges repeated bones, applies the threshold and keeps K, leaving the kept influences in
/// `sc.list` in the total order. Returns whether anything changed.
fn select_general(
    input: &Input,
    map: &[u32],
    v: usize,
    cands: &[crate::input::Cand],
    cfg: &Config,
    report: &mut Report,
    sc: &mut Scratch,
) -> Result<bool, ReduceError> {
    let k_max = cfg.max_influences;
    let repeats = input.may_repeat_bones();
    let mut dirty = false;
    sc.stamps.next_vertex();
    sc.list.clear();
    let mut repeated = false;
    for c in cands {
        if !c.weight.is_finite() {
            return Err(ReduceError::NonFinite {
                at: input.describe(v, c),
                weight: c.weight.to_string(),
            });
        }
        let bone = map.get(c.bone as usize).copied().unwrap_or(u32::MAX);
        if c.weight < 0.0 {
            report.negative += 1;
            // The first by (vertex, bone index, weight), whatever the input order.
            if report.first_negative.as_ref().is_none_or(|d| {
                (v as u64, bone)
                    .cmp(&(d.vertex, d.bone))
                    .then(c.weight.total_cmp(&d.weight))
                    == Ordering::Less
            }) {
                report.first_negative = Some(Dropped {
                    weight: c.weight,
                    vertex: v as u64,
                    bone,
                    at: input.describe(v, c),
                });
            }
            dirty = true;
        } else if c.weight != 0.0 {
            if repeats {
                repeated |= sc.stamps.repeated(bone);
            }
            sc.list.push((bone, c.weight));
        }
    }
    // Merge a bone listed twice: sum in float64 (ascending weights), rounding once.
    if repeated {
        sc.list
            .sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
        let mut out = 0usize;
        let mut i = 0usize;
        while let Some(&(b, w)) = sc.list.get(i) {
            let mut total = f64::from(w);
            let mut j = i + 1;
            while let Some(&(_, w2)) = sc.list.get(j).filter(|x| x.0 == b) {
                total += f64::from(w2);
                j += 1;
            }
            if j > i + 1 {
                report.merged += (j - i - 1) as u64;
                dirty = true;
            }
            if let Some(slot) = sc.list.get_mut(out) {
                *slot = (b, total as f32);
            }
            out += 1;
            i = j;
        }
        sc.list.truncate(out);
    }
    // Threshold: never the heaviest. With unit normalization it applies to each weight's
    // share of the vertex total, so reducing twice gives the same result.
    if cfg.min_weight > 0.0 && sc.list.len() > 1 {
        let scale = share_scale(sc.list.iter().map(|x| x.1), cfg.normalize);
        let best = sc.list.iter().copied().min_by(order);
        let before = sc.list.len();
        let min = f64::from(cfg.min_weight);
        let mut dropped = Vec::new();
        sc.list.retain(|&x| {
            let keep = Some(x) == best || f64::from(x.1) * scale >= min;
            if !keep {
                dropped.push(x);
            }
            keep
        });
        for (b, w) in dropped {
            note_drop(report, w, v as u64, b, || {
                format!("vertex {v}, {}", bone_label(input, map, b))
            });
        }
        report.below_threshold += (before - sc.list.len()) as u64;
        dirty |= before != sc.list.len();
    }
    // Keep K: the first K in the total order.
    if sc.list.len() > k_max {
        sc.list.select_nth_unstable_by(k_max - 1, order);
        // The heaviest dropped one (first in the order among the rest).
        if let Some(&(b, w)) = sc
            .list
            .get(k_max..)
            .unwrap_or_default()
            .iter()
            .min_by(|a, b| order(a, b))
        {
            note_drop(report, w, v as u64, b, || {
                format!("vertex {v}, {}", bone_label(input, map, b))
            });
        }
        report.dropped += (sc.list.len() - k_max) as u64;
        sc.list.truncate(k_max);
        dirty = true;
    }
    if sc.list.len() > 1 {
        sc.list.sort_unstable_by(order);
    }
    Ok(dirty)
}

/// The most influences per vertex the reducer keeps (256 sets of 4): the number sizes
/// per-vertex buffers, so it is bounded here whatever a caller asks.
pub const MAX_INFLUENCES: usize = 1024;

/// Reduces every vertex of `input`. `map[b]` is the output bone index of input bone `b`;
/// `root` is the output index of the root bone (for [`Empty::Root`]).
pub fn reduce(
    input: &Input,
    map: &[u32],
    root: Option<u32>,
    cfg: &Config,
) -> Result<Reduced, ReduceError> {
    reduce_with(input, map, root, cfg, true)
}

/// [`reduce`], with the fast selection allowed or not (tests compare both).
fn reduce_with(
    input: &Input,
    map: &[u32],
    root: Option<u32>,
    cfg: &Config,
    allow_fast: bool,
) -> Result<Reduced, ReduceError> {
    if cfg.max_influences == 0 {
        return Err(ReduceError::Config(
            "--max-influences must be at least 1".into(),
        ));
    }
    if cfg.max_influences > MAX_INFLUENCES {
        return Err(ReduceError::Config(format!(
            "--max-influences {} is more than {MAX_INFLUENCES}",
            cfg.max_influences
        )));
    }
    if cfg.quantize != Quantize::F32 && cfg.normalize == Normalize::None {
        return Err(ReduceError::Config(
            "integer weights always sum to exactly 255 or 65535; use --normalize unit with --quantize unorm8/unorm16".into(),
        ));
    }
    if !(cfg.min_weight.is_finite() && cfg.min_weight >= 0.0) {
        return Err(ReduceError::Config(
            "--min-weight must be a finite number ≥ 0".into(),
        ));
    }
    if cfg.empty == Empty::Root && root.is_none() {
        return Err(ReduceError::Config(
            "--empty root needs a skeleton with a root bone".into(),
        ));
    }
    let n = input.len();
    let max_sets = cfg.max_influences.div_ceil(4).max(1);
    // Vertices are independent: chunks run in parallel, each into its own output, and
    // are joined in vertex order, so the result is the same at any thread count.
    let chunks: Vec<Result<Chunk, ReduceError>> = {
        use rayon::prelude::*;
        (0..n.div_ceil(REDUCE_CHUNK).max(1))
            .into_par_iter()
            // One scratch (with its bone table) per worker job, not per chunk.
            .map_init(
                || Scratch::for_map(map),
                |sc, c| {
                    let range = (c * REDUCE_CHUNK).min(n)..n.min((c + 1) * REDUCE_CHUNK);
                    reduce_range(input, map, root, cfg, allow_fast, range, sc)
                },
            )
            .collect()
    };
    let mut influences = Vec::with_capacity(n * max_sets);
    let mut integers = cfg.quantize.max().map(|_| Vec::with_capacity(n * max_sets));
    let mut widest = 1;
    let mut report = Report::default();
    for chunk in chunks {
        let chunk = chunk?;
        influences.extend_from_slice(&chunk.influences);
        if let (Some(all), Some(part)) = (integers.as_mut(), chunk.integers.as_ref()) {
            all.extend_from_slice(part);
        }
        widest = widest.max(chunk.widest);
        report.append(chunk.report);
    }
    // Every vertex gets the sets the widest one needs.
    if widest < max_sets {
        influences = influences
            .chunks(max_sets)
            .flat_map(|c| c.iter().take(widest).copied())
            .collect();
        integers = integers.map(|q| {
            q.chunks(max_sets)
                .flat_map(|c| c.iter().take(widest).copied())
                .collect()
        });
    }
    if cfg.normalize == Normalize::None {
        above_one(input, map, &influences, widest)?;
    }
    Ok(Reduced {
        sets: widest,
        influences,
        integers,
        report,
    })
}

/// Vertices per parallel chunk of the reducer.
const REDUCE_CHUNK: usize = 1 << 15;

/// One chunk's output: `max_sets` sets per vertex, not yet narrowed to the widest.
struct Chunk {
    influences: Vec<InfluenceSet>,
    integers: Option<Vec<[u32; 4]>>,
    widest: usize,
    report: Report,
}

/// Reduces the vertices in `range` of `input`.
fn reduce_range(
    input: &Input,
    map: &[u32],
    root: Option<u32>,
    cfg: &Config,
    allow_fast: bool,
    range: std::ops::Range<usize>,
    sc: &mut Scratch,
) -> Result<Chunk, ReduceError> {
    let n = range.len();
    let k = cfg.max_influences;
    let max_sets = k.div_ceil(4).max(1);
    let qmax = cfg.quantize.max();
    let mut f = Finish {
        range: range.clone(),
        input,
        map,
        root,
        cfg,
        qmax,
        max_sets,
        report: Report {
            vertices: n as u64,
            ..Report::default()
        },
        influences: Vec::with_capacity(n * max_sets),
        integers: qmax.map(|_| Vec::with_capacity(n * max_sets)),
        widest: 1,
    };
    let mut cands = Vec::new();
    // The fast selection takes every vertex whose weights are positive and finite and
    // whose bones are distinct, when there is no threshold; it selects exactly what the
    // general path would (a test compares them). K is rounded up to 4, 8 or 16 for it.
    let fast = allow_fast && cfg.min_weight == 0.0 && k <= TOP;
    match (&input.data, fast) {
        (Data::Columns(cols), true) => match k {
            1..=4 => reduce_columns::<4>(&mut f, cols, sc, &mut cands)?,
            5..=8 => reduce_columns::<8>(&mut f, cols, sc, &mut cands)?,
            _ => reduce_columns::<TOP>(&mut f, cols, sc, &mut cands)?,
        },
        (_, true) => match k {
            1..=4 => reduce_rows::<4>(&mut f, sc, &mut cands)?,
            5..=8 => reduce_rows::<8>(&mut f, sc, &mut cands)?,
            _ => reduce_rows::<TOP>(&mut f, sc, &mut cands)?,
        },
        (_, false) => {
            for v in range {
                let dirty = f.general(v, &mut cands, sc)?;
                f.vertex(v, dirty, sc)?;
            }
        }
    }
    Ok(Chunk {
        influences: f.influences,
        integers: f.integers,
        widest: f.widest,
        report: f.report,
    })
}

impl Report {
    /// Adds the report of a later chunk of vertices: counts add up, and the "first" and
    /// "largest" entries are chosen by the same order a single run uses, so the joined
    /// report is the one a single run over all vertices gives.
    fn append(&mut self, later: Report) {
        self.vertices += later.vertices;
        self.changed += later.changed;
        self.dropped += later.dropped;
        self.below_threshold += later.below_threshold;
        self.quantized_away += later.quantized_away;
        self.merged += later.merged;
        self.negative += later.negative;
        self.empty += later.empty;
        self.max_influences_in = self.max_influences_in.max(later.max_influences_in);
        if self.first_empty.is_none() {
            self.first_empty = later.first_empty;
        }
        // Later chunks hold later vertices, so an earlier first negative stays first.
        if self.first_negative.is_none() {
            self.first_negative = later.first_negative;
        }
        if let Some(d) = later.largest_dropped
            && self
                .largest_dropped
                .as_ref()
                .is_none_or(|x| x.beaten_by(d.weight, d.vertex, d.bone))
        {
            self.largest_dropped = Some(d);
        }
    }
}

/// Refuses a kept weight above 1 (only possible without normalization): dash reduce
/// never writes what its validator rejects (spec/security.md §5).
fn above_one(
    input: &Input,
    map: &[u32],
    influences: &[InfluenceSet],
    sets: usize,
) -> Result<(), ReduceError> {
    let Some(i) = influences
        .iter()
        .position(|s| s.weights.iter().any(|&w| w > 1.0))
    else {
        return Ok(());
    };
    let vertex = i / sets.max(1);
    let set = influences.get(i).copied().unwrap_or(InfluenceSet::ZERO);
    let (bone, weight) = set
        .pairs()
        .find(|p| p.1 > 1.0)
        .unwrap_or((0, f32::INFINITY));
    let weight = format!("{weight:?}");
    let as_written = input.candidates_of(vertex).iter().any(|c| c.weight > 1.0);
    Err(ReduceError::AboveOne {
        vertex: vertex as u64,
        bone: bone_label(input, map, bone),
        weight,
        merged: if as_written {
            ""
        } else {
            " after merging repeats of the bone"
        },
    })
}

/// "bone NAME (index N)" for an output index.
fn bone_label(input: &Input, map: &[u32], out: u32) -> String {
    match map
        .iter()
        .position(|&m| m == out)
        .and_then(|b| input.bones.get(b))
    {
        Some(b) => format!(
            "bone {} (index {out})",
            dashvertex_core::text::short(&b.name)
        ),
        None => format!("bone index {out}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Candidates;
    use crate::manifest::BoneRef;

    fn input(vertices: &[&[(u32, f32)]], bones: u32) -> Input<'static> {
        let counts: Vec<u32> = vertices.iter().map(|v| v.len() as u32).collect();
        let mut c = Candidates::with_counts(&counts);
        for (v, list) in vertices.iter().enumerate() {
            for (k, &(b, w)) in list.iter().enumerate() {
                c.push(v, b, w, k as u32);
            }
        }
        Input {
            bones: (0..bones)
                .map(|i| BoneRef {
                    name: format!("b{i}"),
                    parent: None,
                })
                .collect(),
            positions: vec![[0.0; 3]; vertices.len()],
            data: crate::input::Data::Lists(c),
            origin: crate::input::Origin::Sets,
        }
    }

    fn identity(n: u32) -> Vec<u32> {
        (0..n).collect()
    }

    #[test]
    fn keeps_the_heaviest_ties_by_lower_index_and_merges_duplicates() {
        let i = input(
            &[&[(5, 0.1), (3, 0.2), (1, 0.2), (2, 0.05), (4, 0.3), (1, 0.1)]],
            6,
        );
        let r = reduce(&i, &identity(6), None, &Config::default()).unwrap();
        // b1 = 0.2 + 0.1 = 0.3 ties b4 = 0.3: b1 first (lower index).
        assert_eq!(r.influences[0].joints, [1, 4, 3, 5]);
        assert_eq!(r.report.merged, 1);
        assert_eq!(r.report.dropped, 1);
        assert_eq!(r.report.largest_dropped.as_ref().unwrap().weight, 0.05);
    }

    #[test]
    fn unit_weights_pass_the_gltf_rule_and_unorm_sums_are_exact() {
        let i = input(
            &[
                &[(0, 0.3), (1, 0.3), (2, 0.3)],
                &[
                    (0, 1.0),
                    (1, 1.0),
                    (2, 1.0),
                    (3, 1.0),
                    (4, 1.0),
                    (5, 1.0),
                    (6, 1.0),
                ],
            ],
            7,
        );
        let unit_cfg = Config {
            normalize: Normalize::Unit,
            max_influences: 8,
            ..Config::default()
        };
        let r = reduce(&i, &identity(7), None, &unit_cfg).unwrap();
        for v in 0..2 {
            let sets: Vec<InfluenceSet> = r.influences[v * r.sets..(v + 1) * r.sets].to_vec();
            assert!(
                dashvertex_core::weights::check_float_sets(&sets).passes(),
                "vertex {v}: {sets:?}"
            );
        }
        for (q, m) in [(Quantize::Unorm8, 255u32), (Quantize::Unorm16, 65535)] {
            let r = reduce(
                &i,
                &identity(7),
                None,
                &Config {
                    quantize: q,
                    ..unit_cfg
                },
            )
            .unwrap();
            for v in 0..2 {
                let total: u32 = r.integers.as_ref().unwrap()[v * r.sets..(v + 1) * r.sets]
                    .iter()
                    .flatten()
                    .sum();
                assert_eq!(total, m);
            }
        }
    }

    #[test]
    fn a_share_too_small_for_binary32_is_dropped_not_left_as_a_zero_weight() {
        // Found by the reduce fuzz target: 1.4e-45 / 3 rounds to 0 in binary32.
        let tiny = f32::from_bits(1);
        let i = input(&[&[(2, tiny), (1, 3.0)]], 3);
        let cfg = Config {
            normalize: Normalize::Unit,
            ..Config::default()
        };
        let r = reduce(&i, &identity(3), None, &cfg).unwrap();
        assert_eq!(r.influences[0].joints, [1, 0, 0, 0]);
        assert_eq!(r.influences[0].weights, [1.0, 0.0, 0.0, 0.0]);
        assert_eq!(r.report.quantized_away, 1);
        assert_eq!(r.report.largest_dropped.as_ref().map(|d| d.bone), Some(2));
    }

    #[test]
    fn nonzero_mask_marks_every_non_zero_weight() {
        let mut w = [0.0f32; 64];
        for i in [0, 1, 7, 8, 31, 32, 55, 63] {
            w[i] = if i % 2 == 0 { 0.5 } else { f32::NAN };
        }
        w[9] = -0.0;
        w[10] = f32::from_bits(1);
        let expected = [0u32, 1, 7, 8, 10, 31, 32, 55, 63]
            .iter()
            .fold(0u64, |m, &i| m | 1 << i);
        assert_eq!(nonzero_mask(&w), expected);
        assert_eq!(nonzero_mask(&w[..11]), expected & 0x7FF);
        assert_eq!(nonzero_mask(&[]), 0);
    }

    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

        /// The fast selection selects exactly what the general path selects, from
        /// lists, per-bone columns and influence sets alike, whatever the weights
        /// (zeros, `-0.0`, negatives, infinities and repeated bones included).
        #[test]
        fn fast_path_equals_general_path(
            lists in proptest::collection::vec(proptest::collection::vec((0u32..10, prop_oneof![
                8 => (1u32..200).prop_map(|n| n as f32 / 100.0),
                2 => Just(0.5f32),
                1 => Just(0.0f32),
                1 => Just(-0.0f32),
                1 => Just(-0.25f32),
                1 => Just(f32::INFINITY),
            ]), 0..20), 1..8),
            k in 1usize..18,
            q in 0u8..3,
            unit_norm in any::<bool>(),
        ) {
            let cfg = Config {
                max_influences: k,
                normalize: if unit_norm || q > 0 { Normalize::Unit } else { Normalize::None },
                quantize: [Quantize::F32, Quantize::Unorm16, Quantize::Unorm8][q as usize],
                empty: Empty::Zero,
                ..Config::default()
            };
            let refs: Vec<&[(u32, f32)]> = lists.iter().map(Vec::as_slice).collect();
            let from_lists = input(&refs, 10);
            // Columns: the first weight each vertex gives a bone.
            let mut columns: Vec<(u32, Vec<f32>)> =
                (0..10).map(|b| (b, vec![0.0; lists.len()])).collect();
            for (v, l) in lists.iter().enumerate() {
                for (b, w) in l.iter().rev() {
                    columns[*b as usize].1[v] = *w;
                }
            }
            let from_columns = Input {
                data: crate::input::Data::Columns(columns),
                ..from_lists.clone()
            };
            // Sets: four list entries per set, zero-padded.
            let n_sets = lists.iter().map(|l| l.len().div_ceil(4)).max().unwrap_or(0);
            let mut sets = vec![vec![InfluenceSet::ZERO; lists.len()]; n_sets];
            for (v, l) in lists.iter().enumerate() {
                for (i, (b, w)) in l.iter().enumerate() {
                    sets[i / 4][v].joints[i % 4] = *b;
                    sets[i / 4][v].weights[i % 4] = *w;
                }
            }
            let from_sets = Input {
                data: crate::input::Data::Sets(sets),
                ..from_lists.clone()
            };
            for i in [&from_lists, &from_columns, &from_sets] {
                let fast = reduce_with(i, &identity(10), None, &cfg, true);
                let general = reduce_with(i, &identity(10), None, &cfg, false);
                prop_assert_eq!(fast, general);
            }
        }

        /// Blocks of vertices change nothing: a long input reduces as its vertices do
        /// one at a time.
        #[test]
        fn blocks_change_nothing(
            lists in proptest::collection::vec(proptest::collection::vec((0u32..70, (1u32..200).prop_map(|n| n as f32 / 100.0)), 0..9), 250..600),
        ) {
            let refs: Vec<&[(u32, f32)]> = lists.iter().map(Vec::as_slice).collect();
            let mut columns: Vec<(u32, Vec<f32>)> =
                (0..70).map(|b| (b, vec![0.0; lists.len()])).collect();
            for (v, l) in lists.iter().enumerate() {
                for (b, w) in l.iter().rev() {
                    columns[*b as usize].1[v] = *w;
                }
            }
            let whole = Input {
                data: crate::input::Data::Columns(columns),
                ..input(&refs, 70)
            };
            let cfg = Config { empty: Empty::Zero, normalize: Normalize::Unit, ..Config::default() };
            let all = reduce(&whole, &identity(70), None, &cfg).unwrap();
            let last = lists.len() - 1;
            for v in [0, 63, 64, 200, last.min(255), last.min(256), last] {
                let one = Input {
                    positions: vec![[0.0; 3]],
                    data: crate::input::Data::Columns(match &whole.data {
                        crate::input::Data::Columns(c) => c.iter().map(|(b, col)| (*b, vec![col[v]])).collect(),
                        _ => unreachable!(),
                    }),
                    ..whole.clone()
                };
                let r = reduce(&one, &identity(70), None, &cfg).unwrap();
                prop_assert_eq!(r.influences[0], all.influences[v]);
            }
        }
    }

    #[test]
    fn threshold_never_drops_the_heaviest_and_empty_policies() {
        let i = input(&[&[(0, 0.001), (1, 0.002)], &[], &[(2, -0.5)]], 3);
        let cfg = Config {
            min_weight: 0.01,
            empty: Empty::Zero,
            ..Config::default()
        };
        let r = reduce(&i, &identity(3), None, &cfg).unwrap();
        assert_eq!(r.influences[0].joints[0], 1);
        assert_eq!(r.report.below_threshold, 1);
        assert_eq!(r.report.empty, 2);
        assert_eq!(r.report.negative, 1);
        let err = reduce(
            &i,
            &identity(3),
            None,
            &Config {
                min_weight: 0.01,
                ..Config::default()
            },
        )
        .unwrap_err();
        assert_eq!(err, ReduceError::Empty(1));
        let r = reduce(
            &i,
            &identity(3),
            Some(2),
            &Config {
                empty: Empty::Root,
                ..Config::default()
            },
        )
        .unwrap();
        assert_eq!(
            (r.influences[1].joints[0], r.influences[1].weights[0]),
            (2, 1.0)
        );
        let nan = input(&[&[(0, f32::NAN)]], 1);
        assert!(matches!(
            reduce(&nan, &identity(1), None, &Config::default()),
            Err(ReduceError::NonFinite { .. })
        ));
    }
}
