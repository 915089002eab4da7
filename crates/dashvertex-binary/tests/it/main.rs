//! Integration tests of dashvertex-binary: the three decoders agree, the layout, limits, the spec vectors, the writer.
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
mod layout;
mod limits;
mod vectors;
mod writer;
