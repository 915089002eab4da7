//! What a split did, per input primitive (the `primitives` of
//! `schemas/split-report.schema.json`).

use schemars::JsonSchema;
use serde::Serialize;

/// A split of one document.
#[derive(Clone, Debug, Default, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// The joint budget of a part.
    pub max_joints: usize,
    /// What the split did that the user should know: node extensions it does not know,
    /// copied unchanged to the parts' nodes (with `--allow-unknown-extensions`). Left out
    /// of the JSON when there is none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Skinned nodes whose skin has more joints than the budget (each split).
    pub nodes_split: usize,
    /// Skins within the budget, left as they were.
    pub skins_within: usize,
    /// Meshes, nodes and skins the split added.
    pub added: Added,
    /// Every skinned primitive of a split node's mesh, in mesh and primitive order.
    pub primitives: Vec<PrimitiveReport>,
}

/// Objects a split added to the document.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Added {
    /// Meshes.
    pub meshes: usize,
    /// Nodes.
    pub nodes: usize,
    /// Skins.
    pub skins: usize,
    /// Animation channels (copies of `weights` channels for the new nodes).
    pub channels: usize,
}

/// One input primitive and the parts it became.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PrimitiveReport {
    /// Mesh index in the input.
    pub mesh: usize,
    /// Primitive index in the mesh.
    pub primitive: usize,
    /// The skin its joints refer to.
    pub skin: usize,
    /// Elements (triangles, lines or points).
    pub elements: usize,
    /// Vertices its elements use.
    pub vertices: usize,
    /// Vertices no element uses (not written: no element draws them).
    pub unreferenced_vertices: usize,
    /// Distinct joints with weight on its elements' vertices.
    pub joints_used: usize,
    /// The fewest parts any split could have: ⌈joints used / budget⌉.
    pub lower_bound: usize,
    /// The parts, in output order.
    pub parts: Vec<PartReport>,
    /// Whether it is one part whose vertex data was kept as it was (only its
    /// `JOINTS_n` renumbered, and `WEIGHTS_n` where `reduce` changed them).
    pub kept_whole: bool,
    /// Vertices written more than once: Σ part vertices − vertices.
    pub duplicated_vertices: usize,
    /// Σ part vertices / vertices (1 without duplication; 1 for no vertex).
    pub duplication_ratio: f64,
    /// Joints per part over the budget: the smallest.
    pub palette_fill_min: f64,
    /// The mean.
    pub palette_fill_mean: f64,
    /// The largest.
    pub palette_fill_max: f64,
    /// Edges whose elements lie in different parts.
    pub seam_edges: usize,
    /// What `reduce` took off to make every element fit (`null` when nothing).
    pub reduced: Option<Reduced>,
}

/// One part of a primitive.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PartReport {
    /// The output mesh that holds it.
    pub mesh: usize,
    /// Its primitive in that mesh.
    pub primitive: usize,
    /// The output skin it is drawn with.
    pub skin: usize,
    /// Elements.
    pub elements: usize,
    /// Vertices written.
    pub vertices: usize,
    /// Joints its elements use (at most the budget).
    pub joints: usize,
    /// Joints of its skin: the part's and those of the mesh's other parts.
    pub skin_joints: usize,
}

/// What `reduce` changed in one primitive.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Reduced {
    /// Vertices whose influences changed.
    pub vertices: usize,
    /// Influences taken off.
    pub influences_removed: usize,
    /// The largest weight one vertex lost, before renormalizing.
    pub max_weight_lost: f64,
    /// The largest displacement, in model units, at the moments measured.
    pub max_displacement: f64,
    /// The vertex that moves most.
    pub worst_vertex: Option<u32>,
    /// When it does, in words.
    pub worst_at: Option<String>,
    /// The poses measured (`spec/reduction.md` §4): `animations` (the rest pose and
    /// keyframe times), `rangeOfMotion` (no animation moves a joint of the skin: the rest
    /// pose and each used joint turned ±45° about its local X, Y and Z axes, one at a
    /// time) or `restPose` (neither, and no joint carries weight).
    pub pose_set: String,
    /// Moments measured (the rest pose and keyframe times, or the range-of-motion poses).
    pub moments: usize,
    /// Moments the rule takes; more than `moments` when the work budget thinned them.
    pub moments_full: usize,
    /// With `--fit`: the vertices written with fitted weights (the others keep the
    /// renormalized ones, which no fit improved).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fitted_vertices: Option<usize>,
    /// With `--fit`: the largest displacement the renormalized weights would have caused,
    /// beside `maxDisplacement`, the fitted output's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_displacement_plain: Option<f64>,
}
