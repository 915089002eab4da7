//! A glTF file whose document the validator finds broken is refused by every job that
//! reads it, with the validator's own finding, before anything is read from it
//! (spec/validation.md §6): buffer views past their buffer, unresolved references,
//! animation times that go back, node cycles and the rest of the official suite's
//! document rules.

// Helpers outside #[test] functions fail the test the same way.
#![allow(clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use dashvertex_app::{
    AppError, Collect, Context, Neutral, fix, input, manifest_file, reduce, remap,
};
use dashvertex_testkit::{Scratch, repo};

fn ctx(log: &Collect) -> Context<'_> {
    Context {
        limits: Default::default(),
        resource_dirs: &[],
        wait: true,
        words: &Neutral,
        log,
    }
}

/// Every glTF and GLB file below `rel` in the repository, sorted.
fn gltf_files(rel: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![repo().join(rel)];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = e.expect("entry").path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|e| e == "gltf" || e == "glb") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The full validator's errors on `path`, in report order: (code, pointer).
fn validator_errors(path: &Path) -> Vec<(String, Option<String>)> {
    let opts = dashvertex_validate::Options::new()
        .with_profile(dashvertex_validate::Profile::Gltf)
        .with_max_diagnostics(10_000);
    dashvertex_validate::validate_path(path, &opts)
        .diagnostics
        .into_iter()
        .filter(|d| d.severity == dashvertex_validate::Severity::Error)
        .map(|d| (d.code.as_str().to_owned(), d.location.pointer))
        .collect()
}

/// Every refusal of the input layer is a finding of the validator on the same file, at
/// the same place, said with its Khronos code; no valid vector and no corpus file is
/// refused.
#[test]
fn refusals_are_the_validators_findings_and_valid_files_pass() {
    let log = Collect::default();
    let c = ctx(&log);
    let (mut refused, mut broken) = (0, 0);
    let files: Vec<PathBuf> = [
        "spec/vectors/gltf",
        "fixtures/corpus",
        "fixtures/khronos-suite",
    ]
    .iter()
    .flat_map(|d| gltf_files(d))
    .collect();
    assert!(files.len() > 300, "{} files", files.len());
    for v in &files {
        let errors = validator_errors(v);
        broken += usize::from(!errors.is_empty());
        match input::read_source(v, &c) {
            Err(AppError::Input { message, .. }) if message.contains("Nothing written") => {
                refused += 1;
                let code = message
                    .split([' ', '['])
                    .next()
                    .expect("a code first")
                    .to_owned();
                let (_, pointer) = errors.iter().find(|(c, _)| *c == code).unwrap_or_else(|| {
                    panic!(
                        "{}: refused with {code}, which the validator does not report: {errors:?}",
                        v.display()
                    )
                });
                if let Some(p) = pointer {
                    assert!(message.contains(p.as_str()), "{}: {message}", v.display());
                }
                let khronos: Vec<&str> = dashvertex_validate::Code::parse(&code)
                    .expect("a catalogue code")
                    .khronos()
                    .collect();
                // The official code of this finding, one of those the rule maps to.
                if !khronos.is_empty() {
                    assert!(
                        khronos
                            .iter()
                            .any(|k| message.contains(&format!("[Khronos {k}"))),
                        "{}: {message}",
                        v.display()
                    );
                }
            }
            // Refused by the reader itself (it cannot load): the validator says so too. A
            // file the validator accepts is never refused, by this arm or the one above.
            Err(e) => assert!(
                !errors.is_empty(),
                "{}: refused ({e}) but valid",
                v.display()
            ),
            // Accepted: the influence faults of each vertex are the jobs' to repair.
            Ok(_) => {}
        }
    }
    eprintln!(
        "{refused} of {} files refused; the validator finds errors in {broken}",
        files.len()
    );
    // The document rules cover most of the broken files (the rest are influence faults
    // that reduce and fix repair).
    assert!(
        refused * 2 >= broken,
        "only {refused} of {broken} broken files refused"
    );
}

/// Reduce, fix and remap each refuse a broken document with the validator's finding in
/// the input, and write nothing. (An error outside what they read, such as keyframe
/// times that do not increase, is carried instead: `tests/it/carried_errors.rs`.)
#[test]
fn reduce_fix_and_remap_refuse_a_broken_document_and_write_nothing() {
    let dir = Scratch::new("app-input-checks");
    let log = Collect::default();
    let c = ctx(&log);
    let m = dir.path().join("m.json");
    manifest_file::init(
        &repo().join("fixtures/blender/rig24_all.glb"),
        &m,
        false,
        &c,
    )
    .expect("manifest");
    for (name, code) in [
        ("node-cycle.gltf", "GLTF_NODE_HIERARCHY"),
        ("ibm-count.gltf", "GLTF_IBM"),
        ("buffer-view-too-long.gltf", "GLTF_BUFFER_VIEW"),
        ("document-unresolved-references.gltf", "GLTF_REFERENCE"),
    ] {
        let v = repo().join("spec/vectors/gltf").join(name);
        let out = dir.path().join("out.glb");
        let expect = |what: &str, r: Result<(), AppError>| match r {
            Err(AppError::Input { message, .. }) => {
                assert!(message.starts_with(code), "{what} {name}: {message}");
                assert!(!out.exists(), "{what} {name}: wrote {}", out.display());
            }
            other => panic!("{what} {name}: expected a refusal, got {other:?}"),
        };
        let job = reduce::ReduceJob::new(&v, &out, &c);
        expect("reduce", reduce::run(&job).map(drop));
        let job = fix::FixJob {
            input: &v,
            output: &out,
            to: None,
            policy: dashvertex_fix::Policy::for_rule(dashvertex_fix::SumRule::Gltf),
            zero_sum_given: false,
            target: None,
            bones: None,
            embed: false,
            resources: Default::default(),
            report: None,
            dry_run: false,
            listed: None,
            ctx: &c,
        };
        expect("fix", fix::run(&job).map(drop));
        let job = remap::RemapJob {
            input: &v,
            manifest: &m,
            output: &out,
            locked: false,
            embed: false,
            resources: Default::default(),
            ctx: &c,
        };
        expect("remap", remap::run(&job).map(drop));
    }
}
