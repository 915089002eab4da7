//! Every MUST of the specification (a `**[TAG]**` in `spec/*.md`) is exercised by at
//! least one test that names it in a `spec: TAG` comment.

use dashvertex_testkit::repo;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn spec_coverage() {
    let mut tags = BTreeSet::new();
    for entry in std::fs::read_dir(repo().join("spec")).unwrap().flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        for piece in text.split("**[").skip(1) {
            if let Some(tag) = piece.split("]**").next()
                && tag.len() <= 4
                && tag.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            {
                tags.insert(tag.to_owned());
            }
        }
    }
    assert!(tags.len() >= 30, "only {} tags found", tags.len());
    let mut files = Vec::new();
    rust_files(&repo().join("crates"), &mut files);
    rust_files(&repo().join("fuzz/tests"), &mut files);
    let mut tested = BTreeSet::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        for line in text.lines() {
            if let Some(rest) = line.trim().strip_prefix("// spec:") {
                tested.extend(rest.split_whitespace().map(str::to_owned));
            }
        }
    }
    let missing: Vec<&String> = tags.difference(&tested).collect();
    assert!(missing.is_empty(), "spec MUSTs without a test: {missing:?}");
}
