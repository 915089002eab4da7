//! The general selection, for any input: negative weights dropped, repeated bones
//! merged, the threshold applied, then the first K in the total order kept.

use std::cmp::Ordering;

use super::chunk::Scratch;
use super::finish::Finish;
use super::{Config, Dropped, Normalize, ReduceError, Report, bone_label, note_drop, to_f32};
use crate::input::Input;

/// Total order of influences: weight descending, then bone index ascending
/// ([`dashvertex_core::canonical_order`]).
pub(super) fn order(a: &(u32, f32), b: &(u32, f32)) -> Ordering {
    dashvertex_core::canonical_order(a, b)
}

/// What the threshold multiplies a weight by: `1 / Σw` with `unit` (Σ in float64, summed
/// in ascending order so it never depends on input order), 1 otherwise.
pub(super) fn share_scale(weights: impl Iterator<Item = f32>, normalize: Normalize) -> f64 {
    if normalize != Normalize::Unit {
        return 1.0;
    }
    let mut w: Vec<f32> = weights.collect();
    w.sort_unstable_by(f32::total_cmp);
    let total: f64 = w.iter().map(|&x| f64::from(x)).sum();
    if total > 0.0 { 1.0 / total } else { 1.0 }
}

/// Tells repeated bones apart within one vertex: bit `bone` of `low` for bones below 64,
/// else `stamp[bone] == generation` when the vertex listed `bone` already; bones beyond
/// the table (indices a file can name without having the bones, up to 2^32) go to a
/// map, so memory follows the influences, not the largest index.
#[derive(Default)]
pub(super) struct Stamps {
    low: u64,
    stamp: Vec<u64>,
    far: std::collections::HashMap<u32, u64>,
    generation: u64,
}

/// The largest bone index kept in the direct table of [`Stamps`] (32 MiB of stamps).
const STAMP_TABLE: usize = 1 << 22;

impl Stamps {
    /// Stamps whose direct table covers the output indices of `map` (up to
    /// [`STAMP_TABLE`]; larger indices go to the map beside it).
    pub(super) fn for_map(map: &[u32]) -> Stamps {
        Stamps {
            stamp: vec![
                0;
                map.iter()
                    .copied()
                    .max()
                    .map_or(0, |m| m as usize + 1)
                    .min(STAMP_TABLE)
            ],
            ..Stamps::default()
        }
    }

    #[inline(always)]
    pub(super) fn next_vertex(&mut self) {
        self.low = 0;
        self.generation += 1;
    }

    /// Marks `bone`; true when this vertex had marked it already.
    #[inline(always)]
    pub(super) fn repeated(&mut self, bone: u32) -> bool {
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

impl Finish<'_> {
    /// Runs the general path on vertex `v` (reading its candidates into `cands`), leaving
    /// the kept influences in `sc.list`. Returns whether anything changed.
    pub(super) fn general(
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
                *slot = (b, to_f32(total));
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

#[cfg(test)]
mod tests {
    use crate::reduce::test_inputs::{identity, input};
    use crate::reduce::{Config, Empty, ReduceError, reduce};

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
    fn threshold_never_drops_the_heaviest_and_negatives_are_dropped() {
        let i = input(&[&[(0, 0.001), (1, 0.002)], &[], &[(2, -0.5)]], 3);
        let cfg = Config {
            min_weight: 0.01,
            empty: Empty::Zero,
            ..Config::default()
        };
        let r = reduce(&i, &identity(3), None, &cfg).unwrap();
        assert_eq!(r.influences[0].joints[0], 1);
        assert_eq!(r.report.below_threshold, 1);
        assert_eq!(r.report.negative, 1);
    }

    #[test]
    fn non_finite_weights_are_refused() {
        let nan = input(&[&[(0, f32::NAN)]], 1);
        assert!(matches!(
            reduce(&nan, &identity(1), None, &Config::default()),
            Err(ReduceError::NonFinite { .. })
        ));
    }
}
