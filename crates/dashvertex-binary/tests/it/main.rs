//! Integration tests of dashvertex-binary: the three decoders agree, the layout, limits, the spec vectors, the writer.
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
mod layout;
mod limits;
mod vectors;
mod writer;
