//! A glTF skinning evaluator: where skinned vertices are at any moment of an animation.
//!
//! - [`Rig`]: the node hierarchy (TRS or `matrix` nodes), parents first, no recursion;
//!   [`Rig::globals`] gives every node's global matrix for a [`Pose`].
//! - [`animations`]: each animation's translation, rotation and scale channels, sampled
//!   at any time as the glTF specification defines STEP, LINEAR (slerp for rotations) and
//!   CUBICSPLINE (Hermite with the keyframe tangents), times clamped to each channel.
//! - [`Skin`]: a skin's joints and inverse bind matrices; [`Skin::joint_matrices`] is
//!   global(joint) × inverse bind.
//! - [`skin_point`]: linear blend skinning of a position over every influence set.
//! - [`loss`]: how far reduction moves each vertex, over the rest pose, every keyframe
//!   time of every animation and [`INTERIOR_SAMPLES`] moments between keyframes (or,
//!   when no animation moves a joint, the [`RangeOfMotion`] poses: each used joint
//!   turned ±[`MOTION_DEGREES`] about its local axes), within a work budget tied to the
//!   input's size, read against the skinned rest-pose bounding box (what
//!   `dashvertex reduce --report` writes).
//! - [`fit_poses`]: the pose set a fitted reduction is measured over — the loss's
//!   moments and the range-of-motion poses — each pose's joint matrices evaluated once.
//!
//! Everything is computed in `f64` and in a fixed order, so the same inputs give the same
//! bits on every run and thread count.
//!
//! ```
//! use dashvertex_core::InfluenceSet;
//! use dashvertex_skin::{Joints, math, skin_point};
//! // Two joints: one at rest, one moved up by 1; the vertex is bound half to each.
//! let up = math::from_trs([0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
//! let joints = Joints::from_matrices(&[math::IDENTITY, up]);
//! let sets = [InfluenceSet::from_pairs(&[(0, 0.5), (1, 0.5)]).unwrap()];
//! assert_eq!(skin_point([1.0, 0.0, 0.0], &sets, &joints), [1.0, 0.5, 0.0]);
//! ```

mod animation;
mod fit_poses;
mod loss;
mod motion;
/// 4×4 matrices and quaternions (the core's, shared with the glTF importer).
pub use dashvertex_core::math;
mod rig;
mod skin;

pub use animation::{
    Animation, Channel, Interpolation, MAX_KEYFRAME_VALUES, Path, animations, retarget,
};
pub use fit_poses::{FitPoses, fit_poses};
pub use loss::{
    INTERIOR_SAMPLES, MAX_MOMENTS, Moment, PoseSet, PrimitiveLoss, WORK_FLOOR, WORK_PER_BYTE,
    Worst, loss, loss_with, loss_within, work_budget,
};
pub use motion::{Axis, MOTION_DEGREES, MotionPose, RangeOfMotion, turn};
pub use rig::{Local, Pose, Rig};
pub use skin::{Joints, Skin, skin_point};

/// Why a document's skinning cannot be evaluated.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SkinError {
    /// An accessor an animation or a skin needs cannot be read.
    #[error(transparent)]
    Accessor(#[from] dashvertex_gltf::AccessorError),
    /// An animation is malformed.
    #[error("animation {animation} ({pointer}): {what}")]
    Animation {
        /// The animation's index.
        animation: usize,
        /// The JSON Pointer of the member at fault (`/animations/A/samplers/S/interpolation`).
        pointer: String,
        /// What is wrong.
        what: &'static str,
    },
    /// A skinned primitive cannot be imported.
    #[error(transparent)]
    Import(#[from] dashvertex_gltf::import::ImportError),
    /// A pose file's animations drive no node of the model (no node name in common).
    #[error("no animated node of the pose file has a namesake in the model")]
    NoMatchingNodes,
    /// An animation's output value is NaN or infinite: skinned, it would compare as no
    /// displacement (NaN) or an identity rotation, so the loss is refused instead.
    #[error(
        "animation {animation}, sampler {sampler} (/animations/{animation}/samplers/{sampler}/output): keyframe {keyframe} holds {value}, not a finite number, so how far vertices move cannot be measured; fix the exporter's output (dash-validate reports it as ACCESSOR_INVALID_FLOAT)"
    )]
    NonFiniteKeyframe {
        /// The animation's index.
        animation: usize,
        /// The sampler's index in the animation.
        sampler: usize,
        /// The keyframe.
        keyframe: usize,
        /// The value read.
        value: f64,
    },
    /// An inverse bind matrix holds NaN or an infinity.
    #[error(
        "skin {skin} (/skins/{skin}/inverseBindMatrices, accessor {accessor}): the matrix of joint {joint} holds {value}, not a finite number, so how far vertices move cannot be measured (dash-validate reports it as ACCESSOR_INVALID_FLOAT)"
    )]
    NonFiniteInverseBind {
        /// The skin's index.
        skin: usize,
        /// The inverse bind matrices' accessor.
        accessor: u64,
        /// The joint whose matrix it is.
        joint: usize,
        /// The value read.
        value: f64,
    },
    /// A vertex position holds NaN or an infinity.
    #[error(
        "mesh {mesh} primitive {primitive}: vertex {vertex}'s POSITION holds {value}, not a finite number, so how far it moves cannot be measured (dash-validate reports it as ACCESSOR_INVALID_FLOAT)"
    )]
    NonFinitePosition {
        /// The mesh.
        mesh: usize,
        /// The primitive within the mesh.
        primitive: usize,
        /// The vertex.
        vertex: usize,
        /// The value read.
        value: f32,
    },
    /// Finite data skinned to a position that is not finite (a product overflowed).
    #[error(
        "mesh {mesh} primitive {primitive}: vertex {vertex} skins to a position that is not finite {at} (its joint matrices overflow), so how far it moves cannot be measured"
    )]
    NonFiniteSkinning {
        /// The mesh.
        mesh: usize,
        /// The primitive within the mesh.
        primitive: usize,
        /// The vertex.
        vertex: usize,
        /// When, in words ("at the rest pose", "in animation 2 at t=0.500 s").
        at: String,
    },
    /// More keyframe values than [`MAX_KEYFRAME_VALUES`] in the document's animations.
    #[error("the animations hold more than {MAX_KEYFRAME_VALUES} keyframe values")]
    TooManyKeyframes,
    /// There is no skin of this index.
    #[error("skin {0} does not exist")]
    NoSkin(usize),
}
