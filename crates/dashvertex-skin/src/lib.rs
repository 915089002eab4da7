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
//! - [`loss`]: how far reduction moves each vertex, over the rest pose and every keyframe
//!   time of every animation (what `dash reduce --report` writes).
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
#![deny(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap
)]

mod animation;
mod loss;
/// 4×4 matrices and quaternions (the core's, shared with the glTF importer).
pub use dashvertex_core::math;
mod rig;
mod skin;

pub use animation::{
    Animation, Channel, Interpolation, MAX_KEYFRAME_VALUES, Path, animations, retarget,
};
pub use loss::{MAX_MOMENTS, Moment, PrimitiveLoss, Worst, loss, loss_with};
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
    #[error("animation {animation}: {what}")]
    Animation {
        /// The animation's index.
        animation: usize,
        /// What is wrong.
        what: &'static str,
    },
    /// A skinned primitive cannot be imported.
    #[error(transparent)]
    Import(#[from] dashvertex_gltf::import::ImportError),
    /// A pose file's animations drive no node of the model (no node name in common).
    #[error("no animated node of the pose file has a namesake in the model")]
    NoMatchingNodes,
    /// More moments than [`MAX_MOMENTS`] (the rest pose and every keyframe time).
    #[error(
        "{0} moments (the rest pose and every keyframe time) are more than the {MAX_MOMENTS} a loss is measured over"
    )]
    TooManyMoments(usize),
    /// More keyframe values than [`MAX_KEYFRAME_VALUES`] in the document's animations.
    #[error("the animations hold more than {MAX_KEYFRAME_VALUES} keyframe values")]
    TooManyKeyframes,
    /// There is no skin of this index.
    #[error("skin {0} does not exist")]
    NoSkin(usize),
}
