//! FBX input through the commands (spec/fbx.md): `dash-validate` and every writing command
//! on the Blender-made fixtures and the hand-written ASCII vectors; the influences of
//! `convert x.fbx y.json` against Blender's own FBX import (tolerance 1e-6 on raw
//! weights, skipped with a SKIPPED line without Blender); the converted glTF against the
//! official validator (skipped likewise without node, required with DASH_REQUIRE_ORACLE).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use dashvertex_testkit::oracle::{messages, oracle};
use dashvertex_testkit::{Scratch, assert_refused, files_under, repo, run_limited};

fn dash() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_dashvertex"))
}

fn validate() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_dash-validate"))
}

fn run(exe: &Path, dir: &Path, args: &[&str]) -> Output {
    run_limited(exe, dir, args, 60)
}

/// Every FBX the repository keeps that ufbx reads: Blender's binary exports and the
/// ASCII vectors (the truncated vector is read by no one).
fn readable() -> Vec<PathBuf> {
    let mut all = files_under(&repo().join("fixtures/fbx"), &["fbx"]);
    all.extend(
        files_under(&repo().join("spec/vectors/fbx"), &["fbx"])
            .into_iter()
            .filter(|p| !p.ends_with("truncated.fbx")),
    );
    assert!(all.len() >= 13, "{all:?}");
    all
}

#[test]
fn validate_reports_fbx_skins_and_refuses_damage() {
    let s = Scratch::new("fbx-validate");
    let faults = repo().join("fixtures/fbx/faults.fbx");
    let o = run(
        validate(),
        s.path(),
        &["--format", "json", faults.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let file = &report["files"][0];
    assert_eq!(file["format"], "fbx");
    let first = &file["diagnostics"][0];
    assert_eq!(first["code"], "FBX_WEIGHT_SUM");
    assert_eq!(first["location"]["object"], "Geometry::Body");
    assert_eq!(first["location"]["vertex"], 0);
    // Renamed, the bytes still say FBX.
    let renamed = s.path().join("faults.glb");
    std::fs::copy(&faults, &renamed).unwrap();
    let o = run(validate(), s.path(), &["faults.glb"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("FORMAT_NAME_MISMATCH") && out.contains("FBX_WEIGHT_SUM"),
        "{out}"
    );
    for (file, code, exit) in [
        ("fixtures/fbx/clean.fbx", "valid (fbx", 0),
        ("fixtures/fbx/static.fbx", "FBX_NO_SKIN", 0),
        ("spec/vectors/fbx/truncated.fbx", "FBX_READ", 1),
    ] {
        let o = run(validate(), s.path(), &[repo().join(file).to_str().unwrap()]);
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(exit), "{file}: {out}");
        assert!(out.contains(code), "{file}: {out}");
    }
}

#[test]
fn every_command_takes_fbx_and_none_writes_it() {
    let s = Scratch::new("fbx-commands");
    let faults = repo().join("fixtures/fbx/faults.fbx");
    let f = faults.to_str().unwrap();
    for args in [
        vec!["convert", f, "out.glb"],
        vec!["convert", f, "out.gltf"],
        vec!["convert", f, "out.json"],
        vec!["convert", f, "out.dmx"],
        vec!["reduce", f, "-o", "reduced.glb", "--report", "loss.json"],
        vec!["fix", f, "-o", "fixed.glb"],
        vec!["split", f, "-o", "split.glb", "--max-joints", "12"],
    ] {
        let o = run(dash(), s.path(), &args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {err}");
        assert!(
            err.contains("converted to metres and +Y up"),
            "{args:?}: {err}"
        );
    }
    // Every output is valid to dash (the DashVertex ones keep the raw sums: warnings).
    for out in [
        "out.glb",
        "out.gltf",
        "reduced.glb",
        "fixed.glb",
        "split.glb",
    ] {
        let o = run(validate(), s.path(), &[out]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{out}: {}",
            String::from_utf8_lossy(&o.stdout)
        );
    }
    // The loss report plays the FBX's animation.
    let loss: serde_json::Value =
        serde_json::from_slice(&std::fs::read(s.path().join("loss.json")).unwrap()).unwrap();
    assert_eq!(
        loss["displacement"]["primitives"][0]["poseSet"], "animations",
        "{loss}"
    );
    // Every influence of control point 5 (ten of 0.1) reaches DashVertex: three sets.
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(s.path().join("out.json")).unwrap()).unwrap();
    assert_eq!(json["vertex"].as_array().unwrap().len(), 24);
    assert_eq!(json["vertex"][5]["skinSets"].as_array().unwrap().len(), 2);
    // No command writes FBX.
    for args in [
        vec!["convert", f, "out.fbx"],
        vec!["reduce", f, "-o", "out.fbx"],
    ] {
        let o = run(dash(), s.path(), &args);
        assert_refused(&o, "FBX");
        assert!(!s.path().join("out.fbx").exists());
    }
}

/// What `fixtures/fbx/SCRIPT` writes, run by Blender on `fbx` (`-- IN OUT`), as JSON; None
/// without Blender.
fn blender_script(script: &str, fbx: &Path, dir: &Path) -> Option<serde_json::Value> {
    let out = dir.join(format!("{script}.json"));
    let run = Command::new("blender")
        .args([
            "-b",
            "--factory-startup",
            "--python-exit-code",
            "1",
            "--python",
        ])
        .arg(repo().join("fixtures/fbx").join(script))
        .arg("--")
        .args([fbx, &out])
        .output();
    match run {
        Err(_) => return None,
        Ok(o) => assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr)),
    }
    Some(serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap())
}

/// Blender's import of `fbx`: each mesh's vertices as {bone: weight}, or None without Blender.
fn blender_weights(fbx: &Path, dir: &Path) -> Option<Vec<BTreeMap<String, f64>>> {
    let v = blender_script("blender_weights.py", fbx, dir)?;
    let mut rows = Vec::new();
    for m in v["meshes"].as_array().unwrap() {
        for vx in m["vertices"].as_array().unwrap() {
            let row = vx.as_object().unwrap();
            rows.push(
                row.iter()
                    .map(|(k, w)| (k.clone(), w.as_f64().unwrap()))
                    .collect(),
            );
        }
    }
    Some(rows)
}

/// dash's DashVertex conversion of `fbx`: each vertex as {bone: weight} (zero weights out).
fn dash_weights(fbx: &Path, dir: &Path) -> Vec<BTreeMap<String, f64>> {
    let o = run(
        dash(),
        dir,
        &["convert", fbx.to_str().unwrap(), "dash.json"],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("dash.json")).unwrap()).unwrap();
    let names: Vec<String> = v["bone"]
        .as_array()
        .map(|b| {
            b.iter()
                .map(|x| x["name"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default();
    let mut rows = Vec::new();
    for vx in v["vertex"].as_array().unwrap() {
        let mut row = BTreeMap::new();
        let mut sets = vec![(&vx["skinIndex"], &vx["skinWeight"])];
        for s in vx["skinSets"].as_array().into_iter().flatten() {
            sets.push((&s["skinIndex"], &s["skinWeight"]));
        }
        for (idx, w) in sets {
            for (i, w) in idx
                .as_array()
                .into_iter()
                .flatten()
                .zip(w.as_array().into_iter().flatten())
            {
                let w = w.as_f64().unwrap();
                if w != 0.0 {
                    row.insert(names[i.as_u64().unwrap() as usize].clone(), w);
                }
            }
        }
        rows.push(row);
    }
    rows
}

#[test]
fn influences_by_bone_name_equal_blenders_import() {
    // Blender reads binary FBX only; the fixtures are Blender's binary exports.
    let s = Scratch::new("fbx-blender");
    let mut compared = 0;
    for fbx in files_under(&repo().join("fixtures/fbx"), &["fbx"]) {
        let Some(blender) = blender_weights(&fbx, s.path()) else {
            eprintln!(
                "SKIPPED: Blender is not installed; the FBX influences are not compared with Blender's import"
            );
            return;
        };
        let dash = dash_weights(&fbx, s.path());
        assert_eq!(dash.len(), blender.len(), "{}", fbx.display());
        for (v, (d, b)) in dash.iter().zip(&blender).enumerate() {
            assert_eq!(
                d.keys().collect::<Vec<_>>(),
                b.keys().collect::<Vec<_>>(),
                "{} vertex {v}",
                fbx.display()
            );
            for (bone, w) in d {
                assert!(
                    (w - b[bone]).abs() <= 1e-6,
                    "{} vertex {v} bone {bone}: dash {w}, Blender {}",
                    fbx.display(),
                    b[bone]
                );
            }
            compared += 1;
        }
    }
    eprintln!("{compared} vertices compared with Blender's import: all equal within 1e-6");
}

#[test]
fn converted_fbx_has_no_official_validator_error() {
    let s = Scratch::new("fbx-oracle");
    let mut outputs = Vec::new();
    for (i, fbx) in readable().iter().enumerate() {
        for ext in ["glb", "gltf"] {
            let out = s.path().join(format!("{i}.{ext}"));
            let o = run(
                dash(),
                s.path(),
                &["convert", fbx.to_str().unwrap(), out.to_str().unwrap()],
            );
            assert_eq!(
                o.status.code(),
                Some(0),
                "{}: {}",
                fbx.display(),
                String::from_utf8_lossy(&o.stderr)
            );
            outputs.push(out);
        }
    }
    let Some(lines) = oracle(&outputs) else {
        return;
    };
    for (line, out) in lines.iter().zip(&outputs) {
        let errors = messages(line, 0);
        assert!(errors.is_empty(), "{}: {errors:?}", out.display());
    }
    eprintln!("{} converted FBX files: 0 official errors", outputs.len());
}

/// Blender's Armature modifier on its import of `fbx` (fixtures/fbx/blender_deform.py): the
/// action's times, and the first mesh's vertices at the rest pose and at each time, in
/// glTF's axes; None without Blender.
#[allow(clippy::type_complexity)]
fn blender_deform(fbx: &Path, dir: &Path) -> Option<(Vec<f64>, Vec<[f64; 3]>, Vec<Vec<[f64; 3]>>)> {
    let v = blender_script("blender_deform.py", fbx, dir)?;
    let p = |x: &serde_json::Value| -> [f64; 3] { [0, 1, 2].map(|i| x[i].as_f64().unwrap()) };
    let rows =
        |x: &serde_json::Value| -> Vec<[f64; 3]> { x.as_array().unwrap().iter().map(p).collect() };
    let mesh = &v["meshes"][0];
    let times = v["times"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_f64().unwrap())
        .collect();
    let posed = mesh["posed"].as_array().unwrap().iter().map(rows).collect();
    Some((times, rows(&mesh["rest"]), posed))
}

#[test]
fn the_converted_gltf_draws_what_blender_draws_at_rest_and_every_frame() {
    let s = Scratch::new("fbx-deform");
    let fbx = repo().join("fixtures/fbx/clean.fbx");
    let Some((times, rest, posed)) = blender_deform(&fbx, s.path()) else {
        eprintln!(
            "SKIPPED: Blender is not installed; the converted FBX is not drawn against Blender's import"
        );
        return;
    };
    let glb = s.path().join("clean.glb");
    let o = run(
        dash(),
        s.path(),
        &["convert", fbx.to_str().unwrap(), glb.to_str().unwrap()],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let (frames, _) = crate::blender_loss::dash_positions(&glb, &times);
    let dist = |a: [f64; 3], b: [f64; 3]| {
        ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
    };
    // The action's first frame is the rest pose (its angles are 0): Blender draws it there.
    for (a, b) in posed[0].iter().zip(&rest) {
        assert!(dist(*a, *b) < 1e-6, "{a:?} vs {b:?}");
    }
    // Each glTF vertex is the Blender vertex drawn where it is drawn at that frame (the
    // converter may split a control point by its normals; each copy is drawn alike). The
    // POSITION values are not compared: a skinned mesh is drawn where its joints put it.
    let at: Vec<usize> = frames[0]
        .iter()
        .map(|&r| {
            let (i, d) = rest
                .iter()
                .enumerate()
                .map(|(i, b)| (i, dist(r, *b)))
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .unwrap();
            assert!(d < 1e-5, "no Blender vertex at {r:?} (nearest {d})");
            i
        })
        .collect();
    assert!(times.len() >= 3, "{times:?}");
    let mut worst = 0.0f64;
    let mut moved = 0.0f64;
    for (f, (dash, blender)) in frames.iter().zip(&posed).enumerate() {
        for (v, &b) in at.iter().enumerate() {
            let gap = dist(dash[v], blender[b]);
            worst = worst.max(gap);
            moved = moved.max(dist(blender[b], rest[b]));
            assert!(
                gap < 1e-5,
                "time {} vertex {v}: dash {:?}, Blender {:?}",
                times[f],
                dash[v],
                blender[b]
            );
        }
    }
    // The action really moves the strip: a test of skinning, not of the rest pose.
    assert!(moved > 0.5, "{moved}");
    eprintln!(
        "converted FBX vs Blender: {} vertices, {} frames, largest gap {worst:.2e} m (strip moved up to {moved:.3} m)",
        at.len(),
        times.len()
    );
}
