//! Integration tests of dashvertex-validate: the code catalogue, glTF against the official validator, spec coverage, the vectors.
//!
//! One test binary per crate: each module here was a test target of its own.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod catalogue;
mod gltf;
mod joint_order;
mod khronos_suite;
mod spec_coverage;
mod vectors;
