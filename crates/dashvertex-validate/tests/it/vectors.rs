//! The conformance vectors: each produces exactly the diagnostics the manifest lists, and
//! every rule has at least one vector.

use dashvertex_testkit::repo;

use std::collections::BTreeSet;

use dashvertex_core::Limits;
use dashvertex_validate::{Code, Options, Profile};
use serde_json::Value;

fn options(v: &Value) -> Options {
    let o = &v["options"];
    let manifest = o["manifest"].as_str().map(|m| {
        let text = std::fs::read_to_string(repo().join("spec/vectors").join(m)).unwrap();
        dashvertex_manifest::Manifest::from_json(&text).unwrap()
    });
    Options::new()
        .with_profile(match o["profile"].as_str() {
            Some("gltf") => Some(Profile::Gltf),
            Some("dash") => Some(Profile::Dash),
            _ => None,
        })
        .with_bones(
            o["bones"]
                .as_u64()
                .or(manifest.as_ref().map(|m| m.len() as u64)),
        )
        .with_removed_bones(
            manifest
                .as_ref()
                .map(|m| m.removed_indices())
                .unwrap_or_default(),
        )
        // `--locked`: the joint order is a contract (an error), as dash-validate sets it.
        .with_levels(if o["locked"] == true {
            [(Code::JOINT_ORDER, dashvertex_validate::Level::Deny)].into()
        } else {
            Default::default()
        })
        .with_joint_order(
            manifest.map(|manifest| {
                dashvertex_validate::JointOrder::new(manifest, o["locked"] == true)
            }),
        )
        .with_target(
            o["target"]
                .as_str()
                .map(|t| dashvertex_core::Target::named(t).expect("a target name")),
        )
        .with_max_diagnostics(1000)
        .with_deny_warnings(o["deny"].as_str() == Some("warnings"))
        .with_limits(Limits {
            max_vertices: o["max_vertices"]
                .as_u64()
                .unwrap_or(Limits::default().max_vertices),
            ..Limits::default()
        })
}

fn manifest() -> Vec<Value> {
    let text = std::fs::read_to_string(repo().join("spec/vectors/expected.json")).unwrap();
    let m: Value = serde_json::from_str(&text).unwrap();
    m["vectors"].as_array().unwrap().clone()
}

/// Rules without a vector, and why.
const NO_VECTOR: &[(Code, &str)] = &[(
    Code::IO_ERROR,
    "a missing file cannot be a vector; see cli.rs",
)];

#[test]
fn vectors_produce_exactly_the_listed_diagnostics() {
    // spec: I2 S1 S2 X1 T2
    // (I2: bone 3 in set 1 and in set 0 is the same bone — multiset-duplicate-across-sets;
    // S2: parents first, one root — bone-parent, bone-root.)
    let mut covered = BTreeSet::new();
    for v in manifest() {
        let file = v["file"].as_str().unwrap();
        let path = repo().join("spec/vectors").join(file);
        let opts = options(&v);
        let report = dashvertex_validate::validate_path(&path, &opts);
        let got: Vec<Value> = report
            .diagnostics
            .iter()
            .map(|d| {
                let mut o = serde_json::to_value(&d.location).unwrap();
                o.as_object_mut()
                    .unwrap()
                    .insert("code".into(), Value::String(d.code.as_str().into()));
                o
            })
            .collect();
        let want = v["diagnostics"].as_array().unwrap();
        assert_eq!(&got, want, "{file}");
        // The in-memory path agrees with the streaming path, given the same folder for
        // external buffers.
        let bytes = std::fs::read(&path).unwrap();
        let folder =
            dashvertex_gltf::FsResolver::for_file(&path, &[], opts.limits.max_input_bytes).unwrap();
        let mem =
            dashvertex_validate::validate_with(&path.display().to_string(), &bytes, &folder, &opts);
        assert_eq!(
            mem, report,
            "{file}: in-memory and streaming results differ"
        );
        for d in &report.diagnostics {
            covered.insert(d.code);
        }
    }
    for code in Code::ALL {
        if NO_VECTOR.iter().any(|(c, _)| c == code) {
            continue;
        }
        assert!(
            covered.contains(code),
            "rule {} has no vector",
            code.as_str()
        );
    }
}

#[test]
fn clean_vectors_have_no_diagnostics() {
    for file in [
        "json/document-full.json",
        "json/vertex-unskinned.json",
        "binary/valid-skinned.dmx",
        "binary/valid-unskinned-compact.dmx",
    ] {
        let r = dashvertex_validate::validate_path(
            &repo().join("spec/vectors").join(file),
            &Options::default(),
        );
        assert!(
            r.valid && r.diagnostics.is_empty(),
            "{file}: {:?}",
            r.diagnostics
        );
        let r = dashvertex_validate::validate_path(
            &repo().join("spec/vectors").join(file),
            &Options::new()
                .with_profile(Profile::Gltf)
                .with_deny_warnings(true),
        );
        assert!(
            r.valid,
            "{file} under the gltf profile: {:?}",
            r.diagnostics
        );
    }
    for example in ["examples/rig.json", "examples/rig.dmx"] {
        let r = dashvertex_validate::validate_path(&repo().join(example), &Options::default());
        assert!(
            r.valid && r.diagnostics.is_empty(),
            "{example}: {:?}",
            r.diagnostics
        );
    }
}
