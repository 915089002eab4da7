//! The skeleton conversion vectors of `spec/reduction.md` §5 (`spec/vectors/reduce/`):
//! each input reduced to DashVertex JSON gives its expected file byte for byte
//! (`BLESS=1` writes them, to be read by hand).

use dashvertex_testkit::repo;
use std::process::Command;

// spec: R5.1 R5.2 R5.3 R5.4 R5.5
#[test]
fn reduce_vectors() {
    let dir = repo().join("spec/vectors/reduce");
    let list: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("vectors.json")).unwrap())
            .unwrap();
    let tmp = std::env::temp_dir().join(format!("dash-reduce-vectors-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let bless = std::env::var_os("BLESS").is_some();
    let mut failed = Vec::new();
    for (i, v) in list["vectors"].as_array().unwrap().iter().enumerate() {
        let input = dir.join(v["input"].as_str().unwrap());
        let expected = dir.join(v["expected"].as_str().unwrap());
        let out = tmp.join(format!("out{i}.json"));
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_dash"));
        cmd.args(["reduce", "-q"]).arg(&input).arg("-o").arg(&out);
        if let Some(m) = v["manifest"].as_str() {
            let copy = tmp.join(format!("manifest{i}.json"));
            std::fs::copy(dir.join(m), &copy).unwrap();
            cmd.arg("--manifest").arg(&copy);
        }
        let o = cmd.output().unwrap();
        assert!(
            o.status.success(),
            "{}: {}",
            input.display(),
            String::from_utf8_lossy(&o.stderr)
        );
        let got = std::fs::read(&out).unwrap();
        if bless {
            std::fs::write(&expected, &got).unwrap();
        } else if std::fs::read(&expected).ok().as_deref() != Some(got.as_slice()) {
            failed.push(expected.display().to_string());
        }
    }
    assert!(failed.is_empty(), "differ (BLESS=1 to accept): {failed:?}");
}
