//! `dashvertex remap` end to end: a Blender re-export remapped to the other export's manifest
//! passes `dash-validate --locked` (it failed before) and skins bit for bit as it did; a
//! `.gltf` output keeps its buffer beside it, and an input already in order is copied.

use dashvertex_core::Limits;
use dashvertex_gltf::{Gltf, import};
use dashvertex_skin::{Local, Pose, Rig, Skin, skin_point};
use dashvertex_testkit::{Scratch, repo};

use std::path::Path;
use std::process::{Command, Output};

fn run(exe: &str, args: &[&str]) -> Output {
    Command::new(exe)
        .current_dir(repo())
        .args(args)
        .output()
        .unwrap()
}

fn dash(args: &[&str]) -> Output {
    run(env!("CARGO_BIN_EXE_dashvertex"), args)
}

fn validate(args: &[&str]) -> Output {
    run(env!("CARGO_BIN_EXE_dash-validate"), args)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Rotates every node whose name has an even byte sum about a fixed axis, by an angle
/// from its name: the same pose for both files, whatever their numbering.
fn pose(g: &Gltf, turn: f64) -> Pose {
    let mut pose = Rig::new(g).rest().clone();
    for (i, n) in g.root.nodes.iter().enumerate() {
        let Some(name) = &n.name else { continue };
        let sum: u32 = name.bytes().map(u32::from).sum();
        if sum % 2 == 1 {
            continue;
        }
        let half = turn * f64::from(sum % 11) / 22.0;
        if let Local::Trs { t, s, .. } = pose.local[i] {
            pose.local[i] = Local::Trs {
                t,
                r: [0.0, half.sin(), 0.0, half.cos()],
                s,
            };
        }
    }
    pose
}

fn skinned_bits(g: &Gltf, pose: &Pose) -> Vec<[u64; 3]> {
    let globals = Rig::new(g).globals(pose);
    let mut out = Vec::new();
    for p in import::primitives(g, &Limits::default()).unwrap() {
        let joints = Skin::read(g, p.skin.unwrap(), &Limits::default())
            .unwrap()
            .joint_matrices(&globals);
        for v in 0..p.len() {
            let sets: Vec<_> = p.sets.iter().map(|s| s.get(v)).collect();
            out.push(skin_point(p.position(v), &sets, &joints).map(f64::to_bits));
        }
    }
    out
}

#[test]
fn a_remapped_blender_export_passes_locked_validation_and_skins_identically() {
    let dir = Scratch::new("remap-cli");
    let manifest = dir.path().join("rig25.json");
    let out = dir.path().join("rig24.gltf");
    let input = "fixtures/blender/rig24_all.glb";
    let o = dash(&[
        "manifest",
        "init",
        "fixtures/blender/rig25_all.glb",
        "-o",
        s(&manifest),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let locked = |file: &str| validate(&["--manifest", s(&manifest), "--locked", "-q", file]);
    let before = locked(input);
    assert_eq!(before.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&before.stdout).contains("JOINT_ORDER"));
    let o = dash(&[
        "remap",
        input,
        "--manifest",
        s(&manifest),
        "-o",
        s(&out),
        "--locked",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        dir.path().join("rig24.bin").is_file(),
        "the buffer is written beside"
    );
    let after = locked(s(&out));
    assert_eq!(
        after.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&after.stdout)
    );
    let a = dashvertex_gltf::load_path(&repo().join(input), &Limits::default()).unwrap();
    let b = dashvertex_gltf::load_path(&out, &Limits::default()).unwrap();
    for turn in [0.0, 0.7, -1.3, 2.9] {
        let (pa, pb) = (pose(&a, turn), pose(&b, turn));
        let (sa, sb) = (skinned_bits(&a, &pa), skinned_bits(&b, &pb));
        assert_eq!(sa.len(), sb.len());
        assert!(sa == sb, "turn {turn}: skinned positions differ");
        if turn != 0.0 {
            assert_ne!(
                sa,
                skinned_bits(&a, Rig::new(&a).rest()),
                "the pose moves nothing"
            );
        }
    }
    // In order now: copied byte for byte beside it; into another folder, the `.gltf`
    // (whose buffer is a file) is written anew with its buffer.
    let again = dir.path().join("again.gltf");
    let o = dash(&[
        "remap",
        s(&out),
        "--manifest",
        s(&manifest),
        "-o",
        s(&again),
    ]);
    assert!(o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("already in manifest order; copied unchanged")
    );
    assert_eq!(std::fs::read(&again).unwrap(), std::fs::read(&out).unwrap());
    let sub = dir.path().join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    let moved = sub.join("moved.gltf");
    let o = dash(&[
        "remap",
        s(&out),
        "--manifest",
        s(&manifest),
        "-o",
        s(&moved),
    ]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("rewritten unchanged"));
    assert!(sub.join("moved.bin").is_file());
    assert_eq!(locked(s(&moved)).status.code(), Some(0));
}
