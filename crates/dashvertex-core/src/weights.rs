//! Weight arithmetic shared by the validator, the reducer and the fixer: the glTF sum
//! rule, and the two normalizations that satisfy it (binary32 and integer).
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

/// The glTF sum check of weights laid out influence `i` → set `i / 4`, slot `i % 4`
/// (the layout of a vertex's sets, set-major), taken in the reference order (slot-major,
/// set-minor), counting the non-zero weights.
#[inline]
pub fn layout_check(w: &[f32]) -> SumCheck {
    let sets = w.len().div_ceil(SLOTS);
    let mut check = SumCheck::new();
    for slot in 0..SLOTS {
        for set in 0..sets {
            if let Some(&x) = w.get(set * SLOTS + slot).filter(|x| **x != 0.0) {
                check.add_f32(x);
            }
        }
    }
    check
}

#[allow(
    clippy::cast_possible_truncation,
    reason = "f64 to f32 rounds to the nearest float32"
)]
#[inline]
fn to_f32(x: f64) -> f32 {
    x as f32
}

/// Makes the non-negative weights `w` (laid out as for [`layout_check`]) pass the glTF
/// sum rule: weights that already pass are kept; otherwise each becomes `w / Σw` rounded
/// to binary32, and the heaviest (the first of equal heaviest) absorbs the rounding
/// residual, one ulp at a time when the residual is below its ulp. A vertex without a
/// positive weight is left alone. A share too small for binary32 becomes 0.
#[inline]
pub fn normalize_unit(w: &mut [f32]) {
    // Trailing sets of zeros take no part: the rule does not count their weights, they
    // add nothing to the total, and 0 divided by a positive total stays the same 0.
    let Some(w) = w.get_mut(..sets_in_use(w)) else {
        return;
    };
    if w.len() <= SLOTS {
        normalize_by(w, set_check);
    } else {
        normalize_unit_sets(w);
    }
}

/// The length of `w` (slots laid out set-major) up to the end of its last set that holds
/// a non-zero weight: the sets after it are all zeros.
pub fn sets_in_use<T: Copy + Into<f64>>(w: &[T]) -> usize {
    w.iter()
        .rposition(|&x| x.into() != 0.0)
        .map_or(0, |last| (last / SLOTS + 1) * SLOTS)
        .min(w.len())
}

/// The tolerance after `n` counted weights, accumulated one addition at a time exactly as
/// [`SumCheck::add`] does, for up to one set.
const SET_THRESHOLD: [f64; SLOTS + 1] = {
    let t1 = TOLERANCE_PER_WEIGHT;
    let t2 = t1 + TOLERANCE_PER_WEIGHT;
    let t3 = t2 + TOLERANCE_PER_WEIGHT;
    [0.0, t1, t2, t3, t3 + TOLERANCE_PER_WEIGHT]
};

/// [`layout_check`] of one set (at most four weights), without its loops: the non-zero
/// weights added in slot order.
#[inline(always)]
fn set_check(w: &[f32]) -> SumCheck {
    let mut sum = 0.0f32;
    let mut counted = 0u8;
    for &x in w.iter().take(SLOTS) {
        // Adding a zero changes no float32 sum here: a sum of non-zero terms that
        // starts at +0.0 is never -0.0 (an exact cancellation rounds to +0.0).
        sum += x;
        counted += u8::from(x != 0.0);
    }
    SumCheck {
        sum,
        threshold: SET_THRESHOLD
            .get(usize::from(counted))
            .copied()
            .unwrap_or(f64::INFINITY),
        counted: u32::from(counted),
    }
}

/// [`normalize_unit`] of one set of four weights (unused slots 0), with the same result
/// bit for bit: the divisions run side by side and the sums are unrolled.
#[inline(always)]
pub fn normalize_unit_set(w: &mut [f32; SLOTS]) {
    normalize_by(w, set_check);
}

/// The normalization of [`normalize_unit`], with `check` the sum rule in the layout of
/// `w`: weights that pass are kept; otherwise each becomes its share of the total, and
/// the heaviest absorbs what the rule still finds.
#[inline(always)]
fn normalize_by(w: &mut [f32], check: impl Fn(&[f32]) -> SumCheck) {
    if check(w).passes() {
        return;
    }
    let total = w.iter().fold(-0.0f64, |t, &x| t + f64::from(x));
    if total <= 0.0 {
        return;
    }
    for x in w.iter_mut() {
        *x = to_f32(f64::from(*x) / total);
    }
    let mut heaviest = 0;
    for (i, &x) in w.iter().enumerate() {
        if w.get(heaviest).is_some_and(|&h| x > h) {
            heaviest = i;
        }
    }
    for _ in 0..8 {
        let c = check(w);
        if c.passes() {
            return;
        }
        let Some(first) = w.get_mut(heaviest) else {
            return;
        };
        *first = absorb(*first, c.sum);
    }
}

/// The heaviest weight `first` after absorbing the residual of a float32 `sum`: the
/// residual added and rounded, or one ulp towards it when it is below one ulp.
#[inline]
fn absorb(first: f32, sum: f32) -> f32 {
    let residual = 1.0 - f64::from(sum);
    let adjusted = to_f32(f64::from(first) + residual);
    if adjusted == first {
        if residual > 0.0 {
            f32::from_bits(first.to_bits() + 1)
        } else {
            f32::from_bits(first.to_bits() - 1)
        }
    } else {
        adjusted
    }
}

/// [`normalize_unit`] of any number of sets, walking them in the reference order.
fn normalize_unit_sets(w: &mut [f32]) {
    normalize_by(w, layout_check);
}

/// Largest-remainder rounding of the non-negative `w` to integers summing to exactly
/// `max` (into `out`, one per weight; `rems` is scratch space). Ties give the extra unit
/// to the weight that comes first. Weights without a positive total give zeros.
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "0 <= floor(w / total * max) <= max: the weights are non-negative and at most their total"
)]
pub fn largest_remainder<T: Copy + Into<f64>>(
    w: &[T],
    max: u32,
    out: &mut Vec<u32>,
    rems: &mut Vec<(f64, usize)>,
) {
    out.clear();
    rems.clear();
    let total: f64 = w.iter().map(|&x| x.into()).sum();
    if total <= 0.0 || !total.is_finite() {
        out.resize(w.len(), 0);
        return;
    }
    let mut used: u64 = 0;
    for (i, &x) in w.iter().enumerate() {
        let exact = x.into() / total * f64::from(max);
        let floor = exact.floor();
        let q = floor as u32;
        out.push(q);
        used += u64::from(q);
        rems.push((exact - floor, i));
    }
    rems.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let deficit = usize::try_from(u64::from(max).saturating_sub(used)).unwrap_or(usize::MAX);
    for &(_, i) in rems.iter().take(deficit) {
        if let Some(q) = out.get_mut(i) {
            *q += 1;
        }
    }
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

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config { cases: 20_000, failure_persistence: None, ..proptest::test_runner::Config::default() })]

        /// One set (or sets followed by sets of zeros) takes the fixed-size path or a
        /// shorter walk; either gives the bits the whole walk in reference order gives,
        /// whatever the weights (zeros, negatives, NaN and infinities too).
        #[test]
        fn the_one_set_path_normalizes_as_the_walk_does(
            w in proptest::collection::vec(proptest::prop_oneof![
                4 => proptest::strategy::Strategy::prop_map(1u32..4000, |n| n as f32 / 1000.0),
                2 => proptest::num::f32::POSITIVE | proptest::num::f32::SUBNORMAL,
                1 => proptest::num::f32::ANY,
                1 => proptest::strategy::Just(0.0f32),
                1 => proptest::strategy::Just(-0.0f32),
            ], 0..=SLOTS * 3),
            zero_sets in 0usize..3,
        ) {
            let mut w = w;
            w.extend((0..zero_sets * SLOTS).map(|i| if i % 3 == 0 { -0.0 } else { 0.0 }));
            let mut fast = w.clone();
            normalize_unit(&mut fast);
            let mut walk = w.clone();
            normalize_unit_sets(&mut walk);
            for (a, b) in fast.iter().zip(&walk) {
                proptest::prop_assert!(
                    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                    "{:?}: {:?} against {:?}", w, fast, walk
                );
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
