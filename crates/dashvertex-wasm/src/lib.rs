//! DashVertex in the browser: the dash codecs, validator and reducer compiled to
//! WebAssembly, with a JavaScript API made by wasm-bindgen.
//!
//! - [`decode`](bindings::decode): DashVertex JSON, DMX or raw records into a `Model`
//!   whose contents come out as typed arrays — positions (`Float32Array`), per influence
//!   set `skinIndex` (`Uint16Array`, or `Uint32Array` when an index needs it) and
//!   `skinWeight` (`Float32Array`) — and the skeleton (names, parents, bind pose).
//! - [`validate`](bindings::validate): the JSON report of `dash-validate --format json`.
//! - `Model.reduce` (feature `reduce`): K influences per vertex by the dash reducer,
//!   with its report and the weight dropped.
//! - `Model.encode` (feature `encode`): back to DMX, raw records or JSON.
//!
//! Failures are JavaScript `Error`s with `code`, `message` and `location`.
//!
//! The work is done by plain Rust functions, tested natively: [`model`] (decoding and
//! the arrays), [`validation`], [`reduction`], [`encode`]; [`bindings`] only converts.

pub mod bindings;
#[cfg(feature = "encode")]
pub mod encode;
mod failure;
pub mod model;
#[cfg(feature = "reduce")]
pub mod reduction;
pub mod validation;

pub use failure::Failure;
