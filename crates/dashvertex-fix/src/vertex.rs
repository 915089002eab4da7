//! The repair of one vertex (`spec/fix.md` §3): its slots, laid out set-major (slot `i` is
//! set `i / 4`, slot `i % 4`), go through the steps in a fixed order, and a vertex nothing
//! is wrong with is left exactly as it was.

use dashvertex_core::SLOTS;
use dashvertex_core::weights::{largest_remainder, normalize_unit};

use crate::policy::{BadWeights, OutOfRange, Policy, SumRule, ZeroSum};
use crate::step::{Step, Steps};

/// How a part stores its weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// binary32: a slot's weight is the f32 value (held exactly in an f64).
    Float,
    /// Normalized integers: a slot's weight is the stored integer, a full weight `max`
    /// (255 or 65535).
    Unorm(u32),
}

/// What a vertex's repair needs to know about its part.
#[derive(Clone, Copy, Debug)]
pub struct Context<'p> {
    /// The policies.
    pub policy: &'p Policy,
    /// Weight storage.
    pub storage: Storage,
    /// Number of joints (bones) indices must stay below, when known.
    pub bones: Option<u64>,
    /// The root bone, for `--zero-sum root`.
    pub root: u32,
}

/// Why a vertex cannot be repaired under the chosen policies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// Which policy refused.
    pub kind: RefusalKind,
    /// The slot (set-major), when one slot is at fault.
    pub slot: Option<usize>,
    /// What is wrong, and the policy flag that would repair it.
    pub message: String,
}

/// The policy behind a refusal: one run reports each kind it meets, so a user learns
/// every flag a file needs at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RefusalKind {
    /// `--bad-weights error`: a negative or non-finite weight.
    BadWeight,
    /// `--out-of-range error`: a weighted joint beyond the skin.
    OutOfRange,
    /// `--zero-sum keep|error` where the rule needs weight: a vertex without any.
    ZeroSum,
    /// `--zero-sum nearest` with no vertex to copy from.
    NoNearest,
}

/// The outcome of one vertex.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The steps applied (none: the vertex was left alone).
    Fixed(Steps),
    /// The vertex has no weight and `--zero-sum nearest` applies: the caller copies the
    /// influences of the nearest weighted vertex once every vertex is repaired.
    NeedsNearest(Steps),
}

/// Scratch space reused across vertices.
#[derive(Default)]
pub struct Scratch {
    order: Vec<(u32, usize)>,
    used: Vec<(u32, f64)>,
    f32s: Vec<f32>,
    ints: Vec<u32>,
    rems: Vec<(f64, usize)>,
}

/// A weight held in an f64 as binary32 (rounded to nearest; exact for the binary32 values
/// and stored integers the fixer holds).
#[allow(
    clippy::cast_possible_truncation,
    reason = "f64 to f32 rounds to the nearest float32"
)]
pub(crate) fn to_f32(x: f64) -> f32 {
    x as f32
}

fn describe_weight(x: f64) -> String {
    let w = to_f32(x);
    if w.is_finite() && w != 0.0 && !(1e-4..1e6).contains(&w.abs()) {
        format!("{w:e}")
    } else {
        format!("{w}")
    }
}

/// Repairs one vertex in place. `joints` and `weights` have the same length, a multiple
/// of 4.
pub fn fix(
    joints: &mut [u32],
    weights: &mut [f64],
    ctx: &Context<'_>,
    scratch: &mut Scratch,
) -> Result<Outcome, Vec<Refusal>> {
    if clean(joints, weights, ctx) {
        return Ok(Outcome::Fixed(Steps::default()));
    }
    repair(joints, weights, ctx, scratch)
}

/// True when no step would change the vertex, decided in one pass without sorting: what
/// most vertices of a real file are. Only a shortcut: when it says no (or cannot tell
/// cheaply, as for joints of 128 and above), [`repair`] decides.
fn clean(joints: &[u32], weights: &[f64], ctx: &Context<'_>) -> bool {
    let float = ctx.storage == Storage::Float;
    let (mut seen, mut used) = (0u128, 0usize);
    let (mut lightest_before, mut free_before) = (f64::INFINITY, false);
    // A vertex over the target's influence count is told as soon as it is.
    let limit = ctx.policy.max_influences.unwrap_or(usize::MAX);
    for (js, ws) in joints.chunks(SLOTS).zip(weights.chunks(SLOTS)) {
        let (mut heaviest, mut lightest, mut free, mut any) = (0.0f64, f64::INFINITY, false, false);
        for (&j, &w) in js.iter().zip(ws) {
            if w == 0.0 {
                if w.is_sign_negative() || j != 0 {
                    return false;
                }
                free = true;
                continue;
            }
            if !(w > 0.0 && w.is_finite())
                || (float && to_f32(w).is_subnormal())
                || ctx.bones.is_some_and(|n| u64::from(j) >= n)
                || j >= 128
            {
                return false;
            }
            let bit = 1u128 << j;
            if seen & bit != 0 {
                return false;
            }
            seen |= bit;
            used += 1;
            if used > limit {
                return false;
            }
            any = true;
            heaviest = heaviest.max(w);
            lightest = lightest.min(w);
        }
        if any && (free_before || heaviest > lightest_before) {
            return false;
        }
        lightest_before = lightest_before.min(lightest);
        free_before |= free;
    }
    if used == 0 {
        return ctx.policy.zero_sum == ZeroSum::Keep && ctx.policy.sum == SumRule::Dash;
    }
    match (ctx.storage, ctx.policy.sum) {
        (Storage::Float, SumRule::Gltf) => {
            let sets = joints.len() / SLOTS;
            let mut check = dashvertex_core::weights::SumCheck::new();
            for slot in 0..SLOTS {
                for set in 0..sets {
                    if let Some(&w) = weights.get(set * SLOTS + slot).filter(|w| **w != 0.0) {
                        check.add_f32(to_f32(w));
                    }
                }
            }
            check.passes() && weights.iter().all(|&w| w <= 1.0)
        }
        (Storage::Float, SumRule::Dash) => weights.iter().all(|&w| w <= 1.0),
        (Storage::Unorm(max), _) => weights.iter().sum::<f64>() == f64::from(max),
    }
}

/// Every step, in order (the work behind [`fix`] once its shortcut said no). A step
/// whose policy refuses records the refusal (the first of its kind) and goes on as the
/// repairing policy would, so that the faults behind it are found in the same run; the
/// vertex is then refused with every refusal met.
pub(crate) fn repair(
    joints: &mut [u32],
    weights: &mut [f64],
    ctx: &Context<'_>,
    scratch: &mut Scratch,
) -> Result<Outcome, Vec<Refusal>> {
    let mut refused: Vec<Refusal> = Vec::new();
    let refuse = |refused: &mut Vec<Refusal>, r: Refusal| {
        if !refused.iter().any(|e| e.kind == r.kind) {
            refused.push(r);
        }
    };
    let outcome = steps(joints, weights, ctx, scratch, &mut |r| {
        refuse(&mut refused, r)
    });
    if refused.is_empty() {
        Ok(outcome)
    } else {
        Err(refused)
    }
}

fn steps(
    joints: &mut [u32],
    weights: &mut [f64],
    ctx: &Context<'_>,
    scratch: &mut Scratch,
    refuse: &mut dyn FnMut(Refusal),
) -> Outcome {
    let mut steps = Steps::default();
    let float = ctx.storage == Storage::Float;
    // 1. Weights that mean nothing.
    for (i, w) in weights.iter_mut().enumerate() {
        let x = *w;
        let step = if !x.is_finite() {
            Step::NonFiniteWeight
        } else if x < 0.0 {
            Step::NegativeWeight
        } else if x == 0.0 && x.is_sign_negative() {
            *w = 0.0;
            steps.add(Step::NegativeZero);
            continue;
        } else if float && x != 0.0 && to_f32(x).is_subnormal() {
            *w = 0.0;
            steps.add(Step::SubnormalWeight);
            continue;
        } else {
            continue;
        };
        if ctx.policy.bad_weights == BadWeights::Error {
            refuse(Refusal {
                kind: RefusalKind::BadWeight,
                slot: Some(i),
                message: format!(
                    "weight {} is {} (--bad-weights zero drops it)",
                    describe_weight(x),
                    if step == Step::NegativeWeight {
                        "negative"
                    } else {
                        "not finite"
                    }
                ),
            });
        }
        *w = 0.0;
        steps.add(step);
    }
    // 2. Weighted joints beyond the skin.
    if let Some(n) = ctx.bones {
        for (i, (j, w)) in joints.iter().zip(weights.iter_mut()).enumerate() {
            if *w != 0.0 && u64::from(*j) >= n {
                if ctx.policy.out_of_range == OutOfRange::Error {
                    refuse(Refusal {
                        kind: RefusalKind::OutOfRange,
                        slot: Some(i),
                        message: format!(
                            "joint {j} is not below the {n} joints, with weight {} \
                             (--out-of-range drop drops the influence)",
                            describe_weight(*w)
                        ),
                    });
                }
                *w = 0.0;
                steps.add(Step::OutOfRangeJoint);
            }
        }
    }
    // 3. A joint weighted twice: added into its first slot. Most vertices have none,
    // told without sorting when their joints are below 128.
    if has_duplicates(joints, weights) {
        merge_duplicates(joints, weights, float, scratch, &mut steps);
    }
    // 4. Canonical padding.
    pad(joints, weights, &mut steps);
    // 5. Influences spread over the sets out of order.
    reorder(joints, weights, scratch, &mut steps);
    // 6. No weight left.
    if weights.iter().all(|&w| w == 0.0) {
        match ctx.policy.zero_sum {
            ZeroSum::Keep if ctx.policy.sum == SumRule::Dash => {
                return Outcome::Fixed(steps);
            }
            ZeroSum::Keep | ZeroSum::Error => {
                let why = if ctx.policy.sum == SumRule::Gltf {
                    ", and the glTF rule needs weights summing to 1"
                } else {
                    ""
                };
                refuse(Refusal {
                    kind: RefusalKind::ZeroSum,
                    slot: None,
                    message: format!(
                        "the vertex has no non-zero weight{why} (--zero-sum root or \
                         --zero-sum nearest binds it)"
                    ),
                });
                return Outcome::Fixed(steps);
            }
            ZeroSum::Root => {
                if let (Some(j), Some(w)) = (joints.first_mut(), weights.first_mut()) {
                    *j = ctx.root;
                    *w = full(ctx.storage);
                }
                steps.add(Step::ZeroSumRoot);
                return Outcome::Fixed(steps);
            }
            ZeroSum::Nearest => return Outcome::NeedsNearest(steps),
        }
    }
    // 7. More influences than the target reads.
    if let Some(k) = ctx.policy.max_influences
        && weights.iter().filter(|&&w| w != 0.0).count() > k
    {
        lay_out(joints, weights, scratch, k);
        steps.add(Step::TargetLimit);
    }
    // 8. The sum rule. A share too small for the storage may have become 0: its slot is
    // padding now, and the sets may need laying out again.
    if normalize(weights, ctx, scratch, &mut steps) {
        pad(joints, weights, &mut steps);
        reorder(joints, weights, scratch, &mut steps);
    }
    Outcome::Fixed(steps)
}

/// Whether two weighted slots name the same joint: a bit set for joints below 128, the
/// sort of [`merge_duplicates`] only for the rest.
fn has_duplicates(joints: &[u32], weights: &[f64]) -> bool {
    let mut seen = 0u128;
    for (&j, &w) in joints.iter().zip(weights) {
        if w == 0.0 {
            continue;
        }
        if j >= 128 {
            return true;
        }
        let bit = 1u128 << j;
        if seen & bit != 0 {
            return true;
        }
        seen |= bit;
    }
    false
}

/// Adds the weight of every later slot of a joint into its first slot (rounded to
/// binary32 for FLOAT storage) and clears the later ones.
fn merge_duplicates(
    joints: &[u32],
    weights: &mut [f64],
    float: bool,
    scratch: &mut Scratch,
    steps: &mut Steps,
) {
    scratch.order.clear();
    scratch.order.extend(
        joints
            .iter()
            .zip(weights.iter())
            .enumerate()
            .filter(|(_, (_, w))| **w != 0.0)
            .map(|(i, (j, _))| (*j, i)),
    );
    scratch.order.sort_unstable();
    let mut k = 0;
    while k < scratch.order.len() {
        let (joint, first) = scratch.order.get(k).copied().unwrap_or_default();
        let mut next = k + 1;
        while let Some(&(_, later)) = scratch.order.get(next).filter(|e| e.0 == joint) {
            let add = weights.get(later).copied().unwrap_or(0.0);
            if let Some(w) = weights.get_mut(first) {
                *w = if float {
                    f64::from(to_f32(*w + add))
                } else {
                    *w + add
                };
            }
            if let Some(w) = weights.get_mut(later) {
                *w = 0.0;
            }
            steps.add(Step::DuplicateJoint);
            next += 1;
        }
        k = next;
    }
}

/// A full weight in the storage.
pub fn full(storage: Storage) -> f64 {
    match storage {
        Storage::Float => 1.0,
        Storage::Unorm(max) => f64::from(max),
    }
}

/// Unused slots name joint 0.
fn pad(joints: &mut [u32], weights: &[f64], steps: &mut Steps) {
    for (j, w) in joints.iter_mut().zip(weights) {
        if *w == 0.0 && *j != 0 {
            *j = 0;
            steps.add(Step::Padding);
        }
    }
}

/// Lays the influences out again, heaviest first (ties by lower joint) from set 0 on,
/// when they are spread over the sets out of order.
fn reorder(joints: &mut [u32], weights: &mut [f64], scratch: &mut Scratch, steps: &mut Steps) {
    if joints.len() <= SLOTS || !out_of_order(weights) {
        return;
    }
    lay_out(joints, weights, scratch, usize::MAX);
    steps.add(Step::SetOrder);
}

/// Lays the used influences out heaviest first, ties by lower joint, from set 0 slot 0 on,
/// keeping at most `keep`; the other slots become padding.
fn lay_out(joints: &mut [u32], weights: &mut [f64], scratch: &mut Scratch, keep: usize) {
    scratch.used.clear();
    scratch.used.extend(
        joints
            .iter()
            .zip(weights.iter())
            .filter(|(_, w)| **w != 0.0)
            .map(|(j, w)| (*j, *w)),
    );
    // The order is total (weighted joints are distinct by now), so the `keep` first are
    // the same whether the rest is sorted or only split off.
    if keep < scratch.used.len() {
        scratch
            .used
            .select_nth_unstable_by(keep, dashvertex_core::canonical_order);
        scratch.used.truncate(keep);
    }
    scratch
        .used
        .sort_unstable_by(dashvertex_core::canonical_order);
    for (i, (j, w)) in joints.iter_mut().zip(weights.iter_mut()).enumerate() {
        (*j, *w) = scratch.used.get(i).copied().unwrap_or((0, 0.0));
    }
}

/// Whether a later set holds an influence heavier than a used slot of an earlier set, or
/// a used slot while an earlier set has a free one (`SET_ORDER`, `SET_GAP`).
fn out_of_order(weights: &[f64]) -> bool {
    let mut lightest_before = f64::INFINITY;
    let mut free_before = false;
    for set in weights.chunks(SLOTS) {
        let used = set.iter().filter(|&&w| w != 0.0);
        let heaviest = used.clone().fold(0.0f64, |a, &w| a.max(w));
        let any_used = set.iter().any(|&w| w != 0.0);
        if any_used && (free_before || heaviest > lightest_before) {
            return true;
        }
        for &w in used {
            lightest_before = lightest_before.min(w);
        }
        free_before |= set.contains(&0.0);
    }
    false
}

/// Applies the sum rule of the policy: under `gltf`, weights that do not sum to 1 by
/// the validator's rule are rescaled; under `dash`, only a vertex with a weight above 1.
/// True when the weights changed.
fn normalize(
    weights: &mut [f64],
    ctx: &Context<'_>,
    scratch: &mut Scratch,
    steps: &mut Steps,
) -> bool {
    match ctx.storage {
        Storage::Float => {
            scratch.f32s.clear();
            scratch.f32s.extend(weights.iter().map(|&w| to_f32(w)));
            let above_one = scratch.f32s.iter().any(|&w| w > 1.0);
            let needed = match ctx.policy.sum {
                SumRule::Gltf => {
                    above_one || !dashvertex_core::weights::layout_check(&scratch.f32s).passes()
                }
                SumRule::Dash => above_one,
            };
            if !needed {
                return false;
            }
            // A weight above 1 whose vertex still passes the sum rule (1.0000001 alone):
            // divided by the sum first, since the rule alone would keep it.
            if above_one || ctx.policy.sum == SumRule::Dash {
                let total: f64 = scratch.f32s.iter().map(|&w| f64::from(w)).sum();
                for w in &mut scratch.f32s {
                    *w = to_f32(f64::from(*w) / total).min(1.0);
                }
            }
            if ctx.policy.sum == SumRule::Gltf {
                normalize_unit(&mut scratch.f32s);
            }
            // A share too small for binary32's normal range has no visible effect and is
            // a WEIGHT_SUBNORMAL of its own: it becomes 0 (the sum does not move).
            for w in &mut scratch.f32s {
                if w.is_subnormal() || *w > 1.0 {
                    *w = if *w > 1.0 { 1.0 } else { 0.0 };
                }
            }
            for (w, &x) in weights.iter_mut().zip(&scratch.f32s) {
                *w = f64::from(x);
            }
            steps.add(if ctx.policy.sum == SumRule::Gltf {
                Step::Normalize
            } else {
                Step::AboveOne
            });
        }
        Storage::Unorm(max) => {
            let total: f64 = weights.iter().sum();
            if total == f64::from(max) {
                return false;
            }
            largest_remainder(weights, max, &mut scratch.ints, &mut scratch.rems);
            for (w, &q) in weights.iter_mut().zip(&scratch.ints) {
                *w = f64::from(q);
            }
            steps.add(Step::Normalize);
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::{Context, Outcome, Scratch, Storage, clean, repair};
    use crate::policy::{OutOfRange, Policy, SumRule, ZeroSum};
    use proptest::prelude::*;

    fn weight() -> impl Strategy<Value = f64> {
        prop_oneof![
            4 => Just(0.0),
            1 => Just(-0.0),
            4 => (0u32..=8).prop_map(|k| f64::from(k) / 8.0),
            2 => (0.0f32..1.0).prop_map(f64::from),
            1 => Just(-0.25),
            1 => Just(f64::NAN),
            1 => Just(f64::from(f32::from_bits(5))),
            1 => Just(1.5),
        ]
    }

    proptest! {
        #[test]
        fn the_shortcut_says_clean_only_when_no_step_would_change_the_vertex(
            sets in 1usize..4,
            slots in proptest::collection::vec((0u32..12, weight()), 12),
            gltf in any::<bool>(),
            keep in any::<bool>(),
            limit in proptest::option::of(1usize..8),
        ) {
            let n = sets * 4;
            let mut joints: Vec<u32> = slots.iter().take(n).map(|s| s.0).collect();
            let mut weights: Vec<f64> = slots.iter().take(n).map(|s| s.1).collect();
            let policy = Policy {
                out_of_range: OutOfRange::Drop,
                zero_sum: if keep { ZeroSum::Keep } else { ZeroSum::Root },
                max_influences: limit,
                ..Policy::for_rule(if gltf { SumRule::Gltf } else { SumRule::Dash })
            };
            let ctx = Context { policy: &policy, storage: Storage::Float, bones: Some(10), root: 0 };
            if clean(&joints, &weights, &ctx) {
                let (j0, w0) = (joints.clone(), weights.clone());
                let out = repair(&mut joints, &mut weights, &ctx, &mut Scratch::default()).unwrap();
                prop_assert_eq!(out, Outcome::Fixed(Default::default()));
                prop_assert_eq!(&joints, &j0);
                prop_assert!(weights.iter().zip(&w0).all(|(a, b)| a.to_bits() == b.to_bits()));
            }
        }
    }
}
