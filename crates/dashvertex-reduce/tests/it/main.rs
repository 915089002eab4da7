//! Integration tests of dashvertex-reduce: Blender exports, properties of the algorithm, the generated schemas.
//!
//! One test binary per crate: each module here was a test target of its own.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod blender;
mod properties;
mod remap;
mod schemas;
