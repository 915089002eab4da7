//! Integration tests of dashvertex-json: decoder and schema agree, round trips, the generated schemas, the spec vectors.
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

mod agreement;
mod common;
mod roundtrip;
mod schemas;
mod vectors;
