//! The reduce job: a file's influences kept to the strongest K per vertex, bones numbered
//! from a manifest, the output checked by the validator and written with the manifest (and
//! the loss report) together; the `max_error` search for the smallest K within a budget.

#[cfg(feature = "fs")]
mod files;

use std::collections::BTreeMap;
use std::path::Path;

use dashvertex_gltf::{Container, Gltf};
use dashvertex_reduce::Config;
use dashvertex_reduce::gltf::PrimitiveInput;
use dashvertex_reduce::manifest::{Manifest, ManifestError};

use crate::check::{Check, Subject};
use crate::error::{AppError, input_cause};
use crate::formats::{self, Format, Loaded, SaveOptions};
use crate::input::{Context, Part, Source, container};
use crate::loss::{loss_lines, loss_of, poses_for};
use crate::report::ReduceReport;
pub use crate::settings::{Asked, config_message, describe, settings};
use crate::settings::{buffer_files, keeps_order, pipeline_options};
use crate::within::auto_within;
pub use crate::within::reduce_within;
use crate::words::{Collect, Level, Opt, warn_neutral_bone, warn_other_rig};
#[cfg(feature = "fs")]
pub use files::{run, run_source};

/// A reduce job's options.
#[derive(Clone)]
pub struct ReduceJob<'a> {
    /// Input.
    pub input: &'a Path,
    /// Output.
    pub output: &'a Path,
    /// The output's format when its name cannot tell (`-`), or to override the name.
    pub to: Option<Format>,
    /// Algorithm settings.
    pub config: Config,
    /// Manifest file.
    pub manifest: Option<&'a Path>,
    /// Fail when the manifest would change.
    pub locked: bool,
    /// Embed every buffer of a `.gltf` output as a data URI instead of writing `.bin`
    /// files beside it.
    pub embed: bool,
    /// Where to write the reduce report (with the displacement for glTF), if anywhere.
    pub report: Option<&'a Path>,
    /// Make the reduce report (and measure the displacement) even without a `report`
    /// file: [`Reduced::report`] gives it to the caller.
    pub measure: bool,
    /// The largest displacement allowed (`--max-error`): K becomes the smallest count
    /// up to `config.max_influences` that keeps every vertex within it.
    pub max_error: Option<f64>,
    /// Another glTF whose animations supply the poses (`--poses`).
    pub poses: Option<&'a Path>,
    /// Fit each vertex's kept bones and weights to its full-influence skinning over the
    /// pose set (`--fit`, spec/reduction.md §6; glTF input and output).
    pub fit: bool,
    /// How much the range-of-motion poses count against the animations in the fit, once
    /// both are weighed to count alike (`--fit-motion-weight`; 1 by default, 0 for the
    /// animations alone; spec/reduction.md RF1).
    pub fit_motion_weight: f64,
    /// Choose each primitive's weight storage (unorm8, unorm16 or float) as the smallest
    /// within `max_error` (`--quantize auto`); K is then `config.max_influences`.
    pub quantize_auto: bool,
    /// The engine to write for (`--target`): its output is checked against it.
    pub target: Option<&'static dashvertex_core::Target>,
    /// Which glTF primitive a DashVertex output holds.
    pub pick: Pick,
    /// The convert job: every influence is kept (the config says so); report what the
    /// output does not carry instead of what was reduced.
    pub convert: bool,
    /// How a DashVertex output is encoded (JSON shape, compact records).
    pub save: SaveOptions,
    /// glTF output: remove the per-bone weight attributes the influences were read from
    /// (`--drop-source-attributes`, default true).
    pub drop_source_attributes: bool,
    /// How the images a glTF output names reach their files (`--resources`).
    pub resources: crate::resource_mode::Resources,
    /// Limits, resource folders, lock waiting.
    pub ctx: &'a Context<'a>,
}

/// The glTF primitive a DashVertex output holds (DashVertex holds one mesh; glTF output
/// keeps every primitive).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pick {
    /// The mesh whose primitive is written (default: the only skinned one).
    pub mesh: Option<usize>,
    /// The primitive of `mesh` written (default 0 when `mesh` is given).
    pub primitive: Option<usize>,
}

impl Pick {
    /// True when a primitive was asked for.
    pub fn given(&self) -> bool {
        self.mesh.is_some() || self.primitive.is_some()
    }

    /// The one part a DashVertex output holds: the picked primitive, or the only part.
    /// Refuses naming every skinned primitive and the flags that pick one.
    fn one<'p, 's>(&self, parts: &'p [Part<'s>], ctx: &Context) -> Result<&'p Part<'s>, AppError> {
        let (mesh_opt, prim_opt) = (ctx.opt(Opt::Mesh), ctx.opt(Opt::Primitive));
        // The first few, and how many more: a file may have thousands.
        const LISTED: usize = 8;
        let list = || {
            let prims: Vec<&PrimitiveInput<'_>> =
                parts.iter().filter_map(Part::primitive).collect();
            let mut text = prims
                .iter()
                .take(LISTED)
                .map(|p| {
                    format!(
                        "{mesh_opt} {} {prim_opt} {} ({} vertices)",
                        p.mesh,
                        p.primitive,
                        p.input.len()
                    )
                })
                .collect::<Vec<_>>()
                .join(", ");
            if prims.len() > LISTED {
                text.push_str(&format!(" and {} more", prims.len() - LISTED));
            }
            text
        };
        if !self.given() {
            return match parts {
                [part] => Ok(part),
                _ => Err(AppError::Usage(format!(
                    "the input has {} skinned primitives and DashVertex output holds one: pick it with {}, or write .gltf/.glb to keep them all",
                    parts.len(),
                    list()
                ))),
            };
        }
        let (mesh, primitive) = (self.mesh.unwrap_or(0), self.primitive.unwrap_or(0));
        parts
            .iter()
            .find(|p| p.primitive().is_some_and(|q| q.mesh == mesh && q.primitive == primitive))
            .ok_or_else(|| {
                AppError::Usage(format!(
                    "mesh {mesh} primitive {primitive} is not a skinned primitive of the input; the skinned ones: {}",
                    list()
                ))
            })
    }
}

/// What a reduce job did.
#[derive(Debug)]
#[non_exhaustive]
pub struct Reduced {
    /// The reducer's figures per part, with the influence sets written.
    pub reports: Vec<(dashvertex_reduce::Report, usize)>,
    /// The K written: `max_influences`, or the one `max_error` chose.
    pub max_influences: usize,
    /// What the manifest (or, without a manifest file, the run's own numbering) gained.
    pub changes: dashvertex_manifest::Changes,
    /// How far the reduction moves each skinned primitive, when `report` or `max_error`
    /// asked for it.
    pub loss: Option<Vec<dashvertex_skin::PrimitiveLoss>>,
    /// The report written to `report`.
    pub report: Option<ReduceReport>,
}

impl<'a> ReduceJob<'a> {
    /// Whether the run makes the reduce report (a `report` file, or `measure`).
    pub fn reports(&self) -> bool {
        self.report.is_some() || self.measure
    }

    /// A job reading `input` and writing `output` with the reducer's default settings
    /// ([`Config::default`]), no manifest file, no report.
    pub fn new(input: &'a Path, output: &'a Path, ctx: &'a Context<'a>) -> Self {
        ReduceJob {
            input,
            output,
            to: None,
            config: Config::default(),
            manifest: None,
            locked: false,
            embed: false,
            report: None,
            measure: false,
            max_error: None,
            poses: None,
            fit: false,
            fit_motion_weight: 1.0,
            quantize_auto: false,
            target: None,
            pick: Pick::default(),
            convert: false,
            save: SaveOptions::default(),
            drop_source_attributes: true,
            resources: crate::resource_mode::Resources::Auto,
            ctx,
        }
    }
}

/// What a reduce job makes before anything is written: the output (its main bytes, the
/// buffer files beside it, the ranges a GLB copies from its input), the manifest and the
/// report to write beside it, what the job did, and what it has to say once the files are
/// written. A front end checks the output ([`ReducePlan::check`]) and hands the files over
/// (the filesystem shell writes them together, `run`; the inspector gives the bytes to
/// the page).
#[non_exhaustive]
pub struct ReducePlan<'a> {
    /// The output.
    pub written: dashvertex_gltf::export::Written,
    /// The manifest as the run leaves it, when the job keeps a manifest file and the run
    /// changed it (else nothing is written there).
    pub manifest: Option<Manifest>,
    /// The reduce report, when the job makes one.
    pub report: Option<ReduceReport>,
    /// What the job did.
    pub done: Reduced,
    /// What the job says once its files are written, in order: each part's reduction,
    /// the loss report's figures, what the manifest gained.
    pub messages: Vec<(Level, String)>,
    /// The output's format.
    pub format: Format,
    subject: Option<Subject<'a>>,
    carried_errors: BTreeMap<String, u64>,
    job: &'a ReduceJob<'a>,
}

impl ReducePlan<'_> {
    /// The check the output passes before it is handed over ([`Check`]): by the
    /// validator, for the job's engine target, with the input's carried accessors and
    /// errors let through.
    pub fn check(&self) -> Check<'_> {
        let a = self.job;
        Check {
            target: a.target,
            subject: self.subject.as_ref(),
            carried: self.written.carried,
            carried_errors: self.carried_errors.clone(),
            ..Check::new(a.output, self.format, &self.written.files, &a.ctx.limits)
        }
    }
}

/// Plans reduce job `a` on `source`, read by the front end with the manifest the job
/// numbers bones from (`existing`, when a manifest file exists) and the animations of the
/// pose file `a.poses` names, moved onto the input's nodes (`poses`, by
/// [`crate::loss::poses_for`]; without them the input's own animations pose it): no file
/// is read or written here, so every front end runs the same job on bytes it has.
///
/// ```
/// # fn main() -> Result<(), dashvertex_app::AppError> {
/// use dashvertex_app::{Collect, Context, Neutral, Source, reduce};
/// let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/rig.json")).unwrap();
/// let log = Collect::default();
/// let ctx = Context { limits: Default::default(), resource_dirs: &[], wait: true, words: &Neutral, log: &log };
/// let name = std::path::Path::new("rig.json");
/// let source = dashvertex_app::input::open_source(
///     name, bytes, &dashvertex_gltf::NoFiles, &ctx, dashvertex_validate::Work::Skin)?;
/// let job = reduce::ReduceJob::new(name, "rig.dmx".as_ref(), &ctx);
/// let plan = reduce::plan(&job, &source, None, None)?;
/// let bytes = plan.check().owned(plan.written.main.clone())?;
/// assert_eq!(&bytes[..4], b"DMX\0");
/// # Ok(()) }
/// ```
pub fn plan<'a>(
    a: &'a ReduceJob<'a>,
    source: &Source,
    existing: Option<&Manifest>,
    poses: Option<&[dashvertex_skin::Animation]>,
) -> Result<ReducePlan<'a>, AppError> {
    plan_with(a, source, (existing, poses), reduce_parts)
}

/// [`plan`] for a glTF input written as glTF: a front end that reads and writes only
/// glTF (the inspector) calls it, and links no DashVertex codec. Any other input or
/// output is refused.
pub fn plan_gltf<'a>(
    a: &'a ReduceJob<'a>,
    source: &Source,
    existing: Option<&Manifest>,
    poses: Option<&[dashvertex_skin::Animation]>,
) -> Result<ReducePlan<'a>, AppError> {
    plan_with(
        a,
        source,
        (existing, poses),
        |a, source, parts, m, poses| match (
            container(a.to.or_else(|| Format::from_extension(a.output))),
            source,
        ) {
            (Some(c), Source::Gltf(g)) if !a.pick.given() => {
                let opts = options(a, &parts, Some(c));
                let (made, k) = to_gltf(a, (g, poses), parts, m, &opts, c)?;
                Ok((made, k, None))
            }
            _ => Err(AppError::Usage(
                "this front end reduces glTF input to glTF output".into(),
            )),
        },
    )
}

/// [`plan`] with the parts' reduction `reduce` ([`reduce_parts`], or glTF only).
fn plan_with<'a, F>(
    a: &'a ReduceJob<'a>,
    source: &Source,
    (existing, poses): (Option<&Manifest>, Option<&[dashvertex_skin::Animation]>),
    reduce: F,
) -> Result<ReducePlan<'a>, AppError>
where
    F: FnOnce(
        &ReduceJob,
        &Source,
        Vec<Part<'_>>,
        &mut Manifest,
        Option<&[dashvertex_skin::Animation]>,
    ) -> Result<(Made, Option<usize>, Option<String>), AppError>,
{
    check_options(a)?;
    if a.locked && existing.is_none() {
        return Err(AppError::Usage(format!(
            "{} needs an existing {} file",
            a.ctx.opt(Opt::Locked),
            a.ctx.opt(Opt::Manifest)
        )));
    }
    let ctx = a.ctx;
    // The input's errors the job carries (outside what it reads): the output may keep them.
    let carried_errors = match source {
        Source::Gltf(g) => g.carried_errors.clone(),
        _ => BTreeMap::new(),
    };
    let parts = source.parts(a.input, ctx)?;
    if let (Some(p), Some(m)) = (a.manifest, existing) {
        let names = parts.iter().flat_map(|p| p.input().bones.iter());
        warn_other_rig(p, m.overlap(names.map(|b| b.name.as_str())), ctx.log);
    }
    let mut manifest = existing.cloned().unwrap_or_default();
    let (made, k, carried) = reduce(a, source, parts, &mut manifest, poses)?;
    let chosen_k = k.unwrap_or(a.config.max_influences);
    let Made {
        written,
        reports,
        changes,
        loss,
        fit: fitted,
    } = made;
    // The output's format or extension chose its encoder (checked above), so it names
    // the format.
    let format =
        a.to.or_else(|| Format::from_extension(a.output))
            .unwrap_or(Format::Json);
    let subject = subject_for(a, format, &manifest);
    let report = a.reports().then(|| ReduceReport {
        fit: fitted.as_ref().map(|f| f.section.clone()),
        ..ReduceReport::new((a.input, a.output), chosen_k, &reports, loss.as_deref())
    });
    // What the job says once written is kept as data, in order.
    let said = Collect::default();
    let quiet = Context {
        limits: ctx.limits,
        resource_dirs: ctx.resource_dirs,
        wait: ctx.wait,
        words: ctx.words,
        log: &said,
    };
    let a_said = ReduceJob {
        ctx: &quiet,
        ..a.clone()
    };
    let notes = &written.notes;
    say_done(
        &a_said,
        notes,
        &reports,
        carried.as_ref(),
        loss.as_deref(),
        &changes,
    );
    for line in fitted.iter().flat_map(|f| f.lines(&a_said)) {
        quiet.info(line);
    }
    Ok(ReducePlan {
        written,
        manifest: Some(manifest).filter(|m| a.manifest.is_some() && existing != Some(m)),
        report,
        done: Reduced {
            reports,
            max_influences: chosen_k,
            changes,
            loss,
            report: None,
        },
        messages: said.take(),
        format,
        subject,
        carried_errors,
        job: a,
    })
}

/// Refuses options that do not go together, before anything is read: a K the sets
/// cannot hold, a distance that is none, `quantize auto` without a budget, poses with
/// nothing to pose. [`plan`] checks them too; a front end calls this first so that a
/// mistake in the options is said before a large input is read.
pub fn check_options(a: &ReduceJob) -> Result<(), AppError> {
    let ctx = a.ctx;
    let limits = &ctx.limits;
    let most = limits.max_sets.saturating_mul(4);
    if a.config.max_influences as u64 > most {
        return Err(AppError::Usage(format!(
            "{} {} is more than {} {} can hold ({most})",
            ctx.opt(Opt::MaxInfluences),
            a.config.max_influences,
            ctx.opt(Opt::MaxSets),
            limits.max_sets
        )));
    }
    if let Some(d) = a.max_error.filter(|d| !(d.is_finite() && *d >= 0.0)) {
        return Err(AppError::Usage(format!(
            "{} must be a finite distance of 0 or more, not {d}",
            ctx.opt(Opt::MaxError)
        )));
    }
    let w = a.fit_motion_weight;
    if !(w.is_finite() && w >= 0.0) {
        return Err(AppError::Usage(format!(
            "{} must be a finite number of 0 or more, not {w}",
            ctx.opt(Opt::FitMotionWeight)
        )));
    }
    if w != 1.0 && !a.fit {
        return Err(AppError::Usage(format!(
            "{} weighs the poses of {}; give {} too",
            ctx.opt(Opt::FitMotionWeight),
            ctx.opt(Opt::Fit),
            ctx.opt(Opt::Fit)
        )));
    }
    if a.quantize_auto && a.max_error.is_none() {
        return Err(AppError::Usage(format!(
            "{} auto chooses the storage within {}; give the distance",
            ctx.opt(Opt::Quantize),
            ctx.opt(Opt::MaxError)
        )));
    }
    if a.poses.is_some() && !a.reports() && a.max_error.is_none() && !a.fit {
        return Err(AppError::Usage(format!(
            "{} supplies the poses of {} and {}; give one of them",
            ctx.opt(Opt::Poses),
            ctx.opt(Opt::Report),
            ctx.opt(Opt::MaxError)
        )));
    }
    Ok(())
}

/// A reduction pipeline's failure as the job's: a setting said with the front end's
/// options, a locked manifest's change, or the input's fault.
pub(crate) fn pipeline_failed(
    a: &ReduceJob,
    e: dashvertex_reduce::pipeline::PipelineError,
) -> AppError {
    match e {
        dashvertex_reduce::pipeline::PipelineError::Reduce(
            dashvertex_reduce::ReduceError::Config(why),
        ) => AppError::Usage(config_message(&why, a.ctx.words)),
        dashvertex_reduce::pipeline::PipelineError::Manifest(m @ ManifestError::Locked(_)) => {
            AppError::ManifestLocked(m.to_string())
        }
        other => input_cause(a.input, other),
    }
}

/// What a finished reduce job says: the writer's notes, each part's reduction, the loss
/// report's figures, and what the manifest (or a run's own numbering) gained.
fn say_done(
    a: &ReduceJob,
    notes: &[String],
    reports: &[(dashvertex_reduce::Report, usize)],
    carried: Option<&String>,
    loss: Option<&[dashvertex_skin::PrimitiveLoss]>,
    changes: &dashvertex_reduce::manifest::Changes,
) {
    let ctx = a.ctx;
    for note in notes {
        ctx.warning(format_args!("{}: {note}", a.input.display()));
    }
    if a.convert {
        for (r, sets) in reports {
            let text = describe(r, *sets);
            if r.merged > 0 || r.negative > 0 {
                ctx.note(text);
            } else {
                ctx.detail(text);
            }
        }
        if let Some(c) = carried {
            ctx.info(c);
        }
    } else {
        for (r, sets) in reports {
            ctx.info(describe(r, *sets));
        }
    }
    if a.reports() {
        for line in loss_lines(loss) {
            ctx.info(line);
        }
    }
    // What the manifest gained is news when a manifest file was written; a numbering made
    // up for this run only is shown verbosely.
    if a.manifest.is_some() {
        warn_neutral_bone(&changes.added, ctx.words, ctx.log);
    }
    for line in changes.describe() {
        if a.manifest.is_some() {
            ctx.info(format_args!("manifest: {line}"));
        } else {
            ctx.detail(format_args!("bone numbering: {line}"));
        }
    }
}

/// What a reduction made, before it is checked and written.
struct Made {
    written: dashvertex_gltf::export::Written,
    reports: Vec<(dashvertex_reduce::Report, usize)>,
    changes: dashvertex_reduce::manifest::Changes,
    loss: Option<Vec<dashvertex_skin::PrimitiveLoss>>,
    /// What the fit and the storage choice did (`--fit`, `--quantize auto`).
    fit: Option<crate::fitting::Fitted>,
}

/// Reduces every primitive of glTF input `g` into a glTF output of `container`, with the
/// loss report when asked, and within `--max-error` when set (the K it chose is given
/// back).
fn to_gltf(
    a: &ReduceJob,
    (g, poses): (&Gltf, Option<&[dashvertex_skin::Animation]>),
    parts: Vec<Part<'_>>,
    manifest: &mut Manifest,
    opts: &dashvertex_reduce::pipeline::Options,
    container: Container,
) -> Result<(Made, Option<usize>), AppError> {
    let mut chosen_k = None;

    let files = buffer_files(a.output, a.embed);
    let prims: Vec<PrimitiveInput<'_>> =
        parts.into_iter().filter_map(Part::into_primitive).collect();
    let anims = match (a.reports(), a.max_error, a.fit) {
        (false, None, false) => Vec::new(),
        _ => match poses {
            Some(p) => p.to_vec(),
            None => poses_for(a.input, g, None, a.ctx)?,
        },
    };
    let fitting = crate::fitting::Fitting::new(a, g, &anims);
    let run = |cfg: &Config, m: &mut Manifest| {
        fitting
            .run(g, &prims, m, cfg, opts, container, &files)
            .map_err(|e| pipeline_failed(a, e))
    };
    // With `--quantize auto`, `--max-error` bounds the storage and K together.
    let search = a.max_error.filter(|_| !a.quantize_auto);
    let auto = a.max_error.filter(|_| a.quantize_auto);
    let (out, loss) = match search {
        None if auto.is_some() => {
            let (k, m, out) = auto_within(a, manifest, auto.unwrap_or(0.0), &|cfg, m| {
                fitting.run(g, &prims, m, cfg, opts, container, &files)
            })?;
            *manifest = m;
            chosen_k = Some(k);
            let loss = if a.reports() {
                Some(loss_of(a.input, g, &out.written, &anims, &a.ctx.limits)?)
            } else {
                None
            };
            (out, loss)
        }
        None => {
            let out = run(&a.config, manifest)?;
            let loss = if a.reports() {
                Some(loss_of(a.input, g, &out.written, &anims, &a.ctx.limits)?)
            } else {
                None
            };
            (out, loss)
        }
        Some(budget) => {
            let (k, m, out, loss) = reduce_within(a, g, &prims, manifest, &anims, budget, &run)?;
            *manifest = m;
            chosen_k = Some(k);
            (out, Some(loss))
        }
    };
    // The plain reduction measured beside the fitted one keeps the K written.
    let cfg = a
        .config
        .with_max_influences(chosen_k.unwrap_or(a.config.max_influences));
    let fit = fitting.finish(
        a,
        g,
        &prims,
        manifest,
        opts,
        (container, &files),
        (&cfg, &anims),
        loss.is_some(),
    )?;
    let made = Made {
        written: out.written,
        reports: out.reports,
        changes: out.changes,
        loss,
        fit,
    };
    Ok((made, chosen_k))
}

/// Reduces the one part a DashVertex output holds (`--mesh`/`--primitive` pick it from
/// glTF input), written in the input's DashVertex form or a new JSON one; what a glTF
/// primitive leaves behind is said back.
fn to_dash(
    a: &ReduceJob,
    source: &Source,
    parts: &[Part<'_>],
    manifest: &mut Manifest,
    opts: &dashvertex_reduce::pipeline::Options,
) -> Result<(Made, Option<String>), AppError> {
    if a.fit || a.quantize_auto {
        return Err(AppError::Usage(format!(
            "{} and {} auto need glTF input and output: the fit skins with the file's joints and animations",
            a.ctx.opt(Opt::Fit),
            a.ctx.opt(Opt::Quantize)
        )));
    }
    if a.max_error.is_some() || a.poses.is_some() {
        return Err(AppError::Usage(format!(
            "{} and {} need glTF input and output: the displacement is measured by skinning with the file's joints and animations",
            a.ctx.opt(Opt::MaxError),
            a.ctx.opt(Opt::Poses)
        )));
    }
    let named = a.to.or_else(|| Format::from_extension(a.output));
    let format = named.ok_or_else(|| {
        AppError::Usage(format!(
            "cannot tell the output format of {}; use .json, .dmx, .raw, .gltf or .glb, or {}",
            a.output.display(),
            a.ctx.opt(Opt::To)
        ))
    })?;
    let part = a.pick.one(parts, a.ctx)?;
    let input = part.input();
    let carried = match (source, part.primitive()) {
        (Source::Gltf(g), Some(p)) => Some(crate::left_behind::not_carried(g, p, parts.len())),
        _ => None,
    };
    let positions = match part.primitive() {
        Some(p) => p.positions(),
        None => input.positions.clone(),
    };
    let (document, run) = dashvertex_reduce::document::reduce_to_document(
        input,
        part.skeleton(),
        &positions,
        manifest,
        &a.config,
        opts,
    )
    .map_err(|e| pipeline_failed(a, e))?;
    let loaded = match source {
        Source::Dash(Loaded::Json(j)) => {
            let mut j = j.clone();
            j.document = document;
            Loaded::Json(j)
        }
        Source::Dash(Loaded::Binary(b)) => {
            let mut b = b.clone();
            b.document = document;
            Loaded::Binary(b)
        }
        _ => Loaded::Json(dashvertex_json::JsonFile::new_document(document)),
    };
    let main = formats::save(&loaded, format, &a.save, a.ctx)?;
    let reports = run
        .reduced
        .iter()
        .map(|r| (r.report.clone(), r.sets))
        .collect();
    let made = Made {
        written: dashvertex_gltf::export::Written {
            main,
            ..Default::default()
        },
        reports,
        changes: run.changes,
        loss: None,
        fit: None,
    };
    Ok((made, carried))
}

/// The reduction pipeline's options for job `a` on `parts`, written to `container`
/// (`None`: DashVertex). Without a manifest file the file keeps its own bone order, where
/// the output can hold it (DashVertex needs parents first); a manifest file starts from
/// the canonical order instead.
fn options(
    a: &ReduceJob,
    parts: &[Part<'_>],
    container: Option<Container>,
) -> dashvertex_reduce::pipeline::Options {
    let keep_order = keeps_order(a.manifest.is_some(), container.is_some(), || {
        parts
            .iter()
            .all(|p| dashvertex_reduce::pipeline::parents_first(&p.input().bones))
    });
    pipeline_options(
        a.manifest.is_some(),
        a.locked,
        keep_order,
        a.drop_source_attributes,
        &a.ctx.limits,
    )
}

/// Reduces the source's parts into the output's form (glTF, or the one DashVertex part):
/// what was made, the K `--max-error` chose, and what a glTF primitive written as
/// DashVertex left behind.
fn reduce_parts(
    a: &ReduceJob,
    source: &Source,
    parts: Vec<Part<'_>>,
    manifest: &mut Manifest,
    poses: Option<&[dashvertex_skin::Animation]>,
) -> Result<(Made, Option<usize>, Option<String>), AppError> {
    // What a glTF primitive written as DashVertex leaves behind.
    let mut carried = None;
    let mut chosen_k = None;
    let container = container(a.to.or_else(|| Format::from_extension(a.output)));
    let opts = options(a, &parts, container);
    let made = match (container, source) {
        (Some(_), Source::Gltf(_)) if a.pick.given() => {
            return Err(AppError::Usage(format!(
                "{} and {} pick the primitive a DashVertex output holds; glTF output reduces every primitive",
                a.ctx.opt(Opt::Mesh),
                a.ctx.opt(Opt::Primitive)
            )));
        }
        (Some(container), Source::Gltf(g)) => {
            let (made, k) = to_gltf(a, (g, poses), parts, manifest, &opts, container)?;
            chosen_k = k;
            made
        }
        (Some(_), _) => {
            return Err(AppError::Usage(
                "glTF output needs glTF input (the skin and mesh come from it)".into(),
            ));
        }
        (None, _) => {
            let (made, left) = to_dash(a, source, &parts, manifest, &opts)?;
            carried = left;
            made
        }
    };
    Ok((made, chosen_k, carried))
}

/// What a DashVertex output was made from, so that a refusal names its bones (bone i is
/// manifest entry i); `None` for glTF output, whose refusals point into the output.
fn subject_for<'a>(a: &'a ReduceJob, format: Format, manifest: &Manifest) -> Option<Subject<'a>> {
    container(Some(format)).is_none().then(|| Subject {
        words: a.ctx.words,
        input: a.input,
        bones: manifest
            .bones
            .iter()
            .map(|e| (e.name.clone(), e.parent.clone()))
            .collect(),
    })
}
