//! The DashVertex data model.
//!
//! This crate holds the types every other dash crate shares: vertices with their
//! influence sets ([`Mesh`], [`Vertex`], [`InfluenceSet`]), the skeleton that gives bone
//! indices their meaning ([`Skeleton`], [`Bone`]), decoder [`Limits`], and the weight
//! arithmetic of the glTF sum rule ([`weights`]). It performs no I/O; the codecs live in
//! `dashvertex-json` and `dashvertex-binary`.
//!
//! The normative definition of every type is `spec/dashvertex.md` in the repository.
//!
//! ```
//! use dashvertex_core::{Bone, Document, InfluenceSet, Mesh, Skeleton, Vertex};
//! // Two bones, one vertex weighted 3:1 between them.
//! let skin = InfluenceSet::from_pairs(&[(1, 0.75), (0, 0.25)]).expect("at most four pairs");
//! let mut mesh = Mesh::skinned(vec![Vertex { position: [0.0, 1.0, 0.0], skin }]);
//! // A second influence set (glTF JOINTS_1/WEIGHTS_1) holds four more influences.
//! mesh.push_set(vec![InfluenceSet::ZERO])?;
//! let skeleton = Skeleton { bones: vec![Bone::new("root", None), Bone::new("arm", Some(0))] };
//! let doc = Document { mesh, skeleton: Some(skeleton) };
//! assert_eq!(doc.mesh.set_count(), 2);
//! let pairs: Vec<(u32, f32)> = doc.mesh.sets_of(0).flat_map(|s| s.pairs()).filter(|p| p.1 > 0.0).collect();
//! assert_eq!(pairs, [(1, 0.75), (0, 0.25)]);
//! assert_eq!(doc.skeleton.as_ref().and_then(|s| s.find("arm")), Some(1));
//! # Ok::<(), dashvertex_core::ModelError>(())
//! ```

mod document;
pub mod file;
mod influence;
mod limits;
pub mod math;
mod mesh;
pub mod par;
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
