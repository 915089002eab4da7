//! The reduce job's filesystem shell: the input read by path, the manifest read under its
//! lock, the pose file read, the job planned ([`super::plan`]), the images the output
//! names followed, and every file checked and written together, or none.

use dashvertex_gltf::Container;
use dashvertex_reduce::manifest::Manifest;

use super::{ReduceJob, Reduced, plan};
use crate::error::AppError;
use crate::formats::Format;
use crate::input::{Context, Source, container, load_for, load_for_rewrite, must_exist};
use crate::loss::{load_poses, poses_for};
use crate::manifest_file::{lock, read_manifest};
use crate::output::{
    external_buffers, refuse_aliases_before, refuse_written_aliases, text_files, write_checked,
};
use crate::words::Opt;

/// The files a run writes and reads, each with the option that named it.
fn named_paths<'a>(
    a: &'a ReduceJob<'a>,
    names: &'a [String; 4],
) -> (Vec<dashvertex_fs::Named<'a>>, Vec<dashvertex_fs::Named<'a>>) {
    let [output, manifest, report, poses] = names;
    let mut outputs: Vec<dashvertex_fs::Named> = vec![(output.as_str(), a.output)];
    let mut inputs: Vec<dashvertex_fs::Named> = vec![("the input", a.input)];
    if let Some(m) = a.manifest {
        if a.locked {
            inputs.push((manifest.as_str(), m));
        } else {
            outputs.push((manifest.as_str(), m));
        }
    }
    outputs.extend(a.report.map(|r| (report.as_str(), r)));
    inputs.extend(a.poses.map(|p| (poses.as_str(), p)));
    (outputs, inputs)
}

/// The names of the options [`named_paths`] labels files with.
fn path_names(ctx: &Context) -> [String; 4] {
    [Opt::Output, Opt::Manifest, Opt::Report, Opt::Poses].map(|o| ctx.opt(o))
}

/// Runs a reduce job: reads `job.input`, reduces it, checks the output and writes it with
/// the manifest and the report, all or nothing.
///
/// ```no_run
/// # fn main() -> Result<(), dashvertex_app::AppError> {
/// use dashvertex_app::{Collect, Context, Neutral, reduce};
/// let log = Collect::default();
/// let ctx = Context { limits: Default::default(), resource_dirs: &[], wait: true, words: &Neutral, log: &log };
/// let asked = reduce::Asked {
///     max_influences: Some(4),
///     normalize: None,
///     quantize: dashvertex_reduce::Quantize::F32,
///     min_weight: 0.0,
///     empty: dashvertex_reduce::Empty::Error,
/// };
/// let (input, output) = ("rig.gltf".as_ref(), "rig.json".as_ref());
/// let job = reduce::ReduceJob {
///     config: reduce::settings(&asked, output, None, None, ctx.words)?,
///     ..reduce::ReduceJob::new(input, output, &ctx)
/// };
/// let done = reduce::run(&job)?;
/// println!("{} part(s), K = {}", done.reports.len(), done.max_influences);
/// # Ok(()) }
/// ```
pub fn run(a: &ReduceJob) -> Result<Reduced, AppError> {
    super::check_options(a)?;
    check_paths(a)?;
    // A GLB written from a GLB carries the mesh data the reduction does not change:
    // read without it, and copied from the input by the writer.
    let rewrite = container(a.to.or_else(|| Format::from_extension(a.output)))
        == Some(Container::Glb)
        && !a.reports()
        && a.max_error.is_none()
        && a.poses.is_none();
    // Skinning is evaluated for a loss report and a DashVertex output's rest pose: then
    // node transforms and animations must be sound; else errors there are carried.
    let work = if a.reports()
        || a.max_error.is_some()
        || a.poses.is_some()
        || a.fit
        || container(a.to.or_else(|| Format::from_extension(a.output))).is_none()
    {
        dashvertex_validate::Work::Skin
    } else {
        dashvertex_validate::Work::Rewrite
    };
    let source = if rewrite {
        load_for_rewrite(
            a.input,
            a.ctx,
            dashvertex_gltf::sparse::Rewrite::Reduce,
            work,
        )?
    } else {
        load_for(a.input, a.ctx, work)?
    };
    run_source(a, source)
}

/// Refuses, before anything is read, an output that would overwrite an input or another
/// output (spec/security.md W3), and a pose file that is not there.
fn check_paths(a: &ReduceJob) -> Result<(), AppError> {
    let names = path_names(a.ctx);
    let (outputs, inputs) = named_paths(a, &names);
    refuse_aliases_before(a.output, a.to, a.embed, &outputs, &inputs, a.ctx.words)?;
    if let Some(p) = a.poses {
        must_exist(p)?;
    }
    Ok(())
}

/// The images a glTF output names, embedded, copied or referenced as `a.resources`
/// says; the files read join `read_buffers` (no output may overwrite one).
fn follow_images(
    a: &ReduceJob,
    mut written: dashvertex_gltf::export::Written,
    mut read_buffers: Vec<std::path::PathBuf>,
    read: u64,
) -> Result<(dashvertex_gltf::export::Written, Vec<std::path::PathBuf>), AppError> {
    if let Some(container) = container(a.to.or_else(|| Format::from_extension(a.output))) {
        let f = crate::resources::Follow {
            input: a.input,
            output: a.output,
            container,
            mode: a.resources,
            embed: a.embed,
            read,
            ctx: a.ctx,
        };
        read_buffers.extend(crate::resources::follow(&f, &mut written)?);
    }
    Ok((written, read_buffers))
}

/// Runs a reduce job on a source already read from `job.input` (the convert job reads
/// first, to tell what it converts).
pub fn run_source(a: &ReduceJob, source: Source) -> Result<Reduced, AppError> {
    let ctx = a.ctx;
    let names = path_names(ctx);
    let (outputs, inputs) = named_paths(a, &names);
    let input_bytes = match &source {
        Source::Gltf(g) => g.input_bytes(),
        _ => 0,
    };
    let read_buffers = match &source {
        Source::Gltf(g) => external_buffers(g, a.input),
        _ => Vec::new(),
    };
    // Held from the manifest's read to its rename.
    let (_lock, existing) = open_manifest(a)?;
    let poses = pose_animations(a, &source)?;
    let mut plan = plan(a, &source, existing.as_ref(), poses.as_deref())?;
    drop(poses);
    // The images a glTF output names follow it (spec/security.md [R4]).
    let written = std::mem::take(&mut plan.written);
    let (written, read_buffers) = follow_images(a, written, read_buffers, input_bytes)?;
    plan.written = written;
    // The buffer files are named now: none may overwrite a file this run read.
    refuse_written_aliases(
        a.output,
        &plan.written.files,
        &outputs,
        &inputs,
        &read_buffers,
        ctx.words,
    )?;
    let manifest_text = a
        .manifest
        .zip(plan.manifest.as_ref())
        .map(|(p, m)| (p, m.to_json()));
    let report_text = a.report.zip(plan.report.as_ref()).map(|(path, json)| {
        let mut text = serde_json::to_string_pretty(json).unwrap_or_default();
        text.push('\n');
        (path, text)
    });
    // The manifest, the output with its buffer files and the report are replaced
    // together or not at all, once the output is checked: a report path that cannot be
    // written leaves the output and the manifest as they were. The input is spent once
    // the output's bytes exist: `write_checked` frees it before a large output is
    // checked, so the two are never in memory together.
    let main = std::mem::take(&mut plan.written.main);
    write_checked(
        &plan.check(),
        main,
        &plan.written.holes,
        &plan.written.files,
        &text_files(&manifest_text),
        &text_files(&report_text),
        source,
    )?;
    for (level, message) in &plan.messages {
        ctx.log.log(*level, message);
    }
    let mut done = plan.done;
    done.report = plan.report;
    Ok(done)
}

/// The animations of the pose file `a.poses` names, moved onto the input's nodes: read
/// only for a glTF input written as glTF (the only run that poses it; the plan refuses
/// the others by name), and the pose file's document dropped once they are taken.
fn pose_animations(
    a: &ReduceJob,
    source: &Source,
) -> Result<Option<Vec<dashvertex_skin::Animation>>, AppError> {
    let output = container(a.to.or_else(|| Format::from_extension(a.output)));
    match (a.poses, source, output) {
        (Some(p), Source::Gltf(g), Some(_)) => {
            let other = load_poses(p, a.ctx)?;
            poses_for(a.input, g, Some((p, &other)), a.ctx).map(Some)
        }
        _ => Ok(None),
    }
}

/// The manifest file a run reads and may update, locked from its read to its rename (a
/// `--locked` run writes nothing, so takes no lock).
fn open_manifest(
    a: &ReduceJob,
) -> Result<(Option<dashvertex_fs::FileLock>, Option<Manifest>), AppError> {
    let lock_guard = match a.manifest.filter(|_| !a.locked) {
        Some(p) => Some(lock(p, a.ctx.wait)?),
        None => None,
    };
    let existing = match a.manifest {
        Some(p) => read_manifest(p, a.ctx)?,
        None => None,
    };
    Ok((lock_guard, existing))
}
