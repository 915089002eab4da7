//! The DashVertex binary codec (`spec/dashvertex.md` §10).
//!
//! Files are either a DMX v2 **container** (`DMX\0` header rows, sections with absolute
//! offsets; VERT records of 48 bytes, or 16 for unskinned meshes; the VSET extension for
//! sets 1..; the SKEL bone records; every other section carried byte for byte) or bare
//! **raw** 48-byte records as a C program writes them from the original struct.
//!
//! The record layout is declared once, in [`records`] (zerocopy types with alignment 1),
//! and the table rules once, in [`table`]: the reader views records in place
//! ([`decode`], [`View`]) and the writer ([`encode`]) emits the same types, so the two
//! cannot disagree on a field.
//!
//! With the `reference` feature, two independent decoders are built beside it —
//! `binrw_io::decode` (binrw, field by field through a cursor) and `StreamDecoder` (nom
//! streaming parsers fed in chunks of any size, split anywhere). They re-declare the
//! records on purpose: tests, fuzz targets and benchmarks check that all three give the
//! same [`BinaryFile`] or the same [`BinaryError`] (kind and byte offset) for any input,
//! and that the streaming decoder's result does not depend on how the input is split.
//! Production code needs neither, so neither binrw nor nom is a dependency without it.
//!
//! ```
//! use dashvertex_core::{Document, InfluenceSet, Limits, Mesh, Vertex};
//! let v = Vertex { position: [1.0, 2.0, 3.0], skin: InfluenceSet::from_pairs(&[(1, 1.0)]).unwrap() };
//! let doc = Document { mesh: Mesh::skinned(vec![v]), skeleton: None };
//! let bytes = dashvertex_binary::encode_document(&doc, &Default::default())?;
//! assert_eq!(&bytes[..4], b"DMX\0");
//! let back = dashvertex_binary::decode(&bytes, &Limits::default())?;
//! assert!(back.document.bit_eq(&doc));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#[cfg(feature = "reference")]
#[allow(
    clippy::cast_possible_truncation,
    reason = "a reference decoder for tests: offsets and counts are u32 fields or below the input length, which fits usize on every target the tests run on"
)]
pub mod binrw_io;
mod error;
pub mod format;
mod model;
mod name;
pub mod records;
#[cfg(feature = "reference")]
#[allow(
    clippy::cast_possible_truncation,
    reason = "a reference decoder for tests: offsets and counts are u32 fields or below the input length, which fits usize on every target the tests run on"
)]
mod stream;
pub mod table;
mod view;
mod write;

pub use error::{BinaryError, ErrorKind};
pub use model::{BinaryFile, FileKind, ForeignSection, parent_from_raw};
pub use name::decode_name;
#[cfg(feature = "reference")]
pub use stream::{Expect, StreamDecoder, decode_chunked};
pub use table::{Layout, Row, VertexLayout};
pub use view::{
    VertexRecords, View, decode_raw, detect, header_fields, raw_check, read_at, read_layout,
};
pub use write::{WriteError, WriteOptions, encode, encode_document, encode_raw};

use dashvertex_core::Limits;

/// Decodes a binary file of either kind (detected as §10.1 says) with the zero-copy
/// decoder.
pub fn decode(bytes: &[u8], limits: &Limits) -> Result<BinaryFile, BinaryError> {
    match detect(bytes, bytes.len() as u64)? {
        FileKind::Container => decode_container(bytes, limits),
        FileKind::Raw => decode_raw(bytes, limits),
    }
}

/// Decodes a container with the zero-copy decoder.
pub fn decode_container(bytes: &[u8], limits: &Limits) -> Result<BinaryFile, BinaryError> {
    if (bytes.len() as u64) < format::ROW {
        return Err(BinaryError::new(bytes.len() as u64, ErrorKind::TooShort));
    }
    View::parse(bytes, limits)?.to_file()
}
