//! Runs the binary conformance vectors of `spec/vectors/expected.json` through all three
//! decoders.

use crate::common::{Outcome, decode_all, expect_for};
use dashvertex_core::Limits;
use serde_json::Value;

#[test]
fn binary_vectors_decode_as_the_manifest_says_with_every_decoder() {
    // spec: B1 B2 B3 B4 B5 B6 B7 B8 B9 N1 T2 X1
    let root = crate::common::repo().join("spec/vectors");
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("expected.json")).unwrap())
            .unwrap();
    let mut seen = 0;
    for v in manifest["vectors"].as_array().unwrap() {
        let file = v["file"].as_str().unwrap();
        if !file.starts_with("binary/") {
            continue;
        }
        seen += 1;
        let bytes = std::fs::read(root.join(file)).unwrap();
        let got = decode_all(
            &bytes,
            expect_for(file),
            &Limits::default(),
            &[1, 3, 16, 48, 4096],
        );
        match (&v["decode"], got) {
            (Value::String(s), Outcome::Ok(_)) if s == "ok" => {}
            (Value::Object(want), Outcome::Err(e)) => {
                assert_eq!(want["code"].as_str(), Some(e.code()), "{file}: {e}");
                assert_eq!(want["offset"].as_u64(), Some(e.offset), "{file}: {e}");
            }
            (want, got) => panic!("{file}: expected {want}, got {got:?}"),
        }
    }
    assert!(seen >= 28, "only {seen} binary vectors");
}
