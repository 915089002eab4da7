//! The file functions, each the job the command line runs (`dashvertex_app`), from a path
//! to written files: `reduce_file` is `dashvertex reduce`, `fix_file` is `dashvertex fix`,
//! `remap_file` is `dashvertex remap`. Options are Python keywords and messages name
//! them so; what a job says on its way comes back in `JobResult.messages`.

use std::path::PathBuf;

use dashvertex_app::{AppError, Collect, Context, Job, Level, Opt, Wording};
use pyo3::prelude::*;

use crate::errors::{Failure, Kind, Result};
use crate::{options, pool};

/// Options named as the Python keywords spell them, jobs as the functions that run them.
pub(crate) struct Keywords;

impl Wording for Keywords {
    fn option(&self, opt: Opt) -> String {
        opt.keyword().to_owned()
    }

    fn job(&self, job: Job) -> String {
        match job {
            Job::Reduce => "dashvertex.reduce_file".to_owned(),
            Job::Fix => "dashvertex.fix_file".to_owned(),
            Job::Remap => "dashvertex.remap_file".to_owned(),
            Job::Convert => "dashvertex.convert_file".to_owned(),
            Job::Validate => "dashvertex.validate".to_owned(),
            // No Python function of their own: the commands.
            other => format!("dashvertex {}", other.keyword()),
        }
    }

    /// `keyword="value"`; a placeholder (`N`, `FILE`, `ENGINE`) bare.
    fn set(&self, opt: Opt, value: &str) -> String {
        if value.chars().all(|c| c.is_ascii_uppercase()) && !value.is_empty() && value.len() <= 6 {
            format!("{}={value}", opt.keyword())
        } else {
            format!("{}=\"{value}\"", opt.keyword())
        }
    }

    /// `dashvertex.fix_file(path, output, zero_sum="nearest")`; a job without a Python
    /// function of its own as its command line.
    fn call(&self, job: Job, args: &[(Opt, &str)]) -> String {
        if !matches!(job, Job::Reduce | Job::Fix | Job::Remap | Job::Convert) {
            return dashvertex_app::CommandLine.call(job, args);
        }
        let mut out = format!("{}(path, output", self.job(job));
        for &(opt, value) in args {
            out.push_str(", ");
            out.push_str(&self.set(opt, value));
        }
        out.push(')');
        out
    }
}

impl From<AppError> for Failure {
    /// A job's failure as the package's exception for its kind. An input error keeps the
    /// library error behind it: its code and location (JSON Pointer, byte offset, vertex)
    /// are the ones that error gives when called directly, the message the job's.
    fn from(e: AppError) -> Self {
        let message = e.to_string();
        match e {
            AppError::Usage(_) => Failure::new(Kind::Option, "OPTION", message),
            AppError::Io(_) | AppError::BrokenPipe => Failure::new(Kind::Io, "IO_ERROR", message),
            AppError::Input { file, source, .. } => match source.map(cause_failure) {
                Some(f) => f.with_message(message).in_file(&file),
                None => Failure::new(Kind::Format, "INVALID_INPUT", message).in_file(&file),
            },
            AppError::ManifestLocked(_) => Failure::new(Kind::Manifest, "MANIFEST", message),
            _ => Failure::new(Kind::Output, "NOT_WRITTEN", message),
        }
    }
}

/// The failure a library error behind a job's input error maps to: the same code and
/// location as the library's own call raises.
fn cause_failure(cause: dashvertex_app::Cause) -> Failure {
    /// Tries each type in turn, handing the error on when it is not that type.
    macro_rules! first_of {
        ($e:expr, $($t:ty),+) => {{
            let e = $e;
            $(let e = match e.downcast::<$t>() {
                Ok(known) => return Failure::from(*known),
                Err(other) => other,
            };)+
            e
        }};
    }
    let cause = first_of!(
        cause,
        dashvertex_gltf::LoadError,
        dashvertex_gltf::import::ImportError,
        dashvertex_formats::DecodeError,
        dashvertex_manifest::ManifestError,
        dashvertex_core::LimitError,
        dashvertex_fs::FsError
    );
    match cause.downcast::<dashvertex_app::Refused>() {
        Ok(r) => refused(*r),
        Err(other) => {
            Failure::new(Kind::Format, "INVALID_INPUT", other.to_string()).caused_by_boxed(other)
        }
    }
}

/// A validator refusal: the first error's code and location.
fn refused(r: dashvertex_app::Refused) -> Failure {
    let d = &r.0;
    let code: &'static str = d.code.as_str();
    let mut f = Failure::new(Kind::Format, code, r.to_string());
    if let Some(p) = &d.location.pointer {
        f = f.at_pointer(p.clone());
    }
    if let (Some(l), Some(c)) = (d.location.line, d.location.column) {
        f = f.at_line_column(l, c);
    }
    if let Some(o) = d.location.offset {
        f = f.at_offset(o);
    }
    if let Some(v) = d.location.vertex {
        f = f.at_vertex(v);
    }
    f.caused_by(r)
}

/// What a file function did.
#[pyclass(frozen, module = "dashvertex")]
pub struct JobResult {
    /// True when the output (and any report or manifest) was written.
    #[pyo3(get)]
    written: bool,
    /// What the job said on its way, as `(level, text)`: level is "warning", "note",
    /// "info" or "detail" (the command prints the first three, `-v` the last).
    #[pyo3(get)]
    messages: Vec<(String, String)>,
    /// The report as a dict: the reduce report (`schemas/reduce-report.schema.json`) when
    /// `report` was asked for, the fix report (`schemas/fix-report.schema.json`) always
    /// for `fix_file`; None otherwise.
    report: Option<String>,
    /// `reduce_file`: the influences kept per vertex (as asked, or what `max_error`
    /// chose).
    #[pyo3(get)]
    max_influences: Option<usize>,
    /// `reduce_file` with a manifest: what the manifest gained, one line each.
    #[pyo3(get)]
    manifest_changes: Vec<String>,
}

impl JobResult {
    /// A job that wrote its output and reports nothing beyond its messages.
    fn written(log: &Collect) -> JobResult {
        JobResult {
            written: true,
            messages: messages(log),
            report: None,
            max_influences: None,
            manifest_changes: Vec::new(),
        }
    }
}

#[pymethods]
impl JobResult {
    /// The report as a dict (None when there is none).
    #[getter]
    fn report<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match &self.report {
            None => Ok(None),
            Some(text) => {
                let json = py.import("json")?;
                Ok(Some(json.call_method1("loads", (text.as_str(),))?))
            }
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "JobResult(written={}, messages={})",
            if self.written { "True" } else { "False" },
            self.messages.len()
        )
    }
}

/// The messages a job gave, as `(level, text)`.
fn messages(log: &Collect) -> Vec<(String, String)> {
    log.take()
        .into_iter()
        .map(|(l, m)| {
            let level = match l {
                Level::Warning => "warning",
                Level::Note => "note",
                Level::Info => "info",
                Level::Detail => "detail",
            };
            (level.to_owned(), m)
        })
        .collect()
}

/// A path keyword: str or os.PathLike.
fn path_of(v: &Bound<'_, PyAny>, keyword: &str) -> Result<PathBuf> {
    v.extract::<PathBuf>()
        .map_err(|_| Failure::option(format!("{keyword} must be a path (str or os.PathLike)")))
}

/// A `str` keyword naming a file format: "json", "dmx", "raw", "gltf" or "glb".
fn format_of(given: Option<&str>) -> Result<Option<dashvertex_formats::Format>> {
    given
        .map(|g| {
            dashvertex_formats::Format::from_name(g).ok_or_else(|| {
                Failure::option(format!(
                    "to={g:?} is not one of \"json\", \"dmx\", \"raw\", \"gltf\", \"glb\""
                ))
            })
        })
        .transpose()
}

/// A job context speaking Python, collecting into `log`.
fn context(log: &Collect) -> Context<'_> {
    Context {
        limits: Default::default(),
        resource_dirs: &[],
        wait: true,
        words: &Keywords,
        log,
    }
}

/// `report=`: None, True (give the figures back) or a path (also write them there).
enum ReportArg {
    None,
    Give,
    File(PathBuf),
}

fn report_arg(v: Option<&Bound<'_, PyAny>>) -> Result<ReportArg> {
    let Some(v) = v.filter(|v| !v.is_none()) else {
        return Ok(ReportArg::None);
    };
    if let Ok(b) = v.extract::<bool>() {
        return Ok(if b { ReportArg::Give } else { ReportArg::None });
    }
    path_of(v, "report").map(ReportArg::File)
}

/// Reduces a file as `dashvertex reduce` does and writes the result.
///
/// `input` is DashVertex (JSON, DMX, raw records), a per-bone weights document, or glTF/GLB
/// (a .gltf's buffers are read beside it); `output` is DashVertex, or glTF/GLB for glTF
/// input, its format told by its name or `to`. Keeps the strongest `max_influences` per
/// vertex (default: the target's, else 4), numbers bones from the bone `manifest` file
/// (created when missing, extended with new bones; `locked=True` refuses any change),
/// normalizes as the output requires unless `normalize` says ("unit" or "none"),
/// `quantize` ("unorm16", "unorm8"), `min_weight`, `empty` ("error", "zero", "root").
/// `report=True` measures the displacement over the model's animations (glTF; when none
/// moves a joint, over the range-of-motion poses, the report's `poseSet` says which) and
/// returns the reduce report, its shares of the skinned rest-pose diagonal; a path also
/// writes it there. `max_error` keeps the fewest influences that move no vertex further
/// over the same poses (glTF; `poses` supplies other animations). `fit=True` (glTF)
/// fits each vertex's kept bones and weights to its skinning with every influence over
/// the animations and range-of-motion poses, never worse than the heaviest K there
/// (`fit_motion_weight` scales the range of motion's share once both count alike: 0 fits
/// to the animations alone, above 1 favours other clips);
/// `quantize="auto"` with `max_error` stores each primitive in the smallest of unorm8,
/// unorm16 and f32 within it (spec/reduction.md §6; the report's `fit` says what each did).
/// `mesh`/`primitive` pick the glTF primitive a DashVertex output holds. The output is
/// checked by the validator first; the manifest, output and report are written together
/// or not at all. Raises DashError (a subclass) when nothing could be written.
#[pyfunction]
#[pyo3(signature = (input, output, *, max_influences = None, normalize = None, quantize = None,
                    min_weight = None, empty = "error", manifest = None, locked = false,
                    target = None, to = None, embed = false, report = None, max_error = None,
                    poses = None, mesh = None, primitive = None,
                    drop_source_attributes = true, resources = None, threads = None, fit = false,
                    fit_motion_weight = 1.0))]
#[allow(clippy::too_many_arguments)]
pub fn reduce_file(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    output: &Bound<'_, PyAny>,
    max_influences: Option<usize>,
    normalize: Option<&str>,
    quantize: Option<&str>,
    min_weight: Option<f32>,
    empty: &str,
    manifest: Option<&Bound<'_, PyAny>>,
    locked: bool,
    target: Option<&str>,
    to: Option<&str>,
    embed: bool,
    report: Option<&Bound<'_, PyAny>>,
    max_error: Option<f64>,
    poses: Option<&Bound<'_, PyAny>>,
    mesh: Option<usize>,
    primitive: Option<usize>,
    drop_source_attributes: bool,
    resources: Option<&str>,
    threads: Option<usize>,
    fit: bool,
    fit_motion_weight: f64,
) -> PyResult<JobResult> {
    let input = path_of(input, "input")?;
    let output = path_of(output, "output")?;
    let manifest = manifest.map(|m| path_of(m, "manifest")).transpose()?;
    let poses = poses.map(|p| path_of(p, "poses")).transpose()?;
    // quantize="auto": the smallest storage within max_error (spec/reduction.md §6).
    let quantize_auto = quantize == Some("auto");
    let quantize = quantize.filter(|q| *q != "auto");
    let report = report_arg(report)?;
    let resources = resources_arg(resources)?;
    let asked = dashvertex_app::reduce::Asked {
        max_influences,
        normalize: normalize.map(options::normalize).transpose()?,
        quantize: options::quantize(quantize)?,
        min_weight: min_weight.unwrap_or(0.0),
        empty: options::empty(empty)?,
    };
    let target = options::target(target)?;
    let to = format_of(to)?;
    let log = Collect::default();
    let done = py.detach(|| {
        pool::run(threads, || -> Result<_> {
            let ctx = context(&log);
            let config = dashvertex_app::reduce::settings(&asked, &output, to, target, ctx.words)?;
            let file = match &report {
                ReportArg::File(p) => Some(p.as_path()),
                _ => None,
            };
            let job = dashvertex_app::reduce::ReduceJob {
                to,
                config,
                manifest: manifest.as_deref(),
                locked,
                embed,
                report: file,
                measure: matches!(report, ReportArg::Give),
                max_error,
                poses: poses.as_deref(),
                fit,
                fit_motion_weight,
                quantize_auto,
                target,
                pick: dashvertex_app::reduce::Pick { mesh, primitive },
                drop_source_attributes,
                resources,
                ..dashvertex_app::reduce::ReduceJob::new(&input, &output, &ctx)
            };
            Ok(dashvertex_app::reduce::run(&job)?)
        })?
    })?;
    let report = match &done.report {
        Some(r) => Some(serde_json::to_string(r).map_err(|e| Failure::option(e.to_string()))?),
        None => None,
    };
    Ok(JobResult {
        written: true,
        messages: messages(&log),
        report,
        max_influences: Some(done.max_influences),
        manifest_changes: if manifest.is_some() {
            done.changes.describe()
        } else {
            Vec::new()
        },
    })
}

/// Repairs a file's influence data as `dashvertex fix` does and writes it.
///
/// The smallest change that makes the influence data valid (spec/fix.md), with the
/// policies the keywords name: `profile` ("dash" or "gltf": the sum rule for DashVertex;
/// glTF always meets the glTF rule), `bad_weights` ("zero", "error"), `out_of_range`
/// ("error", "drop"), `zero_sum` ("keep", "error", "root", "nearest"; default follows the
/// rule), `skinned_flag` ("error", "set", "clear"), `ibm_tolerance`, `bones` (DashVertex
/// without a skeleton), `target`. `output=None` with `dry_run=True` checks only. The
/// result is written only when the validator accepts it, the input's own bytes when
/// nothing needed fixing. `JobResult.report` is the fix report; `report=PATH` also writes
/// it there, with the output.
#[pyfunction]
#[pyo3(signature = (input, output = None, *, profile = "dash", bad_weights = "zero",
                    out_of_range = "error", zero_sum = None, skinned_flag = "error",
                    ibm_tolerance = 1e-4, bones = None, target = None, to = None,
                    embed = false, report = None, dry_run = false, resources = None,
                    threads = None))]
#[allow(clippy::too_many_arguments)]
pub fn fix_file(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    output: Option<&Bound<'_, PyAny>>,
    profile: &str,
    bad_weights: &str,
    out_of_range: &str,
    zero_sum: Option<&str>,
    skinned_flag: &str,
    ibm_tolerance: f32,
    bones: Option<u64>,
    target: Option<&str>,
    to: Option<&str>,
    embed: bool,
    report: Option<&Bound<'_, PyAny>>,
    dry_run: bool,
    resources: Option<&str>,
    threads: Option<usize>,
) -> PyResult<JobResult> {
    use dashvertex_fix::{BadWeights, OutOfRange, SkinnedFlag, ZeroSum};
    let resources = resources_arg(resources)?;
    let input = path_of(input, "input")?;
    let output = match output {
        Some(o) if !o.is_none() => path_of(o, "output")?,
        _ if dry_run => PathBuf::from("-"),
        _ => return Err(Failure::option("output is needed unless dry_run=True").into()),
    };
    let report_path = report.map(|r| path_of(r, "report")).transpose()?;
    use options::choice;
    let gltf_sums = options::profile(Some(profile))? == Some(dashvertex_validate::Profile::Gltf);
    let asked = dashvertex_app::fix::Asked {
        gltf_sums,
        bad_weights: choice(
            "bad_weights",
            bad_weights,
            &[("zero", BadWeights::Zero), ("error", BadWeights::Error)],
        )?,
        out_of_range: choice(
            "out_of_range",
            out_of_range,
            &[("error", OutOfRange::Error), ("drop", OutOfRange::Drop)],
        )?,
        zero_sum: zero_sum
            .map(|z| {
                choice(
                    "zero_sum",
                    z,
                    &[
                        ("keep", ZeroSum::Keep),
                        ("error", ZeroSum::Error),
                        ("root", ZeroSum::Root),
                        ("nearest", ZeroSum::Nearest),
                    ],
                )
            })
            .transpose()?,
        skinned_flag: choice(
            "skinned_flag",
            skinned_flag,
            &[
                ("error", SkinnedFlag::Error),
                ("set", SkinnedFlag::Set),
                ("clear", SkinnedFlag::Clear),
            ],
        )?,
        ibm_tolerance,
    };
    let target = options::target(target)?;
    let to = format_of(to)?;
    let log = Collect::default();
    let done = py.detach(|| {
        pool::run(threads, || -> Result<_> {
            let ctx = context(&log);
            let policy = dashvertex_app::fix::policy(&asked, &input, target, &ctx)?;
            Ok(dashvertex_app::fix::run(&dashvertex_app::fix::FixJob {
                input: &input,
                output: &output,
                to,
                policy,
                zero_sum_given: asked.zero_sum.is_some(),
                target,
                bones,
                embed,
                resources,
                report: report_path.as_deref(),
                dry_run,
                // The report comes back as a dict with every change.
                listed: None,
                ctx: &ctx,
            })?)
        })?
    })?;
    let report = serde_json::to_string(&done.report).map_err(|e| Failure::option(e.to_string()))?;
    Ok(JobResult {
        written: done.written,
        messages: messages(&log),
        report: Some(report),
        max_influences: None,
        manifest_changes: Vec::new(),
    })
}

/// Rewrites a glTF's joint order to a bone manifest's as `dashvertex remap` does,
/// changing no influence: each skin's joints take the manifest's indices (bones the
/// manifest lacks are appended after its bones; `locked=True` refuses them), and the
/// output (.gltf or .glb) is written atomically.
#[pyfunction]
#[pyo3(signature = (input, manifest, output, *, locked = false, embed = false, resources = None,
                    threads = None))]
#[allow(clippy::too_many_arguments)]
pub fn remap_file(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    manifest: &Bound<'_, PyAny>,
    output: &Bound<'_, PyAny>,
    locked: bool,
    embed: bool,
    resources: Option<&str>,
    threads: Option<usize>,
) -> PyResult<JobResult> {
    let resources = resources_arg(resources)?;
    let input = path_of(input, "input")?;
    let manifest = path_of(manifest, "manifest")?;
    let output = path_of(output, "output")?;
    let log = Collect::default();
    py.detach(|| {
        pool::run(threads, || -> Result<_> {
            let ctx = context(&log);
            Ok(dashvertex_app::remap::run(
                &dashvertex_app::remap::RemapJob {
                    input: &input,
                    manifest: &manifest,
                    output: &output,
                    locked,
                    embed,
                    resources,
                    ctx: &ctx,
                },
            )?)
        })?
    })?;
    Ok(JobResult::written(&log))
}

/// The `resources=` keyword: how a written glTF's images reach their bytes (`None`: the
/// mode that makes the output open where it is).
fn resources_arg(mode: Option<&str>) -> Result<dashvertex_app::resources::Resources> {
    mode.map_or(Ok(Default::default()), |m| {
        m.parse().map_err(Failure::option)
    })
}

/// Converts between the formats dash reads and writes, as `dashvertex convert` does (the
/// same job): DashVertex JSON, DMX and raw records bit for bit; glTF/GLB (or FBX) to
/// DashVertex with every influence kept (``mesh``/``primitive`` pick the primitive);
/// DashVertex to a glTF of one POINTS primitive; glTF and GLB into each other unchanged,
/// their images following the output (``resources``). ``from_format``/``to`` name a
/// format its bytes or extension do not; ``form`` shapes JSON output ("vertex", "array",
/// "document"); ``compact``/``drop_unreferenced`` shape DMX output.
#[pyfunction]
#[pyo3(signature = (input, output, *, from_format = None, to = None, form = None,
                    compact = false, drop_unreferenced = false, embed = false,
                    resources = None, mesh = None, primitive = None, threads = None))]
#[allow(clippy::too_many_arguments)]
pub fn convert_file(
    py: Python<'_>,
    input: &Bound<'_, PyAny>,
    output: &Bound<'_, PyAny>,
    from_format: Option<&str>,
    to: Option<&str>,
    form: Option<&str>,
    compact: bool,
    drop_unreferenced: bool,
    embed: bool,
    resources: Option<&str>,
    mesh: Option<usize>,
    primitive: Option<usize>,
    threads: Option<usize>,
) -> PyResult<JobResult> {
    let input = path_of(input, "input")?;
    let output = path_of(output, "output")?;
    let from = format_of(from_format)?;
    let to = format_of(to)?;
    let form = form
        .map(|f| f.parse::<dashvertex_json::Form>().map_err(Failure::option))
        .transpose()?;
    let resources = resources_arg(resources)?;
    let log = Collect::default();
    py.detach(|| {
        pool::run(threads, || -> Result<_> {
            let ctx = context(&log);
            Ok(dashvertex_app::convert::run(
                &dashvertex_app::convert::ConvertJob {
                    input: &input,
                    output: &output,
                    from,
                    to,
                    save: dashvertex_formats::SaveOptions {
                        form,
                        binary: dashvertex_binary::WriteOptions {
                            compact_unskinned: compact,
                            drop_unreferenced,
                        },
                    },
                    embed,
                    resources,
                    pick: dashvertex_app::reduce::Pick { mesh, primitive },
                    ctx: &ctx,
                },
            )?)
        })?
    })?;
    Ok(JobResult::written(&log))
}
