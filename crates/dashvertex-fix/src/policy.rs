//! The repair policies (`spec/fix.md` §2): one per kind of fault whose repair is a choice,
//! each with a documented default.

use serde::Serialize;

/// Negative and non-finite weights (`--bad-weights`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum BadWeights {
    /// Refuse the file, naming the first such weight.
    Error,
    /// The weight becomes 0 (its slot becomes padding). The default: a negative or
    /// non-finite weight has no meaning an engine agrees on, and every reducer drops it.
    Zero,
}

/// Joints not below the skin's joint count, with a non-zero weight (`--out-of-range`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum OutOfRange {
    /// Refuse the file (the default: which bone was meant cannot be known).
    Error,
    /// Drop the influence: its weight becomes 0, its slot padding, and the vertex is
    /// renormalized under the `gltf` rule.
    Drop,
}

/// Skinned vertices left with no non-zero weight (`--zero-sum`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ZeroSum {
    /// Leave them (the default under the `dash` profile, where they are only a warning).
    Keep,
    /// Refuse the file (the default under the `gltf` profile: binding a vertex to a
    /// bone is a decision the artist should make).
    Error,
    /// Bind the vertex to the root bone with full weight.
    Root,
    /// Copy the (repaired) influences of the nearest vertex by position that has a
    /// non-zero weight; at equal distance the lower vertex index.
    Nearest,
}

/// A DashVertex mesh marked unskinned whose records hold influence data
/// (`--skinned-flag`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SkinnedFlag {
    /// Refuse the file (the default: whether the flag or the data is wrong cannot be
    /// known).
    Error,
    /// Mark the mesh skinned; its influences are then repaired like any other.
    Set,
    /// Keep the mesh unskinned and clear the influence data.
    Clear,
}

/// Which weight-sum rule the output must meet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SumRule {
    /// Profile `dash`: no sum rule; only a weight above 1 makes its vertex scaled to sum 1.
    Dash,
    /// Profile `gltf` (always for glTF files): the float32 rule exactly as the official
    /// validator computes it, and exact integer sums (255, 65535) for normalized weights.
    Gltf,
}

/// Every policy of a fix.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Policy {
    /// Negative and non-finite weights.
    pub bad_weights: BadWeights,
    /// Out-of-range joints with weight.
    pub out_of_range: OutOfRange,
    /// Skinned vertices without weight.
    pub zero_sum: ZeroSum,
    /// The sum rule.
    pub sum: SumRule,
    /// An unskinned DashVertex mesh with influence data.
    pub skinned_flag: SkinnedFlag,
    /// How far an inverse bind matrix's fourth row may be from `(0, 0, 0, 1)` and still be
    /// snapped to it (glTF); a row further off is refused: the matrix is not affine, and
    /// engines disagree about what it does.
    pub ibm_tolerance: f32,
    /// With an engine target (`spec/targets.md` §4): the influences per vertex it reads;
    /// vertices with more keep the heaviest (`target-limit`).
    pub max_influences: Option<usize>,
}

impl Policy {
    /// The defaults for a sum rule: bad weights zeroed, out-of-range joints refused, and
    /// vertices without weight kept under `dash`, refused under `gltf`.
    pub fn for_rule(sum: SumRule) -> Self {
        Policy {
            bad_weights: BadWeights::Zero,
            out_of_range: OutOfRange::Error,
            zero_sum: match sum {
                SumRule::Dash => ZeroSum::Keep,
                SumRule::Gltf => ZeroSum::Error,
            },
            sum,
            skinned_flag: SkinnedFlag::Error,
            ibm_tolerance: 1e-4,
            max_influences: None,
        }
    }
}
