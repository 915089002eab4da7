//! `dashvertex reduce` and `dashvertex manifest` end to end.

use dashvertex_testkit::repo;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn dash(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dashvertex"))
        .current_dir(repo())
        .args(args)
        .output()
        .unwrap()
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dash-reduce-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn reduces_a_weights_document_with_a_locked_manifest() {
    let out = tmp("arm.json");
    let o = dash(&[
        "reduce",
        "examples/arm.weights.json",
        "-o",
        s(&out),
        "--normalize",
        "unit",
        "--manifest",
        "examples/arm.manifest.json",
        "--locked",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Deterministic: same bytes again; quantized variants sum exactly.
    let again = tmp("arm2.json");
    dash(&[
        "reduce",
        "examples/arm.weights.json",
        "-o",
        s(&again),
        "--normalize",
        "unit",
        "--manifest",
        "examples/arm.manifest.json",
        "--locked",
    ]);
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&again).unwrap());
    let o = dash(&[
        "reduce",
        "examples/arm.weights.json",
        "-o",
        s(&again),
        "--quantize",
        "unorm8",
        "--normalize",
        "none",
    ]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "unorm8 with --normalize none is refused as a usage error"
    );
    // Unasked, unorm8 normalizes (integer weights always sum to 255).
    let o = dash(&[
        "reduce",
        "examples/arm.weights.json",
        "-o",
        s(&again),
        "--quantize",
        "unorm8",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn locked_manifests_refuse_to_change_and_leave_files_alone() {
    let m = tmp("m24.json");
    let out = tmp("r.glb");
    std::fs::write(&out, b"before").unwrap();
    assert!(
        dash(&[
            "manifest",
            "init",
            "fixtures/blender/rig24_all.glb",
            "-o",
            s(&m),
            "--force"
        ])
        .status
        .success()
    );
    let before = std::fs::read(&m).unwrap();
    let o = dash(&[
        "reduce",
        "fixtures/blender/rig25_all.glb",
        "-o",
        s(&out),
        "--manifest",
        s(&m),
        "--locked",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.contains("add bone \"hand_l_extra\" as index 24"),
        "{err}"
    );
    assert_eq!(std::fs::read(&m).unwrap(), before);
    assert_eq!(std::fs::read(&out).unwrap(), b"before");
    // Unlocked, the bone is appended and the output names every joint by the manifest.
    let o = dash(&[
        "reduce",
        "fixtures/blender/rig25_all.glb",
        "-o",
        s(&out),
        "--manifest",
        s(&m),
        "--normalize",
        "unit",
        "--quantize",
        "unorm16",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let shown = dash(&["manifest", "show", s(&m)]);
    assert!(
        String::from_utf8(shown.stdout)
            .unwrap()
            .contains("   24  hand_l_extra")
    );
}

#[test]
fn manifest_update_retires_renames_and_compacts() {
    let m = tmp("arm.manifest.json");
    std::fs::copy(repo().join("examples/arm.manifest.json"), &m).unwrap();
    // A skeleton without "twist" and with a new "pinky".
    let sk = tmp("sk.json");
    std::fs::write(&sk, r#"{"type": "DashBoneWeights", "vertexCount": 0, "bones": [
        {"name": "shoulder", "weights": []}, {"name": "upper_arm", "parent": "shoulder", "weights": []},
        {"name": "forearm", "parent": "upper_arm", "weights": []}, {"name": "hand", "parent": "forearm", "weights": []},
        {"name": "thumb", "parent": "hand", "weights": []}, {"name": "pinky", "parent": "hand", "weights": []}]}"#).unwrap();
    let o = dash(&["manifest", "update", s(&m), "--from", s(&sk), "--locked"]);
    assert_eq!(o.status.code(), Some(1));
    let before = std::fs::read(&m).unwrap();
    let o = dash(&["manifest", "update", s(&m), "--rename", "thumb=hand"]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "a rename onto a taken name is refused"
    );
    assert_eq!(std::fs::read(&m).unwrap(), before);
    let o = dash(&["manifest", "update", s(&m), "--from", s(&sk)]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut text = String::from_utf8(o.stdout).unwrap();
    text.push_str(
        &String::from_utf8(dash(&["manifest", "update", s(&m), "--rename", "thumb=pollex"]).stdout)
            .unwrap(),
    );
    text.push_str(
        &String::from_utf8(dash(&["manifest", "update", s(&m), "--compact"]).stdout).unwrap(),
    );
    text.push_str(
        &String::from_utf8(dash(&["manifest", "show", s(&m)]).stdout)
            .unwrap()
            .replace(s(&m), "MANIFEST"),
    );
    assert!(text.contains("compacted; old -> new indices:"), "{text}");
}

#[test]
fn the_loss_report_shrinks_as_more_influences_are_kept() {
    // CesiumMan holds at most 4 influences per vertex: keeping 4 moves nothing beyond
    // renormalisation; each influence fewer moves the worst vertex further.
    let dir = tmp("loss");
    let mut max = Vec::new();
    for k in 1..=4 {
        let report = dir.with_extension(format!("{k}.json"));
        let o = dash(&[
            "reduce",
            "fixtures/corpus/gltf/khronos_samples/CesiumMan.glb",
            "-o",
            s(&dir.with_extension("glb")),
            "--max-influences",
            &k.to_string(),
            "--normalize",
            "unit",
            "--report",
            s(&report),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let r: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
        let p = &r["displacement"]["primitives"][0];
        assert_eq!(p["keyframeMoments"], 49, "rest pose + 48 keyframes");
        assert_eq!(p["moments"], 49 + 3 * 47, "and 3 inside each interval");
        max.push(p["max"].as_f64().unwrap());
    }
    assert!(max.windows(2).all(|w| w[0] > w[1]), "{max:?}");
    assert!(
        max[3] < 1e-5 * 1.914,
        "K = 4 keeps every influence: {max:?}"
    );
    assert!(
        max[0] > 0.01,
        "one influence moves CesiumMan's worst vertex by centimetres"
    );
}

/// A joint node named `""` or `"  "` is unnamed (`node<N>`) wherever a joint is named, so
/// the manifest `reduce --manifest` writes can be read back by the next run; a
/// DashVertex skeleton bone with a blank name is refused before the manifest changes.
#[test]
fn blank_joint_names_never_reach_a_manifest() {
    // spec: M7
    let text =
        std::fs::read_to_string(repo().join("spec/vectors/gltf/animation-valid.gltf")).unwrap();
    assert!(text.contains("\"name\": \"joint1\""));
    for blank in ["", "  "] {
        let gltf = tmp(&format!("blank{}.gltf", blank.len()));
        std::fs::write(
            &gltf,
            text.replace("\"name\": \"joint1\"", &format!("\"name\": \"{blank}\"")),
        )
        .unwrap();
        let manifest = tmp(&format!("blank{}.manifest.json", blank.len()));
        let _ = std::fs::remove_file(&manifest);
        let out = tmp(&format!("blank{}.out.gltf", blank.len()));
        for run in 0..2 {
            let o = dash(&[
                "reduce",
                s(&gltf),
                "-o",
                s(&out),
                "--manifest",
                s(&manifest),
            ]);
            assert!(
                o.status.success(),
                "run {run}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
        let m = std::fs::read_to_string(&manifest).unwrap();
        assert!(m.contains("\"node2\""), "{m}");
        assert!(!m.contains(&format!("\"name\": \"{blank}\"")), "{m}");
    }
    // A DashVertex skeleton: refused by name and position, the manifest untouched.
    let rig = std::fs::read_to_string(repo().join("examples/rig.json")).unwrap();
    let doc = tmp("blank-rig.json");
    std::fs::write(&doc, rig.replace("\"name\": \"spine\"", "\"name\": \" \"")).unwrap();
    let manifest = tmp("blank-rig.manifest.json");
    let _ = std::fs::remove_file(&manifest);
    let o = dash(&[
        "reduce",
        s(&doc),
        "-o",
        s(&tmp("blank-rig.out.json")),
        "--manifest",
        s(&manifest),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("bone 1 of the skeleton"), "{err}");
    assert!(!manifest.exists());
}

/// Issue 52, item 12: three messages that were untrue or unlocated. A DashVertex bone 0
/// with a parent is written as a root with a warning; a rest transform that overflows
/// says so (not "a zero scale"); an unknown interpolation is refused at its pointer with
/// line and column, by the validator and by a loss report alike.
#[test]
fn rest_pose_and_animation_messages_are_located_and_true() {
    let rig: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(repo().join("examples/rig.json")).unwrap())
            .unwrap();
    // Bone 0 names bone 2 as its parent.
    let mut doc = rig.clone();
    doc["bone"][0]["parentIndex"] = serde_json::json!(2);
    let input = tmp("parent-later.json");
    std::fs::write(&input, serde_json::to_vec(&doc).unwrap()).unwrap();
    let o = dash(&["convert", s(&input), s(&tmp("parent-later.glb"))]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("bone 0 (\"root\") names bone 2 as its parent")
            && err.contains("written as a root node"),
        "{err}"
    );
    // Scales whose product overflows the determinant.
    let mut doc = rig.clone();
    for b in doc["bone"].as_array_mut().unwrap() {
        b["scale"] = serde_json::json!({"x": 3e38, "y": 3e38, "z": 3e38});
    }
    let input = tmp("huge-scale.json");
    std::fs::write(&input, serde_json::to_vec(&doc).unwrap()).unwrap();
    let o = dash(&["convert", s(&input), s(&tmp("huge-scale.glb"))]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("too large to invert") && !err.contains("zero scale"),
        "{err}"
    );
    // interpolation "BOGUS": located wherever it is read.
    let v = "spec/vectors/gltf/animation-interpolation-unknown.gltf";
    let o = dash(&[
        "reduce",
        v,
        "-o",
        s(&tmp("bogus.gltf")),
        "--report",
        s(&tmp("bogus.json")),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("/animations/0/samplers/0/interpolation") && err.contains("168:"),
        "{err}"
    );
}
