//! The fix job: read a file, repair its influence data with the chosen policies
//! (`dashvertex-fix`), check the result with the validator, and write it — or, when
//! nothing needed fixing, the input's own bytes.

use std::path::Path;

use dashvertex_fix::{Policy, Report, SumRule};

use crate::error::{AppError, input_cause};
use crate::formats::{self, Format, SaveOptions};
use crate::input::{Context, Opened, container, read_source_for};
use crate::output::{
    Check, buffer_files, external_buffers, make_folders, nothing_written, refuse_aliases_before,
    refuse_written_aliases, stage_output, unchanged_gltf,
};
use crate::words::{Job, Opt};

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
    pub resources: crate::resources::Resources,
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

/// The output of a fix, before it is checked and written.
struct Output {
    main: Vec<u8>,
    /// Buffer files to write beside the output.
    files: Vec<(String, Vec<u8>)>,
    /// Buffer files the output names that are already beside it (an unchanged `.gltf`
    /// copied into its own folder): read by the check, not written again.
    present: Vec<(String, Vec<u8>)>,
    format: Format,
    report: Report,
    /// The external buffer files the input names (no output may overwrite one).
    read_buffers: Vec<std::path::PathBuf>,
    /// The input's errors outside the influences, carried unchanged, by code
    /// ([`crate::output::Check::carried_errors`]).
    carried_errors: std::collections::BTreeMap<String, u64>,
}

/// What a front end asked of the repair, before the rule that follows the input and the
/// engine target is decided ([`policy`]).
#[derive(Clone, Copy, Debug)]
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

/// Runs a fix job: the output is written only when the validator accepts it, with the
/// report file (if any) together.
///
/// ```no_run
/// # fn main() -> Result<(), dashvertex_app::AppError> {
/// use dashvertex_app::{Collect, Context, Neutral, fix};
/// let log = Collect::default();
/// let ctx = Context { limits: Default::default(), resource_dirs: &[], wait: true, words: &Neutral, log: &log };
/// let asked = fix::Asked {
///     gltf_sums: true,
///     bad_weights: dashvertex_fix::BadWeights::Zero,
///     out_of_range: dashvertex_fix::OutOfRange::Drop,
///     zero_sum: Some(dashvertex_fix::ZeroSum::Nearest),
///     skinned_flag: dashvertex_fix::SkinnedFlag::Error,
///     ibm_tolerance: 1e-4,
/// };
/// let input = "rig.json".as_ref();
/// let done = fix::run(&fix::FixJob {
///     input,
///     output: "rig.fixed.json".as_ref(),
///     to: None,
///     policy: fix::policy(&asked, input, None, &ctx)?,
///     zero_sum_given: true,
///     target: None,
///     bones: None,
///     embed: false,
///     resources: Default::default(),
///     report: None,
///     dry_run: false,
///     listed: None,
///     ctx: &ctx,
/// })?;
/// println!("{}", fix::summary(&done.report));
/// # Ok(()) }
/// ```
pub fn run(a: &FixJob) -> Result<Fixed, AppError> {
    let ctx = a.ctx;
    // No output may overwrite the input or another output (spec/security.md W3).
    let (output_name, report_name) = (ctx.opt(Opt::Output), ctx.opt(Opt::Report));
    let mut outputs: Vec<dashvertex_fs::Named> = Vec::new();
    if !a.dry_run {
        outputs.push((output_name.as_str(), a.output));
    }
    outputs.extend(a.report.map(|r| (report_name.as_str(), r)));
    let inputs: Vec<dashvertex_fs::Named> = vec![("the input", a.input)];
    refuse_aliases_before(a.output, a.to, a.embed, &outputs, &inputs, ctx.words)?;
    let out = build(a)?;
    let Output {
        main,
        files,
        present,
        format,
        report,
        read_buffers,
        carried_errors,
    } = out;
    let profile = match report.policy.sum {
        SumRule::Dash => dashvertex_validate::Profile::Dash,
        SumRule::Gltf => dashvertex_validate::Profile::Gltf,
    };
    let seen: Vec<(String, Vec<u8>)> = files.iter().chain(&present).cloned().collect();
    let main = Check {
        profile: Some(profile),
        target: a.target,
        carried_errors,
        ..Check::new(a.output, format, &seen, &ctx.limits)
    }
    .owned(main)
    .map_err(|e| match e {
        AppError::Output(m) => AppError::Output(format!(
            "{m}\n({} repairs influence data only; the rest of the file needs another tool)",
            ctx.job(Job::Fix)
        )),
        other => other,
    })?;
    if a.dry_run {
        if let Some(path) = a.report {
            write_json(path, &report)?;
        }
        return Ok(Fixed {
            report,
            written: false,
        });
    }
    refuse_written_aliases(
        a.output,
        &files,
        &outputs,
        &inputs,
        &read_buffers,
        ctx.words,
    )?;
    // The output, its buffer files and the report file are replaced together or not at
    // all.
    let _folders = make_folders(a.output, &files)?;
    let mut batch = dashvertex_fs::Batch::new();
    stage_output(&mut batch, a.output, &main, None, &files)?;
    if let Some(path) = a.report {
        let out = match json_output(path, &report) {
            Err(AppError::Io(m)) => return Err(AppError::Io(format!("{m}; nothing was written"))),
            other => other?,
        };
        batch.add_output(out);
    }
    batch.commit().map_err(nothing_written)?;
    Ok(Fixed {
        report,
        written: true,
    })
}

/// The JSON report written to `path` (`-`: standard output) as it is serialized, so that
/// a report of millions of changes is never held as one string; committed by the caller.
fn json_output(path: &Path, report: &Report) -> Result<dashvertex_fs::Output, AppError> {
    use std::io::Write as _;
    let mut out = dashvertex_fs::Output::create(path)?;
    serde_json::to_writer_pretty(&mut out, report)
        .map_err(std::io::Error::from)
        .and_then(|()| out.write_all(b"\n"))
        .map_err(|e| dashvertex_fs::FsError::io(path, e))?;
    Ok(out)
}

/// Writes the JSON report to `path` (`-`: standard output).
pub fn write_json(path: &Path, report: &Report) -> Result<(), AppError> {
    Ok(json_output(path, report)?.commit()?)
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

/// Reads, repairs and encodes.
fn build(a: &FixJob) -> Result<Output, AppError> {
    let limits = &a.ctx.limits;
    let named_out = a.to.or_else(|| Format::from_extension(a.output));
    let ctx = a.ctx;
    // Fix repairs influence data; errors elsewhere are carried into the output.
    let (gltf, bytes) = match read_source_for(a.input, ctx, dashvertex_validate::Work::Rewrite)? {
        Opened::Gltf(g) => (Some(g), Vec::new()),
        Opened::Bytes(bytes) => (None, bytes),
    };
    let file = a.input.display().to_string();
    if let Some(g) = gltf {
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
        let fixed = dashvertex_fix::fix_gltf_listing(&g, &policy, limits, listed)
            .map_err(|e| input_cause(a.input, e))?;
        let mut notes = if g.byte_order_mark {
            vec![dashvertex_fix::Note::ByteOrderMark]
        } else {
            Vec::new()
        };
        notes.extend(fixed.structure);
        let report = Report::new(file, policy, fixed.parts, fixed.skins, notes);
        let mut read_buffers = external_buffers(&g, a.input);
        let input_bytes = g.input_bytes();
        let files = buffer_files(a.output, a.embed);
        let (mut written, present) = match fixed.editor {
            Some(e) => {
                let w = e.finish_files(container, &files).map_err(export)?;
                for note in &w.notes {
                    ctx.warning(format_args!("{}: {note}", a.input.display()));
                }
                (w, Vec::new())
            }
            None => {
                let u = unchanged_gltf(*g, a.input, a.output, container, &files)?;
                (u.written, u.present)
            }
        };
        // The images the output names follow it (spec/security.md [R4]).
        let follow = crate::resources::Follow {
            input: a.input,
            output: a.output,
            container,
            mode: a.resources,
            embed: a.embed,
            read: input_bytes,
            ctx,
        };
        read_buffers.extend(crate::resources::follow(&follow, &mut written)?);
        return Ok(Output {
            main: written.main,
            files: written.files,
            present,
            format,
            report,
            read_buffers,
            carried_errors,
        });
    }
    // DashVertex.
    let in_format = formats::decide(a.input, &bytes, ctx.log);
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
    let mut loaded = formats::load(&file, &bytes, in_format, limits, ctx)?;
    let part = dashvertex_fix::fix_document(loaded.document_mut(), a.bones, &a.policy)
        .map_err(|e| input_cause(a.input, e))?;
    let notes = if matches!(in_format, Format::Dmx | Format::Raw)
        && record_indices_wrong(&file, &bytes, in_format, limits)
    {
        vec![dashvertex_fix::Note::RecordIndices]
    } else {
        Vec::new()
    };
    let report = Report::new(file, a.policy, vec![part], Vec::new(), notes);
    let main = if report.unchanged && format == in_format {
        bytes
    } else {
        formats::save(&loaded, format, &SaveOptions::default(), ctx)?
    };
    Ok(Output {
        main,
        files: Vec::new(),
        present: Vec::new(),
        format,
        report,
        read_buffers: Vec::new(),
        carried_errors: std::collections::BTreeMap::new(),
    })
}
