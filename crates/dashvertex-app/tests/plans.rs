//! The jobs planned from bytes held in memory (the core, as the inspector runs it) give
//! the bytes their filesystem runs write: one job, whatever reads the files.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use dashvertex_app::input::{Opened, open, open_source};
use dashvertex_app::{Collect, Context, Neutral, fix, inspect, manifest_job, reduce, split};
use dashvertex_gltf::MemoryFiles;
use dashvertex_testkit::{Scratch, repo};
use dashvertex_validate::Work;

fn ctx(log: &Collect) -> Context<'_> {
    Context {
        limits: Default::default(),
        resource_dirs: &[],
        wait: true,
        words: &Neutral,
        log,
    }
}

/// Files held in memory: `(name, bytes)`.
type Files = Vec<(String, Vec<u8>)>;

/// The file `rel` of the repository and the files beside it, held in memory: its name,
/// its bytes and the others.
fn in_memory(rel: &str) -> (String, Vec<u8>, Files) {
    let path = repo().join(rel);
    let folder = path.parent().unwrap();
    let beside = std::fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p != &path)
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    (name, std::fs::read(&path).unwrap(), beside)
}

fn resolver(files: &[(String, Vec<u8>)]) -> MemoryFiles<'_> {
    MemoryFiles {
        files: files
            .iter()
            .map(|(n, b)| (n.as_str(), b.as_slice()))
            .collect(),
    }
}

/// A `.gltf` whose buffer is a file beside it: its reduction planned from memory (the
/// buffer through the resolver) is what `reduce::run` writes from the path.
#[test]
fn reduce_planned_from_memory_writes_what_the_run_writes() {
    let rel = "fixtures/corpus/gltf/blenderio/03_skinned_cylinder/03_skinned_cylinder.gltf";
    let (name, bytes, beside) = in_memory(rel);
    let dir = Scratch::new("app-plan-reduce");
    let out = dir.path().join("out.glb");
    let log = Collect::default();
    let c = ctx(&log);
    let asked = reduce::Asked {
        max_influences: Some(2),
        ..Default::default()
    };
    let config = reduce::settings(&asked, &out, None, None, &Neutral).unwrap();
    let input = repo().join(rel);
    let job = reduce::ReduceJob {
        config,
        ..reduce::ReduceJob::new(&input, &out, &c)
    };
    reduce::run(&job).unwrap();
    let written = std::fs::read(&out).unwrap();

    let source = open_source(Path::new(&name), bytes, &resolver(&beside), &c, Work::Skin).unwrap();
    let job = reduce::ReduceJob {
        config,
        ..reduce::ReduceJob::new(Path::new(&name), &out, &c)
    };
    let mut plan = reduce::plan(&job, &source, None, None).unwrap();
    assert!(
        plan.manifest.is_none(),
        "no manifest file: nothing to write there"
    );
    assert!(!plan.messages.is_empty(), "what the job says once written");
    let main = std::mem::take(&mut plan.written.main);
    let planned = plan.check().owned(main).unwrap();
    assert!(
        planned == written,
        "the planned bytes differ from the run's"
    );

    // Without the resolver's file the buffer cannot be read: refused by name.
    let (_, bytes, _) = in_memory(rel);
    let refused = open(
        Path::new(&name),
        bytes,
        &dashvertex_gltf::NoFiles,
        &c,
        Work::Skin,
    );
    assert!(refused.is_err());
}

/// fix and split planned on a document in memory write what their runs write.
#[test]
fn fix_and_split_planned_from_memory_write_what_the_runs_write() {
    let dir = Scratch::new("app-plan-fix");
    let log = Collect::default();
    let c = ctx(&log);

    let rel = "spec/vectors/gltf/weights-negative.gltf";
    let input = repo().join(rel);
    let out = dir.path().join("fixed.glb");
    let policy = fix::policy(&fix::Asked::default(), &input, None, &c).unwrap();
    let job = fix::FixJob {
        policy,
        ..fix::FixJob::new(&input, &out, &c)
    };
    fix::run(&job).unwrap();
    let written = std::fs::read(&out).unwrap();
    let (name, bytes, beside) = in_memory(rel);
    let opened = open(
        Path::new(&name),
        bytes,
        &resolver(&beside),
        &c,
        Work::Rewrite,
    )
    .unwrap();
    // glTF handed over as DashVertex bytes is refused, not read as something else.
    let (_, raw, _) = in_memory(rel);
    match fix::plan(&job, fix::FixInput::Bytes(&raw)) {
        Err(e) => assert!(e.to_string().contains("open it as glTF"), "{e}"),
        Ok(_) => panic!("glTF bytes planned as DashVertex"),
    }
    let mut plan = fix::plan(&job, (&opened).into()).unwrap();
    assert!(!plan.report.unchanged);
    let planned = match std::mem::replace(&mut plan.output, fix::FixOutput::Unchanged) {
        fix::FixOutput::Gltf(w) => plan.checked(w.main, &w.files).unwrap(),
        _ => panic!("a repaired glTF"),
    };
    assert!(
        planned == written,
        "fix: the planned bytes differ from the run's"
    );

    let rel = "fixtures/corpus/gltf/khronos_samples/CesiumMan.glb";
    let input = repo().join(rel);
    let out = dir.path().join("split.glb");
    let job = split::SplitJob {
        input: &input,
        output: &out,
        max_joints: Some(8),
        target: None,
        reduce: false,
        max_error: None,
        fit: false,
        max_parts: split::DEFAULT_MAX_PARTS,
        allow_unknown_extensions: false,
        report: None,
        embed: false,
        resources: Default::default(),
        ctx: &c,
    };
    let report = split::run(&job).unwrap();
    let written = std::fs::read(&out).unwrap();
    let (name, bytes, _) = in_memory(rel);
    let Opened::Gltf(g) = open(
        Path::new(&name),
        bytes,
        &dashvertex_gltf::NoFiles,
        &c,
        split::work(&job),
    )
    .unwrap() else {
        panic!("glTF")
    };
    let mut plan = split::plan(&job, &g).unwrap();
    assert!(plan.report == report);
    let w = plan.written.take().expect("split");
    let planned = plan.check(&w.files).owned(w.main).unwrap();
    assert!(
        planned == written,
        "split: the planned bytes differ from the run's"
    );
}

/// The manifest a file's skeleton gives, and the text inspect shows, are the same from
/// memory as from the path.
#[test]
fn manifest_and_inspect_from_memory_match_the_runs() {
    let dir = Scratch::new("app-plan-manifest");
    let log = Collect::default();
    let c = ctx(&log);
    let rel = "fixtures/blender/rig24_all.glb";
    let input = repo().join(rel);
    let m = dir.path().join("m.json");
    let from_file = dashvertex_app::manifest_file::init(&input, &m, false, &c).unwrap();
    let (name, bytes, _) = in_memory(rel);
    let source = open_source(
        Path::new(&name),
        bytes.clone(),
        &dashvertex_gltf::NoFiles,
        &c,
        Work::Skin,
    )
    .unwrap();
    let planned = manifest_job::init(&source, Path::new(&name), &c).unwrap();
    assert_eq!(planned.to_json(), from_file.to_json());

    let job = inspect::InspectJob {
        input: &input,
        from: None,
        records: 3,
        ctx: &c,
    };
    let text = inspect::run(&job).unwrap();
    let opened = open(
        &input,
        bytes,
        &dashvertex_gltf::NoFiles,
        &c,
        inspect::work(),
    )
    .unwrap();
    assert_eq!(inspect::describe(&job, &opened).unwrap(), text);
}

/// The resource folders are looked at only for glTF: a folder that is not there does not
/// stop a DashVertex input, and stops a glTF one by name.
#[test]
fn resource_folders_are_read_for_gltf_only() {
    let log = Collect::default();
    let missing = [std::path::PathBuf::from("/nonexistent/dash-resources")];
    let c = Context {
        resource_dirs: &missing,
        ..ctx(&log)
    };
    let dash = repo().join("examples/rig.json");
    assert!(dashvertex_app::input::read_source(&dash, &c).is_ok());
    let gltf = repo().join("spec/vectors/gltf/animation-valid.gltf");
    match dashvertex_app::input::read_source(&gltf, &c) {
        Err(e) => assert!(e.to_string().contains("dash-resources"), "{e}"),
        Ok(_) => panic!("a resource folder that is not there was accepted"),
    }
}
