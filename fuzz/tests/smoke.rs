//! Runs every fuzz target's logic over its seed corpus (`fuzz/seeds/<target>/`) and the
//! regression inputs (`fuzz/regressions/<target>/`), on stable.

use std::path::{Path, PathBuf};

fn inputs(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in ["seeds", "regressions"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir).join(target)) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for p in paths {
            if let Ok(bytes) = std::fs::read(&p) {
                out.push((p, bytes));
            }
        }
    }
    out
}

fn run(target: &str, f: fn(&[u8])) {
    let inputs = inputs(target);
    assert!(!inputs.is_empty(), "no seeds for {target}");
    for (_, bytes) in &inputs {
        // Whole input, and prefixes of small inputs: truncation is the commonest damage.
        f(bytes);
        if bytes.len() <= 4096 {
            for end in (0..bytes.len()).step_by(1 + bytes.len() / 32) {
                f(bytes.get(..end).unwrap_or_default());
            }
        }
    }
}

#[test]
fn json_decode_smoke() {
    run("json_decode", dash_fuzz::json_decode);
}

#[test]
fn json_schema_agreement_smoke() {
    run("json_schema_agreement", dash_fuzz::json_schema_agreement);
}

#[test]
fn binary_decode_smoke() {
    run("binary_decode", dash_fuzz::binary_decode);
}

#[test]
fn roundtrip_smoke() {
    run("roundtrip", dash_fuzz::roundtrip);
}

#[test]
fn validate_any_smoke() {
    run("validate_any", dash_fuzz::validate_any);
}

#[test]
fn reduce_smoke() {
    run("reduce", dash_fuzz::reduce);
}
