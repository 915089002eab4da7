//! Import from real files (including Blender's per-bone attributes) and export back.
// Tests may unwrap and index; their casts build fixtures from sizes they choose, so the
// workspace's cast lints (for code that reads input) do not apply.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap
)]

use std::path::Path;

use dashvertex_testkit::repo;

use dashvertex_core::Limits;
use dashvertex_gltf::export::{Editor, Influences, Weights};
use dashvertex_gltf::import::{self, ImportError};
use dashvertex_gltf::{Container, Gltf};

fn load(rel: &str) -> Gltf {
    dashvertex_gltf::load_path(&repo().join(rel), &Limits::default()).unwrap()
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
            pointer,
            attribute,
            candidates,
        }) => {
            assert_eq!(pointer, "/meshes/0/primitives/0/attributes/__ARM");
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
        let g = dashvertex_gltf::load_path(
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
    let g = dashvertex_gltf::load_path(path, &Limits::default()).unwrap();
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
    let back = dashvertex_gltf::load(&out, &dashvertex_gltf::NoFiles, &Limits::default()).unwrap();
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
fn resolved(g: &dashvertex_gltf::Gltf) -> serde_json::Value {
    let data = |i: u64| -> serde_json::Value {
        let a = dashvertex_gltf::accessor::read(g, i, &Limits::UNLIMITED).unwrap();
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
            assert_eq!(dashvertex_gltf::glb::is_glb(&out), c == Container::Glb);
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
    let back = dashvertex_gltf::load(&out, &dashvertex_gltf::NoFiles, &Limits::default()).unwrap();
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

/// A small skinned document, its data in one data-URI buffer, with `tweak` applied to
/// the JSON before loading.
fn skinned_doc(tweak: impl Fn(&mut serde_json::Value, &mut Vec<u8>)) -> Gltf {
    use base64::Engine;
    // 2 vertices: POSITION (24 B), JOINTS_0 u8 (8 B), WEIGHTS_0 f32 (32 B).
    let mut bin: Vec<u8> = Vec::new();
    for x in [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0] {
        bin.extend_from_slice(&x.to_le_bytes());
    }
    bin.extend_from_slice(&[0, 1, 0, 0, 1, 0, 0, 0]);
    for w in [0.5f32, 0.5, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0] {
        bin.extend_from_slice(&w.to_le_bytes());
    }
    let mut doc = serde_json::json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [{"mesh": 0, "skin": 0}, {"name": "a", "children": [2]}, {"name": "b"}],
        "skins": [{"joints": [1, 2]}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2}}]}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 2, "type": "VEC3", "min": [0, 0, 0], "max": [1, 0, 0]},
            {"bufferView": 1, "componentType": 5121, "count": 2, "type": "VEC4"},
            {"bufferView": 2, "componentType": 5126, "count": 2, "type": "VEC4"}
        ],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 24},
            {"buffer": 0, "byteOffset": 24, "byteLength": 8},
            {"buffer": 0, "byteOffset": 32, "byteLength": 32}
        ],
        "buffers": [{"byteLength": 64}]
    });
    tweak(&mut doc, &mut bin);
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bin)
    );
    doc["buffers"][0]["uri"] = uri.into();
    doc["buffers"][0]["byteLength"] = bin.len().into();
    dashvertex_gltf::load(
        &serde_json::to_vec(&doc).unwrap(),
        &dashvertex_gltf::NoFiles,
        &Limits::default(),
    )
    .unwrap()
}

fn reexport(g: &Gltf) -> Gltf {
    let mut ed = Editor::new(g).unwrap();
    ed.set_influences(
        0,
        0,
        &Influences {
            joints: vec![vec![[0, 0, 0, 0], [1, 0, 0, 0]]],
            weights: Weights::F32(vec![vec![[1.0, 0.0, 0.0, 0.0]; 2]]),
        },
    )
    .unwrap();
    let out = ed.finish(Container::Glb).unwrap();
    dashvertex_gltf::load(&out, &dashvertex_gltf::NoFiles, &Limits::default()).unwrap()
}

#[test]
fn pruning_keeps_a_buffer_no_view_uses_whole() {
    let g = skinned_doc(|doc, _| {
        doc["buffers"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({
                "byteLength": 4,
                "uri": "data:application/octet-stream;base64,AQIDBA=="
            }));
    });
    let back = reexport(&g);
    assert_eq!(back.buffer(1).unwrap().unwrap(), &[1, 2, 3, 4]);
    assert_eq!(back.root.buffers[1].byte_length, 4);
    // The replaced accessors and their views are gone: 3 accessors, 3 views.
    assert_eq!(back.root.accessors.len(), 3);
    assert_eq!(back.root.buffer_views.len(), 3);
}

#[test]
fn a_trimmed_strided_view_keeps_at_least_one_stride_and_its_alignment() {
    // One interleaved view (stride 20) holding POSITION at 0 and the old JOINTS_0 at 12:
    // removing JOINTS leaves POSITION, and the view must stay ≥ 20 bytes.
    let g = skinned_doc(|doc, bin| {
        let mut inter = Vec::new();
        for v in 0..2u8 {
            for x in [f32::from(v), 0.0, 0.0] {
                inter.extend_from_slice(&x.to_le_bytes());
            }
            inter.extend_from_slice(&[v, 0, 0, 0]);
            inter.extend_from_slice(&[0; 4]);
        }
        let at = bin.len();
        bin.extend_from_slice(&inter);
        doc["bufferViews"].as_array_mut().unwrap().push(
            serde_json::json!({"buffer": 0, "byteOffset": at, "byteLength": 40, "byteStride": 20}),
        );
        doc["accessors"][0]["bufferView"] = 3.into();
        doc["accessors"][1]["bufferView"] = 3.into();
        doc["accessors"][1]["byteOffset"] = 12.into();
    });
    let back = reexport(&g);
    let pos = back.root.accessors[0].buffer_view.unwrap() as usize;
    let view = &back.root.buffer_views[pos];
    assert!(view.byte_length >= 20, "{view:?}");
    assert_eq!(
        (view.byte_offset + back.root.accessors[0].byte_offset) % 4,
        0
    );
    let a = dashvertex_gltf::accessor::read(&back, 0, &Limits::default()).unwrap();
    assert_eq!((a.get(1, 0), a.get(1, 1)), (1.0, 0.0));
}

#[test]
fn counts_that_overflow_keep_views_whole_without_panicking() {
    let g = skinned_doc(|doc, _| {
        doc["accessors"].as_array_mut().unwrap().push(serde_json::json!({
            "bufferView": 0, "componentType": 5126, "count": 288230376151711745u64, "type": "MAT4"
        }));
    });
    let mut ed = Editor::new(&g).unwrap();
    ed.set_influences(
        0,
        0,
        &Influences {
            joints: vec![vec![[0, 0, 0, 0], [1, 0, 0, 0]]],
            weights: Weights::F32(vec![vec![[1.0, 0.0, 0.0, 0.0]; 2]]),
        },
    )
    .unwrap();
    assert!(ed.finish(Container::Glb).is_ok());
}

/// R5.2: each bone's global rest matrix, built from the local transforms `rest::bones`
/// gives (nodes between bones folded in, matrix nodes decomposed), is its node's global
/// matrix in the scene, to binary32 rounding; per-bone attributes without a skin match the
/// nodes named like them. (Files bound at another pose than their nodes stand in, such as
/// RiggedFigure and CesiumMan, take the bind pose instead: R5.3, `rest_pose.rs` in
/// dashvertex-skin.)
// spec: R5.2
#[test]
fn bone_rest_poses_are_their_nodes_global_rest_matrices() {
    for file in [
        "fixtures/blender/rig24_all.glb",
        "fixtures/blender/rig_per_bone_attributes.gltf",
        "spec/vectors/reduce/per-bone-attributes-nodes.gltf",
    ] {
        let g = load(file);
        let views = import::primitives(&g, &Limits::default()).unwrap();
        let v = &views[0];
        let sk = v.skeleton.as_ref().unwrap();
        assert_eq!(sk.len(), v.bone_nodes.len(), "{file}");
        let nodes: Vec<u64> = v.bone_nodes.iter().map(|n| n.unwrap()).collect();
        let want = dashvertex_gltf::rest::node_globals(&g, &nodes);
        let got = sk.globals();
        let scale = want
            .iter()
            .flat_map(|m| [m[12], m[13], m[14]])
            .fold(1.0f64, |a, x| a.max(x.abs()));
        for (k, (a, b)) in got.iter().zip(&want).enumerate() {
            let worst = a
                .iter()
                .zip(b)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0, f64::max);
            assert!(
                worst <= 1e-5 * scale,
                "{file}: bone {k} ({}) is {worst} off its node",
                sk.bones[k].name
            );
        }
        if file.contains("per-bone") {
            assert!(v.skin.is_none() && !v.bone_attributes.is_empty(), "{file}");
        }
    }
}
