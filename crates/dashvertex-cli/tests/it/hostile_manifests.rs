//! Process-level property test for bone manifests (issues 22 and 23): generated manifests
//! — aliases claimed twice or equal to a name, retired bones the file still weights, bones
//! the file lacks, swapped indices, tens of thousands of entries, broken bytes — are given
//! to every command that reads one, each in a child process under the 256 MiB
//! address-space limit. Every run ends with exit 0, 1 or 2 within its bound, touches no
//! file but its output (and the manifest, for the commands that write it), says why when
//! it fails and leaves the manifest as it was; a remap that succeeds is in the manifest's
//! joint order. `PROPTEST_CASES=N` runs more cases (the default is 12).

use std::path::Path;

use dashvertex_testkit::{Scratch, changes, repo, run_limited, snapshot};
use proptest::prelude::*;
use serde_json::{Value, json};

const GLTF: &str = "spec/vectors/gltf/skin-joint-order.gltf";

fn exe(name: &str) -> &'static Path {
    match name {
        "dash-validate" => Path::new(env!("CARGO_BIN_EXE_dash-validate")),
        _ => Path::new(env!("CARGO_BIN_EXE_dashvertex")),
    }
}

/// Names a manifest of the test file's rig may use: its joints, strings other entries
/// may claim too, Blender's neutral bone, and the empty string.
const POOL: &[&str] = &["joint0", "joint1", "joint.1", "b2", "neutral_bone", ""];

/// One entry before numbering: name, parent, retired, aliases.
type Raw = (String, Option<String>, bool, Vec<String>);

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => proptest::sample::select(POOL).prop_map(str::to_owned),
        1 => "[a-z.]{1,6}",
    ]
}

fn entry() -> impl Strategy<Value = Raw> {
    (
        name(),
        proptest::option::of(name()),
        proptest::bool::weighted(0.3),
        proptest::collection::vec(name(), 0..3),
    )
}

/// A manifest text: a few generated entries, sometimes tens of thousands of filler bones
/// (more than a glTF skin can index), sometimes an index out of place or broken bytes.
fn manifest() -> impl Strategy<Value = Vec<u8>> {
    (
        proptest::collection::vec(entry(), 0..6),
        prop_oneof![4 => Just(0usize), 1 => Just(70_000usize)],
        proptest::bool::weighted(0.1),
        proptest::option::weighted(0.15, (any::<prop::sample::Index>(), any::<u8>())),
    )
        .prop_map(|(raw, filler, bad_index, flip)| {
            let mut bones: Vec<Value> = raw
                .into_iter()
                .map(|(name, parent, removed, aliases)| {
                    let mut e = json!({"name": name});
                    if let Some(p) = parent {
                        e["parent"] = json!(p);
                    }
                    if removed {
                        e["removed"] = json!(true);
                    }
                    if !aliases.is_empty() {
                        e["aliases"] = json!(aliases);
                    }
                    e
                })
                .collect();
            bones.extend((0..filler).map(|i| json!({"name": format!("filler{i}")})));
            for (i, e) in bones.iter_mut().enumerate() {
                e["index"] = json!(if bad_index && i == 0 { 1 } else { i });
            }
            let mut bytes =
                serde_json::to_vec_pretty(&json!({"version": 1, "bones": bones})).unwrap();
            if let Some((at, b)) = flip {
                let i = at.index(bytes.len());
                bytes[i] = b;
            }
            bytes
        })
}

/// Commands reading the manifest `m.json`, each with the files it may write.
fn commands() -> Vec<(&'static str, Vec<&'static str>, Vec<&'static str>)> {
    vec![
        ("dash", vec!["manifest", "show", "m.json"], vec![]),
        (
            "dash-validate",
            vec!["--manifest", "m.json", "r.gltf"],
            vec![],
        ),
        (
            "dash-validate",
            vec!["--manifest", "m.json", "--locked", "r.gltf"],
            vec![],
        ),
        (
            "dash",
            vec!["remap", "r.gltf", "--manifest", "m.json", "-o", "out.glb"],
            vec!["out.glb"],
        ),
        (
            "dash",
            vec![
                "remap",
                "r.gltf",
                "--manifest",
                "m.json",
                "--locked",
                "-o",
                "out.glb",
            ],
            vec!["out.glb"],
        ),
        (
            "dash",
            vec![
                "reduce",
                "r.gltf",
                "--manifest",
                "m.json",
                "--locked",
                "-o",
                "out.json",
            ],
            vec!["out.json"],
        ),
        (
            "dash",
            vec![
                "reduce",
                "r.gltf",
                "--manifest",
                "m.json",
                "--normalize",
                "unit",
                "-o",
                "out.glb",
            ],
            vec!["out.glb", "m.json"],
        ),
        (
            "dash",
            vec!["manifest", "update", "m.json", "--rename", "joint1=joint.1"],
            vec!["m.json"],
        ),
        (
            "dash",
            vec![
                "manifest",
                "update",
                "m.json",
                "--from",
                "r.gltf",
                "--partial",
            ],
            vec!["m.json"],
        ),
        ("dash", vec!["manifest", "diff", "r.gltf", "m.json"], vec![]),
    ]
}

fn check(text: &[u8]) -> Result<(), TestCaseError> {
    let dir = Scratch::new("hostile-manifest");
    let d = dir.path();
    std::fs::copy(repo().join(GLTF), d.join("r.gltf")).unwrap();
    for (tool, args, outputs) in commands() {
        std::fs::write(d.join("m.json"), text).unwrap();
        let before = snapshot(d);
        let o = run_limited(exe(tool), d, &args, 30);
        let changed = changes(&before, &snapshot(d));
        let stray: Vec<&String> = changed
            .iter()
            .filter(|p| !outputs.contains(&p.as_str()))
            .collect();
        prop_assert!(stray.is_empty(), "{tool} {args:?} touched {stray:?}");
        let code = o.status.code();
        if tool == "dash" && code != Some(0) {
            prop_assert!(!o.stderr.is_empty(), "{tool} {args:?} failed silently");
            prop_assert!(
                !changed.iter().any(|c| c == "m.json"),
                "{tool} {args:?} failed but changed the manifest"
            );
            prop_assert!(
                outputs
                    .first()
                    .is_none_or(|out| !changed.iter().any(|c| c == out)),
                "{tool} {args:?} failed but wrote its output"
            );
        }
        if code == Some(0) && args.first() == Some(&"remap") {
            let m = std::fs::read_to_string(d.join("m.json")).unwrap();
            let manifest = dashvertex_manifest::Manifest::from_json(&m).unwrap();
            let opts = dashvertex_validate::Options::new()
                .with_joint_order(dashvertex_validate::JointOrder::new(manifest, false));
            let report = dashvertex_validate::validate_path(&d.join("out.glb"), &opts);
            prop_assert!(
                !report
                    .diagnostics
                    .iter()
                    .any(|x| x.code == dashvertex_validate::Code::JOINT_ORDER),
                "remap output not in manifest order: {:?}",
                report.diagnostics
            );
        }
        for out in &outputs {
            if *out != "m.json" {
                let _ = std::fs::remove_file(d.join(out));
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(12),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_command_on_hostile_manifests_is_contained(text in manifest()) {
        check(&text)?;
    }
}
