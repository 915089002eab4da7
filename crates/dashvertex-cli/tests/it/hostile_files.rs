//! CLI-level property test (spec/security.md): arbitrary files — repository seeds with a
//! few mutations, or random bytes — are written into a fresh folder and every `dashvertex`
//! command is run on them end to end, each in a child process under a 256 MiB
//! address-space limit. Every run must end with exit 0, 1 or 2 within its time bound,
//! create or change no file but the output it was named, leave nothing behind when it
//! fails, and a reduce that succeeds must have written output the validator accepts.
//! `PROPTEST_CASES=N` runs more cases (the default is 40).

use std::path::Path;

use dashvertex_testkit::hostile::{HostileFile, hostile};
use dashvertex_testkit::{Scratch, changes, run_limited, snapshot};
use proptest::prelude::*;

fn dash() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_dashvertex"))
}

/// Commands to run on a file named `f`, each with the outputs it may write.
fn commands(f: &str) -> Vec<(Vec<String>, Vec<&'static str>)> {
    let gltf = f.ends_with(".gltf") || f.ends_with(".glb");
    let reduced = if f.ends_with(".glb") {
        "reduced.glb"
    } else if gltf {
        "reduced.gltf"
    } else {
        "reduced.json"
    };
    let fixed = reduced.replacen("reduced", "fixed", 1);
    let fixed: &'static str = Box::leak(fixed.into_boxed_str());
    let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
    vec![
        (
            s(&[
                "fix",
                f,
                "-o",
                fixed,
                "--profile",
                "gltf",
                "--out-of-range",
                "drop",
                "--zero-sum",
                "nearest",
                "--skinned-flag",
                "set",
                "--embed",
            ]),
            vec![fixed],
        ),
        (
            s(&[
                "fix", f, "-o", fixed, "--target", "bevy", "--format", "json",
            ]),
            vec![fixed],
        ),
        (s(&["inspect", f]), vec![]),
        (s(&["convert", f, "out.json"]), vec!["out.json"]),
        (s(&["convert", f, "out.dmx"]), vec!["out.dmx"]),
        (s(&["convert", f, "out.raw", "--form", "array"]), vec![]),
        (s(&["convert", f, "-", "--to", "raw"]), vec![]),
        (
            s(&["reduce", f, "-o", reduced, "--normalize", "unit"]),
            vec![reduced],
        ),
        (
            s(&[
                "reduce",
                f,
                "-o",
                "q.json",
                "--max-influences",
                "2",
                "--normalize",
                "unit",
                "--quantize",
                "unorm8",
                "--empty",
                "zero",
                "--manifest",
                "m.json",
            ]),
            vec!["q.json", "m.json"],
        ),
        (
            s(&["manifest", "init", f, "-o", "init.json"]),
            vec!["init.json"],
        ),
        // Rewrites every joint of the seeds' skins (the manifest numbers them backwards).
        (
            s(&["remap", f, "--manifest", REMAP, "-o", remapped(f)]),
            vec![remapped(f)],
        ),
        // The seeds' skins have two joints: a budget of one cuts every skinned mesh, and
        // --reduce skins both files at every keyframe.
        (
            s(&["split", f, "-o", split_out(f), "--max-joints", "1"]),
            vec![split_out(f)],
        ),
        (
            s(&[
                "split",
                f,
                "-o",
                split_out(f),
                "--max-joints",
                "1",
                "--reduce",
                "--report",
                "split.json",
            ]),
            vec![split_out(f), "split.json"],
        ),
        // The loss report reads POSITION, skins and animations of both files.
        (
            s(&[
                "reduce",
                f,
                "-o",
                reduced,
                "--max-influences",
                "1",
                "--normalize",
                "unit",
                "--report",
                "loss.json",
            ]),
            vec![reduced, "loss.json"],
        ),
    ]
}

/// The bone manifest `dashvertex remap` runs with, written into the folder before any run.
const REMAP: &str = "remap-manifest.json";

/// Its bones: the seeds' joint names, numbered backwards.
const REMAP_BONES: &str =
    r#"{"version": 1, "bones": [{"index": 0, "name": "joint1"}, {"index": 1, "name": "joint0"}]}"#;

/// `dashvertex remap`'s output for input `f` (glTF or GLB as the input).
fn remapped(f: &str) -> &'static str {
    if f.ends_with(".glb") {
        "remapped.glb"
    } else {
        "remapped.gltf"
    }
}

/// `dashvertex split`'s output for input `f` (glTF or GLB as the input).
fn split_out(f: &str) -> &'static str {
    if f.ends_with(".glb") {
        "split.glb"
    } else {
        "split.gltf"
    }
}

fn check(file: &HostileFile) -> Result<(), TestCaseError> {
    let dir = Scratch::new("hostile");
    let d = dir.path();
    std::fs::write(d.join(&file.name), &file.bytes).unwrap();
    for (name, bytes) in file.companions() {
        std::fs::write(d.join(name), bytes).unwrap();
    }
    std::fs::write(d.join(REMAP), REMAP_BONES).unwrap();
    for (args, outputs) in commands(&file.name) {
        let before = snapshot(d);
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = run_limited(dash(), d, &argv, 20);
        let after = snapshot(d);
        let changed = changes(&before, &after);
        // A `.gltf` output may write its buffers beside it as STEM.bin / STEM_N.bin.
        let beside = |p: &str| {
            outputs.iter().any(|o| {
                o.strip_suffix(".gltf").is_some_and(|stem| {
                    p.strip_prefix(stem).is_some_and(|rest| {
                        rest == ".bin"
                            || rest
                                .strip_prefix('_')
                                .and_then(|r| r.strip_suffix(".bin"))
                                .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
                    })
                })
            })
        };
        let stray: Vec<&String> = changed
            .iter()
            .filter(|p| !outputs.contains(&p.as_str()) && !beside(p))
            .collect();
        prop_assert!(
            stray.is_empty(),
            "dash {argv:?} touched {stray:?} (exit {:?})",
            o.status.code()
        );
        if !o.status.success() {
            // A failed run writes no output (the manifest may keep bones added early,
            // but no output is written without it).
            let first = outputs.first();
            prop_assert!(
                first.is_none_or(|out| !changed.iter().any(|c| c == out)),
                "dash {argv:?} failed but wrote its output"
            );
            prop_assert!(!o.stderr.is_empty(), "dash {argv:?} failed silently");
            prop_assert!(
                o.stderr.len() < 16 << 10,
                "a {} byte message",
                o.stderr.len()
            );
        } else if matches!(argv.first(), Some(&"reduce" | &"fix" | &"split")) {
            let out = outputs.first().copied().unwrap_or_default();
            let opts = dashvertex_validate::Options::new()
                .with_format(dashvertex_formats::Format::from_extension(Path::new(out)))
                .with_max_diagnostics(10);
            // By path, so that buffer files written beside a `.gltf` are read too.
            let report = dashvertex_validate::validate_path(&d.join(out), &opts);
            // A rewrite carries what it does not read: a GLB reduced to a GLB its NORMAL,
            // TEXCOORD and index data (spec/security.md [V2]), and any rewrite the faults
            // outside the influences it says it carries (spec/fix.md [F3]). A fault there
            // passes through, so an error of the output must be one the input has too.
            let glb_to_glb = file.name.ends_with(".glb") && out.ends_with(".glb");
            let carried = argv.first() == Some(&"reduce") && glb_to_glb
                || String::from_utf8_lossy(&o.stderr).contains("carried into the output");
            if carried && report.counts.errors > 0 {
                let all = opts.clone().with_max_diagnostics(10_000);
                let codes = |r: &dashvertex_validate::FileReport| {
                    r.diagnostics
                        .iter()
                        .filter(|d| d.severity == dashvertex_validate::Severity::Error)
                        .map(|d| d.code)
                        .collect::<std::collections::BTreeSet<_>>()
                };
                let input_opts = dashvertex_validate::Options::new()
                    .with_format(dashvertex_formats::Format::from_extension(Path::new(
                        &file.name,
                    )))
                    .with_max_diagnostics(10_000);
                let input = dashvertex_validate::validate_path(&d.join(&file.name), &input_opts);
                let output = dashvertex_validate::validate_path(&d.join(out), &all);
                let (had, has) = (codes(&input), codes(&output));
                prop_assert!(
                    has.is_subset(&had),
                    "dash {:?} wrote errors its input did not have: {:?} (input: {:?})",
                    argv,
                    output.diagnostics,
                    had
                );
            } else {
                prop_assert_eq!(
                    report.counts.errors,
                    0,
                    "dash {:?} wrote invalid output: {:?}",
                    argv,
                    report.diagnostics
                );
            }
        }
        // Each command starts from the same folder.
        for out in &outputs {
            let _ = std::fs::remove_file(d.join(out));
        }
        for p in changed.iter().filter(|p| beside(p)) {
            let _ = std::fs::remove_file(d.join(p));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(40),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_command_on_hostile_files_is_contained(file in hostile()) {
        check(&file)?;
    }
}
