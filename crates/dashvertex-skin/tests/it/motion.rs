//! The loss of a model no animation moves, computed by hand: over the range-of-motion
//! poses, read against the skinned rest-pose box (spec/reduction.md §4).

use dashvertex_core::Limits;
use dashvertex_skin::{Axis, PoseSet, loss};
use serde_json::json;

use super::{IDENTITY, document};

/// Root joint at the origin (scaled by `scale`), an arm joint 1 above it, no animation.
/// Vertex 0 at (0, 2, 0) is bound `arm` to the arm and the rest to the root; vertex 1 at
/// the origin wholly to the root; vertex 2 carries no weight. The inverse bind matrices
/// undo the arm's translation but not the root's scale, as an exporter that authored
/// the mesh in other units would leave them.
fn rig(scale: f64, arm: f32) -> dashvertex_gltf::Gltf {
    let mut ibm = IDENTITY.to_vec();
    let mut bind = IDENTITY;
    bind[13] = -1.0;
    ibm.extend_from_slice(&bind);
    document(
        json!({
            "nodes": [
                {"name": "root", "children": [1], "scale": [scale, scale, scale]},
                {"name": "arm", "translation": [0.0, 1.0, 0.0]},
                {"name": "body", "mesh": 0, "skin": 0}
            ],
            "skins": [{"joints": [0, 1], "inverseBindMatrices": 0}],
            "meshes": [{"primitives": [{"attributes": {
                "POSITION": 1, "JOINTS_0": 2, "WEIGHTS_0": 3}}]}]
        }),
        &[
            ("MAT4", &ibm),
            ("VEC3", &[0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 5.0, 5.0, 5.0]),
            (
                "JOINTS",
                &[0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            ),
            (
                "VEC4",
                &[
                    1.0 - arm,
                    arm,
                    0.0,
                    0.0,
                    1.0,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                ],
            ),
        ],
    )
}

#[test]
fn dropping_half_a_turning_arm_moves_the_vertex_by_the_sine_of_half_the_turn() {
    // spec: LR1 LD1
    let limits = Limits::default();
    for scale in [1.0, 100.0] {
        let original = rig(scale, 0.5);
        let reduced = rig(scale, 0.0);
        let l = loss(&original, &reduced, &limits).unwrap();
        assert_eq!(l.len(), 1);
        let p = &l[0];
        assert_eq!(p.pose_set, PoseSet::RangeOfMotion);
        // The rest pose and 6 turns of each used joint (both carry weight).
        assert_eq!((p.moments, p.moments_full), (1 + 6 * 2, 1 + 6 * 2));
        // The arm turned 45° takes its half of the vertex from (0, 2, 0) to
        // (0, 1, 0) + 1 × (a unit vector 45° off): 2 sin 22.5° away; half of it counts.
        // A turn of the root moves both skinnings alike: nothing. Scaled by the root,
        // everything is `scale` times larger.
        let expected = scale * (std::f64::consts::PI / 8.0).sin();
        assert!((p.max - expected).abs() < 1e-9 * scale, "{p:?}");
        let w = &p.worst[0];
        assert_eq!(w.vertex, 0);
        let pose = w.at.pose.as_ref().unwrap();
        assert_eq!(pose.joint, 1, "{pose:?}");
        assert_eq!(pose.name.as_deref(), Some("arm"));
        assert_eq!(pose.degrees.abs(), 45.0);
        assert!(matches!(pose.axis, Axis::X | Axis::Z), "{pose:?}");
        assert!(w.at.describe().starts_with("in range-of-motion pose "));
        // The box is of the skinned rest pose: vertices 0 and 1, `scale` × 2 apart (the
        // weightless vertex 2 skins to the origin and is left out), not the POSITION
        // box (from the origin to (5, 5, 5)).
        assert!((p.diagonal - 2.0 * scale).abs() < 1e-9 * scale, "{p:?}");
    }
}

#[test]
fn a_vertex_on_one_joint_moves_nothing_in_any_pose() {
    // Nothing dropped: the same skinning before and after, over every pose.
    let limits = Limits::default();
    let l = loss(&rig(1.0, 0.0), &rig(1.0, 0.0), &limits).unwrap();
    assert_eq!(l[0].pose_set, PoseSet::RangeOfMotion);
    // Only the root carries weight: its 6 turns.
    assert_eq!(l[0].moments, 1 + 6);
    assert_eq!(l[0].max, 0.0);
    assert!(l[0].worst.is_empty());
}
