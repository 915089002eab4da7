//! The reduce job: a file's influences kept to the strongest K per vertex, bones numbered
//! from a manifest, the output checked by the validator and written with the manifest (and
//! the loss report) together; the `max_error` search for the smallest K within a budget.

use std::path::Path;

use dashvertex_gltf::{Container, Gltf};
use dashvertex_reduce::Config;
use dashvertex_reduce::gltf::PrimitiveInput;
use dashvertex_reduce::manifest::{Manifest, ManifestError};

use crate::error::{AppError, input_error};
use crate::formats::{self, Format, Loaded, SaveOptions};
use crate::input::{Context, Part, Source, container, load_for, load_for_rewrite, must_exist};
use crate::loss::{largest, loss_lines, loss_of, over_budget, poses_for, sampled};
use crate::manifest_file::{lock, read_manifest};
use crate::output::{
    Check, Subject, buffer_files, external_buffers, refuse_aliases_before, refuse_written_aliases,
    text_files, write_checked,
};
use crate::report::ReduceReport;
use crate::words::{Opt, warn_neutral_bone, warn_other_rig};

/// A reduce job's options.
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
    pub resources: crate::resources::Resources,
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

/// One line of what the reducer did to a part.
pub fn describe(rep: &dashvertex_reduce::Report, sets: usize) -> String {
    let mut s = format!(
        "reduced {} vertices to {} set(s): {} changed, {} influence(s) dropped over the limit, {} below the threshold, {} rounded away, {} merged, {} negative",
        rep.vertices,
        sets,
        rep.changed,
        rep.dropped,
        rep.below_threshold,
        rep.quantized_away,
        rep.merged,
        rep.negative
    );
    if let Some(d) = &rep.largest_dropped {
        s.push_str(&format!(
            "; largest dropped weight {} at {}",
            d.weight, d.at
        ));
    }
    if let Some(d) = &rep.first_negative {
        s.push_str(&format!("; first negative weight {} at {}", d.weight, d.at));
    }
    if rep.empty > 0 {
        s.push_str(&format!(
            "; {} vertex(es) without influence (first: vertex {})",
            rep.empty,
            rep.first_empty.unwrap_or(0)
        ));
    }
    s
}

/// A reducer setting refused, said with the options that set it as `words` names them.
pub fn config_message(
    e: &dashvertex_reduce::ConfigError,
    words: &dyn crate::words::Wording,
) -> String {
    use dashvertex_reduce::ConfigError as E;
    let o = |opt| words.option(opt);
    match e {
        E::NoInfluences => format!("{} must be at least 1", o(Opt::MaxInfluences)),
        E::TooManyInfluences(k) => format!(
            "{} {k} is more than {}",
            o(Opt::MaxInfluences),
            dashvertex_reduce::MAX_INFLUENCES
        ),
        E::QuantizedWithoutNormalize => format!(
            "integer weights always sum to exactly 255 or 65535; use {} unit with {} unorm8/unorm16",
            o(Opt::Normalize),
            o(Opt::Quantize)
        ),
        E::MinWeight => format!("{} must be a finite number ≥ 0", o(Opt::MinWeight)),
        E::EmptyRootWithoutRoot => {
            format!("{} root needs a skeleton with a root bone", o(Opt::Empty))
        }
        other => other.to_string(),
    }
}

/// What a front end asked of the reducer, before the defaults that follow the output and
/// the engine target are filled in ([`settings`]).
#[derive(Clone, Copy, Debug)]
pub struct Asked {
    /// Influences kept per vertex (default: the target's, else 4).
    pub max_influences: Option<usize>,
    /// Normalization (default: unit for glTF output, integer weights or a target; else
    /// none).
    pub normalize: Option<dashvertex_reduce::Normalize>,
    /// Weight storage.
    pub quantize: dashvertex_reduce::Quantize,
    /// Influences below this weight are dropped.
    pub min_weight: f32,
    /// What a vertex without influence becomes.
    pub empty: dashvertex_reduce::Empty,
}

/// The reducer's settings for what was asked, writing `output` (as `to`, else as its name
/// says) for `target`: the target's influence count and unit sums where it has them, unit
/// sums for glTF and integer output. Refuses more influences than the target reads.
pub fn settings(
    asked: &Asked,
    output: &Path,
    to: Option<Format>,
    target: Option<&'static dashvertex_core::Target>,
    ctx: &Context,
) -> Result<Config, AppError> {
    use dashvertex_reduce::{Normalize, Quantize};
    let most = target.and_then(|t| t.influences());
    let max_influences = match (asked.max_influences, most) {
        (Some(k), Some(m)) if k > m => {
            return Err(AppError::Usage(format!(
                "{} {k}: {} reads {m} influences per vertex",
                ctx.opt(Opt::MaxInfluences),
                target.map_or("the target", |t| t.engine)
            )));
        }
        (Some(k), _) => k,
        (None, m) => m.unwrap_or(4),
    };
    let normalize = match (asked.normalize, target) {
        (_, Some(_)) | (Some(Normalize::Unit), _) => Normalize::Unit,
        (Some(n), None) => n,
        (None, None) => {
            let gltf = to
                .or_else(|| Format::from_extension(output))
                .is_some_and(Format::is_gltf);
            if gltf || !matches!(asked.quantize, Quantize::F32) {
                Normalize::Unit
            } else {
                Normalize::None
            }
        }
    };
    Ok(Config {
        max_influences,
        normalize,
        quantize: asked.quantize,
        min_weight: asked.min_weight,
        empty: asked.empty,
    })
}

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
///     config: reduce::settings(&asked, output, None, None, &ctx)?,
///     ..reduce::ReduceJob::new(input, output, &ctx)
/// };
/// let done = reduce::run(&job)?;
/// println!("{} part(s), K = {}", done.reports.len(), done.max_influences);
/// # Ok(()) }
/// ```
pub fn run(a: &ReduceJob) -> Result<Reduced, AppError> {
    check_args(a)?;
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
            target: None,
            pick: Pick::default(),
            convert: false,
            save: SaveOptions::default(),
            drop_source_attributes: true,
            resources: crate::resources::Resources::Auto,
            ctx,
        }
    }
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

fn check_args(a: &ReduceJob) -> Result<(), AppError> {
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
    if a.poses.is_some() && !a.reports() && a.max_error.is_none() {
        return Err(AppError::Usage(format!(
            "{} supplies the poses of {} and {}; give one of them",
            ctx.opt(Opt::Poses),
            ctx.opt(Opt::Report),
            ctx.opt(Opt::MaxError)
        )));
    }
    // No output may overwrite an input, or another output (spec/security.md W3).
    let names = path_names(ctx);
    let (outputs, inputs) = named_paths(a, &names);
    refuse_aliases_before(a.output, a.to, a.embed, &outputs, &inputs, ctx.words)?;
    if let Some(p) = a.poses {
        must_exist(p)?;
    }
    Ok(())
}

/// The search of `max_error`: the smallest K up to `job.config.max_influences` whose
/// reduction keeps every vertex within `budget` over `anims` (each K reduced from
/// `start`, the manifest before the run). Gives the K, its manifest, its output and its
/// loss; refuses when even the largest K moves a vertex further.
///
/// A job with `max_error` runs it through [`run`]:
///
/// ```no_run
/// # fn main() -> Result<(), dashvertex_app::AppError> {
/// use dashvertex_app::{Collect, Context, Neutral, reduce};
/// let log = Collect::default();
/// let ctx = Context { limits: Default::default(), resource_dirs: &[], wait: true, words: &Neutral, log: &log };
/// let (input, output) = ("rig.glb".as_ref(), "rig.k.glb".as_ref());
/// // the fewest influences, up to 8, that keep every vertex within 1 mm at every keyframe
/// let job = reduce::ReduceJob {
///     config: dashvertex_reduce::Config { max_influences: 8, ..Default::default() },
///     max_error: Some(0.001),
///     ..reduce::ReduceJob::new(input, output, &ctx)
/// };
/// let done = reduce::run(&job)?;
/// println!("K = {}", done.max_influences);
/// # Ok(()) }
/// ```
#[allow(clippy::too_many_arguments)]
pub fn reduce_within<'g>(
    job: &ReduceJob,
    gltf: &'g Gltf,
    prims: &[PrimitiveInput<'g>],
    start: &Manifest,
    anims: &[dashvertex_skin::Animation],
    budget: f64,
    run: &dyn Fn(
        &Config,
        &mut Manifest,
    ) -> Result<dashvertex_reduce::pipeline::GltfOutput, AppError>,
) -> Result<
    (
        usize,
        Manifest,
        dashvertex_reduce::pipeline::GltfOutput,
        Vec<dashvertex_skin::PrimitiveLoss>,
    ),
    AppError,
> {
    let ctx = job.ctx;
    let max_error = ctx.opt(Opt::MaxError);
    // Without an animation that moves a joint, the loss is measured over the
    // range-of-motion poses (spec/reduction.md §4), so the budget still constrains K.
    let kmax = job.config.max_influences;
    // The last K tried: the first within the budget, else max_influences.
    let mut last = None;
    for k in 1..=kmax {
        let mut m = start.clone();
        let cfg = Config {
            max_influences: k,
            ..job.config
        };
        let out = run(&cfg, &mut m)?;
        let loss = loss_of(job.input, gltf, &out.written, anims, &ctx.limits)?;
        if loss.len() < prims.len() {
            return Err(input_error(
                job.input,
                format!(
                    "{max_error}: a reduced primitive has no skin, so how far its vertices move cannot be measured"
                ),
            ));
        }
        let worst = largest(&loss);
        ctx.detail(format_args!(
            "{max_error} {budget}: {k} influence(s) move a vertex by at most {worst:.6}"
        ));
        last = Some((k, m, out, loss));
        if worst <= budget {
            break;
        }
    }
    let Some((k, m, out, loss)) = last else {
        return Err(AppError::Usage(format!(
            "{} must be at least 1",
            ctx.opt(Opt::MaxInfluences)
        )));
    };
    let worst = largest(&loss);
    if worst > budget {
        return Err(AppError::Output(over_budget(
            budget, kmax, &loss, ctx.words,
        )));
    }
    ctx.info(format_args!(
        "{max_error} {budget}: {k} influence(s) per vertex keep every vertex within it (largest displacement {worst:.6})"
    ));
    if loss
        .iter()
        .any(|p| p.pose_set == dashvertex_skin::PoseSet::RangeOfMotion)
    {
        ctx.note(format_args!(
            "{max_error} {budget}: measured over the {} (give animations with {} FILE to measure those instead)",
            crate::loss::RANGE_OF_MOTION,
            ctx.opt(Opt::Poses)
        ));
    }
    if let Some(cut) = sampled(&loss) {
        ctx.note(format_args!("{max_error} {budget}: {cut}"));
    }
    Ok((k, m, out, loss))
}

/// Runs a reduce job on a source already read from `job.input` (the convert job reads
/// first, to tell what it converts).
pub fn run_source(a: &ReduceJob, source: Source) -> Result<Reduced, AppError> {
    let ctx = a.ctx;
    let limits = &ctx.limits;
    let names = path_names(ctx);
    let (outputs, inputs) = named_paths(a, &names);
    // The source and its inputs live in this block only: they are gone before the
    // output is verified and written, so peak memory is the larger of the two phases.
    // The K written: max_influences, or the one max_error chose.
    let mut chosen_k = a.config.max_influences;
    let input_bytes = match &source {
        Source::Gltf(g) => g.input_bytes(),
        _ => 0,
    };
    // The input's errors the job carries (outside what it reads): the output may keep them.
    let carried_errors = match &source {
        Source::Gltf(g) => g.carried_errors.clone(),
        _ => std::collections::BTreeMap::new(),
    };
    let (bytes, reports, manifest, existing, changes, _lock, loss, carried, read_buffers) = {
        let read_buffers = match &source {
            Source::Gltf(g) => external_buffers(g, a.input),
            _ => Vec::new(),
        };
        let parts = source.parts(a.input, ctx)?;
        // Held from the manifest's read to its rename; a locked run writes nothing.
        let lock_guard = match a.manifest.filter(|_| !a.locked) {
            Some(p) => Some(lock(p, ctx.wait)?),
            None => None,
        };
        let existing = match a.manifest {
            Some(p) => read_manifest(p, ctx)?,
            None => None,
        };
        if let (Some(p), Some(m)) = (a.manifest, &existing) {
            let names = parts.iter().flat_map(|p| p.input().bones.iter());
            let overlap = m.overlap(names.map(|b| b.name.as_str()));
            warn_other_rig(p, overlap, ctx.log);
        }
        if a.locked && existing.is_none() {
            return Err(AppError::Usage(format!(
                "{} needs an existing {} file",
                ctx.opt(Opt::Locked),
                ctx.opt(Opt::Manifest)
            )));
        }
        let mut manifest = existing.clone().unwrap_or_default();
        // What a glTF primitive written as DashVertex leaves behind.
        let mut carried = None;
        let container = container(a.to.or_else(|| Format::from_extension(a.output)));
        // Without a manifest file the file keeps its own bone order, where the output can
        // hold it (DashVertex needs parents first); a manifest file starts from the
        // canonical order instead.
        let keep_order = a.manifest.is_none()
            && (container.is_some()
                || parts
                    .iter()
                    .all(|p| dashvertex_reduce::pipeline::parents_first(&p.input().bones)));
        let opts = dashvertex_reduce::pipeline::Options {
            locked: a.locked,
            max_bones: Some(limits.max_bones),
            require_names: a.manifest.is_some(),
            keep_order,
            keep_source_attributes: !a.drop_source_attributes,
        };
        let fail = |e: dashvertex_reduce::pipeline::PipelineError| match e {
            dashvertex_reduce::pipeline::PipelineError::Reduce(
                dashvertex_reduce::ReduceError::Config(why),
            ) => AppError::Usage(config_message(&why, ctx.words)),
            dashvertex_reduce::pipeline::PipelineError::Manifest(m @ ManifestError::Locked(_)) => {
                AppError::ManifestLocked(m.to_string())
            }
            other => input_error(a.input, other),
        };
        let (written, reports, changes, loss) = match (container, &source) {
            (Some(_), Source::Gltf(_)) if a.pick.given() => {
                return Err(AppError::Usage(format!(
                    "{} and {} pick the primitive a DashVertex output holds; glTF output reduces every primitive",
                    ctx.opt(Opt::Mesh),
                    ctx.opt(Opt::Primitive)
                )));
            }
            (Some(container), Source::Gltf(g)) => {
                let files = buffer_files(a.output, a.embed);
                let prims: Vec<PrimitiveInput<'_>> =
                    parts.into_iter().filter_map(Part::into_primitive).collect();
                let run = |cfg: &Config, m: &mut Manifest| {
                    dashvertex_reduce::pipeline::reduce_gltf(
                        g, &prims, m, cfg, &opts, container, &files,
                    )
                    .map_err(fail)
                };
                let anims = match (a.reports(), a.max_error) {
                    (false, None) => Vec::new(),
                    _ => poses_for(a.input, g, a.poses, ctx)?,
                };
                let (out, loss) = match a.max_error {
                    None => {
                        let out = run(&a.config, &mut manifest)?;
                        let loss = if a.reports() {
                            Some(loss_of(a.input, g, &out.written, &anims, limits)?)
                        } else {
                            None
                        };
                        (out, loss)
                    }
                    Some(budget) => {
                        let (k, m, out, loss) =
                            reduce_within(a, g, &prims, &manifest, &anims, budget, &run)?;
                        manifest = m;
                        chosen_k = k;
                        (out, Some(loss))
                    }
                };
                (out.written, out.reports, out.changes, loss)
            }
            (Some(_), _) => {
                return Err(AppError::Usage(
                    "glTF output needs glTF input (the skin and mesh come from it)".into(),
                ));
            }
            (None, _) => {
                if a.max_error.is_some() || a.poses.is_some() {
                    return Err(AppError::Usage(format!(
                        "{} and {} need glTF input and output: the displacement is measured by skinning with the file's joints and animations",
                        ctx.opt(Opt::MaxError),
                        ctx.opt(Opt::Poses)
                    )));
                }
                let named = a.to.or_else(|| Format::from_extension(a.output));
                let format = named.ok_or_else(|| {
                    AppError::Usage(format!(
                        "cannot tell the output format of {}; use .json, .dmx, .raw, .gltf or .glb, or {}",
                        a.output.display(),
                        ctx.opt(Opt::To)
                    ))
                })?;
                let part = a.pick.one(&parts, ctx)?;
                let input = part.input();
                carried = match (&source, part.primitive()) {
                    (Source::Gltf(g), Some(p)) => {
                        Some(crate::left_behind::not_carried(g, p, parts.len()))
                    }
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
                    &mut manifest,
                    &a.config,
                    &opts,
                )
                .map_err(fail)?;
                let loaded = match &source {
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
                let main = formats::save(&loaded, format, &a.save, ctx)?;
                let reports = run
                    .reduced
                    .iter()
                    .map(|r| (r.report.clone(), r.sets))
                    .collect();
                (
                    dashvertex_gltf::export::Written {
                        main,
                        ..Default::default()
                    },
                    reports,
                    run.changes,
                    None,
                )
            }
        };
        (
            written,
            reports,
            manifest,
            existing,
            changes,
            lock_guard,
            loss,
            carried,
            read_buffers,
        )
    };
    // The images a glTF output names follow it (spec/security.md [R4]).
    let (bytes, read_buffers) = follow_images(a, bytes, read_buffers, input_bytes)?;
    let dashvertex_gltf::export::Written {
        main: bytes,
        files,
        carried: carried_accessors,
        holes,
        notes,
    } = bytes;
    // The output's format or extension chose its encoder (checked above), so it names
    // the format.
    let format =
        a.to.or_else(|| Format::from_extension(a.output))
            .unwrap_or(Format::Json);
    // A DashVertex output's bone i is manifest entry i: a refusal names it.
    let subject = container(Some(format)).is_none().then(|| Subject {
        words: ctx.words,
        input: a.input,
        bones: manifest
            .bones
            .iter()
            .map(|e| (e.name.clone(), e.parent.clone()))
            .collect(),
    });
    // The buffer files are named now: none may overwrite a file this run read.
    refuse_written_aliases(
        a.output,
        &files,
        &outputs,
        &inputs,
        &read_buffers,
        ctx.words,
    )?;
    let manifest_text = a
        .manifest
        .filter(|_| existing.as_ref() != Some(&manifest))
        .map(|p| (p, manifest.to_json()));
    let report = a
        .reports()
        .then(|| ReduceReport::new((a.input, a.output), chosen_k, &reports, loss.as_deref()));
    let report_text = a.report.zip(report.as_ref()).map(|(path, json)| {
        let mut text = serde_json::to_string_pretty(json).unwrap_or_default();
        text.push('\n');
        (path, text)
    });
    // The manifest, the output with its buffer files and the report are replaced
    // together or not at all, once the output is checked: a report path that cannot be
    // written leaves the output and the manifest as they were.
    let check = Check {
        target: a.target,
        subject: subject.as_ref(),
        carried: carried_accessors,
        carried_errors,
        ..Check::new(a.output, format, &files, limits)
    };
    // The input was read and freed in the block above.
    write_checked(
        &check,
        bytes,
        &holes,
        &files,
        &text_files(&manifest_text),
        &text_files(&report_text),
        (),
    )?;
    for note in &notes {
        ctx.warning(format_args!("{}: {note}", a.input.display()));
    }
    if a.convert {
        for (r, sets) in &reports {
            let text = describe(r, *sets);
            if r.merged > 0 || r.negative > 0 {
                ctx.note(text);
            } else {
                ctx.detail(text);
            }
        }
        if let Some(c) = &carried {
            ctx.info(c);
        }
    } else {
        for (r, sets) in &reports {
            ctx.info(describe(r, *sets));
        }
    }
    if a.reports() {
        for line in loss_lines(loss.as_deref()) {
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
    Ok(Reduced {
        reports,
        max_influences: chosen_k,
        changes,
        loss,
        report,
    })
}
