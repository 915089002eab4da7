//! The reduction algorithm (`spec/reduction.md` §2), one vertex at a time.

use std::cmp::Ordering;

use dash_core::weights::SumCheck;
use dash_core::{InfluenceSet, Mesh, Vertex};

use crate::input::Input;

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
    /// Influences that became 0 when quantized.
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
fn layout_check(w: &[f32]) -> SumCheck {
    let sets = w.len().div_ceil(4);
    let mut check = SumCheck::new();
    for slot in 0..4 {
        for set in 0..sets {
            if let Some(&x) = w.get(set * 4 + slot).filter(|x| **x != 0.0) {
                check.add(f64::from(x));
            }
        }
    }
    check
}

/// Makes `w` (heaviest first) pass the glTF sum rule in the output layout: weights that
/// already pass are kept; otherwise each becomes `w / Σw` and the heaviest absorbs the
/// rounding residual.
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

/// Reusable per-vertex buffers.
#[derive(Default)]
struct Scratch {
    block: crate::input::Block,
    /// `stamp[bone] == generation` when the current pass over a vertex listed `bone`.
    stamp: Vec<u64>,
    generation: u64,
    list: Vec<(u32, f32)>,
    weights: Vec<f32>,
    ints: Vec<u32>,
    rems: Vec<(f64, usize)>,
    fin: Vec<(u32, f32, u32)>,
}

/// Reduces every vertex of `input`. `map[b]` is the output bone index of input bone `b`;
/// `root` is the output index of the root bone (for [`Empty::Root`]).
pub fn reduce(
    input: &Input,
    map: &[u32],
    root: Option<u32>,
    cfg: &Config,
) -> Result<Reduced, ReduceError> {
    if cfg.max_influences == 0 {
        return Err(ReduceError::Config(
            "--max-influences must be at least 1".into(),
        ));
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
    let k_max = cfg.max_influences;
    let max_sets = k_max.div_ceil(4).max(1);
    let qmax = cfg.quantize.max();
    let repeats = input.may_repeat_bones();
    let _ = &repeats;
    let mut report = Report {
        vertices: n as u64,
        ..Report::default()
    };
    let mut influences = vec![InfluenceSet::ZERO; n * max_sets];
    let mut integers = qmax.map(|_| vec![[0u32; 4]; n * max_sets]);
    let mut widest = 1usize;
    let mut sc = Scratch::default();
    const BLOCK: usize = 256;
    const TOP: usize = 16;
    sc.stamp = vec![0; map.iter().copied().max().map_or(0, |m| m as usize + 1)];
    sc.generation = 0;
    for v in 0..n {
        let i_in_block = v % BLOCK;
        if i_in_block == 0 {
            input.block(v, (v + BLOCK).min(n), &mut sc.block);
        }
        let cands = sc.block.of(i_in_block);
        report.max_influences_in = report.max_influences_in.max(cands.len() as u64);
        let mut dirty = false;
        // Fast path: every weight positive and finite, no bone repeated, no threshold.
        // It selects exactly what the general path below would (a test compares them).
        let mut fast = cfg.min_weight == 0.0 && !cands.is_empty() && k_max <= TOP;
        if fast {
            sc.generation += 1;
            // Keys sort like `order`: for positive finite weights the bit patterns grow
            // with the value, so (!bits, bone) ascending is weight descending, bone
            // ascending.
            let key = |b: u32, w: f32| (u64::from(!w.to_bits()) << 32) | u64::from(b);
            let mut top = [u64::MAX; TOP];
            let mut len = 0usize;
            let mut best_dropped = u64::MAX;
            let mut dropped = 0u64;
            for c in cands {
                let w = c.weight;
                if !(w > 0.0 && w.is_finite()) {
                    fast = false;
                    break;
                }
                let b = map.get(c.bone as usize).copied().unwrap_or(u32::MAX);
                if repeats {
                    match sc.stamp.get_mut(b as usize) {
                        Some(st) if *st == sc.generation => {
                            fast = false;
                            break;
                        }
                        Some(st) => *st = sc.generation,
                        None => {}
                    }
                }
                let mut x = key(b, w);
                if len == k_max {
                    let last = top.get(len - 1).copied().unwrap_or(u64::MAX);
                    dropped += 1;
                    if x >= last {
                        best_dropped = best_dropped.min(x);
                        continue;
                    }
                    best_dropped = best_dropped.min(last);
                    len -= 1;
                }
                // Insertion into the sorted prefix.
                let mut i = len;
                while i > 0 {
                    let prev = top.get(i - 1).copied().unwrap_or(0);
                    if prev <= x {
                        break;
                    }
                    if let Some(t) = top.get_mut(i) {
                        *t = prev;
                    }
                    i -= 1;
                }
                if let Some(t) = top.get_mut(i) {
                    std::mem::swap(t, &mut x);
                }
                len += 1;
            }
            if fast {
                let unkey = |k: u64| {
                    (
                        (k & 0xFFFF_FFFF) as u32,
                        f32::from_bits(!((k >> 32) as u32)),
                    )
                };
                sc.list.clear();
                sc.list.extend(top.iter().take(len).map(|&k| unkey(k)));
                if dropped > 0 {
                    let (b, w) = unkey(best_dropped);
                    note_drop(&mut report, w, v as u64, b, || {
                        format!("vertex {v}, {}", bone_label(input, map, b))
                    });
                    report.dropped += dropped;
                    dirty = true;
                }
            }
        }
        if !fast {
            sc.generation += 1;
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
                    if let Some(st) = sc.stamp.get_mut(bone as usize).filter(|_| repeats) {
                        repeated |= *st == sc.generation;
                        *st = sc.generation;
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
            // Threshold: never the heaviest. With unit normalization it applies to each
            // weight's share of the vertex total, so reducing twice gives the same result.
            if cfg.min_weight > 0.0 && sc.list.len() > 1 {
                let total: f64 = sc.list.iter().map(|x| f64::from(x.1)).sum();
                let scale = match cfg.normalize {
                    Normalize::Unit if total > 0.0 => 1.0 / total,
                    _ => 1.0,
                };
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
                    note_drop(&mut report, w, v as u64, b, || {
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
                    note_drop(&mut report, w, v as u64, b, || {
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
        }
        if sc.list.is_empty() {
            report.empty += 1;
            report.first_empty.get_or_insert(v as u64);
            match cfg.empty {
                Empty::Error => return Err(ReduceError::Empty(v as u64)),
                Empty::Zero => {}
                Empty::Root => {
                    sc.list.push((root.unwrap_or(0), 1.0));
                    dirty = true;
                }
            }
        }
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
            if qmax.is_some() && q == 0 {
                report.quantized_away += 1;
                note_drop(
                    &mut report,
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
        let base = v * max_sets;
        for (i, &(b, w, q)) in sc.fin.iter().enumerate() {
            if let Some(set) = influences.get_mut(base + i / 4) {
                if let Some(j) = set.joints.get_mut(i % 4) {
                    *j = b;
                }
                if let Some(x) = set.weights.get_mut(i % 4) {
                    *x = w;
                }
            }
            if let Some(x) = integers
                .as_mut()
                .and_then(|q| q.get_mut(base + i / 4))
                .and_then(|slot| slot.get_mut(i % 4))
            {
                *x = q;
            }
        }
        widest = widest.max(sc.fin.len().div_ceil(4));
        report.changed += u64::from(dirty);
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
    Ok(Reduced {
        sets: widest,
        influences,
        integers,
        report,
    })
}

/// "bone NAME (index N)" for an output index.
fn bone_label(input: &Input, map: &[u32], out: u32) -> String {
    match map
        .iter()
        .position(|&m| m == out)
        .and_then(|b| input.bones.get(b))
    {
        Some(b) => format!("bone {:?} (index {out})", b.name),
        None => format!("bone index {out}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Candidates;
    use crate::manifest::BoneRef;

    fn input(vertices: &[&[(u32, f32)]], bones: u32) -> Input {
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
                dash_core::weights::check_float_sets(&sets).passes(),
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

    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

        /// The fast path selects exactly what the general path selects. A `-0.0`
        /// candidate sends a vertex down the general path without changing its result.
        #[test]
        fn fast_path_equals_general_path(
            lists in proptest::collection::vec(proptest::collection::vec((0u32..10, prop_oneof![(1u32..200).prop_map(|n| n as f32 / 100.0), Just(0.5f32)]), 0..14), 1..8),
            k in 1usize..9,
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
            let fast: Vec<&[(u32, f32)]> = lists.iter().map(Vec::as_slice).collect();
            let slow_lists: Vec<Vec<(u32, f32)>> = lists.iter().map(|l| {
                let mut l = l.clone();
                l.push((0, -0.0));
                l
            }).collect();
            let slow: Vec<&[(u32, f32)]> = slow_lists.iter().map(Vec::as_slice).collect();
            let a = reduce(&input(&fast, 10), &identity(10), None, &cfg).unwrap();
            let mut b = reduce(&input(&slow, 10), &identity(10), None, &cfg).unwrap();
            b.report.max_influences_in = a.report.max_influences_in;
            prop_assert_eq!(a, b);
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
