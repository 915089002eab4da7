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
    /// The `error` bad-weights policy: a negative or non-finite weight.
    BadWeight,
    /// The `error` out-of-range policy: a weighted joint beyond the skin.
    OutOfRange,
    /// The `keep` or `error` zero-sum policy where the rule needs weight: a vertex
    /// without any.
    ZeroSum,
    /// The `nearest` zero-sum policy with no vertex to copy from.
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
    match shortcut(joints, weights, ctx) {
        Shortcut::Clean => Ok(Outcome::Fixed(Steps::default())),
        Shortcut::OverLimit(keep) => {
            let mut steps = Steps::default();
            limit_and_normalize(joints, weights, ctx, scratch, &mut steps, Some(keep));
            Ok(Outcome::Fixed(steps))
        }
        Shortcut::Unknown => repair(joints, weights, ctx, scratch),
    }
}

/// What one pass without sorting tells about a vertex.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shortcut {
    /// No step would change it: what most vertices of a valid file are.
    Clean,
    /// Steps 1 to 6 would change nothing, and it has more influences than the target's
    /// `keep`: what every vertex of an export with all influences is under `--target`.
    OverLimit(usize),
    /// The pass cannot tell (a fault, or joints of 128 and above): [`repair`] decides.
    Unknown,
}

/// True when no step would change the vertex (see [`shortcut`]).
#[cfg(test)]
fn clean(joints: &[u32], weights: &[f64], ctx: &Context<'_>) -> bool {
    shortcut(joints, weights, ctx) == Shortcut::Clean
}

/// Decides in one pass without sorting whether the vertex is clean, or only over the
/// target's influence count. Only a shortcut: where it cannot tell, [`repair`] decides.
fn shortcut(joints: &[u32], weights: &[f64], ctx: &Context<'_>) -> Shortcut {
    let float = ctx.storage == Storage::Float;
    let (mut seen, mut used) = (0u128, 0usize);
    let (mut lightest_before, mut free_before) = (f64::INFINITY, false);
    let limit = ctx.policy.max_influences.unwrap_or(usize::MAX);
    for (js, ws) in joints.chunks(SLOTS).zip(weights.chunks(SLOTS)) {
        let (mut heaviest, mut lightest, mut free, mut any) = (0.0f64, f64::INFINITY, false, false);
        for (&j, &w) in js.iter().zip(ws) {
            if w == 0.0 {
                if w.is_sign_negative() || j != 0 {
                    return Shortcut::Unknown;
                }
                free = true;
                continue;
            }
            if !(w > 0.0 && w.is_finite())
                || (float && to_f32(w).is_subnormal())
                || ctx.bones.is_some_and(|n| u64::from(j) >= n)
                || j >= 128
            {
                return Shortcut::Unknown;
            }
            let bit = 1u128 << j;
            if seen & bit != 0 {
                return Shortcut::Unknown;
            }
            seen |= bit;
            used += 1;
            any = true;
            heaviest = heaviest.max(w);
            lightest = lightest.min(w);
        }
        if any && (free_before || heaviest > lightest_before) {
            return Shortcut::Unknown;
        }
        lightest_before = lightest_before.min(lightest);
        free_before |= free;
    }
    if used > limit {
        // Steps 1 to 6 have nothing to do: step 7 keeps `limit`, and step 8 follows.
        return Shortcut::OverLimit(limit);
    }
    let clean = if used == 0 {
        ctx.policy.zero_sum == ZeroSum::Keep && ctx.policy.sum == SumRule::Dash
    } else {
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
    };
    if clean {
        Shortcut::Clean
    } else {
        Shortcut::Unknown
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
                    "weight {} is {} (the `zero` bad-weights policy drops it)",
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
                             (the `drop` out-of-range policy drops the influence)",
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
                        "the vertex has no non-zero weight{why} (the `root` or \
                         `nearest` zero-sum policy binds it)"
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
    let keep = ctx
        .policy
        .max_influences
        .filter(|&k| weights.iter().filter(|&&w| w != 0.0).count() > k);
    limit_and_normalize(joints, weights, ctx, scratch, &mut steps, keep);
    Outcome::Fixed(steps)
}

/// Steps 7 and 8: keeps the `keep` heaviest influences (all of them for `None`), then
/// applies the sum rule. A share too small for the storage may have become 0: its
/// slot is padding now, and the sets may need laying out again.
fn limit_and_normalize(
    joints: &mut [u32],
    weights: &mut [f64],
    ctx: &Context<'_>,
    scratch: &mut Scratch,
    steps: &mut Steps,
    keep: Option<usize>,
) {
    if let Some(keep) = keep {
        lay_out(joints, weights, scratch, keep);
        steps.add(Step::TargetLimit);
    }
    if normalize(weights, ctx, scratch, steps) {
        pad(joints, weights, steps);
        reorder(joints, weights, scratch, steps);
    }
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
    // The order is total (weighted joints are distinct by now), so the `keep` first are
    // the same whether the rest is sorted, only split off, or never kept.
    if keep <= SLOTS {
        let mut top = [(0u32, f64::NAN); SLOTS];
        let mut held = 0;
        let used = joints
            .iter()
            .zip(weights.iter())
            .filter(|(_, w)| **w != 0.0);
        for x in used.map(|(j, w)| (*j, *w)) {
            // Insertion into the `keep` best so far, best first.
            let mut at = held;
            while at > 0
                && top
                    .get(at - 1)
                    .is_some_and(|b| dashvertex_core::canonical_order(&x, b).is_lt())
            {
                at -= 1;
            }
            if at < keep {
                let end = held.min(keep - 1);
                if let Some(tail) = top.get_mut(at..=end) {
                    tail.rotate_right(1);
                    if let Some(first) = tail.first_mut() {
                        *first = x;
                    }
                }
                held = (held + 1).min(keep);
            }
        }
        for (i, (j, w)) in joints.iter_mut().zip(weights.iter_mut()).enumerate() {
            (*j, *w) = top.get(i).filter(|_| i < held).copied().unwrap_or((0, 0.0));
        }
        return;
    }
    scratch.used.clear();
    scratch.used.extend(
        joints
            .iter()
            .zip(weights.iter())
            .filter(|(_, w)| **w != 0.0)
            .map(|(j, w)| (*j, *w)),
    );
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
    // Trailing sets of zeros (a vertex laid out for the target, say) take no part: the
    // rule skips zeros, they add nothing to a total, a zero stays 0 when divided, and
    // the largest remainder never gives a unit to a remainder of 0.
    let used = dashvertex_core::weights::sets_in_use(weights);
    match weights.get_mut(..used) {
        Some(w) if used > 0 => normalize_all(w, ctx, scratch, steps),
        _ => normalize_all(weights, ctx, scratch, steps),
    }
}

/// [`normalize`] on every slot of `weights`.
fn normalize_all(
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
    use super::{
        Context, Outcome, Scratch, Shortcut, Storage, clean, fix, lay_out, normalize,
        normalize_all, repair, shortcut,
    };
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

        /// Laying out keeps the `keep` first influences of the canonical order, heaviest
        /// first, whichever way they are found.
        #[test]
        fn lay_out_keeps_the_first_of_the_canonical_order(
            slots in proptest::collection::vec((0u32..40, prop_oneof![
                3 => (1u32..9).prop_map(|k| f64::from(k) / 8.0),
                1 => Just(0.0),
            ]), 1..17),
            keep in 1usize..20,
        ) {
            let mut seen = std::collections::HashSet::new();
            let slots: Vec<(u32, f64)> =
                slots.into_iter().filter(|s| s.1 == 0.0 || seen.insert(s.0)).collect();
            let mut joints: Vec<u32> = slots.iter().map(|s| s.0).collect();
            let mut weights: Vec<f64> = slots.iter().map(|s| s.1).collect();
            let mut expected: Vec<(u32, f64)> = slots.iter().copied().filter(|s| s.1 != 0.0).collect();
            expected.sort_by(dashvertex_core::canonical_order);
            expected.truncate(keep);
            expected.resize(joints.len(), (0, 0.0));
            lay_out(&mut joints, &mut weights, &mut Scratch::default(), keep);
            let got: Vec<(u32, f64)> = joints.into_iter().zip(weights).collect();
            prop_assert_eq!(got, expected);
        }

        /// Trailing sets of zeros change nothing the sum rule does.
        #[test]
        fn trailing_zero_sets_normalize_as_the_whole_vertex(
            slots in proptest::collection::vec(weight(), 1..9),
            zero_sets in 1usize..4,
            gltf in any::<bool>(),
            unorm in any::<bool>(),
        ) {
            let mut weights: Vec<f64> = slots.iter().map(|w| if unorm { (w.abs() * 64.0).round() } else { w.abs() }).filter(|w| w.is_finite()).collect();
            weights.resize(weights.len().div_ceil(4).max(1) * 4 + zero_sets * 4, 0.0);
            let policy = Policy::for_rule(if gltf { SumRule::Gltf } else { SumRule::Dash });
            let storage = if unorm { Storage::Unorm(255) } else { Storage::Float };
            let ctx = Context { policy: &policy, storage, bones: None, root: 0 };
            let mut whole = weights.clone();
            let mut steps_whole = Default::default();
            let a = normalize_all(&mut whole, &ctx, &mut Scratch::default(), &mut steps_whole);
            let mut trimmed = weights.clone();
            let mut steps_trimmed = Default::default();
            let b = normalize(&mut trimmed, &ctx, &mut Scratch::default(), &mut steps_trimmed);
            prop_assert_eq!(a, b);
            prop_assert_eq!(steps_whole, steps_trimmed);
            prop_assert!(whole.iter().zip(&trimmed).all(|(x, y)| x.to_bits() == y.to_bits()), "{:?} {:?}", whole, trimmed);
        }

        /// A vertex only over the target's count is repaired by the shortcut exactly as
        /// by every step: the same slots and the same steps.
        #[test]
        fn the_over_limit_shortcut_repairs_as_every_step_does(
            sets in 1usize..5,
            slots in proptest::collection::vec((0u32..12, weight()), 16),
            spread in proptest::collection::vec(1u32..=64, 16),
            gltf in any::<bool>(),
            unorm in any::<bool>(),
            limit in 1usize..8,
        ) {
            let n = sets * 4;
            let mut joints: Vec<u32> = slots.iter().take(n).map(|s| s.0).collect();
            // Half the vertices are valid exports with more influences than the
            // target: distinct joints, positive weights heaviest first.
            let mut weights: Vec<f64> = if spread[0] % 2 == 0 {
                joints = (0u32..16).take(n).map(|j| (j * 5 + spread[1]) % 64).collect();
                let mut w: Vec<f64> = spread.iter().take(n).map(|&k| f64::from(k) / 64.0).collect();
                w.sort_by(|a, b| b.total_cmp(a));
                if unorm { w.iter_mut().for_each(|x| *x = (*x * 64.0).round()); }
                w
            } else {
                slots.iter().take(n).map(|s| s.1).collect()
            };
            let policy = Policy {
                out_of_range: OutOfRange::Drop,
                max_influences: Some(limit),
                ..Policy::for_rule(if gltf { SumRule::Gltf } else { SumRule::Dash })
            };
            let storage = if unorm { Storage::Unorm(255) } else { Storage::Float };
            let ctx = Context { policy: &policy, storage, bones: Some(64), root: 0 };
            if let Shortcut::OverLimit(_) = shortcut(&joints, &weights, &ctx) {
                let (mut j2, mut w2) = (joints.clone(), weights.clone());
                let slow = repair(&mut j2, &mut w2, &ctx, &mut Scratch::default());
                let quick = fix(&mut joints, &mut weights, &ctx, &mut Scratch::default());
                prop_assert_eq!(quick, slow);
                prop_assert_eq!(&joints, &j2);
                prop_assert!(weights.iter().zip(&w2).all(|(a, b)| a.to_bits() == b.to_bits()));
            }
        }
    }
}
