//! CLI-level property test (spec/security.md): `dash-validate` on arbitrary files —
//! repository seeds with a few mutations, or random bytes — in a fresh folder, each run a
//! child process under a 256 MiB address-space limit. Every run ends with exit 0, 1 or 2
//! within its time bound, changes no file, agrees between the file and its folder, and
//! its JSON report parses. `PROPTEST_CASES=N` runs more cases (the default is 40).

use std::path::Path;

use dashvertex_testkit::hostile::{HostileFile, hostile};
use dashvertex_testkit::{Scratch, changes, run_limited, snapshot};
use proptest::prelude::*;

fn validator() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_dash-validate"))
}

fn check(file: &HostileFile) -> Result<(), TestCaseError> {
    let dir = Scratch::new("hostile-validate");
    let d = dir.path();
    std::fs::write(d.join(&file.name), &file.bytes).unwrap();
    for (name, bytes) in file.companions() {
        std::fs::write(d.join(name), bytes).unwrap();
    }
    let before = snapshot(d);
    let text = run_limited(validator(), d, &[&file.name], 20);
    let json = run_limited(validator(), d, &["--format", "json", &file.name], 20);
    let folder = run_limited(validator(), d, &["--all-files", "."], 20);
    prop_assert_eq!(changes(&before, &snapshot(d)), Vec::<String>::new());
    prop_assert_eq!(text.status.code(), json.status.code());
    let report: serde_json::Value = serde_json::from_slice(&json.stdout)
        .map_err(|e| TestCaseError::fail(format!("JSON report does not parse: {e}")))?;
    let valid = report["files"][0]["valid"].as_bool();
    prop_assert_eq!(valid, Some(text.status.success()));
    let walked = [".json", ".dmx", ".raw", ".gltf", ".glb"]
        .iter()
        .any(|e| file.name.ends_with(e));
    // A directory walk skips JSON that is not vertex data (manifests, weights documents).
    let skipped = String::from_utf8_lossy(&folder.stderr).contains("skipped ");
    if walked && !skipped && text.status.code() == Some(1) {
        // The folder holds the file (a directory walk takes these extensions only): it
        // is invalid there too.
        prop_assert_eq!(folder.status.code(), Some(1));
    }
    prop_assert!(
        text.stdout.len() < 1 << 20,
        "{} bytes of report",
        text.stdout.len()
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(40),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn validate_on_hostile_files_is_contained(file in hostile()) {
        check(&file)?;
    }
}
