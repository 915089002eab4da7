//! The named repair steps a report lists, and the validator codes each one clears.

use serde::Serialize;

/// One kind of repair applied to a vertex (`spec/fix.md` §3), in the order they run.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Step {
    /// A NaN or infinite weight became 0 (`--bad-weights zero`).
    NonFiniteWeight,
    /// A negative weight became 0 (`--bad-weights zero`).
    NegativeWeight,
    /// A `-0.0` weight became `0.0`.
    NegativeZero,
    /// A subnormal weight (no visible effect) became 0.
    SubnormalWeight,
    /// A weighted joint beyond the skin's joints was dropped (`--out-of-range drop`).
    OutOfRangeJoint,
    /// A joint weighted twice in the vertex (across all sets): the weights were added
    /// into its first slot, the later slot became padding.
    DuplicateJoint,
    /// An unused slot (weight 0) named a joint other than 0: it names joint 0.
    Padding,
    /// The influences were spread over the sets out of order (a later set heavier than a
    /// used slot of an earlier one, or used while an earlier one has a free slot): they
    /// were laid out again heaviest first, ties by lower joint, from set 0 on.
    SetOrder,
    /// A vertex without weight was bound to the root bone (`--zero-sum root`).
    ZeroSumRoot,
    /// A vertex without weight took the influences of its nearest weighted vertex
    /// (`--zero-sum nearest`).
    ZeroSumNearest,
    /// With a target: the vertex had more used influences than the engine reads; the
    /// heaviest were kept (ties by lower joint), laid out from set 0.
    TargetLimit,
    /// The weights were rescaled to meet the sum rule exactly for their storage.
    Normalize,
    /// Profile `dash`: a weight above 1 made its vertex rescaled to sum 1.
    AboveOne,
}

impl Step {
    /// Every step, in the order they run.
    pub const ALL: [Step; 13] = [
        Step::NonFiniteWeight,
        Step::NegativeWeight,
        Step::NegativeZero,
        Step::SubnormalWeight,
        Step::OutOfRangeJoint,
        Step::DuplicateJoint,
        Step::Padding,
        Step::SetOrder,
        Step::ZeroSumRoot,
        Step::ZeroSumNearest,
        Step::TargetLimit,
        Step::Normalize,
        Step::AboveOne,
    ];

    /// The step's stable name (kebab-case, as in reports).
    pub fn name(self) -> &'static str {
        match self {
            Step::NonFiniteWeight => "non-finite-weight",
            Step::NegativeWeight => "negative-weight",
            Step::NegativeZero => "negative-zero",
            Step::SubnormalWeight => "subnormal-weight",
            Step::OutOfRangeJoint => "out-of-range-joint",
            Step::DuplicateJoint => "duplicate-joint",
            Step::Padding => "padding",
            Step::SetOrder => "set-order",
            Step::ZeroSumRoot => "zero-sum-root",
            Step::ZeroSumNearest => "zero-sum-nearest",
            Step::TargetLimit => "target-limit",
            Step::Normalize => "normalize",
            Step::AboveOne => "above-one",
        }
    }

    /// The `dash-validate` codes this step clears (`spec/validation.md`).
    pub fn fixes(self) -> &'static [&'static str] {
        match self {
            Step::NonFiniteWeight => &["WEIGHT_NON_FINITE"],
            Step::NegativeWeight => &["WEIGHT_NEGATIVE"],
            Step::NegativeZero => &["WEIGHT_NEGATIVE_ZERO"],
            Step::SubnormalWeight => &["WEIGHT_SUBNORMAL"],
            Step::OutOfRangeJoint => &["BONE_INDEX_RANGE"],
            Step::DuplicateJoint => &["BONE_DUPLICATE"],
            Step::Padding => &["PADDING_BONE", "BONE_INDEX_RANGE"],
            Step::SetOrder => &["SET_ORDER", "SET_GAP"],
            Step::ZeroSumRoot | Step::ZeroSumNearest => &["WEIGHTS_ALL_ZERO", "WEIGHT_SUM"],
            Step::TargetLimit => &["TARGET_SETS_IGNORED", "TARGET_SETS_REJECTED"],
            Step::Normalize => &["WEIGHT_SUM", "UNORM_SUM", "WEIGHT_ABOVE_ONE"],
            Step::AboveOne => &["WEIGHT_ABOVE_ONE"],
        }
    }

    fn bit(self) -> u16 {
        1 << (self as u16)
    }
}

/// A set of steps (as applied to one vertex).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Steps(u16);

impl Steps {
    /// Adds a step.
    pub fn add(&mut self, s: Step) {
        self.0 |= s.bit();
    }

    /// Whether `s` is in the set.
    pub fn has(self, s: Step) -> bool {
        self.0 & s.bit() != 0
    }

    /// True when no step applied.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The steps, in the order they run.
    pub fn iter(self) -> impl Iterator<Item = Step> {
        Step::ALL.into_iter().filter(move |s| self.has(*s))
    }
}
