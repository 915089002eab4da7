//! `dash-validate` end to end where a transcript is not enough: reports checked against
//! their schemas (ours and SARIF's), directories, standard input, manifests, levels.

use dashvertex_testkit::repo;

use std::path::Path;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dash-validate"))
        .current_dir(repo())
        .args(args)
        .output()
        .unwrap()
}

/// Runs the command in `dir` with `input` on standard input.
fn run_stdin(dir: &Path, args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_dash-validate"))
        .current_dir(dir)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn exit_codes() {
    assert_eq!(run(&["examples/rig.json"]).status.code(), Some(0));
    assert_eq!(
        run(&["examples/rig.dmx", "examples/rig.json"])
            .status
            .code(),
        Some(0)
    );
    assert_eq!(
        run(&["spec/vectors/validate/weight-negative.json"])
            .status
            .code(),
        Some(1)
    );
    assert_eq!(run(&["no/such/file.dmx"]).status.code(), Some(2));
    assert_eq!(
        run(&["examples/rig.json", "no/such/file.dmx"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        run(&["--profile", "sideways", "examples/rig.json"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(run(&[]).status.code(), Some(2));
    // Warnings pass unless denied.
    let f = "spec/vectors/validate/padding-bone.json";
    assert_eq!(run(&[f]).status.code(), Some(0));
    assert_eq!(run(&["--deny", "warnings", f]).status.code(), Some(1));
}

#[test]
fn json_report_is_valid_against_its_schema() {
    let o = run(&[
        "--format",
        "json",
        "--max-diagnostics",
        "2",
        "spec/vectors/validate/bone-duplicate.json",
        "spec/vectors/validate/vertex-index.dmx",
        "examples/rig.json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8(o.stdout).unwrap();
    let report: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(report["files"][0]["truncated"], true);
    assert_eq!(report["files"][0]["codes"]["BONE_DUPLICATE"], 3);
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("schemas/validation-report.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&report)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn directories_are_searched_recursively_and_stdin_works() {
    let o = run(&["--format", "json", "spec/vectors/validate"]);
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let files: Vec<&str> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    assert!(files.len() >= 25, "{files:?}");
    let mut sorted = files.clone();
    sorted.sort();
    assert_eq!(files, sorted, "deterministic order");
    let o = run_stdin(
        &repo(),
        &["-"],
        &std::fs::read(repo().join("spec/vectors/validate/vertex-index.dmx")).unwrap(),
    );
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.starts_with("<stdin>:0xA0: error[VERTEX_INDEX]"),
        "{text}"
    );
}

#[test]
fn a_gltf_on_stdin_reads_no_file_from_the_working_directory() {
    // spec: R1
    use base64::Engine;
    let dir = std::env::temp_dir().join(format!("dash-validate-stdin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text =
        std::fs::read_to_string(repo().join("spec/vectors/gltf/valid-minimal.gltf")).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let uri = doc["buffers"][0]["uri"].as_str().unwrap().to_owned();
    let data = base64::engine::general_purpose::STANDARD
        .decode(uri.split_once(',').unwrap().1)
        .unwrap();
    // The buffer is right there in the working directory, and still not read.
    std::fs::write(dir.join("b.bin"), data).unwrap();
    doc["buffers"][0]["uri"] = "b.bin".into();
    let o = run_stdin(&dir, &["--format", "json", "-"], doc.to_string().as_bytes());
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(o.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let d = &report["files"][0]["diagnostics"][0];
    assert_eq!(d["code"], "GLTF_BUFFER", "{report}");
    assert!(
        d["message"].as_str().unwrap().contains("standard input"),
        "{report}"
    );
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let o = run(&["spec/vectors/validate/padding-bone.json"]);
    assert!(!String::from_utf8_lossy(&o.stdout).contains('\x1b'));
    let o = run(&[
        "--color",
        "always",
        "spec/vectors/validate/padding-bone.json",
    ]);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(text.contains("\x1b[") && text.contains("warning"), "{text}");
}

#[test]
fn a_bone_manifest_gives_the_bone_count() {
    // examples/arm.manifest.json (written by `dashvertex manifest`) numbers six bones: 0..=5.
    let dir = std::env::temp_dir().join(format!("dash-validate-manifest-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mesh = |bone: u32| {
        let path = dir.join(format!("bone{bone}.json"));
        let text =
            format!(r#"[{{"x": 0, "y": 0, "z": 0, "skinIndex": [{bone}], "skinWeight": [1]}}]"#);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let (inside, outside) = (mesh(5), mesh(6));
    let manifest = "examples/arm.manifest.json";
    assert_eq!(
        run(&["--manifest", manifest, &inside]).status.code(),
        Some(0)
    );
    let o = run(&["--manifest", manifest, "--format", "json", &outside]);
    assert_eq!(o.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let codes: Vec<&str> = report["files"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["BONE_INDEX_RANGE"]);
    // A removed bone (tombstone) with weight is an error of its own.
    let o = run(&[
        "--manifest",
        "spec/vectors/manifests/arm-without-thumb.json",
        "spec/vectors/validate/bone-removed.json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stdout).contains("error[BONE_REMOVED]"));
    // Not a manifest: invalid data (1), like every corrupt manifest; both ways of giving
    // a bone count: a usage error (2).
    let o = run(&["--manifest", "examples/rig.json", &inside]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("invalid manifest"));
    assert_eq!(
        run(&["--manifest", manifest, "--bones", "3", &inside])
            .status
            .code(),
        Some(2)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn codes_can_be_allowed_warned_or_denied() {
    let report = |args: &[&str]| -> (Option<i32>, serde_json::Value) {
        let o = run(&[&["--format", "json"][..], args].concat());
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        (o.status.code(), v["files"][0].clone())
    };
    let padding = "spec/vectors/validate/padding-bone.json";
    let duplicate = "spec/vectors/validate/bone-duplicate.json";
    // A warning by default; denied, an error; allowed, gone.
    let (code, f) = report(&[padding]);
    assert_eq!((code, f["counts"]["warnings"].as_u64()), (Some(0), Some(1)));
    let (code, f) = report(&["--deny", "PADDING_BONE", padding]);
    assert_eq!(code, Some(1));
    assert_eq!(f["diagnostics"][0]["severity"], "error");
    let (code, f) = report(&["--allow", "PADDING_BONE", padding]);
    assert_eq!(code, Some(0));
    assert_eq!(f["counts"]["warnings"].as_u64(), Some(0));
    assert!(f["codes"].get("PADDING_BONE").is_none());
    assert_eq!(f["diagnostics"].as_array().map(Vec::len), Some(0));
    // An error made a warning; a per-code level wins over --deny warnings.
    let (code, f) = report(&["--warn", "BONE_DUPLICATE", duplicate]);
    assert_eq!(code, Some(0));
    assert_eq!(f["counts"]["warnings"].as_u64(), Some(4));
    let (code, f) = report(&["--warn", "BONE_DUPLICATE", "--deny", "warnings", duplicate]);
    assert_eq!(code, Some(1), "PADDING_BONE is denied by --deny warnings");
    assert_eq!(
        (
            f["counts"]["errors"].as_u64(),
            f["counts"]["warnings"].as_u64()
        ),
        (Some(1), Some(3))
    );
    // Usage errors: an unknown code, IO_ERROR, a code given two levels.
    for args in [
        &["--allow", "NO_SUCH_CODE", padding][..],
        &["--allow", "IO_ERROR", padding][..],
        &["--allow", "PADDING_BONE", "--deny", "PADDING_BONE", padding][..],
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(!o.stderr.is_empty());
    }
}

#[test]
fn directories_skip_json_that_is_not_vertex_data() {
    // examples/ holds a bone manifest and a weights document beside the rig: a directory
    // walk lists them as skipped instead of calling them invalid DashVertex.
    let o = run(&["examples/"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("skipped examples/arm.manifest.json: a bone manifest"),
        "{err}"
    );
    assert!(
        err.contains("skipped examples/arm.weights.json: a per-bone weights document"),
        "{err}"
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("checked 2 file(s): 2 valid"), "{out}");
    // Named on the command line, a file is always checked.
    assert_eq!(run(&["examples/arm.weights.json"]).status.code(), Some(1));
}

/// The SARIF 2.1.0 schema (OASIS errata01, draft-04; provenance beside it).
fn sarif_validator() -> jsonschema::Validator {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("schemas/third-party/sarif-schema-2.1.0.json"))
            .unwrap(),
    )
    .unwrap();
    jsonschema::draft4::new(&schema).unwrap()
}

fn schema_errors(v: &jsonschema::Validator, doc: &serde_json::Value) -> Vec<String> {
    v.iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

#[test]
fn sarif_log_is_valid_against_the_sarif_schema() {
    let validator = sarif_validator();
    // A golden log over JSON (line:column), DMX (byte offset) and glTF (pointer) findings,
    // truncation included.
    let o = run(&[
        "--format",
        "sarif",
        "--max-diagnostics",
        "2",
        "spec/vectors/validate/bone-duplicate.json",
        "spec/vectors/validate/vertex-index.dmx",
        "spec/vectors/gltf/joints-out-of-range.gltf",
        "examples/rig.json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8(o.stdout).unwrap();
    let log: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(schema_errors(&validator, &log), Vec::<String>::new());
    let run0 = &log["runs"][0];
    let results = run0["results"].as_array().unwrap();
    let first = results
        .iter()
        .find(|r| r["ruleId"] == "BONE_DUPLICATE")
        .unwrap();
    assert!(
        first["message"]["text"]
            .as_str()
            .unwrap()
            .starts_with("vertex ")
    );
    let region = &first["locations"][0]["physicalLocation"]["region"];
    assert!(
        region["startLine"].as_u64().unwrap() >= 1 && region["startColumn"].as_u64().unwrap() >= 1
    );
    assert!(
        results
            .iter()
            .any(|r| r["locations"][0]["physicalLocation"]["region"]["byteOffset"].is_u64())
    );
    assert!(
        run0["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]
            .as_str()
            .unwrap()
            .contains("more finding(s) not listed")
    );

    // Every vector in the repository: the log is schema-valid, has one result per
    // diagnostic of the JSON report, each pointing at its rule by id and index.
    let dirs = [
        "spec/vectors/validate/",
        "spec/vectors/gltf/",
        "spec/vectors/binary/",
        "fixtures/",
    ];
    let mut args = vec!["--format", "sarif", "--max-diagnostics", "100000"];
    args.extend(dirs);
    let o = run(&args);
    let log: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(schema_errors(&validator, &log), Vec::<String>::new());
    args[1] = "json";
    let report: serde_json::Value = serde_json::from_slice(&run(&args).stdout).unwrap();
    let diagnostics: usize = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["diagnostics"].as_array().unwrap().len())
        .sum();
    let run0 = &log["runs"][0];
    let results = run0["results"].as_array().unwrap();
    assert!(
        diagnostics > 100,
        "the vectors have findings: {diagnostics}"
    );
    assert_eq!(results.len(), diagnostics);
    let rules = run0["tool"]["driver"]["rules"].as_array().unwrap();
    for r in results {
        let i = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[i]["id"], r["ruleId"]);
        let a = r["locations"][0]["physicalLocation"]["artifactLocation"]["index"]
            .as_u64()
            .unwrap();
        assert!(run0["artifacts"][a as usize]["location"]["uri"].is_string());
    }
    assert_eq!(
        run0["artifacts"].as_array().unwrap().len(),
        report["files"].as_array().unwrap().len()
    );
    // Rules carry the Khronos mapping.
    let sum = rules.iter().find(|r| r["id"] == "WEIGHT_SUM").unwrap();
    assert_eq!(
        sum["properties"]["khronos"][0],
        "ACCESSOR_WEIGHTS_NON_NORMALIZED"
    );
    assert_eq!(sum["defaultConfiguration"]["level"], "error");

    // Standard input has no URI: a description stands in.
    let dir = std::env::temp_dir().join(format!("dash-validate-sarif-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = std::fs::read(repo().join("spec/vectors/validate/weight-negative.json")).unwrap();
    let o = run_stdin(&dir, &["--format", "sarif", "-"], &input);
    std::fs::remove_dir_all(&dir).unwrap();
    let log: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(schema_errors(&validator, &log), Vec::<String>::new());
    assert_eq!(
        log["runs"][0]["artifacts"][0]["location"]["description"]["text"],
        "standard input"
    );
}

#[test]
fn the_sarif_check_catches_a_broken_log() {
    // The schema test can fail: a result without a message is rejected.
    let validator = sarif_validator();
    let bad = serde_json::json!({
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"ruleId": "A"}]}]
    });
    assert!(!schema_errors(&validator, &bad).is_empty());
}

#[test]
fn text_is_read_as_what_it_holds_whatever_its_name() {
    let dir = std::env::temp_dir().join(format!("dash-validate-text-kind-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // glTF JSON named .json, DashVertex JSON named .gltf.
    let gltf = std::fs::read(repo().join("spec/vectors/gltf/mesh-without-skin.gltf")).unwrap();
    std::fs::write(dir.join("model.json"), &gltf).unwrap();
    std::fs::write(
        dir.join("mesh.gltf"),
        br#"{"x": 0, "y": 0, "z": 0, "skinIndex": [0], "skinWeight": [1]}"#,
    )
    .unwrap();
    let o = run(&[
        "--format",
        "json",
        dir.join("model.json").to_str().unwrap(),
        dir.join("mesh.gltf").to_str().unwrap(),
    ]);
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["files"][0]["format"], "gltf", "{report}");
    assert_eq!(report["files"][1]["format"], "json", "{report}");
    for f in 0..2 {
        assert!(
            report["files"][f]["codes"]["FORMAT_NAME_MISMATCH"].as_u64() == Some(1),
            "{report}"
        );
    }
    // dashvertex inspect agrees on the DashVertex one.
    let o = Command::new(env!("CARGO_BIN_EXE_dashvertex"))
        .args(["inspect", dir.join("mesh.gltf").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn a_named_fifo_or_device_is_refused_at_once() {
    // spec: R2
    let dir = std::env::temp_dir().join(format!("dash-validate-fifo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("mesh.json");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.glb")).unwrap();
    for (named, kind) in [
        (fifo.clone(), "a FIFO"),
        (dir.join("zero.glb"), "a character device"),
    ] {
        // No writer on the FIFO: a read that waited for one would never end.
        let mut child = Command::new(env!("CARGO_BIN_EXE_dash-validate"))
            .arg(&named)
            .arg("--manifest")
            .arg(&named)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if started.elapsed().as_secs() > dashvertex_testkit::HANG_SECS {
                let _ = child.kill();
                panic!("dash-validate waited on {}", named.display());
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stderr);
        assert_eq!(status.code(), Some(2), "{text}");
        assert!(
            text.contains(kind) && text.contains("standard input"),
            "{text}"
        );
        // Without --manifest, the input itself: reported as unreadable.
        let o = Command::new(env!("CARGO_BIN_EXE_dash-validate"))
            .arg(&named)
            .output()
            .unwrap();
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(o.status.code(), Some(2), "{all}");
        assert!(all.contains(kind), "{all}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
