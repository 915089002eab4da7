//! The per-vertex influence rules, shared by every input format.
//!
//! Slots are visited in the reference order of the glTF sum rule (slot 0 of every set,
//! then slot 1, …). Each slot gets at most one error-level finding, and a vertex with an
//! error-level slot finding gets no sum finding: one root cause, one diagnostic.

use dashvertex_core::InfluenceSet;
use dashvertex_core::weights::{SumCheck, reference_order};

/// What repairs a vertex without any weight (renormalizing cannot): the help of a
/// `WEIGHT_SUM` of all-zero weights, in place of the code's own (a front end words it with
/// its own names).
pub const ZERO_SUM_HELP: &str = "bind the vertex to a bone: fix it with the zero-sum policy nearest (the nearest weighted vertex's influences) or root (the root bone)";

use crate::codes::Code;
use crate::diagnostic::{Diagnostic, Location};
use crate::sink::Sink;

mod target;

pub use target::{Beyond, target_joints};

/// Which weight-sum rule applies (`spec/dashvertex.md` §8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// No sum rule; all-zero weights on a skinned vertex are a warning.
    Dash,
    /// The official glTF rule.
    Gltf,
}

/// How weights were stored, for the exact normalized-integer rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// binary32.
    Float,
    /// Normalized unsigned byte (sum must be 255).
    Unorm8,
    /// Normalized unsigned short (sum must be 65535).
    Unorm16,
}

impl Encoding {
    /// The integer a full weight is stored as.
    pub fn max(self) -> Option<u32> {
        match self {
            Encoding::Float => None,
            Encoding::Unorm8 => Some(255),
            Encoding::Unorm16 => Some(65535),
        }
    }
}

/// Which field of a slot a finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// The bone index: `skinIndex[k]` in DashVertex input, the `JOINTS_n` element in glTF.
    Bone,
    /// The weight: `skinWeight[k]` in DashVertex input, the `WEIGHTS_n` element in glTF.
    Weight,
}

/// Maps vertex, set and slot to a [`Location`]. Called only for kept diagnostics.
pub trait Locate {
    /// The location of one field of one slot.
    fn slot(&self, vertex: u64, set: usize, slot: usize, field: Field) -> Location;
    /// The location of a vertex's weights as a whole.
    fn weights(&self, vertex: u64) -> Location;
    /// The location of a vertex's position.
    fn position(&self, vertex: u64) -> Location;
}

/// Per-mesh facts gathered while checking vertices.
#[derive(Clone, Debug, Default)]
pub struct MeshStats {
    /// For each set, whether any vertex has a non-zero weight or bone in it.
    pub set_used: Vec<bool>,
    /// First vertex with any non-zero bone or weight.
    pub first_with_data: Option<u64>,
    /// With a target: vertices with weight in sets the target does not read.
    pub beyond: Beyond,
    /// The largest bone index carrying weight.
    pub max_bone: Option<u32>,
}

impl MeshStats {
    /// Adds the statistics of a later chunk of vertices.
    pub fn append(&mut self, later: MeshStats) {
        if self.set_used.len() < later.set_used.len() {
            self.set_used.resize(later.set_used.len(), false);
        }
        for (a, b) in self.set_used.iter_mut().zip(later.set_used) {
            *a |= b;
        }
        if self.first_with_data.is_none() {
            self.first_with_data = later.first_with_data;
        }
        self.beyond.append(later.beyond);
        self.max_bone = self.max_bone.max(later.max_bone);
    }
}

/// The rules' configuration.
#[derive(Clone, Debug)]
pub struct Checker {
    /// The vertex-level weight rule: the glTF sum rule (`gltf`), or only the all-zero
    /// warning for skinned vertices (`dash`).
    pub profile: Profile,
    /// Number of bones, when known.
    pub bones: Option<u64>,
    /// Bone indices that must carry no weight (removed bones, and `foreign`), sorted.
    pub removed: std::sync::Arc<[u32]>,
    /// Of `removed`, the glTF joints whose bone a locked manifest does not have (reported
    /// as `BONE_NOT_IN_MANIFEST` instead of `BONE_REMOVED`), sorted.
    pub foreign: std::sync::Arc<[u32]>,
    /// Joint names by index, for messages (glTF; empty otherwise). Shared: every
    /// primitive a skin deforms uses the same lists.
    pub names: std::sync::Arc<[String]>,
    /// Whether the mesh is skinned (all-zero weights matter only then).
    pub skinned: bool,
    /// Storage of the weights.
    pub encoding: Encoding,
    /// The engine to check against, if any (`spec/targets.md`).
    pub target: Option<&'static dashvertex_core::Target>,
}

/// Reusable per-vertex scratch space.
#[derive(Default)]
pub struct Scratch {
    seen: Vec<(u32, usize, usize)>,
}

/// Reports `BONE_DUPLICATE` when `bone` (in set `s`, slot `k` of vertex `v`) already has
/// weight in a slot of `seen`; true when it did.
fn duplicate(
    v: u64,
    (s, k, bone): (usize, usize, u32),
    seen: &[(u32, usize, usize)],
    loc: &dyn Locate,
    sink: &mut Sink,
) -> bool {
    let Some(&(_, s0, k0)) = seen.iter().find(|(b, _, _)| *b == bone) else {
        return false;
    };
    sink.report(
        Code::BONE_DUPLICATE,
        || loc.slot(v, s, k, Field::Bone),
        || {
            format!(
                "vertex {v}: bone {bone} has weight in {} and again in {}",
                slot_name(s0, k0),
                slot_name(s, k)
            )
        },
    );
    true
}

fn slot_name(set: usize, slot: usize) -> String {
    format!("set {set} slot {slot}")
}

impl Checker {
    /// Whether `bone` is a removed bone.
    #[inline]
    fn is_removed(&self, bone: u32) -> bool {
        !self.removed.is_empty() && self.removed.binary_search(&bone).is_ok()
    }

    /// Checks a position.
    pub fn position(&self, v: u64, p: [f32; 3], loc: &dyn Locate, sink: &mut Sink) {
        if p.iter().any(|c| !c.is_finite()) {
            sink.report(
                Code::POSITION_NON_FINITE,
                || loc.position(v),
                || {
                    format!(
                        "vertex {v}: position ({} {} {}) is not finite",
                        p[0], p[1], p[2]
                    )
                },
            );
        }
    }

    /// True when a single float set would produce no finding at all: every weight finite,
    /// in `[0, 1]`, neither `-0.0` nor subnormal; every bone in range; unused slots on
    /// bone 0; no bone twice; and the sum rule of the profile holds. This is only a
    /// shortcut: when it says no, [`Checker::vertex`] does the full work.
    fn clean_single(&self, set: &InfluenceSet) -> bool {
        let mut sum = 0f32;
        let mut used = 0u32;
        for (k, (&bone, &w)) in set.joints.iter().zip(&set.weights).enumerate() {
            // Rejects NaN, infinities, negatives (including -0.0 via the sign bit), > 1,
            // and subnormals in one comparison chain.
            let bits = w.to_bits();
            if bits == 0 {
                if bone != 0 {
                    return false;
                }
                continue;
            }
            if !(f32::MIN_POSITIVE..=1.0).contains(&w) {
                return false;
            }
            if self.bones.is_some_and(|n| u64::from(bone) >= n) || self.is_removed(bone) {
                return false;
            }
            let earlier = set.joints.get(..k).unwrap_or_default();
            let earlier_w = set.weights.get(..k).unwrap_or_default();
            if earlier
                .iter()
                .zip(earlier_w)
                .any(|(&b, &ew)| b == bone && ew != 0.0)
            {
                return false;
            }
            sum += w;
            used += 1;
        }
        match self.profile {
            Profile::Dash => !(self.skinned && used == 0),
            Profile::Gltf => {
                let mut check = SumCheck::new();
                for &w in set.weights.iter().filter(|&&w| w != 0.0) {
                    check.add(f64::from(w));
                }
                let _ = sum;
                used > 0 && check.passes()
            }
        }
    }

    /// [`Checker::vertex`] for the common case of one float set, with a fast path for
    /// vertices that have nothing to report.
    pub fn vertex_single(
        &self,
        v: u64,
        set: &InfluenceSet,
        loc: &dyn Locate,
        sink: &mut Sink,
        stats: &mut MeshStats,
        scratch: &mut Scratch,
    ) {
        self.target_stats(v, std::slice::from_ref(set), stats);
        if self.encoding == Encoding::Float && self.clean_single(set) {
            if !set.is_zero() {
                if let Some(u) = stats.set_used.first_mut() {
                    *u = true;
                } else {
                    stats.set_used.push(true);
                }
                stats.first_with_data.get_or_insert(v);
            }
            return;
        }
        self.vertex(
            v,
            std::slice::from_ref(set),
            None,
            loc,
            sink,
            stats,
            scratch,
        );
    }

    /// True when float influence sets, any number of them, break no rule: what
    /// [`Checker::vertex`] would find, decided in one pass without building a diagnostic
    /// (weights finite, in `[0, 1]`, neither `-0.0` nor subnormal; bones in range and not
    /// removed; unused slots on bone 0; no bone twice; the profile's sum rule, summed in
    /// the reference order; no set used while an earlier one has a free slot; no set
    /// heavier than an earlier one). Only a shortcut: when it says no, the full checks run.
    fn clean_float(&self, sets: &[InfluenceSet]) -> bool {
        let mut sum = SumCheck::new();
        // Bones below 128 by bit (two words: a 128-bit shift costs a branch-free
        // sequence of five instructions on the hot path), others (rare) in a short list.
        let (mut low, mut high) = ([0u64; 2], [0u32; 16]);
        let mut n_high = 0usize;
        for k in 0..dashvertex_core::SLOTS {
            for set in sets {
                let (Some(&bone), Some(&w)) = (set.joints.get(k), set.weights.get(k)) else {
                    return false;
                };
                if self.bones.is_some_and(|n| u64::from(bone) >= n) {
                    return false;
                }
                if w.to_bits() == 0 {
                    if bone != 0 {
                        return false;
                    }
                    continue;
                }
                if !(f32::MIN_POSITIVE..=1.0).contains(&w) || self.is_removed(bone) {
                    return false;
                }
                if let Some(word) = low.get_mut((bone >> 6) as usize) {
                    let bit = 1u64 << (bone & 63);
                    if *word & bit != 0 {
                        return false;
                    }
                    *word |= bit;
                } else {
                    let seen = high.get(..n_high).unwrap_or_default();
                    if seen.contains(&bone) {
                        return false;
                    }
                    match high.get_mut(n_high) {
                        Some(slot) => *slot = bone,
                        None => return false,
                    }
                    n_high += 1;
                }
                // One float32 addition: the same sum as `add(f64::from(w))` (see
                // `SumCheck::add_f32`), without the two conversions on the chain of
                // dependent additions that bounds this loop.
                sum.add_f32(w);
            }
        }
        let sums_ok = match self.profile {
            Profile::Dash => !(self.skinned && sum.counted == 0),
            Profile::Gltf => sum.passes(),
        };
        if !sums_ok {
            return false;
        }
        // Set hygiene: no later set used after a free slot, none heavier than an earlier.
        let mut free_before = false;
        let mut lightest = f32::INFINITY;
        for set in sets {
            let used = set.weights.iter().any(|&w| w != 0.0);
            if free_before && used {
                return false;
            }
            if set.weights.iter().any(|&w| w > lightest) {
                return false;
            }
            for &w in &set.weights {
                if w == 0.0 {
                    free_before = true;
                } else if w < lightest {
                    lightest = w;
                }
            }
        }
        true
    }

    /// Checks the influence sets of vertex `v`. `raw` holds the stored integers of
    /// normalized weights (one `[u32; 4]` per set) when `encoding` is not `Float`.
    #[allow(clippy::too_many_arguments)]
    pub fn vertex(
        &self,
        v: u64,
        sets: &[InfluenceSet],
        raw: Option<&[[u32; 4]]>,
        loc: &dyn Locate,
        sink: &mut Sink,
        stats: &mut MeshStats,
        scratch: &mut Scratch,
    ) {
        self.target_stats(v, sets, stats);
        if stats.set_used.len() < sets.len() {
            stats.set_used.resize(sets.len(), false);
        }
        for (used, set) in stats.set_used.iter_mut().zip(sets) {
            if !set.is_zero() {
                *used = true;
                stats.first_with_data.get_or_insert(v);
            }
        }
        if raw.is_none() && self.encoding == Encoding::Float && self.clean_float(sets) {
            return;
        }
        self.full(v, sets, raw, loc, sink, scratch);
    }

    /// Every per-vertex rule, diagnostics built as found (the work behind
    /// [`Checker::vertex`] once its shortcut said no).
    fn full(
        &self,
        v: u64,
        sets: &[InfluenceSet],
        raw: Option<&[[u32; 4]]>,
        loc: &dyn Locate,
        sink: &mut Sink,
        scratch: &mut Scratch,
    ) {
        let max = self.encoding.max();
        let mut blocked = false;
        let mut sum = SumCheck::new();
        let mut int_sum: u64 = 0;
        scratch.seen.clear();
        for (s, k, bone, w) in reference_order(sets) {
            if !w.is_finite() {
                blocked = true;
                sink.report(
                    Code::WEIGHT_NON_FINITE,
                    || loc.slot(v, s, k, Field::Weight),
                    || format!("vertex {v}: weight in {} is {w}", slot_name(s, k)),
                );
                // A NaN or infinite weight is not 0: its joint is used, as the official
                // validator counts it, so a joint named again is a duplicate too.
                if self.bones.is_none_or(|n| u64::from(bone) < n)
                    && !duplicate(v, (s, k, bone), &scratch.seen, loc, sink)
                {
                    scratch.seen.push((bone, s, k));
                }
                continue;
            }
            if let Some(n) = self.bones.filter(|&n| u64::from(bone) >= n) {
                blocked |= w != 0.0;
                sink.report(
                    Code::BONE_INDEX_RANGE,
                    || loc.slot(v, s, k, Field::Bone),
                    || {
                        format!(
                            "vertex {v}: bone index {bone} in {} is out of range (the skeleton has {n} bone{})",
                            slot_name(s, k),
                            if n == 1 { "" } else { "s" }
                        )
                    },
                );
                continue;
            }
            if w != 0.0 && self.is_removed(bone) {
                blocked = true;
                self.report_removed(v, (s, k, bone), w, loc, sink);
                continue;
            }
            if w == 0.0 {
                report_unused(v, (s, k, bone), w, loc, sink);
                continue;
            }
            if w < 0.0 {
                blocked = true;
                sink.report(
                    Code::WEIGHT_NEGATIVE,
                    || loc.slot(v, s, k, Field::Weight),
                    || format!("vertex {v}: weight {w} in {} is negative", slot_name(s, k)),
                );
                continue;
            }
            if duplicate(v, (s, k, bone), &scratch.seen, loc, sink) {
                blocked = true;
                continue;
            }
            scratch.seen.push((bone, s, k));
            blocked |= report_magnitude(v, (s, k), w, loc, sink);
            let stored = raw.and_then(|r| r.get(s)).and_then(|r| r.get(k)).copied();
            match (max, stored) {
                (Some(m), Some(i)) => {
                    sum.add(f64::from(i) / f64::from(m));
                    int_sum += u64::from(i);
                }
                _ => sum.add(f64::from(w)),
            }
        }
        if !blocked {
            self.sums(v, &sum, max.map(|m| (m, int_sum)), loc, sink);
        }
        if sets.len() > 1 && !blocked {
            self.set_hygiene(v, sets, loc, sink);
        }
    }

    /// Reports weight `w` of vertex `v` on removed bone `bone`: a bone the locked
    /// manifest does not have, or a tombstone in it.
    fn report_removed(
        &self,
        v: u64,
        (s, k, bone): (usize, usize, u32),
        w: f32,
        loc: &dyn Locate,
        sink: &mut Sink,
    ) {
        let joint = usize::try_from(bone)
            .ok()
            .and_then(|b| self.names.get(b))
            .map_or(String::new(), |n| format!(" ({n:?})"));
        if self.foreign.binary_search(&bone).is_ok() {
            sink.report(
                Code::BONE_NOT_IN_MANIFEST,
                || loc.slot(v, s, k, Field::Bone),
                || {
                    format!(
                        "vertex {v}: weight {w} in {} is on joint {bone}{joint}, whose bone the locked manifest does not have",
                        slot_name(s, k)
                    )
                },
            );
        } else {
            sink.report(
                Code::BONE_REMOVED,
                || loc.slot(v, s, k, Field::Bone),
                || {
                    format!(
                        "vertex {v}: bone index {bone}{joint} in {} is a removed bone (a tombstone in the manifest)",
                        slot_name(s, k)
                    )
                },
            );
        }
    }

    fn sums(
        &self,
        v: u64,
        sum: &SumCheck,
        ints: Option<(u32, u64)>,
        loc: &dyn Locate,
        sink: &mut Sink,
    ) {
        match self.profile {
            Profile::Dash => {
                if self.skinned && sum.counted == 0 {
                    sink.report(
                        Code::WEIGHTS_ALL_ZERO,
                        || loc.weights(v),
                        || format!("vertex {v}: skinned vertex with no non-zero weight"),
                    );
                }
            }
            Profile::Gltf => {
                if let Some((m, total)) = ints.filter(|&(m, t)| t != u64::from(m)) {
                    sink.push(Code::UNORM_SUM, || {
                        let (by, word) = if total < u64::from(m) {
                            (u64::from(m) - total, "short of")
                        } else {
                            (total - u64::from(m), "over")
                        };
                        Diagnostic::new(
                            Code::UNORM_SUM,
                            format!(
                                "vertex {v}: normalized weights sum to {total}, {by} {word} {m}"
                            ),
                            loc.weights(v),
                        )
                    });
                } else if !sum.passes() {
                    sink.push(Code::WEIGHT_SUM, || {
                        if sum.counted == 0 {
                            // Renormalizing cannot help a vertex without weight: say what does.
                            return Diagnostic::new(
                                Code::WEIGHT_SUM,
                                format!("vertex {v}: all weights are zero (they must sum to 1)"),
                                loc.weights(v),
                            )
                            .with_help(ZERO_SUM_HELP);
                        }
                        let message = {
                            format!(
                                "vertex {v}: weights sum to {} (off by {:.3e}; the tolerance for {} weight{} is {:.1e})",
                                sum.sum,
                                sum.error(),
                                sum.counted,
                                if sum.counted == 1 { "" } else { "s" },
                                sum.threshold
                            )
                        };
                        Diagnostic::new(Code::WEIGHT_SUM, message, loc.weights(v))
                    });
                }
            }
        }
    }

    fn set_hygiene(&self, v: u64, sets: &[InfluenceSet], loc: &dyn Locate, sink: &mut Sink) {
        // SET_GAP: a used slot in a later set while an earlier set has a free one.
        let free = sets
            .iter()
            .enumerate()
            .find_map(|(s, set)| set.weights.iter().position(|&w| w == 0.0).map(|k| (s, k)));
        if let Some((fs, fk)) = free {
            let later =
                sets.iter().enumerate().skip(fs + 1).find_map(|(s, set)| {
                    set.weights.iter().position(|&w| w != 0.0).map(|k| (s, k))
                });
            if let Some((ls, lk)) = later {
                sink.report(
                    Code::SET_GAP,
                    || loc.slot(v, ls, lk, Field::Weight),
                    || {
                        format!(
                            "vertex {v}: {} is used while {} is free",
                            slot_name(ls, lk),
                            slot_name(fs, fk)
                        )
                    },
                );
                return;
            }
        }
        // SET_ORDER: a later set heavier than a used slot of an earlier set.
        let mut lightest: Option<(f32, usize)> = None;
        for (s, set) in sets.iter().enumerate() {
            if let Some((lw, ls)) = lightest
                && let Some((k, &w)) = set
                    .weights
                    .iter()
                    .enumerate()
                    .filter(|(_, w)| **w > lw)
                    .max_by(|a, b| a.1.total_cmp(b.1))
            {
                sink.report(
                    Code::SET_ORDER,
                    || loc.slot(v, s, k, Field::Weight),
                    || {
                        format!(
                            "vertex {v}: weight {w} in set {s} is heavier than weight {lw} in set {ls}"
                        )
                    },
                );
                return;
            }
            for &w in set.weights.iter().filter(|&&w| w != 0.0) {
                if lightest.is_none_or(|(lw, _)| w < lw) {
                    lightest = Some((w, s));
                }
            }
        }
    }

    /// Mesh-level rules once every vertex was checked: trailing all-zero sets and the
    /// skinned toggle. `toggle_at` locates the toggle (binary header, JSON root).
    pub fn mesh(
        &self,
        stats: &MeshStats,
        sets: usize,
        toggle: Option<(bool, Location)>,
        set_location: &dyn Fn(usize) -> Location,
        sink: &mut Sink,
    ) {
        if sets > 1 {
            let trailing = stats
                .set_used
                .iter()
                .rev()
                .take_while(|u| !**u)
                .count()
                .min(sets - 1);
            if trailing > 0 {
                let first = sets - trailing;
                sink.report(
                    Code::SET_TRAILING_ZERO,
                    || set_location(first),
                    || {
                        if trailing == 1 {
                            format!("influence set {first} is all zero for every vertex")
                        } else {
                            format!(
                                "influence sets {first} to {} are all zero for every vertex",
                                sets - 1
                            )
                        }
                    },
                );
            }
        }
        if let Some(t) = self.target {
            self.target_mesh(t, stats, sets, set_location, sink);
        }
        if let Some((false, at)) = toggle
            && let Some(v) = stats.first_with_data
        {
            sink.report(
                Code::SKINNED_FLAG,
                || at,
                || format!("the mesh is marked unskinned but vertex {v} has influence data"),
            );
        }
    }
}

/// Reports a used slot's weight `w` above 1 or subnormal; returns whether it was above 1
/// (which blocks the vertex's sum checks).
fn report_magnitude(
    v: u64,
    (s, k): (usize, usize),
    w: f32,
    loc: &dyn Locate,
    sink: &mut Sink,
) -> bool {
    if w > 1.0 {
        sink.report(
            Code::WEIGHT_ABOVE_ONE,
            || loc.slot(v, s, k, Field::Weight),
            || format!("vertex {v}: weight {w} in {} is above 1", slot_name(s, k)),
        );
    } else if w.is_subnormal() {
        sink.report(
            Code::WEIGHT_SUBNORMAL,
            || loc.slot(v, s, k, Field::Weight),
            || {
                format!(
                    "vertex {v}: weight {w:e} in {} is subnormal",
                    slot_name(s, k)
                )
            },
        );
    }
    w > 1.0
}

/// Reports an unused slot (weight 0) of vertex `v`: a weight of -0.0, and a bone other
/// than 0 (padding names bone 0).
fn report_unused(
    v: u64,
    (s, k, bone): (usize, usize, u32),
    w: f32,
    loc: &dyn Locate,
    sink: &mut Sink,
) {
    if w.is_sign_negative() {
        sink.report(
            Code::WEIGHT_NEGATIVE_ZERO,
            || loc.slot(v, s, k, Field::Weight),
            || format!("vertex {v}: weight in {} is -0.0", slot_name(s, k)),
        );
    }
    if bone != 0 {
        sink.report(
            Code::PADDING_BONE,
            || loc.slot(v, s, k, Field::Bone),
            || {
                format!(
                    "vertex {v}: unused slot ({}, weight 0) names bone {bone}",
                    slot_name(s, k)
                )
            },
        );
    }
}

#[cfg(test)]
#[allow(clippy::cast_possible_truncation)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    struct NoLoc;
    impl Locate for NoLoc {
        fn slot(&self, vertex: u64, set: usize, slot: usize, _: Field) -> Location {
            Location {
                vertex: Some(vertex),
                set: Some(set as u32),
                slot: Some(slot as u32),
                ..Location::default()
            }
        }
        fn weights(&self, vertex: u64) -> Location {
            Location {
                vertex: Some(vertex),
                ..Location::default()
            }
        }
        fn position(&self, vertex: u64) -> Location {
            self.weights(vertex)
        }
    }

    fn weight() -> impl Strategy<Value = f32> {
        prop_oneof![
            Just(0.0f32),
            Just(-0.0),
            Just(1.0),
            Just(0.5),
            Just(0.25),
            Just(f32::NAN),
            Just(f32::from_bits(1)),
            Just(1.5),
            Just(-0.5),
            (0u32..=100).prop_map(|n| n as f32 / 100.0),
        ]
    }

    /// A skinned float checker.
    fn float_checker(profile: Profile, bones: Option<u64>, removed: Vec<u32>) -> Checker {
        Checker {
            profile,
            bones,
            removed: removed.into(),
            foreign: Default::default(),
            names: Default::default(),
            skinned: true,
            encoding: Encoding::Float,
            target: None,
        }
    }

    /// Bone indices on both sides of 64 and of 128 (where the shortcut's bit set ends).
    fn bone() -> impl Strategy<Value = u32> {
        prop_oneof![0u32..6, 62u32..67, 126u32..131]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 4000, failure_persistence: None, ..ProptestConfig::default() })]

        /// The single-set fast path reports exactly what the general path reports.
        #[test]
        fn fast_path_equals_general_path(
            joints in [0u32..4, 0u32..4, 0u32..4, 0u32..4],
            weights in [weight(), weight(), weight(), weight()],
            gltf in any::<bool>(),
            bones in proptest::option::of(1u64..4),
            removed in proptest::sample::subsequence(vec![0u32, 1, 2, 3], 0..=2),
        ) {
            let checker = float_checker(if gltf { Profile::Gltf } else { Profile::Dash }, bones, removed);
            let set = InfluenceSet { joints, weights };
            let (mut a, mut b) = (Sink::new(100), Sink::new(100));
            let (mut sa, mut sb) = (MeshStats::default(), MeshStats::default());
            let mut scratch = Scratch::default();
            checker.vertex_single(7, &set, &NoLoc, &mut a, &mut sa, &mut scratch);
            checker.vertex(7, std::slice::from_ref(&set), None, &NoLoc, &mut b, &mut sb, &mut scratch);
            prop_assert_eq!(a.into_parts(), b.into_parts());
            prop_assert_eq!(sa.first_with_data, sb.first_with_data);
            prop_assert_eq!(sa.set_used, sb.set_used);
        }

        /// Every slot used, the weights summing to exactly 1 (1/4, 1/8 or 1/16 each): the
        /// vertex is clean unless a bone repeats, is out of range or is removed, and the
        /// shortcut must tell those apart from clean ones on both sides of 128 as well.
        #[test]
        fn multi_set_shortcut_finds_repeated_bones(
            sets in prop_oneof![Just(1usize), Just(2), Just(4)],
            bones16 in proptest::collection::vec(bone(), 16),
            skeleton in proptest::option::of(prop_oneof![1u64..7, 60u64..140]),
            removed in proptest::sample::subsequence(vec![0u32, 63, 64, 129], 0..=1),
        ) {
            let checker = float_checker(Profile::Gltf, skeleton, removed);
            let w = 1.0 / (4 * sets) as f32;
            let sets: Vec<InfluenceSet> = bones16
                .chunks_exact(4)
                .take(sets)
                .map(|b| InfluenceSet { joints: [b[0], b[1], b[2], b[3]], weights: [w; 4] })
                .collect();
            let mut full = Sink::new(100);
            checker.full(3, &sets, None, &NoLoc, &mut full, &mut Scratch::default());
            prop_assert_eq!(checker.clean_float(&sets), full.total() == 0);
        }

        /// The multi-set shortcut says "clean" exactly when the full checks find nothing
        /// (at most 16 slots, so it never falls back for want of room; bones on both
        /// sides of 128, where its bit set ends, and removed ones on both sides too).
        #[test]
        fn multi_set_shortcut_equals_the_full_checks(
            sets in proptest::collection::vec(
                ([bone(), bone(), bone(), bone()], [weight(), weight(), weight(), weight()]),
                1..5,
            ),
            gltf in any::<bool>(),
            bones in proptest::option::of(prop_oneof![1u64..7, 60u64..140]),
            removed in proptest::sample::subsequence(vec![0u32, 1, 2, 3, 4, 5, 63, 64, 129], 0..=3),
            sorted in any::<bool>(),
        ) {
            let checker = float_checker(if gltf { Profile::Gltf } else { Profile::Dash }, bones, removed);
            let mut sets: Vec<InfluenceSet> = sets
                .into_iter()
                .map(|(joints, weights)| InfluenceSet { joints, weights })
                .collect();
            if sorted {
                // Clean vertices are the common case: make many of them.
                for (s, set) in sets.iter_mut().enumerate() {
                    set.weights.sort_by(|a, b| b.total_cmp(a));
                    for (k, j) in set.joints.iter_mut().enumerate() {
                        *j = [0, 1, 2, 63, 64, 129][(s * 4 + k) % 6];
                    }
                }
            }
            let mut full = Sink::new(100);
            checker.full(3, &sets, None, &NoLoc, &mut full, &mut Scratch::default());
            prop_assert_eq!(checker.clean_float(&sets), full.total() == 0);
        }
    }
}
