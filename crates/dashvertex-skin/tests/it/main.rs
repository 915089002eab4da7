//! Integration tests of dashvertex-skin: a two-bone rig computed by hand, every
//! interpolation mode, and real animated files.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod fit_poses;
mod motion;
mod rest_pose;

use base64::Engine;
use dashvertex_core::{InfluenceSet, Limits};
use dashvertex_skin::{Rig, Skin, animations, skin_point};
use serde_json::json;

/// A document whose accessors are the given f32 arrays (SCALAR, VEC3, VEC4 or MAT4 by
/// `kind`; `JOINTS`: VEC4 of unsigned shorts, the values converted), packed into one
/// embedded buffer.
fn document(mut doc: serde_json::Value, arrays: &[(&str, &[f32])]) -> dashvertex_gltf::Gltf {
    let mut bytes = Vec::new();
    let mut views = Vec::new();
    let mut accessors = Vec::new();
    for (kind, values) in arrays {
        let per = match *kind {
            "SCALAR" => 1,
            "VEC3" => 3,
            "VEC4" | "JOINTS" => 4,
            "MAT4" => 16,
            _ => unreachable!(),
        };
        let start = bytes.len();
        let (ty, component) = if *kind == "JOINTS" {
            for v in *values {
                #[allow(
                    clippy::cast_possible_truncation,
                    clippy::cast_sign_loss,
                    reason = "small joint numbers written as floats by the tests"
                )]
                let j = *v as u16;
                bytes.extend_from_slice(&j.to_le_bytes());
            }
            ("VEC4", 5123)
        } else {
            for v in *values {
                bytes.extend_from_slice(&v.to_le_bytes());
            }
            (*kind, 5126)
        };
        views.push(json!({"buffer": 0, "byteOffset": start, "byteLength": bytes.len() - start}));
        accessors.push(
            json!({"bufferView": views.len() - 1, "componentType": component,
            "count": values.len() / per, "type": ty}),
        );
        while bytes.len() % 4 != 0 {
            bytes.push(0);
        }
    }
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bytes)
    );
    doc["asset"] = json!({"version": "2.0"});
    doc["buffers"] = json!([{"byteLength": bytes.len(), "uri": uri}]);
    doc["bufferViews"] = json!(views);
    doc["accessors"] = json!(accessors);
    let text = serde_json::to_vec(&doc).unwrap();
    dashvertex_gltf::load(&text, &dashvertex_gltf::NoFiles, &Limits::default()).unwrap()
}

const IDENTITY: [f32; 16] = [
    1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1.,
];

/// Root joint at the origin, an arm joint 1 above it; the arm turns 90° about Z over one
/// second (LINEAR); other animations move the root by STEP and CUBICSPLINE.
fn two_bones() -> dashvertex_gltf::Gltf {
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let mut ibm = IDENTITY.to_vec();
    let mut arm = IDENTITY;
    arm[13] = -1.0; // inverse of the arm's bind: translation (0, -1, 0)
    ibm.extend_from_slice(&arm);
    document(
        json!({
            "nodes": [
                {"name": "root", "children": [1]},
                {"name": "arm", "translation": [0.0, 1.0, 0.0]},
                {"name": "body", "skin": 0}
            ],
            "skins": [{"joints": [0, 1], "inverseBindMatrices": 0}],
            "animations": [
                {"name": "turn", "samplers": [{"input": 1, "output": 2}],
                 "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}]},
                {"name": "hop", "samplers": [{"input": 1, "output": 3, "interpolation": "STEP"}],
                 "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]},
                {"name": "glide", "samplers": [{"input": 1, "output": 4, "interpolation": "CUBICSPLINE"}],
                 "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]}
            ]
        }),
        &[
            ("MAT4", &ibm),
            ("SCALAR", &[0.0, 1.0]),
            ("VEC4", &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, h, h]),
            ("VEC3", &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0]),
            // in-tangent, value, out-tangent per keyframe
            (
                "VEC3",
                &[
                    0., 0., 0., 0., 0., 0., 3., 0., 0., 0., 0., 0., 1., 0., 0., 0., 0., 0.,
                ],
            ),
        ],
    )
}

fn close(a: [f64; 3], b: [f64; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6)
}

#[test]
fn a_vertex_bound_half_to_a_turning_arm_moves_as_computed_by_hand() {
    let g = two_bones();
    let rig = Rig::new(&g);
    let skin = Skin::read(&g, 0, &Limits::default()).unwrap();
    let anims = animations(&g, &Limits::default()).unwrap();
    let turn = &anims[0];
    assert_eq!(turn.name.as_deref(), Some("turn"));
    assert_eq!(turn.times(), [0.0, 1.0]);
    let p = [0.0f32, 2.0, 0.0];
    let sets = [InfluenceSet::from_pairs(&[(0, 0.5), (1, 0.5)]).unwrap()];
    let at = |t: f64| {
        let pose = turn.pose_at(rig.rest(), t);
        skin_point(p, &sets, &skin.joint_matrices(&rig.globals(&pose)))
    };
    // Rest = bind pose: the vertex stays where it is.
    assert!(close(at(0.0), [0.0, 2.0, 0.0]));
    // 90°: the arm carries its half to (-1, 1, 0); the root keeps (0, 2, 0).
    assert!(close(at(1.0), [-0.5, 1.5, 0.0]), "{:?}", at(1.0));
    // 45° (slerp halfway): 0.5 (0, 2, 0) + 0.5 (-√2/2, 1 + √2/2, 0).
    let r = std::f64::consts::SQRT_2 / 4.0;
    assert!(close(at(0.5), [-r, 1.5 + r, 0.0]), "{:?}", at(0.5));
    // Clamped outside the keyframes.
    assert_eq!(at(-3.0), at(0.0));
    assert_eq!(at(7.0), at(1.0));
    // Bound wholly to the root, the vertex ignores the arm.
    let root = [InfluenceSet::from_pairs(&[(0, 1.0)]).unwrap()];
    let pose = turn.pose_at(rig.rest(), 1.0);
    assert_eq!(
        skin_point(p, &root, &skin.joint_matrices(&rig.globals(&pose))),
        [0.0, 2.0, 0.0]
    );
}

#[test]
fn step_and_cubic_spline_sampling() {
    let g = two_bones();
    let anims = animations(&g, &Limits::default()).unwrap();
    let hop = &anims[1].channels[0];
    assert_eq!(hop.sample(0.5)[..3], [0.0, 0.0, 0.0]);
    assert_eq!(hop.sample(1.0)[..3], [1.0, 0.0, 0.0]);
    let glide = &anims[2].channels[0];
    // Hermite at u = 0.5 with out-tangent 3 at key 0 and in-tangent 0 at key 1:
    // 0.5·0 + 0.125·1·3 + 0.5·1 − 0.125·1·0 = 0.875.
    assert!((glide.sample(0.5)[0] - 0.875).abs() < 1e-12);
    assert_eq!(glide.sample(0.0)[0], 0.0);
    assert_eq!(glide.sample(1.0)[0], 1.0);
}

#[test]
fn malformed_animations_are_refused_not_guessed() {
    let g = document(
        json!({"nodes": [{}],
               "animations": [{"samplers": [{"input": 0, "output": 1}],
                 "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]}]}),
        &[("SCALAR", &[1.0, 0.5]), ("VEC3", &[0.0; 6])],
    );
    let e = animations(&g, &Limits::default()).unwrap_err().to_string();
    assert!(e.contains("strictly increasing"), "{e}");
}

#[test]
fn real_animated_files_skin_to_finite_positions_the_same_way_every_time() {
    for name in [
        "CesiumMan.glb",
        "RiggedFigure.glb",
        "RiggedSimple.glb",
        "Fox.glb",
    ] {
        let path = dashvertex_testkit::repo()
            .join("fixtures/corpus/gltf/khronos_samples")
            .join(name);
        let g = dashvertex_gltf::load_path(&path, &Limits::default()).unwrap();
        let rig = Rig::new(&g);
        let anims = animations(&g, &Limits::default()).unwrap();
        assert!(!anims.is_empty(), "{name} has animations");
        let prims = dashvertex_gltf::import::import(&g, &Limits::default()).unwrap();
        let prim = &prims[0];
        let skin = Skin::read(&g, prim.skin.unwrap(), &Limits::default()).unwrap();
        let mesh = &prim.document.mesh;
        let run = || {
            let mut out = Vec::new();
            for a in &anims {
                for t in a.times().into_iter().step_by(7) {
                    let j = skin.joint_matrices(&rig.globals(&a.pose_at(rig.rest(), t)));
                    for v in (0..mesh.len()).step_by(13) {
                        let sets: Vec<InfluenceSet> = mesh.sets_of(v).copied().collect();
                        out.push(skin_point(mesh.vertices()[v].position, &sets, &j));
                    }
                }
            }
            out
        };
        let first = run();
        assert!(!first.is_empty());
        assert!(first.iter().flatten().all(|x| x.is_finite()), "{name}");
        assert_eq!(first, run(), "{name}: deterministic");
    }
}

#[test]
fn only_the_joints_and_their_ancestors_are_needed_parents_first() {
    // spec: LW1
    let g = document(
        json!({"nodes": [
            {"name": "root", "children": [2]},
            {"name": "other", "children": [3]},
            {"name": "mid", "children": [4]},
            {"name": "leaf of other"},
            {"name": "joint"},
            {"name": "loose"}
        ]}),
        &[],
    );
    let rig = Rig::new(&g);
    assert_eq!(rig.needed([4]), [0, 2, 4]);
    // Every node once, however many joints share an ancestor; names past the end are
    // left out.
    assert_eq!(rig.needed([4, 2, 0, 4, 99]), [0, 2, 4]);
    assert_eq!(rig.needed([5, 3]), [1, 3, 5]);
    assert_eq!(rig.parent(4), Some(2));
}
