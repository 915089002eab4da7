//! Conformance with the official Khronos glTF-Validator on its own test suite
//! (`fixtures/khronos-suite/`, 15 categories, each input with its official report).
//!
//! For every official error, dash-validate must report an error whose `khronos` codes
//! include the official code, at the same JSON Pointer (messages the official validator
//! locates by byte offset, the `GLB_*` ones, need the mapped code only). Every officially
//! clean file must have no dash error. The files still missed are listed, each with its
//! reason, in `khronos_suite_misses.txt`: the test fails when a file not listed is missed
//! (a regression) and when a listed file is no longer missed (the list must shrink).

use dashvertex_testkit::repo;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use dashvertex_validate::{FileReport, Options, Profile, Severity};
use serde_json::Value;

fn suite() -> PathBuf {
    repo().join("fixtures/khronos-suite")
}

fn validate(path: &Path) -> FileReport {
    dashvertex_validate::validate_path(
        path,
        &Options::new()
            .with_profile(Profile::Gltf)
            .with_max_diagnostics(usize::MAX),
    )
}

/// What went wrong with one suite file: the official errors dash did not match, or the
/// dash errors on an officially clean file.
fn misses_of(path: &Path, official: &Value) -> (bool, Vec<String>) {
    let ours = validate(path);
    let errors: Vec<&Value> = official["issues"]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["severity"] == 0)
        .collect();
    if errors.is_empty() {
        let wrong = ours
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(|d| {
                format!(
                    "dash {} at {:?}: {}",
                    d.code.as_str(),
                    d.location.pointer.as_deref().unwrap_or(""),
                    d.message
                )
            })
            .collect();
        return (false, wrong);
    }
    let missed = errors
        .iter()
        .filter(|m| {
            let code = m["code"].as_str().unwrap();
            let pointer = m["pointer"].as_str();
            !ours.diagnostics.iter().any(|d| {
                d.severity == Severity::Error
                    && d.khronos.contains(&code)
                    && pointer.is_none_or(|p| d.location.pointer.as_deref().unwrap_or("") == p)
            })
        })
        .map(|m| {
            format!(
                "official {} at {:?} not matched",
                m["code"].as_str().unwrap(),
                m["pointer"].as_str().unwrap_or("")
            )
        })
        .collect();
    (true, missed)
}

/// `category/file` → reason, from the checked-in list.
fn expected_misses() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(
        repo().join("crates/dashvertex-validate/tests/it/khronos_suite_misses.txt"),
    )
    .unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (file, reason) = l
                .split_once(" — ")
                .unwrap_or_else(|| panic!("no reason: {l}"));
            (file.trim().to_owned(), reason.trim().to_owned())
        })
        .collect()
}

#[test]
fn khronos_suite_errors_caught_and_clean_files_kept() {
    let mut inputs = dashvertex_testkit::files_under(&suite(), &["gltf", "glb"]);
    inputs.sort();
    assert_eq!(inputs.len(), 206, "suite inputs");
    let expected = expected_misses();
    let (mut with_errors, mut caught, mut clean, mut kept) = (0, 0, 0, 0);
    let mut missed = BTreeMap::new();
    for path in &inputs {
        let name = path
            .strip_prefix(suite())
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let report = format!("{}.report.json", path.display());
        let official: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap())
            .unwrap_or_else(|e| panic!("{report}: {e}"));
        let (has_errors, wrong) = misses_of(path, &official);
        if has_errors {
            with_errors += 1;
            caught += usize::from(wrong.is_empty());
        } else {
            clean += 1;
            kept += usize::from(wrong.is_empty());
        }
        if !wrong.is_empty() {
            missed.insert(name, wrong);
        }
    }
    eprintln!(
        "khronos suite: official errors caught {caught}/{with_errors}, clean kept {kept}/{clean}"
    );
    // DASH_SUITE_VERBOSE=1 lists every file missed and why (to update the list).
    if std::env::var_os("DASH_SUITE_VERBOSE").is_some() {
        for (f, why) in &missed {
            eprintln!("{f}: {}", why.join("; "));
        }
    }
    assert_eq!((with_errors, clean), (157, 49), "suite composition");
    let regressions: Vec<String> = missed
        .iter()
        .filter(|(f, _)| !expected.contains_key(*f))
        .map(|(f, why)| format!("{f}: {}", why.join("; ")))
        .collect();
    let fixed: Vec<&String> = expected
        .keys()
        .filter(|f| !missed.contains_key(*f))
        .collect();
    assert!(
        regressions.is_empty(),
        "suite files missed that khronos_suite_misses.txt does not list:\n{}",
        regressions.join("\n")
    );
    assert!(
        fixed.is_empty(),
        "suite files now handled: remove them from khronos_suite_misses.txt: {fixed:?}"
    );
}
