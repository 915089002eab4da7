//! Finishing a vertex after selection: the empty-vertex policy, normalization,
//! quantization, the final order, and padding into sets of four.

use std::cmp::Ordering;

use dashvertex_core::InfluenceSet;

use super::chunk::Scratch;
use super::quantize::quantize;
use super::select::{order, share_scale};
use super::{Config, Empty, Normalize, ReduceError, Report, bone_label, note_drop};
use crate::input::Input;

/// The vertex-by-vertex stage after selection: empty vertices, normalization,
/// quantization, final order and output.
pub(super) struct Finish<'a> {
    /// The vertices this run reduces (a chunk of the input).
    pub(super) range: std::ops::Range<usize>,
    pub(super) input: &'a Input<'a>,
    pub(super) map: &'a [u32],
    pub(super) root: Option<u32>,
    pub(super) cfg: &'a Config,
    pub(super) qmax: Option<u32>,
    pub(super) max_sets: usize,
    pub(super) report: Report,
    /// `max_sets` zeroed sets for each vertex of `range`, filled in as they finish.
    pub(super) influences: &'a mut [InfluenceSet],
    /// The quantized weights, laid out as `influences` (when quantizing).
    pub(super) integers: Option<&'a mut [[u32; 4]]>,
    pub(super) widest: usize,
}

impl Finish<'_> {
    /// Where vertex `v`'s first set goes in `influences` (and `integers`).
    #[inline(always)]
    pub(super) fn slot(&self, v: usize) -> usize {
        (v - self.range.start) * self.max_sets
    }

    /// Finishes vertex `v`, whose kept influences are in `sc.list` in the total order.
    /// `dirty`: the selection changed something already.
    pub(super) fn vertex(
        &mut self,
        v: usize,
        mut dirty: bool,
        sc: &mut Scratch,
    ) -> Result<(), ReduceError> {
        if sc.list.is_empty() {
            dirty |= self.empty_vertex(v, sc)?;
        }
        loop {
            dirty |= self.written_weights(v, sc);
            if !self.threshold_again(v, sc) {
                break;
            }
            dirty = true;
        }
        self.store(v, sc);
        self.report.changed += u64::from(dirty);
        Ok(())
    }

    /// Applies the empty-vertex policy to vertex `v`, which kept nothing; returns whether
    /// it bound the vertex to the root.
    fn empty_vertex(&mut self, v: usize, sc: &mut Scratch) -> Result<bool, ReduceError> {
        self.report.empty += 1;
        self.report.first_empty.get_or_insert(v as u64);
        match self.cfg.empty {
            Empty::Error => Err(ReduceError::Empty(v as u64)),
            Empty::Zero => Ok(false),
            Empty::Root => {
                sc.list.push((self.root.unwrap_or(0), 1.0));
                Ok(true)
            }
        }
    }

    /// The weights written for `sc.list` into `sc.fin` (bone, weight, integer):
    /// normalized, quantized, influences rounded to nothing dropped and reported, in the
    /// order of the final weights. Returns whether a weight changed.
    fn written_weights(&mut self, v: usize, sc: &mut Scratch) -> bool {
        let (input, map, cfg, qmax) = (self.input, self.map, self.cfg, self.qmax);
        let report = &mut self.report;
        sc.weights.clear();
        sc.weights.extend(sc.list.iter().map(|x| x.1));
        if cfg.normalize == Normalize::Unit {
            unit(&mut sc.weights);
        }
        sc.ints.clear();
        if let Some(max) = qmax {
            quantize(&mut sc.weights, max, &mut sc.ints, &mut sc.rems);
        }
        let changed = sc
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
        changed
    }

    /// With `unit` the threshold holds for the weights written, too: anything now below
    /// it (as a share of the written weights, which is what reducing this output again
    /// would see) is dropped from `sc.list` and reported. Returns whether anything was,
    /// so the rest is finished again.
    fn threshold_again(&mut self, v: usize, sc: &mut Scratch) -> bool {
        let (input, map, cfg) = (self.input, self.map, self.cfg);
        if cfg.normalize != Normalize::Unit || cfg.min_weight <= 0.0 || sc.fin.len() < 2 {
            return false;
        }
        let report = &mut self.report;
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
            return false;
        }
        debug_assert!(sc.list.len() < before);
        report.below_threshold += below;
        true
    }

    /// Writes `sc.fin` into vertex `v`'s sets (zeroed, starting at `(v − range.start) ×
    /// max_sets`) and integers.
    fn store(&mut self, v: usize, sc: &Scratch) {
        let base = self.slot(v);
        for (i, &(b, w, q)) in sc.fin.iter().take(self.max_sets * 4).enumerate() {
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
    }
}

/// Makes `w` (heaviest first) pass the glTF sum rule in the output layout
/// ([`dashvertex_core::weights::normalize_unit`]).
#[inline]
pub(super) fn unit(w: &mut [f32]) {
    dashvertex_core::weights::normalize_unit(w);
}

/// Refuses a kept weight above 1 (only possible without normalization): dashvertex reduce
/// never writes what its validator rejects (spec/security.md §5).
pub(super) fn above_one(
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

#[cfg(test)]
mod tests {
    use dashvertex_core::InfluenceSet;

    use crate::reduce::test_inputs::{identity, input, uneven};
    use crate::reduce::{Config, Empty, Normalize, ReduceError, reduce};

    #[test]
    fn unit_weights_pass_the_gltf_rule() {
        let i = uneven();
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
    fn empty_policies() {
        // Vertex 1 lists nothing; vertex 2 only a negative weight.
        let i = input(&[&[(0, 0.001), (1, 0.002)], &[], &[(2, -0.5)]], 3);
        let cfg = Config {
            min_weight: 0.01,
            empty: Empty::Zero,
            ..Config::default()
        };
        let r = reduce(&i, &identity(3), None, &cfg).unwrap();
        assert_eq!(r.report.empty, 2);
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
    }
}
