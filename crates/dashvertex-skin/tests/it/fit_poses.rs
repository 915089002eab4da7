//! The fit's pose set (spec/reduction.md §6, RF3) on real animated exports.

use dashvertex_core::Limits;
use dashvertex_skin::{animations, fit_poses};

fn load(rel: &str) -> dashvertex_gltf::Gltf {
    dashvertex_gltf::load_path(&dashvertex_testkit::repo().join(rel), &Limits::default()).unwrap()
}

#[test]
fn the_pose_set_is_the_rest_pose_the_loss_moments_and_the_range_of_motion() {
    // spec: RF3
    let g = load("fixtures/blender/loss_rig.glb");
    let limits = Limits::default();
    let anims = animations(&g, &limits).unwrap();
    let joints = g.root.skins[0].joints.len();
    let used: Vec<usize> = (0..joints).collect();
    let p = fit_poses(&g, 0, &anims, &used, &limits, u64::MAX, 0).unwrap();
    // 21 keyframes: the rest pose, 21 keys and 3 moments in each of 20 intervals; then
    // 6 turns of each of the 8 joints.
    assert_eq!((p.animation_poses, p.motion_poses, p.full), (82, 48, 130));
    assert_eq!(p.rows.len(), 130 * joints);
    // The rest pose comes first: every joint matrix the identity (global × inverse bind).
    for m in &p.rows[..joints] {
        let id = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0];
        for (a, b) in m.iter().zip(id) {
            assert!((a - b).abs() < 1e-5, "{m:?}");
        }
    }
    // A budget for 20 poses: 10 range-of-motion poses (evenly), the animations the rest.
    let cost = 16 * (8 + 8 + 1) as u64 + 24 + 1000;
    let q = fit_poses(&g, 0, &anims, &used, &limits, cost * 20, 1000).unwrap();
    assert_eq!(q.motion_poses, 10);
    assert!(
        q.animation_poses <= 10 && q.animation_poses >= 2,
        "{}",
        q.animation_poses
    );
    assert_eq!(q.full, 130);
    // Without animations: the rest pose and the range-of-motion poses.
    let r = fit_poses(&g, 0, &[], &used[..2], &limits, u64::MAX, 0).unwrap();
    assert_eq!((r.animation_poses, r.motion_poses), (1, 12));
    // Deterministic.
    assert_eq!(
        p,
        fit_poses(&g, 0, &anims, &used, &limits, u64::MAX, 0).unwrap()
    );
}
