//! The DashVertex JSON codec.
//!
//! Three shapes are accepted (`spec/dashvertex.md` §3): a single vertex
//! `{"x", "y", "z", "skinIndex", "skinWeight"}`, an array of vertices, and a DMX document
//! `{"type": "DashModelExchange", "vertex": [...], "bone": [...], ...}`. Document members
//! dash does not model (material, face, texture, animation, anything else) are kept with
//! their exact text and written back unchanged.
//!
//! ```
//! use dashvertex_core::Limits;
//! let text = r#"{"x": 0, "y": 1, "z": 0, "skinIndex": [2, 0], "skinWeight": [1, 0]}"#;
//! let file = dashvertex_json::decode(text, &Limits::default())?;
//! let v = file.document.mesh.vertices()[0];
//! assert_eq!(v.skin.joints, [2, 0, 0, 0]);
//! assert_eq!(dashvertex_json::encode(&file)?,
//!     "{\"x\": 0, \"y\": 1, \"z\": 0, \"skinIndex\": [2, 0, 0, 0], \"skinWeight\": [1, 0, 0, 0]}\n");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Errors name a JSON Pointer and a line and column ([`JsonError`]). The JSON Schema in
//! `schemas/` is generated from the types in `wire` by [`schema`]; schema and decoder
//! accept exactly the same texts (a property test checks it).

mod decode;
mod duplicate_key;
mod encode;
mod error;
mod locate;
pub mod members;
pub mod number;
pub mod pointer;
pub mod schema;
mod wire;

pub use decode::{DocKey, Form, JsonFile, decode, decode_bytes};
pub use duplicate_key::find_duplicate_key;
pub use encode::{encode, encode_document};
pub use error::{EncodeError, ErrorKind, JsonError};
pub use members::Members;
pub use wire::DOCUMENT_TYPE;
