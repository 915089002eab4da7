//! Integration tests of dashvertex-json: decoder and schema agree, round trips, the generated schemas, the spec vectors.
//!
//! One test binary per crate: each module here was a test target of its own.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod agreement;
mod common;
mod roundtrip;
mod schemas;
mod vectors;
