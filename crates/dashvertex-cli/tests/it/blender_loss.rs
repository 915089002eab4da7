//! dash's skinning and loss figures against Blender's own armature deform
//! (fixtures/blender/loss_rig.glb and loss_rig.positions.json, made by
//! fixtures/blender/make_loss_fixture.py with Blender 3.4.1): an 8-bone chain animated over 21
//! frames, 8 influences per vertex.

use std::path::Path;
use std::process::Command;

use dashvertex_core::{InfluenceSet, Limits};
use dashvertex_testkit::{Scratch, assert_refused, repo};

struct Blender {
    times: Vec<f64>,
    rest: Vec<[f64; 3]>,
    all: Vec<Vec<[f64; 3]>>,
    four: Vec<Vec<[f64; 3]>>,
}

fn blender() -> Blender {
    let v: serde_json::Value = serde_json::from_slice(
        &std::fs::read(repo().join("fixtures/blender/loss_rig.positions.json")).unwrap(),
    )
    .unwrap();
    let p = |x: &serde_json::Value| -> [f64; 3] { [0, 1, 2].map(|i| x[i].as_f64().unwrap()) };
    let frames = |k: &str| -> Vec<Vec<[f64; 3]>> {
        v[k].as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_array().unwrap().iter().map(p).collect())
            .collect()
    };
    Blender {
        times: v["times"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_f64().unwrap())
            .collect(),
        rest: v["rest"].as_array().unwrap().iter().map(p).collect(),
        all: frames("all"),
        four: frames("four"),
    }
}

/// Every vertex of `file`'s skinned primitive at each of `times`, skinned by dash.
pub(crate) fn dash_positions(file: &Path, times: &[f64]) -> (Vec<Vec<[f64; 3]>>, Vec<[f32; 3]>) {
    let limits = Limits::default();
    let g = dashvertex_gltf::load_path(file, &limits).unwrap();
    let rig = dashvertex_skin::Rig::new(&g);
    let anims = dashvertex_skin::animations(&g, &limits).unwrap();
    assert_eq!(anims.len(), 1, "one action");
    let prim = dashvertex_gltf::import::import(&g, &limits)
        .unwrap()
        .remove(0);
    let skin = dashvertex_skin::Skin::read(&g, prim.skin.unwrap(), &limits).unwrap();
    let mesh = &prim.document.mesh;
    let rest: Vec<[f32; 3]> = mesh.vertices().iter().map(|v| v.position).collect();
    let frames = times
        .iter()
        .map(|&t| {
            let j = skin.joint_matrices(&rig.globals(&anims[0].pose_at(rig.rest(), t)));
            (0..mesh.len())
                .map(|v| {
                    let sets: Vec<InfluenceSet> = mesh.sets_of(v).copied().collect();
                    dashvertex_skin::skin_point(rest[v], &sets, &j)
                })
                .collect()
        })
        .collect();
    (frames, rest)
}

fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

#[test]
fn skinning_and_displacement_match_blender_to_1e4_of_the_diagonal() {
    let b = blender();
    let original = repo().join("fixtures/blender/loss_rig.glb");
    let (all, rest) = dash_positions(&original, &b.times);
    // glTF vertex i is Blender vertex i (smooth shading, no UVs): the rest positions agree.
    assert_eq!(rest.len(), b.rest.len());
    for (d, e) in rest.iter().zip(&b.rest) {
        assert!(dist(d.map(f64::from), *e) < 1e-6);
    }
    let diagonal = dist([-0.3, 0.0, -0.3], [0.3, 4.0, 0.3]);
    let tolerance = 1e-4 * diagonal;
    let mut worst = 0.0f64;
    for (f, (dash, blender)) in all.iter().zip(&b.all).enumerate() {
        for (v, (d, e)) in dash.iter().zip(blender).enumerate() {
            let gap = dist(*d, *e);
            worst = worst.max(gap);
            assert!(
                gap < tolerance,
                "frame {f} vertex {v}: dash {d:?}, Blender {e:?}"
            );
        }
    }
    // The animation really moves the tube (a test of skinning, not of the rest pose).
    let moved = all[10]
        .iter()
        .zip(&b.rest)
        .map(|(d, r)| dist(*d, *r))
        .fold(0.0, f64::max);
    assert!(moved > 0.2, "{moved}");
    // Reduced by dash to the heaviest 4, renormalised: Blender deformed the same rule.
    let s = Scratch::new("blender-loss");
    let reduced = s.path().join("four.glb");
    let report = s.path().join("loss.json");
    let o = Command::new(env!("CARGO_BIN_EXE_dashvertex"))
        .args([
            "reduce",
            original.to_str().unwrap(),
            "-o",
            reduced.to_str().unwrap(),
        ])
        .args([
            "--max-influences",
            "4",
            "--normalize",
            "unit",
            "--report",
            report.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (four, _) = dash_positions(&reduced, &b.times);
    let mut blender_max = 0.0f64;
    for (f, (dash, blender)) in four.iter().zip(&b.four).enumerate() {
        for (v, (d, e)) in dash.iter().zip(blender).enumerate() {
            assert!(
                dist(*d, *e) < tolerance,
                "frame {f} vertex {v}: dash {d:?}, Blender {e:?}"
            );
            blender_max = blender_max.max(dist(b.all[f][v], *e));
        }
    }
    // The report's largest displacement is Blender's, to the same tolerance.
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let p = &r["displacement"]["primitives"][0];
    // Blender's frames are the keyframe times: compare dash's figure at those.
    assert_eq!(
        p["keyframeMoments"].as_u64(),
        Some(1 + b.times.len() as u64)
    );
    let dash_max = p["maxAtKeyframes"].as_f64().unwrap();
    assert!(p["max"].as_f64().unwrap() >= dash_max);
    assert!(
        blender_max > 10.0 * tolerance,
        "4 influences move the tube: {blender_max}"
    );
    assert!(
        (dash_max - blender_max).abs() < tolerance,
        "dash {dash_max}, Blender {blender_max}"
    );
    eprintln!(
        "largest gap to Blender {worst:.3e}; displacement dash {dash_max:.6} Blender {blender_max:.6}"
    );
}

#[test]
fn max_error_picks_more_than_4_influences_when_4_exceed_the_budget() {
    let original = repo().join("fixtures/blender/loss_rig.glb");
    let s = Scratch::new("max-error");
    let out = s.path().join("out.glb");
    let run = |k: &str, d: &str| {
        Command::new(env!("CARGO_BIN_EXE_dashvertex"))
            .args([
                "reduce",
                original.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ])
            .args([
                "--max-influences",
                k,
                "--normalize",
                "unit",
                "--max-error",
                d,
            ])
            .output()
            .unwrap()
    };
    // With 4 influences the tube's worst vertex moves by centimetres (the test above);
    // a budget of 1 mm needs more, and 8 (every influence) meet it.
    let o = run("4", "0.001");
    assert_refused(&o, "vertices still move more than --max-error 0.001");
    assert!(!out.exists(), "nothing written");
    let o = run("8", "0.001");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let said = String::from_utf8_lossy(&o.stderr).into_owned();
    let k: usize = said
        .split("--max-error 0.001: ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|k| k.parse().ok())
        .unwrap_or_else(|| panic!("{said}"));
    assert!((5..=8).contains(&k), "{said}");
    // The smallest such K: one fewer exceeds the budget.
    let o = run(&(k - 1).to_string(), "0.001");
    assert_eq!(o.status.code(), Some(1), "{k}");
}

#[test]
fn poses_from_another_file_measure_a_model_exported_without_them() {
    // loss_rig_static.glb is the same model exported without its action; loss_rig.glb's
    // action, matched by joint name, gives the same figures as the model's own.
    let dir = repo().join("fixtures/blender");
    let s = Scratch::new("poses");
    let run = |input: &str, extra: &[&str]| {
        let report = s.path().join(format!("{input}.json"));
        let o = Command::new(env!("CARGO_BIN_EXE_dashvertex"))
            .arg("reduce")
            .arg(dir.join(input))
            .arg("-o")
            .arg(s.path().join("out.glb"))
            .args(["--max-influences", "4", "--normalize", "unit", "--report"])
            .arg(&report)
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let r: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
        r
    };
    let own = run("loss_rig.glb", &[]);
    let still = run("loss_rig_static.glb", &[]);
    // Without animations the range-of-motion poses are measured, and labelled
    // (spec/reduction.md §4; before them the rest pose alone gave 0 by construction).
    assert_eq!(
        still["displacement"]["primitives"][0]["poseSet"],
        "rangeOfMotion"
    );
    assert!(
        still["note"]
            .as_str()
            .unwrap()
            .starts_with("displacement over the range-of-motion poses"),
        "{}",
        still["note"]
    );
    let posed = run(
        "loss_rig_static.glb",
        &["--poses", dir.join("loss_rig.glb").to_str().unwrap()],
    );
    let (a, b) = (
        &own["displacement"]["primitives"][0],
        &posed["displacement"]["primitives"][0],
    );
    assert_eq!(a["moments"], b["moments"]);
    assert!(
        (a["max"].as_f64().unwrap() - b["max"].as_f64().unwrap()).abs() < 1e-9,
        "{a} {b}"
    );
    assert!(posed["note"].is_null(), "{}", posed["note"]);
    // --poses alone is a usage error.
    let o = Command::new(env!("CARGO_BIN_EXE_dashvertex"))
        .arg("reduce")
        .arg(dir.join("loss_rig_static.glb"))
        .arg("-o")
        .arg(s.path().join("out.glb"))
        .arg("--poses")
        .arg(dir.join("loss_rig.glb"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn the_budget_refuses_what_it_cannot_measure_and_the_report_names_the_chosen_k() {
    let s = Scratch::new("budget-refusals");
    let out = s.path().join("out.glb");
    let dash = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_dashvertex"))
            .current_dir(repo())
            .args(args)
            .output()
            .unwrap()
    };
    let o = out.to_str().unwrap();
    // No skin: nothing can be measured, so no K can be said to meet the budget.
    let r = dash(&[
        "reduce",
        "spec/vectors/gltf/mesh-without-skin.gltf",
        "-o",
        o,
        "--normalize",
        "unit",
        "--max-error",
        "0.0000001",
    ]);
    // (No skin and no animation: refused either way; nothing is written.)
    assert!(
        matches!(r.status.code(), Some(1 | 2)),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    assert!(!out.exists());
    // No animation: the budget holds over the range-of-motion poses (it was a usage
    // error when the rest pose alone was measured, where every K moves nothing). With 4
    // influences of 8 the tube's vertices move centimetres there: refused, named.
    let r = dash(&[
        "reduce",
        "fixtures/blender/loss_rig_static.glb",
        "-o",
        o,
        "--normalize",
        "unit",
        "--max-error",
        "0.001",
    ]);
    assert_eq!(r.status.code(), Some(1));
    let e = String::from_utf8_lossy(&r.stderr);
    assert!(
        e.contains("over the range-of-motion poses") && e.contains("in range-of-motion pose"),
        "{e}"
    );
    assert!(!out.exists());
    // The report states the K written.
    let rep = s.path().join("r.json");
    let r = dash(&[
        "reduce",
        "fixtures/corpus/gltf/khronos_samples/CesiumMan.glb",
        "-o",
        o,
        "--normalize",
        "unit",
        "--max-influences",
        "4",
        "--max-error",
        "0.05",
        "--report",
        rep.to_str().unwrap(),
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&rep).unwrap()).unwrap();
    assert_eq!(
        v["maxInfluences"], 2,
        "CesiumMan within 0.05 needs 2 influences"
    );
    // --poses with DashVertex output is a usage error, not silently ignored.
    let r = dash(&[
        "reduce",
        "fixtures/blender/loss_rig_static.glb",
        "-o",
        s.path().join("o.json").to_str().unwrap(),
        "--report",
        rep.to_str().unwrap(),
        "--poses",
        "fixtures/blender/loss_rig.glb",
    ]);
    assert_eq!(
        r.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
}

/// A glTF whose one animation has `channels` rotation channels, all on sampler 0, whose
/// input accessor claims `keys` keyframes with no data behind it (zeros).
fn hostile_animation(keys: u64, channels: usize) -> String {
    let chans: Vec<serde_json::Value> = (0..channels)
        .map(|_| serde_json::json!({"sampler": 0, "target": {"node": 0, "path": "rotation"}}))
        .collect();
    serde_json::json!({
        "asset": {"version": "2.0"},
        "nodes": [{"name": "j", "children": [1]}, {"name": "k"}],
        "accessors": [
            {"componentType": 5126, "count": keys, "type": "SCALAR"},
            {"componentType": 5126, "count": keys, "type": "VEC4"}
        ],
        "animations": [{"samplers": [{"input": 0, "output": 1}], "channels": chans}]
    })
    .to_string()
}

#[test]
fn hostile_animations_cost_neither_memory_nor_time() {
    // 100 M keyframes claimed by a few hundred bytes, and 500 channels sharing them: refused
    // by the element budget before anything is read (spec/security.md [L2]); within it,
    // at the second (zero) time, the shared input read once for all channels (the CPU
    // time hardly grows from 62 channels to 496); within 256 MiB in a child process.
    let load = |keys: u64, channels: usize| -> dashvertex_gltf::Gltf {
        dashvertex_gltf::load(
            hostile_animation(keys, channels).as_bytes(),
            &dashvertex_gltf::NoFiles,
            &Limits::default(),
        )
        .unwrap()
    };
    let e = dashvertex_skin::animations(&load(100_000_000, 500), &Limits::default()).unwrap_err();
    assert!(e.to_string().contains("spec/security.md [L2]"), "{e}");
    // Within the budget, the zeros fail at the second time.
    let (few, many) = (load(400_000, 62), load(400_000, 496));
    let fail_at_second_time = |channels: usize| {
        let g = if channels == 62 { &few } else { &many };
        let e = dashvertex_skin::animations(g, &Limits::default()).unwrap_err();
        assert!(e.to_string().contains("strictly increasing"), "{e}");
    };
    // Read once: about 1×; read per channel: 8×.
    dashvertex_testkit::growth::assert_grows_at_most("channels", fail_at_second_time, 62, 4.0);
    // And as a child process under the address-space limit, end to end.
    let s = Scratch::new("hostile-anim");
    std::fs::write(s.path().join("a.gltf"), hostile_animation(100_000_000, 500)).unwrap();
    let o = dashvertex_testkit::run_limited(
        Path::new(env!("CARGO_BIN_EXE_dashvertex")),
        s.path(),
        &["reduce", "a.gltf", "-o", "b.gltf", "--report", "r.json"],
        20,
    );
    assert!(o.status.code().is_some_and(|c| c == 1 || c == 2), "{o:?}");
}
