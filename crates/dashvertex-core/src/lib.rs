//! The DashVertex data model.
//!
//! This crate holds the types every other dash crate shares: vertices with their
//! influence sets ([`Mesh`], [`Vertex`], [`InfluenceSet`]), the skeleton that gives bone
//! indices their meaning ([`Skeleton`], [`Bone`]), decoder [`Limits`], and the weight
//! arithmetic of the glTF sum rule ([`weights`]). It performs no I/O; the codecs live in
//! `dashvertex-json` and `dashvertex-binary`.
//!
//! The normative definition of every type is `spec/dashvertex.md` in the repository.

mod document;
mod influence;
mod limits;
pub mod math;
mod mesh;
mod skeleton;
pub mod target;
pub mod text;
pub mod weights;

pub use document::Document;
pub use influence::{InfluenceSet, SLOTS, Weight, canonical_order};
pub use limits::{LimitError, Limits};
pub use mesh::{Mesh, ModelError, Vertex};
pub use skeleton::{Bone, Skeleton, globals_of};
pub use target::{ExtraSets, TARGETS, Target};

/// Compares two `f32` slices bit for bit (so `-0.0 != 0.0` and NaN payloads count).
pub fn f32_bits_eq(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}
