//! What the skin checks find, and where (pure types: no ufbx, so every target has them).

/// A skin check (the validator gives each its `FBX_*` code, spec/validation.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Check {
    /// The file has no skin deformer: nothing to check.
    NoSkin,
    /// A weight is negative, NaN or infinite.
    WeightInvalid,
    /// A cluster lists a control point with weight 0.
    WeightZero,
    /// A control point's weights do not sum to 1 (the glTF rule).
    WeightSum,
    /// A control point has more influences than the target keeps.
    Influences,
    /// A control point of a skinned mesh that no cluster weights.
    Unweighted,
    /// Two clusters of one skin deformer link to the same node.
    ClusterDuplicate,
    /// A cluster links to no node, or to a node that is not a bone (limb node).
    ClusterNotBone,
    /// A cluster's bone has no bind pose entry, or one that disagrees with the cluster.
    BindPose,
    /// A mesh has more than one skin deformer.
    SkinSeveral,
    /// A skin deformer uses rigid, dual-quaternion or blended skinning.
    SkinningMode,
}

/// What to check against.
#[derive(Clone, Copy, Debug)]
pub struct CheckOptions {
    /// Influences a control point may have before [`Check::Influences`] (4: glTF's first
    /// set and most engines; a target's own number otherwise).
    pub influences: usize,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions { influences: 4 }
    }
}

/// Where a finding is: the FBX object (`Type::name`) and, for a per-vertex rule, the
/// control point.
#[derive(Clone, Copy, Debug)]
pub struct At<'a> {
    /// FBX object type: `Geometry`, `Deformer`, `Cluster`, `Model`.
    pub kind: &'static str,
    /// The object's name.
    pub name: &'a str,
    /// Control point index, for a per-vertex rule.
    pub vertex: Option<u64>,
}

impl At<'_> {
    /// `Geometry::Body`.
    pub fn object(&self) -> String {
        format!("{}::{}", self.kind, self.name)
    }
}

/// Receives findings; the message is only built when wanted.
pub type Report<'r> = dyn FnMut(Check, At<'_>, &dyn Fn() -> String) + 'r;
