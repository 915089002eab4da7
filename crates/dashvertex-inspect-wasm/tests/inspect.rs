//! The inspector module natively: dropped files give the report `dash-validate` gives
//! for the same files on disk, and the decode holds what the files hold.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::path::{Path, PathBuf};

use dashvertex_inspect_wasm::files::Dropped;
use dashvertex_inspect_wasm::reduced::Opened;
use dashvertex_inspect_wasm::scene;
use dashvertex_validate::{Options, Report};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn dropped(paths: &[&str]) -> Dropped {
    Dropped {
        files: paths
            .iter()
            .map(|p| {
                let path = repo().join(p);
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read(&path).unwrap())
            })
            .collect(),
    }
}

/// The report `dash-validate --format json NAME` prints, run in the file's folder (the
/// browser test compares with the command itself).
fn on_disk(path: &str) -> String {
    let path = repo().join(path);
    let name = path.file_name().unwrap().to_owned();
    let dir = path.parent().unwrap().to_owned();
    // validate_path resolves buffers from the file's folder; the report is labelled with
    // the bare name, as the command run in that folder labels it.
    let mut file = dashvertex_validate::validate_path(&dir.join(&name), &Options::default());
    file.file = Path::new(&name).display().to_string();
    // Worded as the command words its advice.
    dashvertex_app::advice::word_report(&mut file, &dashvertex_app::CommandLine);
    serde_json::to_string_pretty(&Report::new(vec![file])).unwrap()
}

#[test]
fn a_gltf_with_its_bin_reports_as_on_disk() {
    let files = [
        "fixtures/corpus/gltf/blenderio/03_skinned_cylinder/03_skinned_cylinder.gltf",
        "fixtures/corpus/gltf/blenderio/03_skinned_cylinder/03_skinned_cylinder.bin",
    ];
    let d = dropped(&files);
    assert_eq!(
        d.report_json(&Options::default()).unwrap(),
        on_disk(files[0])
    );
    // The .bin first: the document is still the .gltf.
    let d = dropped(&[files[1], files[0]]);
    assert_eq!(
        d.report_json(&Options::default()).unwrap(),
        on_disk(files[0])
    );
}

#[test]
fn a_broken_vector_reports_as_on_disk() {
    let f = "spec/vectors/gltf/weights-non-normalized.gltf";
    assert_eq!(
        dropped(&[f]).report_json(&Options::default()).unwrap(),
        on_disk(f)
    );
}

#[test]
fn the_decode_holds_the_skin_the_sets_and_the_animations() {
    let d = dropped(&["fixtures/corpus/gltf/khronos_samples/CesiumMan.glb"]);
    let gltf = d.load().unwrap().unwrap();
    let s = scene::decode(&gltf);
    assert!(s.problems.is_empty(), "{:?}", s.problems);
    assert_eq!(s.primitives.len(), 1);
    let p = &s.data[0];
    assert_eq!(p.positions.len(), 3 * p.info.vertex_count);
    assert_eq!(p.sets.len(), 1);
    assert_eq!(p.sets[0].weights.len(), 4 * p.info.vertex_count);
    assert!(p.indices.as_ref().is_some_and(|i| !i.is_empty()));
    assert_eq!(p.info.skin, Some(0));
    assert_eq!(s.skins[0].inverse_bind.len(), 16 * s.skins[0].joints.len());
    assert!(!s.animations.is_empty() && !s.animations[0].channels.is_empty());
    let c = &s.animations[0].channels[0];
    let width = if c.path == "rotation" { 4 } else { 3 };
    assert_eq!(c.values.len(), width * c.times.len());
}

#[test]
fn a_missing_buffer_is_a_problem_not_a_failure() {
    // The .gltf without its .bin: the report says the buffer is missing; the decode
    // draws nothing and says why.
    let d =
        dropped(&["fixtures/corpus/gltf/blenderio/03_skinned_cylinder/03_skinned_cylinder.gltf"]);
    let report: serde_json::Value =
        serde_json::from_str(&d.report_json(&Options::default()).unwrap()).unwrap();
    assert_eq!(report["files"][0]["valid"], false);
    if let Some(Ok(gltf)) = d.load() {
        let s = scene::decode(&gltf);
        assert!(s.data.is_empty() && !s.problems.is_empty());
    }
}

#[test]
fn reduced_glb_is_valid_deterministic_and_refuses_what_the_command_refuses() {
    let d = dropped(&["fixtures/corpus/gltf/khronos_samples/CesiumMan.glb"]);
    let gltf = Opened::new(d.load().unwrap().unwrap());
    let a = dashvertex_inspect_wasm::reduced::reduce_to_glb(&gltf, 2, false).unwrap();
    let b = dashvertex_inspect_wasm::reduced::reduce_to_glb(&gltf, 2, false).unwrap();
    assert_eq!(a, b);
    let report = dashvertex_validate::validate_bytes("out.glb", &a, &Options::default());
    assert_eq!(report.counts.errors, 0);
    // Fitted: valid too, and other weights than the plain reduction's.
    let f = dashvertex_inspect_wasm::reduced::reduce_to_glb(&gltf, 2, true).unwrap();
    let report = dashvertex_validate::validate_bytes("out.glb", &f, &Options::default());
    assert_eq!(report.counts.errors, 0);
    assert_ne!(f, a);
    let zero = dropped(&["spec/vectors/gltf/weights-all-zero.gltf"]);
    let gltf = Opened::new(zero.load().unwrap().unwrap());
    let refused = dashvertex_inspect_wasm::reduced::reduce_to_glb(&gltf, 2, false).unwrap_err();
    assert!(refused.0.contains("no influence"), "{refused}");
}

#[test]
fn fixed_glb_is_valid_and_a_clean_file_has_nothing_to_fix() {
    let d = dropped(&["spec/vectors/gltf/weights-negative.gltf"]);
    let gltf = Opened::new(d.load().unwrap().unwrap());
    let bytes = dashvertex_inspect_wasm::reduced::fix_to_glb(&gltf).unwrap();
    let report = dashvertex_validate::validate_bytes("out.glb", &bytes, &Options::default());
    assert_eq!(report.counts.errors, 0);
    let clean = dropped(&["fixtures/corpus/gltf/khronos_samples/CesiumMan.glb"]);
    let gltf = Opened::new(clean.load().unwrap().unwrap());
    let refused = dashvertex_inspect_wasm::reduced::fix_to_glb(&gltf).unwrap_err();
    assert!(refused.0.contains("nothing to fix"), "{refused}");
}

/// What the command writes to `out` from `path`: `dashvertex reduce PATH -o OUT
/// --max-influences K [--fit]` with `Some((k, fit))`, else `dashvertex fix PATH -o OUT`
/// with its defaults; both run by the job through its filesystem shell.
fn command_writes(path: &Path, out: &Path, reduce_to: Option<(usize, bool)>) -> Vec<u8> {
    use dashvertex_app::{Collect, Context, Neutral, fix, reduce};
    let log = Collect::default();
    let ctx = Context {
        limits: Default::default(),
        resource_dirs: &[],
        wait: false,
        words: &Neutral,
        log: &log,
    };
    match reduce_to {
        Some((k, fit)) => {
            let asked = reduce::Asked {
                max_influences: Some(k),
                ..Default::default()
            };
            let job = reduce::ReduceJob {
                config: reduce::settings(&asked, out, None, None, &Neutral).unwrap(),
                fit,
                ..reduce::ReduceJob::new(path, out, &ctx)
            };
            reduce::run(&job).unwrap();
        }
        None => {
            let job = fix::FixJob {
                policy: fix::policy(&fix::Asked::default(), path, None, &ctx).unwrap(),
                ..fix::FixJob::new(path, out, &ctx)
            };
            fix::run(&job).unwrap();
        }
    }
    std::fs::read(out).unwrap()
}

/// The page runs the reduce and fix jobs themselves: its bytes are the ones the command
/// writes with the same options (reduce plain and fitted, fix with its defaults), and a
/// file is refused for the work it would need, as the command refuses it.
#[test]
fn the_page_writes_the_bytes_the_command_writes() {
    use dashvertex_inspect_wasm::reduced::{fix_to_glb, reduce_to_glb};
    let dir = std::env::temp_dir().join(format!("dash-inspect-job-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("out.glb");
    let opened = |rel: &str| Opened::new(dropped(&[rel]).load().unwrap().unwrap());

    let rel = "fixtures/corpus/gltf/khronos_samples/CesiumMan.glb";
    let cesium = opened(rel);
    for fit in [false, true] {
        let page = reduce_to_glb(&cesium, 3, fit).unwrap();
        let command = command_writes(&repo().join(rel), &out, Some((3, fit)));
        assert!(command == page, "fit {fit}: the page's bytes differ");
    }
    // A fault in an animation refuses the fit, which skins the file, not the plain
    // reduction, which carries it.
    let rel = "spec/vectors/gltf/animation-input-not-increasing.gltf";
    let faulty = opened(rel);
    let page = reduce_to_glb(&faulty, 2, false).unwrap();
    let command = command_writes(&repo().join(rel), &out, Some((2, false)));
    assert!(command == page, "carried fault: the page's bytes differ");
    let refused = reduce_to_glb(&faulty, 2, true).unwrap_err();
    assert!(refused.0.contains("GLTF_ANIMATION_INPUT"), "{refused}");
    // The fix job with its defaults.
    let rel = "spec/vectors/gltf/weights-negative.gltf";
    let page = fix_to_glb(&opened(rel)).unwrap();
    let command = command_writes(&repo().join(rel), &out, None);
    assert!(command == page, "fix: the page's bytes differ");
    std::fs::remove_dir_all(&dir).unwrap();
}
