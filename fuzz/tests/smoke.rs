//! Runs every fuzz target's logic over its seed corpus (`fuzz/seeds/<target>/`) and the
//! regression inputs (`fuzz/regressions/<target>/`), on stable.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

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
            let bytes = std::fs::read(&p).unwrap();
            out.push((p, bytes));
        }
    }
    out
}

fn run(target: &str, f: fn(&[u8])) {
    let inputs = inputs(target);
    assert!(!inputs.is_empty(), "no seeds for {target}");
    for (path, bytes) in &inputs {
        // Whole input, and every prefix of small inputs: truncation is the commonest damage.
        f(bytes);
        if bytes.len() <= 4096 {
            for end in (0..bytes.len()).step_by(1 + bytes.len() / 64) {
                f(&bytes[..end]);
            }
        }
        let _ = path;
    }
}

#[test]
fn json_decode_smoke() {
    run("json_decode", dash_fuzz::json_decode);
}
