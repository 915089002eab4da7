//! The jobs run as a library: what they write, what they give back, and how their
//! messages are worded by the caller's [`Wording`].

use std::path::{Path, PathBuf};

use dashvertex_app::{
    AppError, Collect, Context, Job, Level, Neutral, Opt, Wording, fix, manifest_file, reduce,
    remap,
};
use dashvertex_testkit::{Scratch, repo};

fn fixture(rel: &str) -> PathBuf {
    repo().join(rel)
}

fn ctx<'a>(words: &'a dyn Wording, log: &'a Collect) -> Context<'a> {
    Context {
        limits: Default::default(),
        resource_dirs: &[],
        wait: true,
        words,
        log,
    }
}

fn asked(k: usize) -> reduce::Asked {
    reduce::Asked {
        max_influences: Some(k),
        normalize: None,
        quantize: dashvertex_reduce::Quantize::F32,
        min_weight: 0.0,
        empty: dashvertex_reduce::Empty::Error,
    }
}

/// A wording unlike any front end's, so a test sees which names came from it.
struct Shouting;

impl Wording for Shouting {
    fn option(&self, opt: Opt) -> String {
        format!("<{}>", opt.keyword().to_uppercase())
    }
    fn job(&self, job: Job) -> String {
        format!("<job {}>", job.keyword())
    }
}

#[test]
fn the_seed_flow_reduces_per_bone_attributes_with_a_new_manifest() {
    let dir = Scratch::new("app-seed");
    let log = Collect::default();
    let c = ctx(&Neutral, &log);
    let input = fixture("fixtures/blender/rig_per_bone_attributes.gltf");
    let (output, manifest) = (dir.path().join("rig.json"), dir.path().join("m.json"));
    let job = reduce::ReduceJob {
        config: reduce::settings(&asked(4), &output, None, None, c.words).expect("settings"),
        manifest: Some(&manifest),
        ..reduce::ReduceJob::new(&input, &output, &c)
    };
    let done = reduce::run(&job).expect("reduced");
    assert_eq!(done.max_influences, 4);
    assert_eq!(done.reports.len(), 1);
    assert!(
        !done.changes.added.is_empty(),
        "the new manifest numbers every bone"
    );
    let m = manifest_file::read_manifest(&manifest, &c)
        .expect("readable")
        .expect("written");
    assert_eq!(m.len(), done.changes.added.len());
    let written = std::fs::read(&output).expect("output");
    let report = dashvertex_validate::validate_bytes(
        "rig.json",
        &written,
        &dashvertex_validate::Options::default(),
    );
    assert!(report.valid, "{report:?}");
    let messages = log.take();
    assert!(
        messages
            .iter()
            .any(|(l, m)| *l == Level::Info && m.starts_with("reduced ")),
        "{messages:?}"
    );
    // Run again with the manifest locked: nothing to add, the same bytes.
    let again = dir.path().join("again.json");
    let locked = reduce::ReduceJob {
        locked: true,
        output: &again,
        ..job
    };
    reduce::run(&locked).expect("locked run with the same bones");
    assert_eq!(std::fs::read(&again).expect("again"), written);
}

#[test]
fn refusals_name_options_as_the_front_end_does() {
    let dir = Scratch::new("app-words");
    let log = Collect::default();
    let c = ctx(&Shouting, &log);
    let input = fixture("fixtures/blender/rig_per_bone_attributes.gltf");
    let output = dir.path().join("rig.json");
    let poses = fixture("fixtures/blender/loss_rig.glb");
    let job = reduce::ReduceJob {
        poses: Some(&poses),
        ..reduce::ReduceJob::new(&input, &output, &c)
    };
    match reduce::run(&job) {
        Err(AppError::Usage(m)) => {
            assert!(
                m.contains("<POSES> supplies the poses of <REPORT> and <MAX_ERROR>"),
                "{m}"
            )
        }
        other => panic!("expected a usage error, got {other:?}"),
    }
    let bad = dashvertex_reduce::ConfigError::NoInfluences;
    assert_eq!(
        reduce::config_message(&bad, &Neutral),
        "max_influences must be at least 1"
    );
    assert!(!output.exists(), "nothing written");
}

#[test]
fn settings_follow_the_output_and_the_target() {
    let log = Collect::default();
    let c = ctx(&Neutral, &log);
    let unit = dashvertex_reduce::Normalize::Unit;
    let cfg = |out: &str, k: Option<usize>, t: Option<&str>| {
        let a = reduce::Asked {
            max_influences: k,
            ..asked(4)
        };
        let target = t.and_then(dashvertex_core::Target::named);
        reduce::settings(&a, Path::new(out), None, target, c.words)
    };
    assert_eq!(cfg("x.glb", None, None).expect("ok").normalize, unit);
    assert_eq!(
        cfg("x.json", None, None).expect("ok").normalize,
        dashvertex_reduce::Normalize::None
    );
    let threejs = cfg("x.glb", None, Some("threejs")).expect("ok");
    assert_eq!(threejs.max_influences, 4);
    match cfg("x.glb", Some(8), Some("threejs")) {
        Err(AppError::Usage(m)) => assert!(m.starts_with("max_influences 8:"), "{m}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn manifest_jobs_init_update_and_diff() {
    let dir = Scratch::new("app-manifest");
    let log = Collect::default();
    let c = ctx(&Neutral, &log);
    let rig = fixture("fixtures/blender/rig24_all.glb");
    let m = dir.path().join("m.json");
    let made = manifest_file::init(&rig, &m, false, &c).expect("init");
    assert!(!made.is_empty());
    match manifest_file::init(&rig, &m, false, &c) {
        Err(AppError::Usage(msg)) => assert!(msg.contains("use `manifest update`"), "{msg}"),
        other => panic!("init over an existing manifest: {other:?}"),
    }
    let renames = [(made.bones[0].name.clone(), "Renamed".to_owned())];
    let updated = manifest_file::update(
        &manifest_file::UpdateJob {
            manifest: &m,
            from: None,
            renames: &renames,
            partial: false,
            compact: false,
            locked: false,
        },
        &c,
    )
    .expect("update");
    assert!(updated.written);
    let diff = manifest_file::diff(&rig, &m, &c).expect("diff");
    assert_eq!(diff.len(), 1, "{diff:?}");
    assert!(diff[0].to_string().contains("Renamed"), "{}", diff[0]);
    let shown = manifest_file::show(&m, &c).expect("show");
    assert!(shown.contains("formerly"), "{shown}");
}

#[test]
fn fix_dry_run_reports_without_writing_and_remap_keeps_the_order() {
    let dir = Scratch::new("app-fix");
    let log = Collect::default();
    let c = ctx(&Neutral, &log);
    let input = fixture("crates/dashvertex-cli/tests/cases/data/fix-three-faults.json");
    let out = dir.path().join("fixed.json");
    let mut policy = dashvertex_fix::Policy::for_rule(dashvertex_fix::SumRule::Gltf);
    let job = |policy, dry_run| fix::FixJob {
        input: &input,
        output: &out,
        to: None,
        policy,
        zero_sum_given: false,
        target: None,
        bones: None,
        embed: false,
        resources: Default::default(),
        report: None,
        dry_run,
        listed: None,
        ctx: &c,
    };
    // Under the defaults an out-of-range joint is refused: which bone was meant cannot
    // be known. Every refusal is named at once.
    match fix::run(&job(policy, true)) {
        Err(AppError::Input { message, .. }) => {
            assert!(message.contains("vertex"), "{message}")
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    policy.out_of_range = dashvertex_fix::OutOfRange::Drop;
    policy.zero_sum = dashvertex_fix::ZeroSum::Nearest;
    let done = fix::run(&job(policy, true)).expect("repaired");
    assert!(!done.written && !out.exists(), "a dry run writes nothing");
    assert!(!done.report.unchanged);
    let done = fix::run(&job(policy, false)).expect("written");
    assert!(done.written && out.exists());
    assert!(
        fix::summary(&done.report).contains("changed in 1 part(s)"),
        "{}",
        fix::summary(&done.report)
    );
    // Remap a glTF to the manifest its own skeleton gives: already in order.
    let rig = fixture("fixtures/blender/rig24_all.glb");
    let m = dir.path().join("m.json");
    manifest_file::init(&rig, &m, false, &c).expect("init");
    let remapped = dir.path().join("remapped.glb");
    let done = remap::run(&remap::RemapJob {
        input: &rig,
        manifest: &m,
        output: &remapped,
        locked: true,
        embed: false,
        resources: Default::default(),
        ctx: &c,
    })
    .expect("remap");
    assert!(!done.skins.is_empty());
    assert!(remapped.exists());
}

#[test]
fn checked_in_reduce_report_schema_matches_the_types() {
    // Regenerate with: BLESS=1 cargo test -p dashvertex-app --test jobs schema
    let path = repo().join("schemas/reduce-report.schema.json");
    let mut generated =
        serde_json::to_string_pretty(&dashvertex_app::report::schema()).expect("serializes");
    generated.push('\n');
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&path, &generated).expect("written");
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == generated,
        "schemas/reduce-report.schema.json differs from the report types; regenerate it with\n    BLESS=1 cargo test -p dashvertex-app --test jobs schema\nand commit the result"
    );
}

#[test]
fn the_reduce_report_of_a_loss_run_matches_its_schema() {
    let dir = Scratch::new("app-report");
    let log = Collect::default();
    let c = ctx(&Neutral, &log);
    let input = fixture("fixtures/blender/loss_rig.glb");
    let (output, report) = (dir.path().join("out.glb"), dir.path().join("report.json"));
    let job = reduce::ReduceJob {
        config: reduce::settings(&asked(2), &output, None, None, c.words).expect("settings"),
        report: Some(&report),
        ..reduce::ReduceJob::new(&input, &output, &c)
    };
    let done = reduce::run(&job).expect("reduced");
    let text = std::fs::read_to_string(&report).expect("report");
    let mut given =
        serde_json::to_string_pretty(done.report.as_ref().expect("report")).expect("text");
    given.push('\n');
    assert_eq!(text, given, "the file holds the report the job gives back");
    let written: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let schema = serde_json::to_value(dashvertex_app::report::schema()).expect("schema");
    let validator = jsonschema::validator_for(&schema).expect("a schema");
    let errors: Vec<String> = validator
        .iter_errors(&written)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let prims = &written["displacement"]["primitives"];
    assert!(prims.as_array().is_some_and(|p| !p.is_empty()), "{written}");
    assert!(
        written["weights"][0]["droppedOverLimit"].is_u64(),
        "{written}"
    );
}

#[test]
fn measure_gives_the_report_without_a_file() {
    let dir = Scratch::new("app-measure");
    let log = Collect::default();
    let c = ctx(&Neutral, &log);
    let input = fixture("fixtures/blender/loss_rig.glb");
    let output = dir.path().join("out.glb");
    let job = reduce::ReduceJob {
        config: reduce::settings(&asked(1), &output, None, None, c.words).expect("settings"),
        measure: true,
        ..reduce::ReduceJob::new(&input, &output, &c)
    };
    let done = reduce::run(&job).expect("reduced");
    let report = done.report.expect("measured");
    let d = report.displacement.expect("glTF in and out");
    assert!(
        d.primitives.iter().all(|p| p.max > 0.0),
        "one influence moves vertices"
    );
    let files: Vec<_> = std::fs::read_dir(dir.path())
        .expect("dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(files, vec![std::ffi::OsString::from("out.glb")]);
}

#[test]
fn checked_in_split_report_schema_matches_the_types() {
    // Regenerate with: BLESS=1 cargo test -p dashvertex-app --test jobs schema
    let path = repo().join("schemas/split-report.schema.json");
    let mut generated =
        serde_json::to_string_pretty(&dashvertex_app::split::schema()).expect("serializes");
    generated.push('\n');
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&path, &generated).expect("written");
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == generated,
        "schemas/split-report.schema.json differs from the report types; regenerate it with\n    BLESS=1 cargo test -p dashvertex-app --test jobs schema\nand commit the result"
    );
}

fn split_job<'a>(
    input: &'a Path,
    output: &'a Path,
    report: Option<&'a Path>,
    n: usize,
    reduce: bool,
    ctx: &'a Context<'a>,
) -> dashvertex_app::split::SplitJob<'a> {
    dashvertex_app::split::SplitJob {
        input,
        output,
        max_joints: Some(n),
        target: None,
        reduce,
        max_error: None,
        fit: false,
        max_parts: dashvertex_app::split::DEFAULT_MAX_PARTS,
        allow_unknown_extensions: false,
        report,
        embed: false,
        resources: Default::default(),
        ctx,
    }
}

#[test]
fn the_split_report_matches_its_schema_and_the_job_words_its_refusals() {
    let dir = Scratch::new("app-split");
    let log = Collect::default();
    let c = ctx(&Neutral, &log);
    let input = fixture("fixtures/corpus/gltf/khronos_samples/RiggedFigure.glb");
    let (output, report) = (dir.path().join("out.glb"), dir.path().join("report.json"));
    let done = dashvertex_app::split::run(&split_job(&input, &output, Some(&report), 8, false, &c))
        .expect("split");
    let text = std::fs::read_to_string(&report).expect("report");
    let mut given = serde_json::to_string_pretty(&done).expect("text");
    given.push('\n');
    assert_eq!(text, given, "the file holds the report the job gives back");
    let written: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let schema = serde_json::to_value(dashvertex_app::split::schema()).expect("schema");
    let validator = jsonschema::validator_for(&schema).expect("a schema");
    let errors: Vec<String> = validator
        .iter_errors(&written)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let p = &done.split.primitives[0];
    assert!(p.parts.len() >= p.lower_bound && p.parts.iter().all(|x| x.joints <= 8));
    // A budget no triangle fits is refused in the caller's words, and nothing is written.
    let shouted = ctx(&Shouting, &log);
    let out4 = dir.path().join("four.glb");
    let e = dashvertex_app::split::run(&split_job(&input, &out4, None, 4, false, &shouted))
        .expect_err("refused");
    let m = e.to_string();
    assert!(matches!(e, AppError::Output(_)), "{m}");
    assert!(m.contains("<MAX_JOINTS>") && m.contains("<REDUCE>"), "{m}");
    assert!(m.contains("triangle 2 (vertices 6, 7, 8)"), "{m}");
    assert!(!out4.exists());
}

#[test]
fn a_fitted_run_reports_the_fit_and_the_plain_figures_beside_it() {
    // spec: RF1
    let dir = Scratch::new("app-fit");
    let log = Collect::default();
    let c = ctx(&Neutral, &log);
    let input = fixture("fixtures/blender/loss_rig.glb");
    let (output, report) = (dir.path().join("out.glb"), dir.path().join("report.json"));
    let job = reduce::ReduceJob {
        config: reduce::settings(&asked(4), &output, None, None, c.words).expect("settings"),
        report: Some(&report),
        fit: true,
        ..reduce::ReduceJob::new(&input, &output, &c)
    };
    reduce::run(&job).expect("reduced");
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("report")).expect("JSON");
    let schema = serde_json::to_value(dashvertex_app::report::schema()).expect("schema");
    let validator = jsonschema::validator_for(&schema).expect("a schema");
    assert!(validator.is_valid(&written), "{written}");
    let fitted = written["displacement"]["primitives"][0]["max"]
        .as_f64()
        .expect("max");
    let plain = written["fit"]["displacementPlain"]["primitives"][0]["max"]
        .as_f64()
        .expect("plain max");
    assert!(fitted <= 0.7 * plain, "{fitted} vs {plain}");
    let f = &written["fit"]["primitives"][0];
    assert_eq!(f["fit"]["considered"], 136, "{f}");
    assert_eq!(f["quantize"], "f32");
    // Auto storage within a budget the fit meets in unorm8.
    let auto = reduce::ReduceJob {
        config: reduce::settings(&asked(4), &output, None, None, c.words).expect("settings"),
        fit: true,
        quantize_auto: true,
        max_error: Some(1.0),
        ..reduce::ReduceJob::new(&input, &output, &c)
    };
    reduce::run(&auto).expect("reduced");
    let said = log.take();
    assert!(
        said.iter()
            .any(|(_, l)| l.contains("auto, mesh 0 primitive 0: unorm8")),
        "{said:?}"
    );
}
