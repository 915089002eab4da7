//! The fix job: read a file, repair its influence data with the chosen policies
//! (`dashvertex-fix`), check the result with the validator, and write it — or, when
//! nothing needed fixing, the input's own bytes.

#[cfg(feature = "fs")]
mod files;

use std::collections::BTreeMap;
use std::path::Path;

use dashvertex_fix::{Policy, Report, SumRule};
use dashvertex_gltf::Gltf;
use dashvertex_gltf::export::Written;

use crate::check::Check;
use crate::error::{AppError, input_cause};
use crate::formats::{self, Format, SaveOptions};
use crate::input::{Context, Opened, container};
use crate::settings::buffer_files;
use crate::words::{Job, Opt};
#[cfg(feature = "fs")]
pub use files::{run, write_json};

/// A fix job's options.
pub struct FixJob<'a> {
    /// Input.
    pub input: &'a Path,
    /// Output.
    pub output: &'a Path,
    /// Output format when the name cannot tell.
    pub to: Option<Format>,
    /// Policies.
    pub policy: Policy,
    /// Whether `--zero-sum` was given (else its default follows the sum rule, which for
    /// glTF told from its bytes is known only once the input is read).
    pub zero_sum_given: bool,
    /// The engine to write for: the output is checked against it too.
    pub target: Option<&'static dashvertex_core::Target>,
    /// Bone count for DashVertex input without a skeleton.
    pub bones: Option<u64>,
    /// Embed buffers of a `.gltf` output.
    pub embed: bool,
    /// How the images a glTF output names reach their files (`--resources`).
    pub resources: crate::resource_mode::Resources,
    /// Write the JSON report here (`-`: standard output), with the output.
    pub report: Option<&'a Path>,
    /// Check only: write no output (a report file is still written).
    pub dry_run: bool,
    /// How many changed vertices per part the returned report lists with their slots
    /// (`None`: all); the others are counted. The report file, when asked for, always
    /// lists every change, whatever this says.
    pub listed: Option<usize>,
    /// Limits and folders.
    pub ctx: &'a Context<'a>,
}

impl<'a> FixJob<'a> {
    /// A job reading `input` and writing `output` with the repair policies of
    /// [`Asked::default`] under the glTF sum rule, no report file, every change listed.
    pub fn new(input: &'a Path, output: &'a Path, ctx: &'a Context<'a>) -> Self {
        FixJob {
            input,
            output,
            to: None,
            policy: Policy::for_rule(SumRule::Gltf),
            zero_sum_given: false,
            target: None,
            bones: None,
            embed: false,
            resources: crate::resource_mode::Resources::Auto,
            report: None,
            dry_run: false,
            listed: None,
            ctx,
        }
    }
}

/// What a front end asked of the repair, before the rule that follows the input and the
/// engine target is decided ([`policy`]). [`Asked::default`] is the job's defaults, which
/// every front end starts from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Asked {
    /// DashVertex input: meet the glTF sum rule (glTF input and a target always do).
    pub gltf_sums: bool,
    /// Negative and non-finite weights.
    pub bad_weights: dashvertex_fix::BadWeights,
    /// Weighted joints not below the joint count.
    pub out_of_range: dashvertex_fix::OutOfRange,
    /// Skinned vertices without weight (default: the sum rule's).
    pub zero_sum: Option<dashvertex_fix::ZeroSum>,
    /// A DashVertex mesh marked unskinned that holds influence data.
    pub skinned_flag: dashvertex_fix::SkinnedFlag,
    /// How far inverse bind matrices' fourth rows may be from (0, 0, 0, 1) to be snapped.
    pub ibm_tolerance: f32,
}

impl Default for Asked {
    /// No sum rule asked for DashVertex input; bad weights zeroed; out-of-range joints and
    /// a wrong skinned flag refused; skinned vertices without weight as the sum rule says
    /// (refused under the glTF rule, kept under DashVertex's); IBM rows snapped within
    /// 1e-4.
    fn default() -> Self {
        Asked {
            gltf_sums: false,
            bad_weights: dashvertex_fix::BadWeights::Zero,
            out_of_range: dashvertex_fix::OutOfRange::Error,
            zero_sum: None,
            skinned_flag: dashvertex_fix::SkinnedFlag::Error,
            ibm_tolerance: 1e-4,
        }
    }
}

/// The repair policies for what was asked, reading `input` for `target`: the glTF sum
/// rule for glTF input (told by its name), a target or `gltf_sums`; the target's influence
/// count. Refuses a tolerance outside `[0, 1)`.
pub fn policy(
    asked: &Asked,
    input: &Path,
    target: Option<&'static dashvertex_core::Target>,
    ctx: &Context,
) -> Result<Policy, AppError> {
    let gltf_input = Format::from_extension(input).is_some_and(Format::is_gltf);
    let sum = if target.is_some() || gltf_input || asked.gltf_sums {
        SumRule::Gltf
    } else {
        SumRule::Dash
    };
    if !(asked.ibm_tolerance >= 0.0 && asked.ibm_tolerance < 1.0) {
        return Err(AppError::Usage(format!(
            "{} must be at least 0 and below 1",
            ctx.opt(Opt::IbmTolerance)
        )));
    }
    let mut policy = Policy::for_rule(sum);
    policy.bad_weights = asked.bad_weights;
    policy.out_of_range = asked.out_of_range;
    if let Some(z) = asked.zero_sum {
        policy.zero_sum = z;
    }
    policy.ibm_tolerance = asked.ibm_tolerance;
    policy.skinned_flag = asked.skinned_flag;
    policy.max_influences = target.and_then(|t| t.influences());
    Ok(policy)
}

/// What a fix job did.
#[derive(Debug)]
#[non_exhaustive]
pub struct Fixed {
    /// Every change, per part.
    pub report: Report,
    /// Whether the output was written (false for a dry run).
    pub written: bool,
}

/// What a fix job makes before anything is written: the report of every change, and the
/// output in the form the front end hands over ([`FixOutput`]), checked with
/// [`FixPlan::check`].
#[non_exhaustive]
pub struct FixPlan<'a> {
    /// Every change, per part.
    pub report: Report,
    /// The output.
    pub output: FixOutput,
    /// The output's format.
    pub format: Format,
    carried_errors: BTreeMap<String, u64>,
    job: &'a FixJob<'a>,
}

/// A fix job's output.
pub enum FixOutput {
    /// DashVertex, encoded (the input's own bytes when nothing changed and the format
    /// stays).
    Bytes(Vec<u8>),
    /// glTF, repaired: the document with its buffer files.
    Gltf(Written),
    /// Nothing to repair, and the format stays: the output is the input as it is (the
    /// filesystem shell copies the input's bytes, a `.gltf`'s buffer files with it; the
    /// inspector says there is nothing to fix).
    Unchanged,
}

impl FixPlan<'_> {
    /// The check the output (with the buffer `files` it names) passes before it is
    /// handed over: by the sum rule's profile, for the job's engine target, with the
    /// input's carried errors let through.
    pub fn check<'p>(&'p self, files: &'p [(String, Vec<u8>)]) -> Check<'p> {
        let profile = match self.report.policy.sum {
            SumRule::Dash => dashvertex_validate::Profile::Dash,
            SumRule::Gltf => dashvertex_validate::Profile::Gltf,
        };
        let a = self.job;
        Check {
            profile: Some(profile),
            target: a.target,
            carried_errors: self.carried_errors.clone(),
            ..Check::new(a.output, self.format, files, &a.ctx.limits)
        }
    }

    /// `main` when [`FixPlan::check`] accepts it, else why not, said as a fix's refusal
    /// (fix repairs influence data only).
    pub fn checked(&self, main: Vec<u8>, files: &[(String, Vec<u8>)]) -> Result<Vec<u8>, AppError> {
        self.check(files).owned(main).map_err(|e| match e {
            AppError::Output(m) => AppError::Output(format!(
                "{m}\n({} repairs influence data only; the rest of the file needs another tool)",
                self.job.ctx.job(Job::Fix)
            )),
            other => other,
        })
    }
}

/// Plans fix job `a` on its input, opened by the front end for the work of a rewrite
/// ([`crate::input::open`] with [`dashvertex_validate::Work::Rewrite`]: fix repairs
/// influence data; errors elsewhere are carried into the output). Nothing is read or
/// written here.
pub fn plan<'a>(a: &'a FixJob<'a>, input: FixInput<'_>) -> Result<FixPlan<'a>, AppError> {
    let named_out = a.to.or_else(|| Format::from_extension(a.output));
    match input {
        FixInput::Gltf(g) => plan_gltf(a, g),
        FixInput::Bytes(bytes) => plan_dash(a, bytes, named_out),
    }
}

/// A fix job's input, as the front end opened it ([`Opened`], or a glTF document it
/// holds): borrowed, so the front end keeps it (to copy it when nothing changed).
#[derive(Clone, Copy)]
pub enum FixInput<'s> {
    /// glTF, loaded and checked.
    Gltf(&'s Gltf),
    /// A DashVertex file's bytes.
    Bytes(&'s [u8]),
}

impl<'s> From<&'s Opened> for FixInput<'s> {
    fn from(o: &'s Opened) -> Self {
        match o {
            Opened::Gltf(g) => FixInput::Gltf(g),
            Opened::Bytes(b) => FixInput::Bytes(b),
        }
    }
}

/// [`plan`] for glTF input (a front end that reads only glTF calls it directly, and
/// links no DashVertex codec).
pub fn plan_gltf<'a>(a: &'a FixJob<'a>, g: &Gltf) -> Result<FixPlan<'a>, AppError> {
    let named_out = a.to.or_else(|| Format::from_extension(a.output));
    let ctx = a.ctx;
    let carried_errors = g.carried_errors.clone();
    let in_format = match g.container {
        dashvertex_gltf::Container::Glb => Format::Glb,
        dashvertex_gltf::Container::Gltf => Format::Gltf,
    };
    let format = named_out.unwrap_or(in_format);
    let Some(container) = container(Some(format)) else {
        return Err(AppError::Usage(format!(
            "{} is glTF: its output must be .gltf or .glb (or {} gltf|glb)",
            a.input.display(),
            ctx.opt(Opt::To)
        )));
    };
    let policy = Policy {
        sum: SumRule::Gltf,
        zero_sum: if a.zero_sum_given {
            a.policy.zero_sum
        } else {
            Policy::for_rule(SumRule::Gltf).zero_sum
        },
        ..a.policy
    };
    let listed = if a.report.is_some() { None } else { a.listed };
    let fixed = dashvertex_fix::fix_gltf_listing(g, &policy, &ctx.limits, listed)
        .map_err(|e| input_cause(a.input, e))?;
    let mut notes = if g.byte_order_mark {
        vec![dashvertex_fix::Note::ByteOrderMark]
    } else {
        Vec::new()
    };
    notes.extend(fixed.structure);
    let file = a.input.display().to_string();
    let report = Report::new(file, policy, fixed.parts, fixed.skins, notes);
    let output = match fixed.editor {
        Some(e) => {
            let files = buffer_files(a.output, a.embed);
            let w = e.finish_files(container, &files).map_err(export)?;
            for note in &w.notes {
                ctx.warning(format_args!("{}: {note}", a.input.display()));
            }
            FixOutput::Gltf(w)
        }
        None => FixOutput::Unchanged,
    };
    Ok(FixPlan {
        report,
        output,
        format,
        carried_errors,
        job: a,
    })
}

/// [`plan`] for DashVertex input.
fn plan_dash<'a>(
    a: &'a FixJob<'a>,
    bytes: &[u8],
    named_out: Option<Format>,
) -> Result<FixPlan<'a>, AppError> {
    let ctx = a.ctx;
    let limits = &ctx.limits;
    let file = a.input.display().to_string();
    let in_format = formats::decide(a.input, bytes, ctx.log);
    if in_format.is_gltf() {
        // The filesystem shell opens glTF as glTF; a library caller handed its bytes here.
        return Err(crate::error::input_error(
            a.input,
            "glTF handed over as DashVertex bytes: open it as glTF (`input::open`, `FixInput::Gltf`)",
        ));
    }
    let format = named_out.unwrap_or(in_format);
    if format.is_gltf() {
        return Err(AppError::Usage(format!(
            "{} is DashVertex {}: {} writes DashVertex (json, dmx, raw); fix it first, then {} makes glTF from it",
            a.input.display(),
            in_format.as_str(),
            ctx.job(Job::Fix),
            ctx.job(Job::Convert)
        )));
    }
    let mut loaded = formats::load(&file, bytes, in_format, limits, ctx)?;
    let part = dashvertex_fix::fix_document(loaded.document_mut(), a.bones, &a.policy)
        .map_err(|e| input_cause(a.input, e))?;
    let notes = if matches!(in_format, Format::Dmx | Format::Raw)
        && record_indices_wrong(&file, bytes, in_format, limits)
    {
        vec![dashvertex_fix::Note::RecordIndices]
    } else {
        Vec::new()
    };
    let report = Report::new(file, a.policy, vec![part], Vec::new(), notes);
    let output = if report.unchanged && format == in_format {
        FixOutput::Unchanged
    } else {
        FixOutput::Bytes(formats::save(
            &loaded,
            format,
            &SaveOptions::default(),
            ctx,
        )?)
    };
    Ok(FixPlan {
        report,
        output,
        format,
        carried_errors: BTreeMap::new(),
        job: a,
    })
}

/// One line: how many vertices changed in how many parts.
pub fn summary(report: &Report) -> String {
    if report.unchanged {
        return format!("{}: nothing to fix", report.file);
    }
    let parts = report
        .parts
        .iter()
        .filter(|p| p.report.changed() || !p.notes.is_empty())
        .count();
    let notes: usize = report.parts.iter().map(|p| p.notes.len()).sum::<usize>()
        + report.skins.iter().map(|s| s.notes.len()).sum::<usize>()
        + report.notes.iter().filter(|n| n.changes()).count();
    format!(
        "{}: {} {} changed in {parts} part(s); {notes} other change(s) (the report lists them)",
        report.file,
        report.vertices_changed,
        if report.vertices_changed == 1 {
            "vertex"
        } else {
            "vertices"
        },
    )
}

/// Whether DMX or raw records hold an `index` that is not their position (the validator's
/// `VERTEX_INDEX` / `BONE_RECORD_INDEX`): writing the file again rewrites them.
fn record_indices_wrong(
    name: &str,
    bytes: &[u8],
    format: Format,
    limits: &dashvertex_core::Limits,
) -> bool {
    let opts = dashvertex_validate::Options::new()
        .with_format(format)
        .with_limits(*limits)
        .with_max_diagnostics(1)
        .with_levels(
            dashvertex_validate::Code::ALL
                .iter()
                .filter(|c| {
                    !matches!(
                        c,
                        dashvertex_validate::Code::VERTEX_INDEX
                            | dashvertex_validate::Code::BONE_RECORD_INDEX
                    )
                })
                .map(|&c| (c, dashvertex_validate::Level::Allow))
                .collect(),
        );
    dashvertex_validate::validate_bytes(name, bytes, &opts)
        .counts
        .errors
        > 0
}

fn export(e: dashvertex_gltf::export::ExportError) -> AppError {
    AppError::Output(format!("the fixed file cannot be written: {e}"))
}
