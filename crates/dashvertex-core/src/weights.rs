//! Weight arithmetic shared by the validator and the reducer.
//!
//! [`SumCheck`] reproduces the glTF weight-sum rule exactly as the official Khronos
//! validator evaluates it (`spec/validation.md`, rule `WEIGHT_SUM`): weights are added in
//! float32, in component-major, set-minor order, and the tolerance grows by `2e-7` per
//! counted (non-zero, in-range, first-use, positive) weight.

use crate::{InfluenceSet, SLOTS};

/// Tolerance added per counted weight.
pub const TOLERANCE_PER_WEIGHT: f64 = 2e-7;

/// Running state of the glTF sum rule for one vertex.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SumCheck {
    /// The float32 running sum.
    pub sum: f32,
    /// The tolerance accumulated so far (float64).
    pub threshold: f64,
    /// Number of weights added.
    pub counted: u32,
}

impl SumCheck {
    /// A fresh check.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a weight given as its exact value in float64 (a float weight widened, or a
    /// normalized integer divided by 255 / 65535 in float64). The sum is rounded to
    /// float32 after every addition, as the reference implementation does.
    #[inline]
    #[allow(
        clippy::cast_possible_truncation,
        reason = "f64 to f32 rounds to the nearest float32, the rule being implemented"
    )]
    pub fn add(&mut self, weight: f64) {
        self.sum = (f64::from(self.sum) + weight) as f32;
        self.threshold += TOLERANCE_PER_WEIGHT;
        self.counted += 1;
    }

    /// Adds a float32 weight; the same as `add(f64::from(weight))`, but with one float32
    /// addition: binary64 has more than twice binary32's precision plus two bits, so
    /// rounding the exact sum to binary64 and then to binary32 gives the binary32 sum.
    #[inline]
    pub fn add_f32(&mut self, weight: f32) {
        self.sum += weight;
        self.threshold += TOLERANCE_PER_WEIGHT;
        self.counted += 1;
    }

    /// `|sum - 1|` in float64.
    #[inline]
    pub fn error(&self) -> f64 {
        (f64::from(self.sum) - 1.0).abs()
    }

    /// True when the sum is within tolerance. NaN sums pass, exactly as in the reference
    /// (NaN weights have a rule of their own).
    #[inline]
    pub fn passes(&self) -> bool {
        // Written as the negation of the reference's `> threshold` test on purpose.
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        let pass = !(self.error() > self.threshold);
        pass
    }
}

/// Visits the slots of a vertex's sets in the reference order: slot 0 of every set, then
/// slot 1 of every set, and so on. Yields `(set, slot, bone, weight)`.
pub fn reference_order(
    sets: &[InfluenceSet],
) -> impl Iterator<Item = (usize, usize, u32, f32)> + '_ {
    (0..SLOTS).flat_map(move |slot| {
        sets.iter().enumerate().filter_map(move |(s, set)| {
            let j = set.joints.get(slot)?;
            let w = set.weights.get(slot)?;
            Some((s, slot, *j, *w))
        })
    })
}

/// Sum of float weights with the reference rule applied to every non-zero weight (for data
/// already known to be free of duplicates, out-of-range and negative weights).
pub fn check_float_sets(sets: &[InfluenceSet]) -> SumCheck {
    let mut check = SumCheck::new();
    for (_, _, _, w) in reference_order(sets) {
        if w != 0.0 {
            check.add(f64::from(w));
        }
    }
    check
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(ws: &[f32]) -> SumCheck {
        let mut c = SumCheck::new();
        for &w in ws {
            c.add(f64::from(w));
        }
        c
    }

    // The observed behaviours listed in the project notes (gltf-skinning-rules.md §4).
    #[test]
    fn matches_reference_probes() {
        // k = 4, error 3e-7: accepted (threshold 8e-7).
        assert!(one(&[0.25, 0.25, 0.25, 0.2500003]).passes());
        // k = 1, error 3.6e-7: rejected.
        assert!(!one(&[1.000_000_4]).passes());
        // k = 2, sum 1.0000004768: rejected (threshold 4e-7).
        assert!(!one(&[0.5, 0.500_000_5]).passes());
        // all zero: k = 0, sum 0, threshold 0: rejected.
        assert!(!SumCheck::new().passes());
        // 8 x 0.125 over two sets: accepted.
        assert!(one(&[0.125; 8]).passes());
        // u8 85 x 3 = 255: accepted.
        let mut c = SumCheck::new();
        for _ in 0..3 {
            c.add(85.0 / 255.0);
        }
        assert!(c.passes());
        // u8 127 + 127 = 254: rejected.
        let mut c = SumCheck::new();
        c.add(127.0 / 255.0);
        c.add(127.0 / 255.0);
        assert!(!c.passes());
        // NaN passes the sum rule (it has its own rule).
        assert!(one(&[f32::NAN]).passes());
        assert!(!one(&[f32::INFINITY]).passes());
    }

    proptest::proptest! {
        #[test]
        fn add_f32_is_add_of_the_widened_weight(
            a in proptest::num::f32::ANY,
            b in proptest::num::f32::ANY,
            c in proptest::num::f32::ANY,
        ) {
            let mut wide = SumCheck::new();
            let mut narrow = SumCheck::new();
            for w in [a, b, c] {
                wide.add(f64::from(w));
                narrow.add_f32(w);
                proptest::prop_assert!(
                    wide.sum.to_bits() == narrow.sum.to_bits()
                        || (wide.sum.is_nan() && narrow.sum.is_nan())
                );
                proptest::prop_assert_eq!(wide.threshold.to_bits(), narrow.threshold.to_bits());
            }
        }
    }

    #[test]
    fn reference_order_is_component_major() {
        let a = InfluenceSet::from_pairs(&[(1, 0.1), (2, 0.2)]).unwrap();
        let b = InfluenceSet::from_pairs(&[(3, 0.3), (4, 0.4)]).unwrap();
        let order: Vec<u32> = reference_order(&[a, b]).map(|x| x.2).take(4).collect();
        assert_eq!(order, vec![1, 3, 2, 4]);
    }
}
