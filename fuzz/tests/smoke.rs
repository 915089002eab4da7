//! Runs every fuzz target's logic on stable over its seeds (read in place from the
//! repository, as `fuzz/seeds.list` lists them) and its regression inputs
//! (`fuzz/regressions/<target>/`).

use std::path::{Path, PathBuf};

/// The seed files of `target`, from `fuzz/seeds.list`.
fn seeds(target: &str) -> Vec<PathBuf> {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR"));
    let repo = fuzz.join("..");
    let list = std::fs::read_to_string(fuzz.join("seeds.list")).unwrap_or_default();
    let mut out = Vec::new();
    for line in list.lines().map(str::trim) {
        let mut words = line.split_whitespace();
        if line.starts_with('#') || words.next() != Some(target) {
            continue;
        }
        let Some(path) = words.next().map(|p| repo.join(p)) else {
            continue;
        };
        let extensions: Vec<&str> = words.collect();
        if path.is_file() {
            out.push(path);
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&path) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.is_file()
                    && (extensions.is_empty()
                        || p.extension()
                            .and_then(|x| x.to_str())
                            .is_some_and(|x| extensions.contains(&x)))
            })
            .collect();
        found.sort();
        out.extend(found);
    }
    out
}

fn inputs(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = seeds(target);
    if let Ok(entries) = std::fs::read_dir(root.join("regressions").join(target)) {
        let mut found: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        found.sort();
        paths.extend(found);
    }
    paths
        .into_iter()
        .filter_map(|p| std::fs::read(&p).ok().map(|b| (p, b)))
        .collect()
}

fn run(target: &str, f: fn(&[u8])) {
    let inputs = inputs(target);
    assert!(inputs.len() >= 5, "{target}: only {} seeds", inputs.len());
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

#[test]
fn meshopt_decode_smoke() {
    run("meshopt_decode", dash_fuzz::meshopt_decode);
}

#[test]
fn fbx_load_smoke() {
    run("fbx_load", dash_fuzz::fbx_load);
}
