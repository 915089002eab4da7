//! Integration tests of dashvertex-reduce: Blender exports, properties of the algorithm, the generated schemas.
//!
//! One test binary per crate: each module here was a test target of its own.
// Tests may unwrap and index; their casts build fixtures from sizes they choose, so the
// workspace's cast lints (for code that reads input) do not apply.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap
)]

mod blender;
mod fit;
mod properties;
mod remap;
mod schemas;
