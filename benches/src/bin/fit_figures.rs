//! Figures of the fitted reduction (issue 51) on one glTF file, as ratios to plain top-K
//! measured in the same run: for each K, the largest and mean per-vertex displacement
//! over the fit's pose set and over the animations alone (the rest pose and the loss
//! report's moments), and the time the fit takes beside the plain reduction's.
//!
//! ```sh
//! cargo run --release -p dash-benches --bin fit_figures -- FILE.glb [K ...]
//! ```
//!
//! `FIT_EVERY=N` measures the displacement of every N-th vertex only (for large files;
//! the reduction and the fit still run on all of them).
//!
//! Two held-out figures follow, each fit measured on poses it never saw, against plain
//! on the same poses: "unseen animation", a fit on the rest pose and the range of motion
//! alone (what a file without animations gets), measured over the animations; "second half
//! held out", a fit on the rest pose, the first half of the animations' moments (in time)
//! and the range of motion, measured over the second half.

use std::time::Instant;

use dashvertex_core::Limits;
use dashvertex_core::par::prelude::*;
use dashvertex_reduce::fit::{FitOptions, Poses, fit};
use dashvertex_reduce::input::Input;
use dashvertex_reduce::manifest::Manifest;
use dashvertex_reduce::{Config, Normalize, Reduced};

/// Per vertex, the largest displacement at any pose of `poses` of `out` from the full
/// skinning of `input` (an evaluator of its own: every vertex skinned at every pose).
fn per_vertex(
    input: &Input<'_>,
    map: &[u32],
    pos: &[[f32; 3]],
    poses: &Poses,
    out: &Reduced,
    every: usize,
) -> Vec<f64> {
    let back: std::collections::HashMap<u32, u32> = map
        .iter()
        .enumerate()
        .map(|(b, &o)| (o, b as u32))
        .collect();
    let sets = out.sets;
    (0..input.len().div_ceil(every))
        .into_par_iter()
        .with_min_len(512)
        .map(|v| {
            let v = v * every;
            let x = pos[v].map(f64::from);
            let full: Vec<(u32, f64)> = input
                .candidates_of(v)
                .iter()
                .filter(|c| c.weight > 0.0)
                .map(|c| (c.bone, f64::from(c.weight)))
                .collect();
            let kept: Vec<(u32, f64)> = out.influences[v * sets..(v + 1) * sets]
                .iter()
                .flat_map(|s| s.pairs())
                .filter(|p| p.1 != 0.0)
                .map(|(o, w)| (back[&o], f64::from(w)))
                .collect();
            let mut most = 0.0f64;
            for p in 0..poses.len() {
                let mut d = [0.0; 3];
                for (list, sign) in [(&full, 1.0), (&kept, -1.0)] {
                    for &(b, w) in list.iter() {
                        let Some(m) = poses.get(p, b as usize) else {
                            continue;
                        };
                        for r in 0..3 {
                            d[r] += sign
                                * w
                                * (m[r * 4] * x[0]
                                    + m[r * 4 + 1] * x[1]
                                    + m[r * 4 + 2] * x[2]
                                    + m[r * 4 + 3]);
                        }
                    }
                }
                most = most.max((d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt());
            }
            most
        })
        .collect()
}

fn poses_of(rows: &[[f64; 12]], joints: usize) -> Poses {
    let mut p = Poses::new(joints);
    for pose in rows.chunks(joints.max(1)) {
        p.push(pose.iter().copied());
    }
    p
}

/// The poses `picks` of `fp`'s animation part (the rest pose is 0), then, when `motion`
/// is true, `fp`'s range of motion, grouped as the fit groups a glTF's pose set
/// (`poses_of`: the range of motion a group of its own after more than the rest pose).
fn subset(fp: &dashvertex_skin::FitPoses, picks: &[usize], motion: bool) -> Poses {
    let joints = fp.joints.max(1);
    let rows: Vec<&[[f64; 12]]> = fp.rows.chunks(joints).collect();
    let mut part = dashvertex_skin::FitPoses {
        joints: fp.joints,
        rows: picks
            .iter()
            .flat_map(|&i| rows[i].iter().copied())
            .collect(),
        animation_poses: picks.len(),
        motion_poses: 0,
        full: 0,
    };
    if motion {
        part.rows
            .extend_from_slice(&fp.rows[fp.animation_poses * joints..]);
        part.motion_poses = fp.motion_poses;
    }
    part.full = part.len();
    dashvertex_reduce::fit::gltf::poses_of(&part)
}

/// One line of figures: `plain` and `fitted` measured over `poses`.
#[allow(clippy::too_many_arguments)]
fn figures(
    label: &str,
    input: &Input<'_>,
    map: &[u32],
    pos: &[[f32; 3]],
    poses: &Poses,
    plain: &Reduced,
    fitted: &Reduced,
    every: usize,
) {
    let a = per_vertex(input, map, pos, poses, plain, every);
    let b = per_vertex(input, map, pos, poses, fitted, every);
    let worst = |m: &[f64]| m.iter().copied().fold(0.0, f64::max);
    let mean = |m: &[f64]| m.iter().sum::<f64>() / m.len().max(1) as f64;
    let larger = a.iter().zip(&b).filter(|(x, y)| y > x).count();
    println!(
        "  {label}: worst {:.6} -> {:.6} ({:.3}x), mean {:.6} -> {:.6} ({:.3}x); {larger} vertices larger by the max",
        worst(&a),
        worst(&b),
        worst(&b) / worst(&a),
        mean(&a),
        mean(&b),
        mean(&b) / mean(&a)
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(file) = args.first() else {
        eprintln!("usage: fit_figures FILE.glb [K ...]");
        std::process::exit(2);
    };
    let ks: Vec<usize> = if args.len() > 1 {
        args[1..].iter().map(|k| k.parse().unwrap()).collect()
    } else {
        vec![4, 2]
    };
    let every: usize = std::env::var("FIT_EVERY")
        .ok()
        .and_then(|e| e.parse().ok())
        .unwrap_or(1)
        .max(1);
    let limits = Limits::default();
    let g = dashvertex_gltf::load_path(std::path::Path::new(file), &limits).unwrap();
    let anims = dashvertex_skin::animations(&g, &limits).unwrap();
    let budget = dashvertex_skin::work_budget(&g, &anims);
    let inputs = dashvertex_reduce::gltf::inputs(&g, &limits).unwrap();
    for p in inputs.iter().filter(|p| p.skin.is_some()) {
        let skin = p.skin.unwrap();
        let joints = g.root.skins[skin].joints.len();
        // The joints some vertex weighs and the fit's work per pose, as `reduce --fit`
        // has them.
        let weighed = dashvertex_reduce::fit::used_bones(&p.input, joints);
        let used: Vec<usize> = (0..joints).filter(|&j| weighed[j]).collect();
        let per_pose = dashvertex_reduce::fit::fold_work(used.len());
        let t = Instant::now();
        let fp =
            dashvertex_skin::fit_poses(&g, skin, &anims, &used, &limits, budget, per_pose).unwrap();
        let pose_time = t.elapsed().as_secs_f64();
        let all = dashvertex_reduce::fit::gltf::poses_of(&fp);
        let an =
            dashvertex_skin::fit_poses(&g, skin, &anims, &[], &limits, budget, per_pose).unwrap();
        let anim = poses_of(&an.rows, joints);
        let pos = p.positions();
        let map = dashvertex_reduce::index_map(&p.input, &Manifest::init(&p.input.bones).unwrap())
            .unwrap();
        println!(
            "{file} mesh {} primitive {}: {} vertices, {} joints, {} poses ({} animation, {} range of motion; {:.3} s)",
            p.mesh,
            p.primitive,
            p.input.len(),
            joints,
            all.len(),
            fp.animation_poses,
            fp.motion_poses,
            pose_time
        );
        for &k in &ks {
            let cfg = Config::default()
                .with_max_influences(k)
                .with_normalize(Normalize::Unit);
            let t = Instant::now();
            let plain = dashvertex_reduce::reduce(&p.input, &map, None, &cfg).unwrap();
            let plain_time = t.elapsed().as_secs_f64();
            let mut fitted = plain.clone();
            let t = Instant::now();
            let rep = fit(
                &p.input,
                &map,
                &pos,
                &all,
                &cfg,
                &FitOptions::default(),
                &mut fitted,
            )
            .unwrap();
            let fit_time = t.elapsed().as_secs_f64();
            for (name, poses) in [("pose set", &all), ("animations", &anim)] {
                let label = format!("K={k} over the {name}");
                figures(&label, &p.input, &map, &pos, poses, &plain, &fitted, every);
            }
            // Held out: fits on part of the poses, measured on the rest.
            let moments = fp.animation_poses;
            if moments > 2 {
                let run = |poses: &Poses| {
                    let mut out = plain.clone();
                    fit(
                        &p.input,
                        &map,
                        &pos,
                        poses,
                        &cfg,
                        &FitOptions::default(),
                        &mut out,
                    )
                    .unwrap();
                    out
                };
                let unseen = run(&subset(&fp, &[0], true));
                let label = format!("K={k} unseen animation");
                figures(&label, &p.input, &map, &pos, &anim, &plain, &unseen, every);
                let first: Vec<usize> = (0..moments.div_ceil(2)).collect();
                let second: Vec<usize> = (moments.div_ceil(2)..moments).collect();
                let half = run(&subset(&fp, &first, true));
                let skipped = subset(&fp, &second, false);
                let label = format!("K={k} second half held out ({} of {moments})", second.len());
                figures(&label, &p.input, &map, &pos, &skipped, &plain, &half, every);
            }
            println!(
                "  K={k}: plain reduce {plain_time:.3} s, fit {fit_time:.3} s; {} of {} vertices fitted ({} greedy); pose group weights {:?}",
                rep.fitted, rep.considered, rep.greedy_support, rep.pose_group_weights
            );
        }
    }
}
