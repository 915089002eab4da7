//! The rest pose survives glTF → DashVertex → glTF: the same vertices skinned through the
//! original file and through the file written back from the DashVertex document land on
//! the same positions at several poses.

use dashvertex_core::Limits;
use dashvertex_core::math::{self, normalize};
use dashvertex_gltf::export::BufferFiles;
use dashvertex_gltf::{Container, Gltf};
use dashvertex_skin::{Local, Rig, Skin, skin_point};

/// Every vertex of primitive 0 skinned with `gltf`'s skin 0, after turning each named node
/// by the given quaternion on top of its rest rotation.
fn skinned(gltf: &Gltf, turns: &[(&str, [f64; 4])]) -> Vec<[f64; 3]> {
    let limits = Limits::default();
    let rig = Rig::new(gltf);
    let mut pose = rig.rest().clone();
    for (name, q) in turns {
        let i = gltf
            .root
            .nodes
            .iter()
            .position(|n| n.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no node {name}"));
        let (t, r, s) = match pose.local[i] {
            Local::Trs { t, r, s } => (t, r, s),
            Local::Matrix(m) => math::decompose(&m),
        };
        let [ax, ay, az, aw] = r;
        let [bx, by, bz, bw] = *q;
        // r × q: the turn in the node's own frame.
        let r = [
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz,
        ];
        pose.local[i] = Local::Trs {
            t,
            r: normalize(r),
            s,
        };
    }
    let globals = rig.globals(&pose);
    let prims = dashvertex_gltf::import::import(gltf, &limits).unwrap();
    let prim = &prims[0];
    let skin = Skin::read(gltf, prim.skin.unwrap(), &limits).unwrap();
    let joints = skin.joint_matrices(&globals);
    let mesh = &prim.document.mesh;
    (0..mesh.len())
        .map(|v| skin_point(mesh.vertices()[v].position, mesh.sets_of(v), &joints))
        .collect()
}

fn axis_angle(axis: [f64; 3], degrees: f64) -> [f64; 4] {
    let h = degrees.to_radians() / 2.0;
    let n = (axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]).sqrt();
    let s = h.sin() / n;
    [axis[0] * s, axis[1] * s, axis[2] * s, h.cos()]
}

/// glTF → DashVertex (through its JSON text) → glTF, then both skinned at the rest pose
/// and four bent poses. The written skin's inverse bind matrices are the inverses of the
/// bones' global rest matrices, each stored once in binary32, and the bones' transforms
/// are binary32 too, so positions agree to a few binary32 steps of the model's size:
/// at most 1e-5 of the bounding-box diagonal (seen: 1.2e-7 m on the Blender rig, whose
/// diagonal is 2.87 m, at every pose; 1.2e-7 on CesiumMan at its rest pose).
fn round_trip(file: &str, poses: &[Vec<(&str, [f64; 4])>], bound_at_rest: bool) {
    let limits = Limits::default();
    let path = dashvertex_testkit::repo().join(file);
    let original = dashvertex_gltf::load_path(&path, &limits).unwrap();
    let prims = dashvertex_gltf::import::import(&original, &limits).unwrap();
    let doc = prims[0].document.clone();
    let sk = doc.skeleton.as_ref().unwrap();
    assert!(
        sk.bones.iter().any(|b| b.position != [0.0; 3]),
        "{file}: the bones keep their rest positions"
    );
    // Through DashVertex JSON text and back.
    let text = dashvertex_json::encode_document(&doc).unwrap();
    let doc = dashvertex_json::decode(&text, &limits).unwrap().document;
    let written =
        dashvertex_gltf::from_dash::write(&doc, Container::Glb, &BufferFiles::Embed).unwrap();
    let back = dashvertex_gltf::load(&written.main, &dashvertex_gltf::NoFiles, &limits).unwrap();
    let rest: Vec<[f64; 3]> = doc
        .mesh
        .vertices()
        .iter()
        .map(|v| v.position.map(f64::from))
        .collect();
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for p in &rest {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    let diagonal =
        ((hi[0] - lo[0]).powi(2) + (hi[1] - lo[1]).powi(2) + (hi[2] - lo[2]).powi(2)).sqrt();
    let tolerance = 1e-5 * diagonal;
    let mut all = vec![Vec::new()];
    all.extend(poses.iter().cloned());
    for (k, pose) in all.iter().enumerate() {
        let b = skinned(&back, pose);
        if !bound_at_rest {
            // Bound at another pose than the nodes stand in: the DashVertex bones hold
            // the bind pose, so only the rest pose can be compared (below), with the
            // vertices themselves.
            assert_eq!(k, 0);
        } else {
            let a = skinned(&original, pose);
            assert_eq!(a.len(), b.len());
            let worst = a
                .iter()
                .zip(&b)
                .map(|(p, q)| {
                    ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt()
                })
                .fold(0.0, f64::max);
            assert!(
                worst <= tolerance,
                "{file} pose {k}: vertices differ by up to {worst} (tolerance {tolerance})"
            );
        }
        if pose.is_empty() {
            // At the rest pose the written file gives the DashVertex positions back.
            let moved = b
                .iter()
                .zip(&rest)
                .map(|(p, q)| (0..3).map(|i| (p[i] - q[i]).abs()).fold(0.0, f64::max))
                .fold(0.0, f64::max);
            assert!(
                moved <= tolerance,
                "{file}: rest pose moves vertices by {moved}"
            );
        }
    }
    // A bent pose does move vertices, so the comparison above is not vacuous.
    if let Some(pose) = poses.first() {
        let bent = skinned(&back, pose);
        assert!(
            bent.iter()
                .zip(&rest)
                .any(|(p, q)| (p[1] - q[1]).abs() > 1e-3)
        );
    }
}

// spec: R5.6
#[test]
fn blender_rig_skins_the_same_through_dashvertex_at_every_pose() {
    round_trip(
        "fixtures/blender/rig24_all.glb",
        &[
            vec![("head", axis_angle([1.0, 0.0, 0.0], 40.0))],
            vec![
                ("spine_02", axis_angle([0.0, 0.0, 1.0], 25.0)),
                ("arm_l_02", axis_angle([1.0, 1.0, 0.0], 70.0)),
            ],
            vec![("leg_r_01", axis_angle([1.0, 0.0, 0.0], -60.0))],
            vec![
                ("root", axis_angle([0.0, 1.0, 0.0], 90.0)),
                ("hand_r", axis_angle([0.0, 0.0, 1.0], 45.0)),
            ],
        ],
        true,
    );
}

/// CesiumMan's inverse bind matrices are not its nodes' rest pose: the DashVertex bones
/// take the bind pose, and the file written back gives the vertices at its rest pose.
#[test]
fn cesium_man_keeps_its_bind_pose_through_dashvertex() {
    round_trip(
        "fixtures/corpus/gltf/khronos_samples/CesiumMan.glb",
        &[],
        false,
    );
}
