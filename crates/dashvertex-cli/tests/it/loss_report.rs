//! The loss report means something (spec/reduction.md §4): its share is of the skinned
//! rest-pose diagonal, the space the displacement is measured in, whatever scale the
//! skeleton applies; a model no animation moves is measured over the range-of-motion
//! poses, labelled, within the work budget, the same at any thread count.

use std::path::Path;
use std::process::{Command, Output};

use dashvertex_testkit::animated::AnimatedGlb;
use dashvertex_testkit::{Scratch, repo};

fn dash(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dashvertex"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `reduce IN -o out.glb --max-influences K --normalize unit --report r.json`, which must
/// succeed: its report and its terminal text.
fn reduced(dir: &Path, input: &str, k: &str, extra: &[&str]) -> (serde_json::Value, String) {
    let mut args = vec![
        "reduce",
        input,
        "-o",
        "out.glb",
        "--max-influences",
        k,
        "--normalize",
        "unit",
        "--report",
        "r.json",
    ];
    args.extend_from_slice(extra);
    let o = dash(dir, &args);
    assert!(o.status.success(), "{input}: {}", stderr(&o));
    let r = serde_json::from_slice(&std::fs::read(dir.join("r.json")).unwrap()).unwrap();
    (r, stderr(&o))
}

/// `glb` with its JSON changed by `edit`.
fn edited(glb: &[u8], edit: impl FnOnce(&mut serde_json::Value)) -> Vec<u8> {
    let len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let mut doc: serde_json::Value = serde_json::from_slice(&glb[20..20 + len]).unwrap();
    let rest = &glb[20 + len..];
    let bin_len = u32::from_le_bytes(rest[0..4].try_into().unwrap()) as usize;
    let bin = &rest[8..8 + bin_len];
    edit(&mut doc);
    dashvertex_gltf::glb::build(&serde_json::to_vec(&doc).unwrap(), Some(bin)).unwrap()
}

/// The diagonal of the POSITION accessor's declared box.
fn raw_diagonal(doc_glb: &[u8]) -> f64 {
    let len = u32::from_le_bytes(doc_glb[12..16].try_into().unwrap()) as usize;
    let doc: serde_json::Value = serde_json::from_slice(&doc_glb[20..20 + len]).unwrap();
    let a = &doc["accessors"][0];
    (0..3)
        .map(|c| (a["max"][c].as_f64().unwrap() - a["min"][c].as_f64().unwrap()).powi(2))
        .sum::<f64>()
        .sqrt()
}

#[test]
fn the_share_is_of_the_skinned_rest_pose_diagonal_whatever_the_skeleton_scales() {
    // spec: LD1
    // A joint chain whose root node scales everything by 100 and whose inverse bind
    // matrices do not undo it (a model authored in centimetres under a metre skeleton,
    // as robot_expressive.glb is): the skinned mesh is 100 times its POSITION box, and so
    // is every displacement. Before the fix the share was max ÷ the raw POSITION
    // diagonal, 100 times too large (here about 1,000 %).
    let s = Scratch::new("loss-scaled");
    let d = s.path();
    for keyframes in [10, 0] {
        let plain = AnimatedGlb {
            keyframes,
            ..AnimatedGlb::default()
        }
        .build();
        let scaled = edited(&plain, |doc| {
            doc["nodes"][1]["scale"] = serde_json::json!([100.0, 100.0, 100.0]);
        });
        std::fs::write(d.join("plain.glb"), &plain).unwrap();
        std::fs::write(d.join("scaled.glb"), &scaled).unwrap();
        let raw = raw_diagonal(&scaled);
        let (a, _) = reduced(d, "plain.glb", "1", &[]);
        let (b, text) = reduced(d, "scaled.glb", "1", &[]);
        let (a, b) = (
            &a["displacement"]["primitives"][0],
            &b["displacement"]["primitives"][0],
        );
        let f = |p: &serde_json::Value, k: &str| p[k].as_f64().unwrap();
        // The skinned rest pose is the POSITION box times 100 (the plain file's rest pose
        // is its bind pose, so there the two boxes agree).
        assert!((f(a, "diagonal") / raw - 1.0).abs() < 1e-6, "{a}");
        assert!((f(b, "diagonal") / (100.0 * raw) - 1.0).abs() < 1e-6, "{b}");
        assert!(
            f(b, "max") > 50.0 * f(a, "max") && f(a, "max") > 0.0,
            "{a} {b}"
        );
        // The share is max ÷ skinned diagonal, and the same for both: a scale changes
        // neither.
        for p in [a, b] {
            assert_eq!(f(p, "maxOfDiagonal"), f(p, "max") / f(p, "diagonal"), "{p}");
        }
        assert!(
            (f(b, "maxOfDiagonal") / f(a, "maxOfDiagonal") - 1.0).abs() < 1e-6,
            "{a} {b}"
        );
        // (Of the raw POSITION box it would be 100 times this, tens of times the model.)
        assert!(f(b, "maxOfDiagonal") < 1.0, "{b}");
        // The terminal prints the same share, of the same diagonal.
        let share = format!(
            "({:.3}% of the skinned rest-pose bounding-box diagonal {:.6})",
            100.0 * f(b, "max") / f(b, "diagonal"),
            f(b, "diagonal")
        );
        assert!(text.contains(&share), "{share}\n{text}");
        // --max-error's refusal gives the share of the same diagonal.
        let o = dash(
            d,
            &[
                "reduce",
                "scaled.glb",
                "-o",
                "out2.glb",
                "--max-influences",
                "1",
                "--normalize",
                "unit",
                "--max-error",
                "0.000001",
            ],
        );
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let w = &b["worst"][0];
        let named = format!(
            "vertex {} moves {:.6} ({:.3}% of the skinned rest-pose diagonal)",
            w["vertex"],
            f(w, "displacement"),
            100.0 * f(w, "displacement") / f(b, "diagonal")
        );
        assert!(stderr(&o).contains(&named), "{named}\n{}", stderr(&o));
    }
}

#[test]
fn an_unanimated_model_is_measured_over_the_labelled_range_of_motion_poses() {
    // spec: LR1
    // loss_rig_static.glb: Blender's 8-bone chain exported without its action. At its
    // rest pose dropping 952 influences moved nothing ("max 0.000000 at the rest pose
    // (no animations)"); over the range-of-motion poses it moves centimetres.
    let s = Scratch::new("loss-motion");
    let d = s.path();
    let input = repo().join("fixtures/blender/loss_rig_static.glb");
    let input = input.to_str().unwrap();
    let (r, text) = reduced(d, input, "1", &[]);
    let p = &r["displacement"]["primitives"][0];
    assert_eq!(p["poseSet"], "rangeOfMotion", "{p}");
    // The rest pose and 6 turns of each of the 8 weighted joints.
    assert_eq!(p["moments"], 1 + 6 * 8, "{p}");
    assert_eq!(p["moments"], p["momentsFull"]);
    assert_eq!(p["keyframeMoments"], p["moments"]);
    let max = p["max"].as_f64().unwrap();
    assert!(max > 0.01, "{p}");
    let w = &p["worst"][0];
    assert!(w["animation"].is_null() && !w["pose"].is_null(), "{w}");
    assert_eq!(w["pose"]["degrees"].as_f64().unwrap().abs(), 45.0, "{w}");
    assert!(["X", "Y", "Z"].contains(&w["pose"]["axis"].as_str().unwrap()));
    assert!(
        r["note"]
            .as_str()
            .unwrap()
            .starts_with("displacement over the range-of-motion poses (no animation moves a joint"),
        "{}",
        r["note"]
    );
    assert!(
        text.contains("moments of the range-of-motion poses (no animation moves a joint")
            && text.contains("worst vertex")
            && text.contains("in range-of-motion pose"),
        "{text}"
    );
    assert!(!text.contains("max 0.000000"), "{text}");
    // Every influence kept moves nothing, over the same poses.
    let (r, _) = reduced(d, input, "8", &[]);
    let p = &r["displacement"]["primitives"][0];
    assert_eq!(
        (p["poseSet"].as_str(), p["max"].as_f64()),
        (Some("rangeOfMotion"), Some(0.0))
    );
    // --max-error is held to the same poses: the fewest influences within 0.1 are 6
    // (5 move a vertex 0.119, 6 move it 0.084), chosen rather than refused as a model
    // whose every K "moves nothing".
    let (r, text) = reduced(d, input, "8", &["--max-error", "0.1"]);
    assert_eq!(r["maxInfluences"], 6, "{text}");
    assert!(
        text.contains("measured over the range-of-motion poses"),
        "{text}"
    );
    // The same figures at any thread count.
    let (one, _) = reduced(d, input, "2", &["--threads", "1"]);
    let (four, _) = reduced(d, input, "2", &["--threads", "4"]);
    assert_eq!(one, four);
}

#[test]
fn the_range_of_motion_poses_are_thinned_to_the_work_budget() {
    // spec: LR1 LW1
    // 300 weighted joints make 1,801 moments; 20,000 vertices of 4 influences in a
    // 0.7 MB file afford a few hundred of them. They are thinned evenly, and the report
    // says so.
    let s = Scratch::new("loss-motion-budget");
    let d = s.path();
    let file = AnimatedGlb {
        vertices: 20_000,
        joints: 300,
        keyframes: 0,
        ..AnimatedGlb::default()
    };
    std::fs::write(d.join("in.glb"), file.build()).unwrap();
    let (r, text) = reduced(d, "in.glb", "1", &[]);
    let p = &r["displacement"]["primitives"][0];
    assert_eq!(p["poseSet"], "rangeOfMotion", "{p}");
    assert_eq!(p["momentsFull"], 1 + 6 * 300, "{p}");
    let moments = p["moments"].as_u64().unwrap();
    assert!((2..1801).contains(&moments), "{p}");
    assert!(p["max"].as_f64().unwrap() > 0.0, "{p}");
    let note = r["note"].as_str().unwrap();
    assert!(
        note.contains("range-of-motion poses") && note.contains("the work budget"),
        "{note}"
    );
    assert!(text.contains("the work budget cut the rest"), "{text}");
}

#[test]
fn split_reduce_measures_an_unanimated_model_over_the_range_of_motion_poses() {
    // spec: LR1
    // The split vector with a triangle over a 2-joint budget has no animation: the
    // influence --reduce takes off moved nothing at the rest pose, and moves its vertex
    // over the range-of-motion poses.
    let s = Scratch::new("loss-motion-split");
    let d = s.path();
    let input = repo().join("spec/vectors/split/triangle-over-budget.gltf");
    let o = dash(
        d,
        &[
            "split",
            input.to_str().unwrap(),
            "-o",
            "out.gltf",
            "--max-joints",
            "2",
            "--reduce",
            "--report",
            "r.json",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let r: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("r.json")).unwrap()).unwrap();
    let x = &r["primitives"][0]["reduced"];
    assert_eq!(x["poseSet"], "rangeOfMotion", "{x}");
    assert!(x["maxDisplacement"].as_f64().unwrap() > 0.0, "{x}");
    assert!(
        x["worstAt"]
            .as_str()
            .unwrap()
            .starts_with("in range-of-motion pose"),
        "{x}"
    );
    assert!(
        stderr(&o).contains("over the range-of-motion poses"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn quantize_auto_takes_the_fewest_influences_some_storage_keeps_within_the_budget() {
    // spec: RQ1 (K searched as --max-error searches it)
    let dir = Scratch::new("quantize-auto-k");
    let rig = repo()
        .join("fixtures/generated/animated_rig_10.glb")
        .display()
        .to_string();
    let auto = ["--quantize", "auto", "--max-error", "0.05"];
    let (plain, text) = reduced(dir.path(), &rig, "8", &auto);
    assert_eq!(plain["maxInfluences"], 7, "{text}");
    let p = &plain["fit"]["primitives"][0];
    assert_eq!(p["quantize"], "unorm8");
    assert!(
        plain["displacement"]["primitives"][0]["max"]
            .as_f64()
            .unwrap()
            <= 0.05
    );
    // The fewest: with one influence less, no storage is within the budget.
    let o = dash(
        dir.path(),
        &[
            "reduce",
            &rig,
            "-o",
            "six.glb",
            "--max-influences",
            "6",
            "--quantize",
            "auto",
            "--max-error",
            "0.05",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("no weight storage keeps every vertex within 0.05"));
    assert!(!dir.path().join("six.glb").exists());
    // The fit moves vertices less: fewer influences suffice.
    let mut fitted = auto.to_vec();
    fitted.push("--fit");
    let (fit, text) = reduced(dir.path(), &rig, "8", &fitted);
    assert_eq!(fit["maxInfluences"], 4, "{text}");
    assert!(
        fit["displacement"]["primitives"][0]["max"]
            .as_f64()
            .unwrap()
            <= 0.05
    );
}

#[test]
fn the_range_of_motion_weighs_what_fit_motion_weight_says() {
    // spec: RF1 (the groups weighed alike, then scaled by --fit-motion-weight)
    let dir = Scratch::new("fit-motion-weight");
    let rig = repo()
        .join("fixtures/blender/loss_rig.glb")
        .display()
        .to_string();
    let weights = |r: &serde_json::Value| -> Vec<f64> {
        r["fit"]["primitives"][0]["fit"]["poseGroupWeights"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_f64().unwrap())
            .collect()
    };
    let (alike, text) = reduced(dir.path(), &rig, "2", &["--fit"]);
    let w = weights(&alike);
    assert_eq!(w.len(), 2, "{text}");
    assert_eq!(w[0], 1.0);
    assert!(
        text.contains(&format!("the range of motion weighed {:.3}x", w[1])),
        "{text}"
    );
    let (half, _) = reduced(
        dir.path(),
        &rig,
        "2",
        &["--fit", "--fit-motion-weight", "0.5"],
    );
    assert!((weights(&half)[1] - 0.5 * w[1]).abs() <= 1e-12 * w[1]);
    // 0: the animations alone, another fit.
    let before = std::fs::read(dir.path().join("out.glb")).unwrap();
    let (alone, _) = reduced(
        dir.path(),
        &rig,
        "2",
        &["--fit", "--fit-motion-weight", "0"],
    );
    assert_eq!(weights(&alone), [1.0, 0.0]);
    assert!(
        alone["fit"]["primitives"][0]["fit"]["fitted"]
            .as_u64()
            .unwrap()
            > 0
    );
    assert_ne!(std::fs::read(dir.path().join("out.glb")).unwrap(), before);
    // Without an animation the rest pose and the range of motion are one group, every
    // pose weighing 1: the weight has nothing to scale, and the output says so.
    let still = repo()
        .join("fixtures/blender/loss_rig_static.glb")
        .display()
        .to_string();
    let (one, text) = reduced(dir.path(), &still, "2", &["--fit"]);
    assert!(weights(&one).is_empty(), "{text}");
    assert!(
        text.contains("(the rest pose, 48 range of motion)"),
        "{text}"
    );
    let plain_fit = std::fs::read(dir.path().join("out.glb")).unwrap();
    let (scaled, text) = reduced(
        dir.path(),
        &still,
        "2",
        &["--fit", "--fit-motion-weight", "0.5"],
    );
    assert!(weights(&scaled).is_empty());
    assert!(
        text.contains("every pose weighed 1: no animation for --fit-motion-weight"),
        "{text}"
    );
    assert_eq!(
        std::fs::read(dir.path().join("out.glb")).unwrap(),
        plain_fit
    );
    // Refused by name: without --fit, or not a finite weight of 0 or more.
    for (args, says) in [
        (vec!["--fit-motion-weight", "2"], "give --fit too"),
        (
            vec!["--fit", "--fit-motion-weight=-1"],
            "finite number of 0 or more, not -1",
        ),
        (vec!["--fit", "--fit-motion-weight", "inf"], "not inf"),
    ] {
        let mut all = vec!["reduce", &rig, "-o", "no.glb", "--max-influences", "2"];
        all.extend(args);
        let o = dash(dir.path(), &all);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains(says), "{}", stderr(&o));
        assert!(!dir.path().join("no.glb").exists());
    }
}
