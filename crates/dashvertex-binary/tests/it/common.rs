//! Helpers shared by the dashvertex-binary integration tests.

pub use dashvertex_testkit::repo;

use dashvertex_binary::{BinaryError, BinaryFile, Expect};
use dashvertex_core::Limits;

/// Outcome of a decoder, comparable across decoders.
#[derive(Debug)]
pub enum Outcome {
    /// Decoded.
    Ok(Box<BinaryFile>),
    /// Failed.
    Err(BinaryError),
}

impl Outcome {
    pub fn from(r: Result<BinaryFile, BinaryError>) -> Self {
        match r {
            Ok(f) => Outcome::Ok(Box::new(f)),
            Err(e) => Outcome::Err(e),
        }
    }

    /// Same file (bit for bit) or same error.
    pub fn same(&self, other: &Outcome) -> bool {
        match (self, other) {
            (Outcome::Ok(a), Outcome::Ok(b)) => a.bit_eq(b),
            (Outcome::Err(a), Outcome::Err(b)) => a == b,
            _ => false,
        }
    }
}

/// Runs the three decoders (the nom one with several chunk sizes) and checks that they
/// agree; returns the common outcome.
pub fn decode_all(bytes: &[u8], expect: Expect, limits: &Limits, chunks: &[usize]) -> Outcome {
    let view = Outcome::from(match expect {
        Expect::Container => dashvertex_binary::decode_container(bytes, limits),
        Expect::Raw => dashvertex_binary::decode_raw(bytes, limits),
        Expect::Detect => dashvertex_binary::decode(bytes, limits),
    });
    let binrw = Outcome::from(match expect {
        Expect::Container => dashvertex_binary::binrw_io::decode_container(bytes, limits),
        Expect::Raw => dashvertex_binary::binrw_io::decode_raw(bytes, limits),
        Expect::Detect => dashvertex_binary::binrw_io::decode(bytes, limits),
    });
    assert!(view.same(&binrw), "zerocopy {view:?}\nbinrw {binrw:?}");
    let whole = Outcome::from(dashvertex_binary::decode_chunked(
        bytes,
        bytes.len().max(1),
        expect,
        limits,
    ));
    assert!(
        view.same(&whole),
        "zerocopy {view:?}\nnom (whole) {whole:?}"
    );
    for &c in chunks {
        let nom = Outcome::from(dashvertex_binary::decode_chunked(bytes, c, expect, limits));
        assert!(
            view.same(&nom),
            "zerocopy {view:?}\nnom (chunks of {c}) {nom:?}"
        );
    }
    view
}

/// The expectation for a vector file name.
pub fn expect_for(name: &str) -> Expect {
    if name.ends_with(".dmx") {
        Expect::Container
    } else if name.ends_with(".raw") {
        Expect::Raw
    } else {
        Expect::Detect
    }
}
