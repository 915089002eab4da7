//! The official Khronos glTF validator (npm `gltf-validator`, pinned in `tools/oracle`) as
//! a test oracle.

use std::path::PathBuf;
use std::process::Command;

use crate::repo;

/// One JSON report line per file from `tools/oracle/validate.mjs`, or `None` when node or
/// the installed validator is missing. Then the test says so on stderr (`SKIPPED: …`) and
/// should pass — unless `DASH_REQUIRE_ORACLE` is set, as CI sets it, and this fails the
/// test. Tests install nothing: `.ci/run` runs `npm ci` in `tools/oracle` before them.
pub fn oracle(files: &[PathBuf]) -> Option<Vec<serde_json::Value>> {
    let require = std::env::var_os("DASH_REQUIRE_ORACLE").is_some();
    let skip = |why: &str| {
        assert!(
            !require,
            "the oracle is required (DASH_REQUIRE_ORACLE) but {why}"
        );
        eprintln!(
            "SKIPPED: {why}; install node (and run `npm ci` in tools/oracle) to run the oracle test"
        );
        None
    };
    if Command::new("node").arg("--version").output().is_err() {
        return skip("node is not installed");
    }
    let dir = repo().join("tools/oracle");
    if !dir.join("node_modules/gltf-validator").exists() {
        return skip("tools/oracle/node_modules is missing");
    }
    let out = Command::new("node")
        .arg(dir.join("validate.mjs"))
        .args(files)
        .output()
        .expect("run node");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).expect("an oracle report line"))
            .collect(),
    )
}

/// The `(code, pointer)` of every message of severity `severity` (0 error, 1 warning,
/// 2 info, 3 hint) in an oracle report line.
pub fn messages(line: &serde_json::Value, severity: u64) -> Vec<(String, String)> {
    line.pointer("/report/issues/messages")
        .and_then(serde_json::Value::as_array)
        .map(|m| {
            m.iter()
                .filter(|x| x.get("severity").and_then(serde_json::Value::as_u64) == Some(severity))
                .map(|x| {
                    let s = |k: &str| x.get(k).and_then(|v| v.as_str()).unwrap_or("").to_owned();
                    (s("code"), s("pointer"))
                })
                .collect()
        })
        .unwrap_or_default()
}
