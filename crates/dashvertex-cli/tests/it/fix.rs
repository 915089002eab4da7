//! `dashvertex fix` end to end: every invalid vector is repaired into a file both validators
//! accept, or refused because of a fault outside influence data; a second fix changes
//! nothing; the glTF corpus and generated faulty files too; the official validator
//! agrees on every output.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use dashvertex_testkit::gltf::SkinnedGlb;
use dashvertex_testkit::oracle::{messages, oracle};
use dashvertex_testkit::{Scratch, assert_refused, files_under, repo};

fn run(exe: &str, args: &[&str]) -> Output {
    Command::new(exe)
        .current_dir(repo())
        .args(args)
        .output()
        .unwrap()
}

fn dash(args: &[&str]) -> Output {
    run(env!("CARGO_BIN_EXE_dashvertex"), args)
}

/// The error codes `dash-validate --format json` reports for a file.
fn errors(file: &Path, profile: &str) -> BTreeSet<String> {
    diagnostics(file, profile, "error")
}

/// The codes of `severity` (`error`, `warning`, `info`; `any` for all) for a file.
fn diagnostics(file: &Path, profile: &str, severity: &str) -> BTreeSet<String> {
    let o = run(
        env!("CARGO_BIN_EXE_dash-validate"),
        &[
            "--format",
            "json",
            "--profile",
            profile,
            file.to_str().unwrap(),
        ],
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{}: {e}: {}",
            file.display(),
            String::from_utf8_lossy(&o.stdout)
        )
    });
    v["files"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| severity == "any" || d["severity"] == severity)
        .map(|d| d["code"].as_str().unwrap().to_owned())
        .collect()
}

/// The codes `dashvertex fix` repairs (spec/fix.md §4): every other error is outside influence
/// data, and a file with one is refused.
fn repaired_codes() -> BTreeSet<String> {
    let text = std::fs::read_to_string(repo().join("spec/fix.md")).unwrap();
    let section = text
        .split("## 4.")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("spec/fix.md §4");
    section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .filter_map(|l| l.split('`').nth(1).map(str::to_owned))
        .collect()
}

/// Fixes `input` into `out` with the policies that repair everything repairable.
fn fix(input: &Path, out: &Path) -> Output {
    dash(&[
        "fix",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--profile",
        "gltf",
        "--out-of-range",
        "drop",
        "--zero-sum",
        "nearest",
        "--skinned-flag",
        "set",
        "--embed",
    ])
}

fn vectors() -> Vec<PathBuf> {
    let v = repo().join("spec/vectors");
    let mut files = files_under(&v.join("validate"), &["json", "dmx", "raw"]);
    files.extend(files_under(&v.join("gltf"), &["gltf", "glb"]));
    for dir in ["json", "binary"] {
        files.extend(
            files_under(&v.join(dir), &["json", "dmx", "raw", "bin"])
                .into_iter()
                .filter(|f| {
                    f.file_name()
                        .unwrap()
                        .to_string_lossy()
                        .starts_with("invalid-")
                }),
        );
    }
    files
}

/// Fixes every file; returns the outputs written. Each output has no error; a second fix
/// of it reports nothing to fix and writes its bytes unchanged; a refused file has an
/// error outside what fix repairs.
fn fix_all(files: &[PathBuf], dir: &Path) -> Vec<PathBuf> {
    let repaired = repaired_codes();
    let mut written = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let out = dir.join(format!("{i}-{name}"));
        let o = fix(f, &out);
        let before = errors(f, "gltf");
        if !o.status.success() {
            // A refusal stands on an error fix does not repair, or on a warning it does
            // not (an all-zero weights accessor without data: fix invents no weights).
            let warned = diagnostics(f, "gltf", "warning");
            let outside: Vec<&String> = before
                .iter()
                .chain(&warned)
                .filter(|c| !repaired.contains(*c))
                .collect();
            assert!(
                !outside.is_empty(),
                "{}: refused, but every error is one fix repairs ({before:?}): {}",
                f.display(),
                String::from_utf8_lossy(&o.stderr)
            );
            assert_eq!(o.status.code(), Some(1), "{}", f.display());
            assert!(!out.exists(), "{}: refused but wrote", f.display());
            continue;
        }
        // A file the validator finds nothing in is left alone ([F1]).
        let noted = diagnostics(f, "gltf", "error")
            .into_iter()
            .chain(diagnostics(f, "gltf", "warning"))
            .count();
        if noted == 0 {
            assert!(
                String::from_utf8_lossy(&o.stdout).contains("nothing to fix"),
                "{}: the validator finds nothing, yet fix changed {}",
                f.display(),
                String::from_utf8_lossy(&o.stdout)
            );
        }
        // Errors outside the influence data are carried as they were (spec/fix.md §4):
        // the output has no other.
        let after = errors(&out, "gltf");
        let carried: BTreeSet<String> = before
            .iter()
            .filter(|c| {
                dashvertex_validate::OUTSIDE_INFLUENCES
                    .iter()
                    .any(|o| o.as_str() == c.as_str())
            })
            .cloned()
            .collect();
        assert!(
            after.is_subset(&carried),
            "{}: the output has {after:?}, the input carried only {carried:?}",
            f.display()
        );
        // Idempotent: fixing the output changes nothing, byte for byte.
        let again = dir.join(format!("{i}-again-{name}"));
        let o2 = fix(&out, &again);
        assert!(
            o2.status.success(),
            "{}",
            String::from_utf8_lossy(&o2.stderr)
        );
        assert!(
            String::from_utf8_lossy(&o2.stdout).contains("nothing to fix"),
            "{}: a second fix changed {}",
            f.display(),
            String::from_utf8_lossy(&o2.stdout)
        );
        assert_eq!(
            std::fs::read(&out).unwrap(),
            std::fs::read(&again).unwrap(),
            "{}: a second fix rewrote the bytes",
            f.display()
        );
        // An output that carries errors is not one the official validator accepts.
        if after.is_empty() {
            written.push(out);
        }
    }
    written
}

fn official_errors_none(files: &[PathBuf]) {
    let gltf: Vec<PathBuf> = files
        .iter()
        .filter(|f| matches!(f.extension().and_then(|e| e.to_str()), Some("gltf" | "glb")))
        .cloned()
        .collect();
    let Some(reports) = oracle(&gltf) else {
        return;
    };
    for r in &reports {
        assert_eq!(
            messages(r, 0),
            Vec::new(),
            "{}: the official validator finds errors",
            r["file"]
        );
    }
}

#[test]
fn every_invalid_vector_is_fixed_or_refused_for_a_fault_outside_influence_data() {
    // spec: F2 F3
    let dir = Scratch::new("fix-vectors");
    let files = vectors();
    assert!(files.len() > 60, "{} vectors", files.len());
    let written = fix_all(&files, dir.path());
    // The influence vectors are all repaired.
    for must in [
        "bone-duplicate.json",
        "weight-non-finite.dmx",
        "set-order.json",
        "joints-float.gltf",
        "weights-unorm8-sum.gltf",
        "ibm-fourth-row.gltf",
        "joints-unaligned.gltf",
        "multiset-trailing-zero.gltf",
        "vertex-index.dmx",
        "bone-record-index.dmx",
        "skinned-flag.dmx",
        "json-byte-order-mark.gltf",
    ] {
        assert!(
            written.iter().any(|w| w.to_string_lossy().ends_with(must)),
            "{must} was not repaired"
        );
    }
    official_errors_none(&written);
}

#[test]
fn the_gltf_corpus_and_generated_faults_are_fixed_and_fixing_again_changes_nothing() {
    let dir = Scratch::new("fix-corpus");
    let mut files = files_under(&repo().join("fixtures/corpus/gltf"), &["gltf", "glb"]);
    files.extend(files_under(&repo().join("fixtures/blender"), &["glb"]));
    for (seed, sets) in [(1u64, 1usize), (2, 2), (3, 3)] {
        let f = dir.path().join(format!("faulty-{seed}.glb"));
        std::fs::write(
            &f,
            SkinnedGlb {
                vertices: 400,
                primitives: 2,
                sets,
                joints: 30,
                fault_every: 7,
                seed,
            }
            .build(),
        )
        .unwrap();
        assert!(
            !errors(&f, "gltf").is_empty(),
            "the generated file has faults"
        );
        files.push(f);
    }
    let written = fix_all(&files, dir.path());
    assert!(
        written.len() + 1 >= files.len(),
        "only {} of {} fixed",
        written.len(),
        files.len()
    );
    official_errors_none(&written);
}

#[test]
fn a_file_with_nothing_to_fix_is_copied_byte_for_byte() {
    let dir = Scratch::new("fix-copy");
    for f in [
        "examples/rig.json",
        "examples/rig.dmx",
        "fixtures/corpus/gltf/khronos_samples/RiggedSimple.glb",
    ] {
        let out = dir.path().join(Path::new(f).file_name().unwrap());
        let o = dash(&["fix", f, "-o", out.to_str().unwrap()]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(
            std::fs::read(repo().join(f)).unwrap(),
            std::fs::read(&out).unwrap(),
            "{f}"
        );
    }
}

#[test]
fn refusals_name_the_vertex_and_the_policy_that_would_repair_it() {
    // spec: F4
    let dir = Scratch::new("fix-refuse");
    let out = dir.path().join("o.gltf");
    let o = dash(&[
        "fix",
        "spec/vectors/gltf/joints-out-of-range.gltf",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("vertex 1") && err.contains("`drop` out-of-range policy"),
        "{err}"
    );
    assert!(!out.exists());
    let o = dash(&[
        "fix",
        "spec/vectors/gltf/weights-all-zero.gltf",
        "-o",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("zero-sum policy"), "{err}");
    let o = dash(&[
        "fix",
        "spec/vectors/validate/weight-negative.json",
        "-o",
        out.with_extension("json").to_str().unwrap(),
        "--bad-weights",
        "error",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("vertex 1 set 0 slot 1") && err.contains("`zero` bad-weights policy"),
        "{err}"
    );
}

#[test]
fn the_json_report_matches_its_schema_and_lists_before_and_after() {
    let dir = Scratch::new("fix-report");
    let out = dir.path().join("o.gltf");
    let report = dir.path().join("r.json");
    let o = dash(&[
        "fix",
        "spec/vectors/gltf/joints-duplicate.gltf",
        "-o",
        out.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let schema: serde_json::Value = serde_json::from_slice(
        &std::fs::read(repo().join("schemas/fix-report.schema.json")).unwrap(),
    )
    .unwrap();
    let v = jsonschema::validator_for(&schema).unwrap();
    assert!(
        v.is_valid(&r),
        "{:?}",
        v.iter_errors(&r).map(|e| e.to_string()).collect::<Vec<_>>()
    );
    let c = &r["parts"][0]["changes"][0];
    assert_eq!(c["vertex"], 1);
    assert_eq!(
        c["steps"],
        serde_json::json!(["duplicate-joint", "padding"])
    );
    assert_eq!(c["before"]["joints"], serde_json::json!([1, 1, 0, 0]));
    assert_eq!(c["after"]["joints"], serde_json::json!([1, 0, 0, 0]));
    assert_eq!(
        c["after"]["weights"],
        serde_json::json!([1.0, 0.0, 0.0, 0.0])
    );
}

#[test]
fn the_same_input_gives_the_same_bytes_and_report() {
    // spec: F6
    let dir = Scratch::new("fix-deterministic");
    let f = dir.path().join("faulty.glb");
    std::fs::write(
        &f,
        SkinnedGlb {
            vertices: 3000,
            primitives: 2,
            sets: 2,
            joints: 40,
            fault_every: 5,
            seed: 9,
        }
        .build(),
    )
    .unwrap();
    let mut seen = Vec::new();
    for (i, threads) in ["1", "2", "4"].iter().enumerate() {
        let out = dir.path().join(format!("o{i}.glb"));
        let o = dash(&[
            "--threads",
            threads,
            "fix",
            f.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--out-of-range",
            "drop",
            "--zero-sum",
            "nearest",
            "--format",
            "json",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        seen.push((std::fs::read(&out).unwrap(), o.stdout));
    }
    assert!(seen.windows(2).all(|w| w[0] == w[1]));
}

#[test]
fn every_target_has_a_failing_input_that_fix_and_reduce_make_fit() {
    let dir = Scratch::new("fix-targets");
    let input = repo().join("spec/vectors/gltf/target-three-sets.gltf");
    let check = |t: &str, f: &Path| {
        run(
            env!("CARGO_BIN_EXE_dash-validate"),
            &["-q", "--target", t, f.to_str().unwrap()],
        )
        .status
        .code()
    };
    let mut outputs = Vec::new();
    for t in dashvertex_core::target::names() {
        let fails = t != "gltf";
        assert_eq!(check(t, &input), Some(i32::from(fails)), "{t}: the input");
        let fixed = dir.path().join(format!("fix-{t}.glb"));
        let o = dash(&[
            "fix",
            input.to_str().unwrap(),
            "-o",
            fixed.to_str().unwrap(),
            "--target",
            t,
        ]);
        assert!(
            o.status.success(),
            "{t}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(check(t, &fixed), Some(0), "{t}: the fixed file");
        let reduced = dir.path().join(format!("reduce-{t}.glb"));
        let o = dash(&[
            "reduce",
            input.to_str().unwrap(),
            "-o",
            reduced.to_str().unwrap(),
            "--target",
            t,
        ]);
        assert!(
            o.status.success(),
            "{t}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(check(t, &reduced), Some(0), "{t}: the reduced file");
        outputs.extend([fixed, reduced]);
    }
    official_errors_none(&outputs);
    // What no rewrite of the weights fixes is refused, naming the rule.
    let o = dash(&[
        "fix",
        "spec/vectors/gltf/target-many-joints.gltf",
        "-o",
        dir.path().join("mj.glb").to_str().unwrap(),
        "--target",
        "bevy",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("TARGET_JOINTS"));
}

#[test]
fn a_gltf_with_its_buffer_beside_it_is_copied_fixed_and_fixed_again() {
    let dir = Scratch::new("fix-external");
    let d = dir.path();
    let src = repo().join("fixtures/corpus/gltf/blenderio/03_skinned_cylinder");
    for f in ["03_skinned_cylinder.gltf", "03_skinned_cylinder.bin"] {
        std::fs::copy(src.join(f), d.join(f)).unwrap();
    }
    let input = d.join("03_skinned_cylinder.gltf");
    // Nothing to fix: copied byte for byte, into its own folder however it is spelled.
    let same = d.join(".").join("copy.gltf");
    let o = dash(&["fix", input.to_str().unwrap(), "-o", same.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        std::fs::read(&input).unwrap(),
        std::fs::read(&same).unwrap()
    );
    // Into another folder: written with its buffer beside it, and that output is itself
    // fixed again without a change (its buffer file is read from beside it).
    std::fs::create_dir_all(d.join("out")).unwrap();
    let other = d.join("out/c.gltf");
    let o = dash(&[
        "fix",
        input.to_str().unwrap(),
        "-o",
        other.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(d.join("out/c.bin").exists());
    let again = d.join("out/c2.gltf");
    let o = dash(&[
        "fix",
        other.to_str().unwrap(),
        "-o",
        again.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("nothing to fix"));
    assert_eq!(
        std::fs::read(&other).unwrap(),
        std::fs::read(&again).unwrap()
    );
}

#[test]
fn the_text_report_lists_its_first_changes_and_counts_the_rest() {
    // spec/fix.md §5: --list N keeps N changes per part, and counts every one.
    let dir = Scratch::new("fix-list");
    let glb = SkinnedGlb {
        vertices: 300,
        primitives: 1,
        sets: 2,
        joints: 12,
        fault_every: 2,
        seed: 7,
    }
    .build();
    let input = dir.path().join("in.glb");
    std::fs::write(&input, glb).unwrap();
    let (inp, out) = (input.to_str().unwrap(), dir.path().join("o.glb"));
    let policy = [
        "--out-of-range",
        "drop",
        "--zero-sum",
        "root",
        "--bad-weights",
        "zero",
    ];
    let mut args = vec!["fix", inp, "-o", out.to_str().unwrap(), "--format", "json"];
    args.extend(policy);
    let json = dash(&args);
    assert!(
        json.status.success(),
        "{}",
        String::from_utf8_lossy(&json.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let part = &report["parts"][0];
    let changes = part["changes"].as_array().unwrap();
    assert!(
        changes.len() > 3,
        "the generated faults change {} vertices",
        changes.len()
    );
    let mut args = vec!["fix", inp, "-o", out.to_str().unwrap(), "--list", "2"];
    args.extend(policy);
    let text = dash(&args);
    assert!(
        text.status.success(),
        "{}",
        String::from_utf8_lossy(&text.stderr)
    );
    let text = String::from_utf8(text.stdout).unwrap();
    let steps: Vec<String> = part["steps"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(s, n)| format!("{s} {n}"))
        .collect();
    let head = format!(
        "mesh 0 primitive 0: {} vertices of 300 vertices changed ({})",
        changes.len(),
        steps.join(", ")
    );
    assert!(text.starts_with(&head), "{text}\nexpected: {head}");
    let listed: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("  vertex "))
        .collect();
    assert_eq!(listed.len(), 2, "{text}");
    for (line, c) in listed.iter().zip(changes) {
        assert!(
            line.starts_with(&format!("  vertex {}:", c["vertex"])),
            "{line}"
        );
    }
    let more = format!("  … and {} more changed vertices", changes.len() - 2);
    assert!(text.contains(&more), "{text}\nexpected: {more}");
}

#[test]
fn a_copy_is_written_with_its_report_or_refused_leaving_nothing() {
    // spec: F2 F3. A file with nothing to fix is copied with its report, the two
    // replacing their files together; a copy the check refuses (a fault outside
    // influence data) leaves the old output and no temporary file.
    let dir = Scratch::new("fix-copy-checked");
    let d = dir.path();
    let input = "fixtures/corpus/gltf/khronos_samples/RiggedSimple.glb";
    let (out, report) = (d.join("copy.glb"), d.join("copy.json"));
    std::fs::write(&out, b"old").unwrap();
    let o = dash(&[
        "fix",
        input,
        "-o",
        out.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        std::fs::read(repo().join(input)).unwrap(),
        std::fs::read(&out).unwrap()
    );
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(json["unchanged"], serde_json::Value::Bool(true), "{json}");

    let refused = d.join("refused.gltf");
    std::fs::write(&refused, b"old").unwrap();
    let o = dash(&[
        "fix",
        "spec/vectors/gltf/mesh-member-types.gltf",
        "-o",
        refused.to_str().unwrap(),
    ]);
    assert_refused(&o, "nothing written: the output would not be valid");
    assert_eq!(std::fs::read(&refused).unwrap(), b"old");
    let mut names: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["copy.glb", "copy.json", "refused.gltf"]);
}
