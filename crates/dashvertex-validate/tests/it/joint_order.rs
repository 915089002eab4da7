//! `JOINT_ORDER`: a glTF skin's joint order against a bone manifest — one diagnostic per
//! skin, at its `joints`, naming the first joint out of place; an error under `--locked`.

use dashvertex_manifest::Manifest;
use dashvertex_testkit::repo;
use dashvertex_validate::{Code, JointOrder, Level, Options, Severity};

fn manifest(names: &[&str]) -> Manifest {
    let bones: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(i, n)| format!(r#"{{"index": {i}, "name": "{n}"}}"#))
        .collect();
    Manifest::from_json(&format!(
        r#"{{"version": 1, "bones": [{}]}}"#,
        bones.join(",")
    ))
    .unwrap()
}

fn check(file: &str, names: &[&str], locked: bool) -> Vec<dashvertex_validate::Diagnostic> {
    let opts = Options::new()
        .with_joint_order(JointOrder::new(manifest(names), locked))
        .with_levels(if locked {
            [(Code::JOINT_ORDER, Level::Deny)].into()
        } else {
            Default::default()
        });
    dashvertex_validate::validate_path(&repo().join(file), &opts)
        .diagnostics
        .into_iter()
        .filter(|d| d.code == Code::JOINT_ORDER)
        .collect()
}

#[test]
fn one_diagnostic_per_skin_naming_the_first_joint_out_of_place() {
    // rig25's 25 joints against a manifest that swaps the first two: every joint after
    // them is in place, the skin is reported once.
    let g = dashvertex_gltf::load_path(
        &repo().join("fixtures/blender/rig25_all.glb"),
        &Default::default(),
    )
    .unwrap();
    let names = dashvertex_gltf::skinning::joint_names(&g.root, 0);
    let mut order: Vec<&str> = names.iter().map(String::as_str).collect();
    order.swap(3, 5);
    let found = check("fixtures/blender/rig25_all.glb", &order, true);
    assert_eq!(found.len(), 1, "{found:#?}");
    let d = &found[0];
    assert_eq!(d.severity, Severity::Error);
    assert_eq!(d.location.pointer.as_deref(), Some("/skins/0/joints"));
    assert!(d.location.line.is_some() && d.location.column.is_some());
    assert_eq!(
        d.message,
        format!(
            "skin 0: joint 3 is bone {:?} but the manifest numbers it 5; the joint order differs from the manifest's",
            names[3]
        )
    );
    // In order: nothing.
    let order: Vec<&str> = names.iter().map(String::as_str).collect();
    assert!(check("fixtures/blender/rig25_all.glb", &order, true).is_empty());
}

#[test]
fn bones_the_manifest_lacks_are_out_of_order_only_when_locked() {
    let file = "spec/vectors/gltf/valid-minimal.gltf";
    // joint0 is in place, joint1 is not in the manifest.
    assert!(check(file, &["joint0"], false).is_empty());
    let found = check(file, &["joint0"], true);
    assert_eq!(found.len(), 1);
    assert_eq!(
        found[0].message,
        "skin 0: joint 1 is bone \"joint1\", which the manifest does not have; the joint order differs from the manifest's"
    );
    // Moved bones are reported either way; a warning without --locked.
    let found = check(file, &["joint1", "joint0"], false);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].severity, Severity::Warning);
    // A manifest longer than the skin, agreeing on its indices: in order.
    assert!(check(file, &["joint0", "joint1", "joint2"], true).is_empty());
}

/// The skin-structure checks walk ancestry without recursion and in linear time: a chain
/// of n joints, one skin over all of them, its skinned node in a scene without the chain,
/// is one `GLTF_SKIN_SCENE` (and a `JOINT_ORDER` against a reversed manifest), at 12,500
/// joints and at 100,000, and the CPU time grows with n, not n².
#[test]
fn deep_joint_chains_are_checked_without_recursion() {
    let chain = |n: usize| {
        let mut nodes: Vec<serde_json::Value> = (0..n)
            .map(|i| {
                let mut node = serde_json::json!({ "name": format!("j{i}") });
                if i + 1 < n {
                    node["children"] = serde_json::json!([i + 1]);
                }
                node
            })
            .collect();
        nodes.push(serde_json::json!({"name": "skinned", "skin": 0}));
        let doc = serde_json::json!({
            "asset": {"version": "2.0"},
            "scenes": [{"nodes": [0]}, {"nodes": [n]}],
            "nodes": nodes,
            "skins": [{"joints": (0..n).collect::<Vec<_>>()}],
        });
        let text = serde_json::to_vec(&doc).unwrap();
        let names: Vec<String> = (0..n).rev().map(|i| format!("j{i}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let report = dashvertex_validate::validate_bytes(
            "deep.gltf",
            &text,
            &Options::new().with_joint_order(JointOrder::new(manifest(&names), false)),
        );
        let codes: Vec<Code> = report.diagnostics.iter().map(|d| d.code).collect();
        assert_eq!(
            codes,
            [
                Code::JOINT_ORDER,
                Code::GLTF_SKIN_SCENE,
                Code::GLTF_SKIN_WITHOUT_MESH
            ],
            "{:#?}",
            report.diagnostics
        );
    };
    dashvertex_testkit::growth::assert_grows_at_most("a joint chain", chain, 12_500, 24.0);
}
