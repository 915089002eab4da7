//! The logic of every fuzz target, as plain functions.
//!
//! Each `fuzz_targets/*.rs` binary is a one-line wrapper around a function here, and
//! `tests/smoke.rs` runs the same functions over the checked-in seed corpora on stable, so
//! `cargo test` exercises every target. A function panics exactly when it finds a bug.

use dash_core::Limits;

/// Limits small enough to keep a fuzzer's memory bounded.
pub fn fuzz_limits() -> Limits {
    Limits {
        max_input_bytes: 1 << 20,
        max_vertices: 1 << 14,
        max_bones: 1 << 10,
        max_sets: 8,
    }
}

/// `json_decode`: decoding never panics; whatever decodes re-encodes, decodes to the same
/// bits, and re-encodes to the same text; errors are located.
pub fn json_decode(data: &[u8]) {
    let limits = fuzz_limits();
    match dash_json::decode_bytes(data, &limits) {
        Ok(file) => {
            let text = match dash_json::encode(&file) {
                Ok(t) => t,
                Err(e) => panic!("decoded JSON failed to encode: {e}"),
            };
            let again = match dash_json::decode(&text, &limits) {
                Ok(f) => f,
                Err(e) => panic!("re-encoded JSON failed to decode: {e}\n{text}"),
            };
            assert!(
                again.document.bit_eq(&file.document),
                "round trip changed the document"
            );
            assert_eq!(
                dash_json::encode(&again).ok(),
                Some(text),
                "output not stable"
            );
        }
        Err(e) => {
            assert!(e.line >= 1 && e.column >= 1, "unlocated error: {e:?}");
            assert!(!e.message.is_empty());
        }
    }
}
