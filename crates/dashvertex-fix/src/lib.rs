//! `dashvertex fix`: the smallest change that makes a file's influence data valid
//! (`spec/fix.md`). Each repair is a named [`Step`] whose choice, where there is one, is
//! a [`Policy`] with a documented default; a vertex nothing is wrong with is left exactly
//! as it was, and the [`Report`] lists every vertex changed, before and after.
//!
//! - [`vertex`]: the repair of one vertex's slots, in a fixed order of steps;
//! - [`part`]: a part's vertices, `--zero-sum nearest` ([`nearest`]) and trailing sets;
//! - [`document`]: DashVertex documents (JSON, DMX, raw records);
//! - [`gltf`]: glTF and GLB primitives and inverse bind matrices, rewritten in place
//!   through the exporter;
//! - [`attributes`]: normals, tangents and colours that break a unit-length or range rule.
//!
//! The fixer never writes: callers check the result with the validator and write it
//! (the `dashvertex fix` command refuses an output `dash-validate` would reject).

pub mod attributes;
pub mod document;
mod error;
pub mod gltf;
pub mod nearest;
pub mod part;
pub mod policy;
pub mod report;
mod step;
mod structure;
pub mod vertex;

pub use document::fix_document;
pub use error::FixError;
pub use gltf::{Fixed, fix_gltf, fix_gltf_listing};
pub use policy::{BadWeights, OutOfRange, Policy, SkinnedFlag, SumRule, ZeroSum};
pub use report::{
    AttributeChange, Note, Part, PartReport, Report, SkinReport, Slots, VertexChange, Weight,
    schema,
};
pub use step::{Step, Steps};
