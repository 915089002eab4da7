//! Refuse only what touches the work (issue 48, item 4; spec/validation.md §6.3): a file
//! whose only errors lie outside what a command reads — a skin's `skeleton` that is not a
//! common root, a `byteStride` on an animation accessor, keyframe times that do not
//! increase — is processed by the commands that carry those parts unchanged, and the
//! output has the same errors and no other; a command that evaluates skinning (a loss
//! report, `split --reduce`) still refuses the animation faults by name.
//!
//! The files are `fixtures/real/faults/`, made from real exporter output.

use std::path::Path;
use std::process::Output;

use dashvertex_testkit::{Scratch, repo, run_limited};
use serde_json::Value;

fn dash(dir: &Path, args: &[&str]) -> Output {
    run_limited(Path::new(env!("CARGO_BIN_EXE_dashvertex")), dir, args, 60)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The error codes dash-validate reports for `file`, with their counts.
fn errors(dir: &Path, file: &str) -> Vec<(String, u64)> {
    let o = run_limited(
        Path::new(env!("CARGO_BIN_EXE_dash-validate")),
        dir,
        &["--format", "json", file],
        60,
    );
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut codes: Vec<(String, u64)> = report["files"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "error")
        .map(|d| d["code"].as_str().unwrap().to_owned())
        .fold(Vec::new(), |mut acc, c| {
            match acc.iter_mut().find(|(k, _)| *k == c) {
                Some((_, n)) => *n += 1,
                None => acc.push((c, 1)),
            }
            acc
        });
    codes.sort();
    codes
}

#[test]
fn errors_outside_the_influences_are_carried_not_refused() {
    // spec: RW1
    for (file, code) in [
        ("skeleton_not_common_root.glb", "GLTF_SKIN_SKELETON"),
        ("animation_input_bytestride.glb", "GLTF_ANIMATION_SAMPLER"),
        ("animation_input_not_increasing.glb", "GLTF_ANIMATION_INPUT"),
    ] {
        let dir = Scratch::new("carried");
        let d = dir.path();
        std::fs::copy(
            repo().join("fixtures/real/faults").join(file),
            d.join("in.glb"),
        )
        .unwrap();
        let input = errors(d, "in.glb");
        assert!(
            !input.is_empty() && input.iter().all(|(c, _)| c == code),
            "{file}: {input:?}"
        );
        for args in [
            vec!["reduce", "in.glb", "-o", "out.glb", "--max-influences", "2"],
            vec![
                "reduce",
                "in.glb",
                "-o",
                "out.gltf",
                "--max-influences",
                "1",
            ],
            vec!["convert", "in.glb", "out.gltf"],
            vec!["split", "in.glb", "-o", "out.glb", "--max-joints", "4"],
        ] {
            let o = dash(d, &args);
            let err = stderr(&o);
            // A split that would add skins with the same fault is refused: it would
            // write more errors than the input has.
            if args[0] == "split" && code == "GLTF_SKIN_SKELETON" {
                assert_eq!(o.status.code(), Some(1), "{file} {args:?}: {err}");
                assert!(err.contains(code), "{file} {args:?}: {err}");
                continue;
            }
            assert_eq!(o.status.code(), Some(0), "{file} {args:?}: {err}");
            assert!(
                err.contains("carried into the output") && err.contains(code),
                "{file} {args:?}: {err}"
            );
            let out = args
                .iter()
                .find(|a| a.starts_with("out."))
                .copied()
                .unwrap();
            let written = errors(d, out);
            assert_eq!(written, input, "{file} {args:?}: the output's errors");
        }
        // Evaluating skinning reads the animations: their faults still refuse it.
        let o = dash(
            d,
            &[
                "reduce",
                "in.glb",
                "-o",
                "r.glb",
                "--max-influences",
                "2",
                "--report",
                "r.json",
            ],
        );
        if code == "GLTF_SKIN_SKELETON" {
            assert_eq!(o.status.code(), Some(0), "{file}: {}", stderr(&o));
        } else {
            assert_eq!(o.status.code(), Some(1), "{file}: {}", stderr(&o));
            assert!(stderr(&o).contains(code), "{file}: {}", stderr(&o));
            assert!(!d.join("r.glb").exists());
        }
    }
}

/// `dashvertex fix` repairs the three structural faults exactly (spec/fix.md [F8]): the
/// output is valid for dash-validate and the official validator, and the report names
/// the repair.
#[test]
fn fix_repairs_the_structural_faults_real_exporters_leave() {
    // spec: F8
    for (file, says) in [
        (
            "skeleton_not_common_root.glb",
            "was no common root of the joints",
        ),
        ("animation_input_bytestride.glb", "copied tightly packed"),
        ("animation_input_not_increasing.glb", "put in time order"),
    ] {
        let dir = Scratch::new("fix-structure");
        let d = dir.path();
        std::fs::copy(
            repo().join("fixtures/real/faults").join(file),
            d.join("in.glb"),
        )
        .unwrap();
        let o = dash(d, &["fix", "in.glb", "-o", "out.glb"]);
        let out = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
        assert_eq!(o.status.code(), Some(0), "{file}: {out}");
        assert!(out.contains(says), "{file}: {out}");
        assert_eq!(errors(d, "out.glb"), Vec::new(), "{file}");
        if let Some(lines) = dashvertex_testkit::oracle::oracle(&[d.join("out.glb")]) {
            let official = dashvertex_testkit::oracle::messages(&lines[0], 0);
            assert!(official.is_empty(), "{file}: {official:?}");
        }
        // Fixing again changes nothing.
        let o = dash(d, &["fix", "out.glb", "-o", "again.glb"]);
        assert!(
            String::from_utf8_lossy(&o.stdout).contains("nothing to fix"),
            "{file}: {}",
            String::from_utf8_lossy(&o.stdout)
        );
    }
}
