//! Import from real files (including Blender's per-bone attributes) and export back.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::{Path, PathBuf};

use dash_core::Limits;
use dash_gltf::export::{Editor, Influences, Weights};
use dash_gltf::import::{self, ImportError};
use dash_gltf::{Container, Gltf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn load(rel: &str) -> Gltf {
    dash_gltf::load_path(&repo().join(rel), &Limits::default()).unwrap()
}

#[test]
fn blender_per_bone_attributes_import_with_their_bone_names() {
    let g = load("fixtures/blender/perbone_attrs.glb");
    let prims = import::import(&g, &Limits::default()).unwrap();
    assert_eq!(prims.len(), 1);
    let p = &prims[0];
    let names: Vec<&str> = p.bone_attributes.iter().map(|b| b.bone.as_str()).collect();
    assert_eq!(
        names,
        [
            "Root",
            "Spine",
            "Spine.001",
            "UpperArm.L",
            "forearm.l",
            "HAND_l"
        ]
    );
    let attrs: Vec<&str> = p
        .bone_attributes
        .iter()
        .map(|b| b.attribute.as_str())
        .collect();
    assert_eq!(
        attrs,
        [
            "__ROOT",
            "__SPINE",
            "__SPINE.001",
            "__UPPERARM.L",
            "__FOREARM.L",
            "__HAND_L"
        ]
    );
    // Each attribute holds, per vertex, the weight WEIGHTS_0 gives its joint.
    let mesh = &p.document.mesh;
    for b in &p.bone_attributes {
        let j = b.joint.unwrap();
        for (v, &w) in b.weights.iter().enumerate() {
            let from_sets: f32 = mesh
                .sets_of(v)
                .flat_map(|s| s.pairs())
                .filter(|&(bone, x)| bone == j && x != 0.0)
                .map(|(_, x)| x)
                .sum();
            assert!(
                (from_sets - w).abs() < 1e-6,
                "{} vertex {v}: {from_sets} vs {w}",
                b.bone
            );
        }
    }
    assert_eq!(mesh.len(), 204);
}

#[test]
fn case_colliding_bone_names_are_an_error() {
    let g = load("fixtures/blender/perbone_attrs_ambiguous.glb");
    match import::import(&g, &Limits::default()) {
        Err(ImportError::Ambiguous {
            attribute,
            candidates,
        }) => {
            assert_eq!(attribute, "__ARM");
            assert_eq!(candidates, ["arm", "Arm"]);
        }
        other => panic!("expected an ambiguity error, got {other:?}"),
    }
}

#[test]
fn float_joints_are_an_import_error_not_a_panic() {
    let g = load("spec/vectors/gltf/joints-float.gltf");
    let e = import::import(&g, &Limits::default()).unwrap_err();
    assert!(e.to_string().contains("JOINTS_0"), "{e}");
}

#[test]
fn all_sets_and_skin_joints_import() {
    let g = load("fixtures/blender/rig24_all.glb");
    let prims = import::import(&g, &Limits::default()).unwrap();
    let p = &prims[0];
    assert_eq!(p.document.mesh.set_count(), 3);
    let sk = p.document.skeleton.as_ref().unwrap();
    assert_eq!(sk.len(), 24);
    assert_eq!(sk.bones[0].name, "root");
    assert_eq!(sk.bones[23].name, "foot_r");
    assert_eq!(sk.bones[0].parent, None);
    assert_eq!(sk.bones[1].parent, Some(0));
    // u8 and u16 normalized weights import as exact fractions.
    for (file, storage) in [
        ("Animation_SkinType_01.gltf", import::WeightStorage::Unorm8),
        ("Animation_SkinType_02.gltf", import::WeightStorage::Unorm16),
    ] {
        let g = dash_gltf::load_path(
            &repo()
                .join("fixtures/corpus/gltf/assetgen/Animation_SkinType")
                .join(file),
            &Limits::default(),
        )
        .unwrap();
        let prims = import::import(&g, &Limits::default()).unwrap();
        assert_eq!(prims[0].storage, storage, "{file}");
    }
}

type SetMajor<T> = Vec<Vec<[T; 4]>>;

fn influences_of(p: &import::Primitive) -> (SetMajor<u32>, SetMajor<f32>) {
    let mesh = &p.document.mesh;
    let joints = (0..mesh.set_count())
        .map(|s| {
            (0..mesh.len())
                .map(|v| mesh.set(v, s).unwrap().joints)
                .collect()
        })
        .collect();
    let weights = (0..mesh.set_count())
        .map(|s| {
            (0..mesh.len())
                .map(|v| mesh.set(v, s).unwrap().weights)
                .collect()
        })
        .collect();
    (joints, weights)
}

/// Export every primitive's sets unchanged; the result imports to the same data and
/// keeps every other member of the document.
fn roundtrip(path: &Path, container: Container) -> Vec<u8> {
    let g = dash_gltf::load_path(path, &Limits::default()).unwrap();
    let prims = import::import(&g, &Limits::default()).unwrap();
    let mut ed = Editor::new(&g).unwrap();
    for p in prims.iter().filter(|p| p.document.mesh.is_skinned()) {
        let (joints, weights) = influences_of(p);
        ed.set_influences(
            p.mesh,
            p.primitive,
            &Influences {
                joints,
                weights: Weights::F32(weights),
            },
        )
        .unwrap();
    }
    let out = ed.finish(container).unwrap();
    let back = dash_gltf::load(&out, &dash_gltf::NoFiles, &Limits::default()).unwrap();
    let again = import::import(&back, &Limits::default()).unwrap();
    for (a, b) in prims.iter().zip(&again) {
        assert!(
            a.document.mesh.bit_eq(&b.document.mesh) || a.storage != import::WeightStorage::Float,
            "{}",
            path.display()
        );
        assert_eq!(a.document.skeleton, b.document.skeleton);
    }
    // Pruning renumbers accessors: compare what the references point to.
    let (before, after) = (resolved(&g), resolved(&back));
    for key in [
        "nodes",
        "skins",
        "animations",
        "scenes",
        "materials",
        "asset",
    ] {
        assert_eq!(
            before.get(key),
            after.get(key),
            "{}: {key} changed",
            path.display()
        );
    }
    out
}

/// The document with every skin and animation accessor reference replaced by the
/// accessor's values, so that documents whose accessors were renumbered compare equal
/// when they say the same.
fn resolved(g: &dash_gltf::Gltf) -> serde_json::Value {
    let data = |i: u64| -> serde_json::Value {
        let a = dash_gltf::accessor::read(g, i, &Limits::UNLIMITED).unwrap();
        let values: Vec<f64> = (0..a.count)
            .flat_map(|e| (0..a.components).map(move |c| (e, c)))
            .map(|(e, c)| a.get(e, c))
            .collect();
        serde_json::json!(values)
    };
    let mut v = g.value.clone();
    if let Some(skins) = v.get_mut("skins").and_then(|s| s.as_array_mut()) {
        for s in skins {
            if let Some(i) = s.get("inverseBindMatrices").and_then(|x| x.as_u64()) {
                s["inverseBindMatrices"] = data(i);
            }
        }
    }
    if let Some(anims) = v.get_mut("animations").and_then(|s| s.as_array_mut()) {
        for a in anims {
            if let Some(samplers) = a.get_mut("samplers").and_then(|s| s.as_array_mut()) {
                for s in samplers {
                    for k in ["input", "output"] {
                        if let Some(i) = s.get(k).and_then(|x| x.as_u64()) {
                            s[k] = data(i);
                        }
                    }
                }
            }
        }
    }
    v
}

#[test]
fn export_preserves_everything_else() {
    for rel in [
        "fixtures/blender/rig24_all.glb",
        "fixtures/corpus/gltf/khronos_samples/Fox.glb",
        "fixtures/corpus/gltf/blenderio/03_skinned_cylinder/03_skinned_cylinder.gltf",
        "spec/vectors/gltf/multiset-valid.gltf",
    ] {
        for c in [Container::Glb, Container::Gltf] {
            let out = roundtrip(&repo().join(rel), c);
            assert_eq!(dash_gltf::glb::is_glb(&out), c == Container::Glb);
        }
    }
}

#[test]
fn joints_widen_to_u16_past_255_and_weights_can_be_unorm() {
    let g = load("spec/vectors/gltf/valid-minimal.gltf");
    let mut ed = Editor::new(&g).unwrap();
    let joints = vec![vec![[300, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0]]];
    ed.set_influences(
        0,
        0,
        &Influences {
            joints,
            weights: Weights::Unorm16(vec![vec![
                [65535, 0, 0, 0],
                [32768, 32767, 0, 0],
                [65535, 0, 0, 0],
            ]]),
        },
    )
    .unwrap();
    let out = ed.finish(Container::Gltf).unwrap();
    let back = dash_gltf::load(&out, &dash_gltf::NoFiles, &Limits::default()).unwrap();
    let acc = back
        .value
        .pointer("/meshes/0/primitives/0/attributes/JOINTS_0")
        .unwrap()
        .as_u64()
        .unwrap();
    assert_eq!(back.root.accessors[acc as usize].component_type, 5123);
    let w = back
        .value
        .pointer("/meshes/0/primitives/0/attributes/WEIGHTS_0")
        .unwrap()
        .as_u64()
        .unwrap();
    assert!(back.root.accessors[w as usize].normalized);
}
