//! The examples of issue 22 items 1, 2 and 10, rebuilt from their descriptions and run as
//! child processes under the 256 MiB address-space limit (spec/security.md [L2] [L3]):
//! accessors declaring 100 M and 5 M elements without a buffer view (with and without a
//! one-entry sparse block), buffer views far past their buffer (2^63, 2^64 − 8, 1.5e9,
//! 3.5e9), and NaN in an animation. Every command answers in seconds, names the pointer,
//! and writes nothing. The property tests (`hostile_files`, `validate_hostile_files`)
//! draw such files at random from `dashvertex_testkit::declared`.

use std::path::Path;
use std::process::Output;

use dashvertex_testkit::{Scratch, repo, run_limited};
use serde_json::{Value, json};

fn dash(dir: &Path, args: &[&str]) -> Output {
    run_limited(Path::new(env!("CARGO_BIN_EXE_dashvertex")), dir, args, 10)
}

fn validate(dir: &Path, args: &[&str]) -> Output {
    run_limited(
        Path::new(env!("CARGO_BIN_EXE_dash-validate")),
        dir,
        args,
        10,
    )
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn minimal() -> Value {
    let t = std::fs::read_to_string(repo().join("spec/vectors/gltf/valid-minimal.gltf")).unwrap();
    serde_json::from_str(&t).unwrap()
}

/// The manifest that numbers the minimal vector's joints backwards (remap rewrites).
const BACKWARDS: &str =
    r#"{"version": 1, "bones": [{"index": 0, "name": "joint1"}, {"index": 1, "name": "joint0"}]}"#;

/// Runs reduce, fix and remap on `name` in `d`: each must exit 1 naming `needle`, and
/// leave the folder as it was. With `copies`, also a remap that has nothing to renumber
/// (a copy, which reads no accessor but must not pass a broken view on).
fn every_command_refuses(d: &Path, name: &str, needle: &str, copies: bool) {
    let before: Vec<_> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    for args in [
        &["reduce", name, "-o", "out.glb", "--empty", "zero"][..],
        &["reduce", name, "-o", "out.gltf", "--report", "loss.json"][..],
        &["fix", name, "-o", "fixed.glb"][..],
        &["fix", name, "-o", "fixed.gltf", "--zero-sum", "nearest"][..],
        &[
            "remap",
            name,
            "--manifest",
            "backwards.json",
            "-o",
            "r.gltf",
        ][..],
        &["remap", name, "--manifest", "forwards.json", "-o", "r.glb"][..],
    ] {
        if !copies && args.contains(&"forwards.json") {
            continue;
        }
        let o = dash(d, args);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?} names {needle}: {err}");
        let after: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(before, after, "{args:?} wrote something");
    }
}

fn folder(tag: &str) -> Scratch {
    let s = Scratch::new(tag);
    std::fs::write(s.path().join("backwards.json"), BACKWARDS).unwrap();
    std::fs::write(
        s.path().join("forwards.json"),
        r#"{"version": 1, "bones": [{"index": 0, "name": "joint0"}, {"index": 1, "name": "joint1"}]}"#,
    )
    .unwrap();
    s
}

#[test]
fn declared_counts_without_data_are_refused_by_every_command() {
    // spec: L2
    let s = folder("declared-counts");
    let d = s.path();
    for (count, sparse) in [
        (100_000_000u64, false),
        (100_000_000, true),
        (5_000_000, false),
    ] {
        let mut doc = minimal();
        for a in 0..3 {
            let acc = doc["accessors"][a].as_object_mut().unwrap();
            acc.remove("bufferView");
            acc.insert("count".into(), json!(count));
        }
        if sparse {
            // One entry: vertex 0's weights from the inverse bind matrices' bytes.
            let views = doc["bufferViews"].as_array_mut().unwrap();
            views.push(json!({"buffer": 0, "byteOffset": 96, "byteLength": 4}));
            views.push(json!({"buffer": 0, "byteOffset": 100, "byteLength": 16}));
            doc["accessors"][2]["sparse"] = json!({"count": 1,
                "indices": {"bufferView": 4, "componentType": 5125}, "values": {"bufferView": 5}});
        }
        let name = format!("count-{count}-{sparse}.gltf");
        let bytes = serde_json::to_vec(&doc).unwrap();
        assert!(bytes.len() < 1700, "{} bytes", bytes.len());
        std::fs::write(d.join(&name), &bytes).unwrap();
        let o = validate(d, &["--format", "json", &name]);
        assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
        let report: Value = serde_json::from_slice(&o.stdout).unwrap();
        let first = &report["files"][0]["diagnostics"][0];
        assert_eq!(first["code"], "GLTF_ACCESSOR_BUDGET", "{report}");
        assert_eq!(first["location"]["pointer"], "/accessors/0/count");
        assert!(first["location"]["line"].as_u64().is_some());
        every_command_refuses(d, &name, "/accessors/", false);
        std::fs::remove_file(d.join(&name)).unwrap();
    }
}

#[test]
fn buffer_views_past_their_buffer_are_reported_and_refused() {
    // spec: L3
    let s = folder("view-ranges");
    let d = s.path();
    for (offset, length) in [
        (0u64, 1u64 << 63),
        (u64::MAX - 7, 16),
        (0, 1_500_000_000),
        (0, 3_500_000_000),
    ] {
        for used in [false, true] {
            let mut doc = minimal();
            if used {
                // The weights' own view.
                doc["bufferViews"][2]["byteOffset"] = json!(offset);
                doc["bufferViews"][2]["byteLength"] = json!(length);
            } else {
                doc["bufferViews"]
                    .as_array_mut()
                    .unwrap()
                    .push(json!({"buffer": 0, "byteOffset": offset, "byteLength": length}));
            }
            let view = if used { 2 } else { 4 };
            let name = format!("view-{offset}-{length}-{used}.gltf");
            std::fs::write(d.join(&name), serde_json::to_vec(&doc).unwrap()).unwrap();
            let o = validate(d, &["--format", "json", &name]);
            assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
            let report: Value = serde_json::from_slice(&o.stdout).unwrap();
            let diags = report["files"][0]["diagnostics"].as_array().unwrap();
            let range: Vec<&Value> = diags
                .iter()
                .filter(|x| x["code"] == "GLTF_BUFFER_VIEW_RANGE")
                .collect();
            assert_eq!(range.len(), 1, "{report}");
            // At the member that leaves the buffer (the official pointer).
            let buffer = doc["buffers"][0]["byteLength"].as_u64().unwrap();
            let member = if offset >= buffer {
                "byteOffset"
            } else {
                "byteLength"
            };
            assert_eq!(
                range[0]["location"]["pointer"],
                format!("/bufferViews/{view}/{member}")
            );
            // Once: the weights that read the view are not reported again.
            assert!(
                diags.iter().all(|x| x["code"] != "GLTF_ACCESSOR_DATA"),
                "{report}"
            );
            every_command_refuses(d, &name, &format!("/bufferViews/{view}"), true);
            std::fs::remove_file(d.join(&name)).unwrap();
        }
    }
}

#[test]
fn non_finite_animation_values_are_invalid() {
    // spec: validation.md §6 (ACCESSOR_INVALID_FLOAT)
    let s = folder("animation-nan");
    let d = s.path();
    let path = repo().join("spec/vectors/gltf/animation-non-finite.gltf");
    std::fs::copy(&path, d.join("a.gltf")).unwrap();
    let o = validate(d, &["a.gltf"]);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o.stdout);
    assert!(
        out.contains("GLTF_ANIMATION_NON_FINITE")
            && out.contains("/animations/0/samplers/0/output"),
        "{out}"
    );
}

#[test]
fn the_declared_number_generator_reaches_every_class() {
    // The property tests are only as good as what they draw: 300 drawn files must include
    // each refusal and each non-finite report at least once.
    use proptest::strategy::{Strategy, ValueTree};
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = dashvertex_testkit::declared::declared();
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..300 {
        let file = strategy.new_tree(&mut runner).unwrap().current();
        let opts = dashvertex_validate::Options::default();
        let report = dashvertex_validate::validate_bytes(&file.name, &file.bytes, &opts);
        for d in &report.diagnostics {
            seen.insert(d.code.as_str());
        }
    }
    for code in [
        "GLTF_ACCESSOR_BUDGET",
        "GLTF_BUFFER_VIEW_RANGE",
        "GLTF_ANIMATION_NON_FINITE",
        "POSITION_NON_FINITE",
        "GLTF_BYTE_STRIDE",
    ] {
        assert!(seen.contains(code), "{code} never drawn: {seen:?}");
    }
}
