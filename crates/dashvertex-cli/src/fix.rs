//! `dashvertex fix`: read a file, repair its influence data with the chosen policies
//! (`dashvertex-fix`), check the result with the validator, and write it — or, when
//! nothing needed fixing, the input's own bytes.

use std::path::Path;

use dashvertex_fix::{Policy, Report, SumRule};

use crate::common;
use crate::error::CliError;
use crate::formats::{self, Format, SaveOptions};
use crate::reduce::{self, Context, input_error};

/// How the report is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    /// Lines: a summary per part, then `vertex V: steps: before -> after`.
    Text,
    /// The JSON report (`schemas/fix-report.schema.json`).
    Json,
}

/// `dashvertex fix` options.
pub struct FixArgs<'a> {
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
    /// How to print the report.
    pub format: ReportFormat,
    /// Write the JSON report here instead of printing it.
    pub report: Option<&'a Path>,
    /// Vertices listed per part in the text report (`None`: all).
    pub listed: Option<usize>,
    /// Check only: write nothing.
    pub dry_run: bool,
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
}

/// Runs `dashvertex fix`.
pub fn fix(a: &FixArgs) -> Result<(), CliError> {
    // No output may overwrite the input or another output (spec/security.md W3).
    let first_bin = reduce::first_buffer_file(a.output, a.to, a.embed);
    let mut outputs: Vec<dashvertex_fs::Named> = Vec::new();
    if !a.dry_run {
        outputs.push(("-o", a.output));
    }
    outputs.extend(a.report.map(|r| ("--report", r)));
    let inputs: Vec<dashvertex_fs::Named> = vec![("the input", a.input)];
    let mut before = outputs.clone();
    before.extend(first_bin.as_deref().map(|b| ("the buffer file of -o", b)));
    reduce::refuse_aliases(&before, &inputs)?;
    let out = build(a)?;
    let Output {
        main,
        files,
        present,
        format,
        report,
        read_buffers,
    } = out;
    let profile = match report.policy.sum {
        SumRule::Dash => dashvertex_validate::Profile::Dash,
        SumRule::Gltf => dashvertex_validate::Profile::Gltf,
    };
    let seen: Vec<(String, Vec<u8>)> = files.iter().chain(&present).cloned().collect();
    let main = reduce::verify(
        a.output,
        format,
        main,
        &seen,
        &a.ctx.limits,
        Some(profile),
        a.target,
    )
    .map_err(|e| match e {
        CliError::Output(m) => CliError::Output(format!(
            "{m}\n(dashvertex fix repairs influence data only; the rest of the file needs another tool)"
        )),
        other => other,
    })?;
    if a.dry_run {
        return emit(a, &report);
    }
    reduce::refuse_written_aliases(a.output, &files, &outputs, &inputs, &read_buffers)?;
    // The output, its buffer files and the --report file are replaced together or not
    // at all.
    let mut batch = dashvertex_fs::Batch::new();
    reduce::stage_output(&mut batch, a.output, &main, &files)?;
    if let Some(path) = a.report {
        let out = match json_output(path, &report) {
            Err(CliError::Io(m)) => return Err(CliError::Io(format!("{m}; nothing was written"))),
            other => other?,
        };
        batch.add_output(out);
        batch.commit().map_err(reduce::nothing_written)?;
        common::info(summary(&report));
        return Ok(());
    }
    batch.commit().map_err(reduce::nothing_written)?;
    emit(a, &report)
}

/// The JSON report written to `path` (`-`: standard output) as it is serialized, so that
/// a report of millions of changes is never held as one string; committed by the caller.
fn json_output(path: &Path, report: &Report) -> Result<dashvertex_fs::Output, CliError> {
    use std::io::Write as _;
    let mut out = dashvertex_fs::Output::create(path)?;
    serde_json::to_writer_pretty(&mut out, report)
        .map_err(std::io::Error::from)
        .and_then(|()| out.write_all(b"\n"))
        .map_err(|e| dashvertex_fs::FsError::io(path, e))?;
    Ok(out)
}

/// Writes the JSON report to `path` (`-`: standard output).
fn write_json(path: &Path, report: &Report) -> Result<(), CliError> {
    Ok(json_output(path, report)?.commit()?)
}

/// Prints or writes the report.
fn emit(a: &FixArgs, report: &Report) -> Result<(), CliError> {
    if let Some(path) = a.report {
        write_json(path, report)?;
        common::info(summary(report));
        return Ok(());
    }
    // The output may be standard output: the report then goes to standard error.
    let to_stderr = a.output == Path::new("-") && !a.dry_run;
    match a.format {
        ReportFormat::Json if !to_stderr => write_json(Path::new("-"), report),
        ReportFormat::Json => {
            common::note(serde_json::to_string_pretty(report).unwrap_or_default());
            Ok(())
        }
        ReportFormat::Text => {
            let text = report.to_text(a.listed);
            if to_stderr {
                common::note(text.trim_end());
                Ok(())
            } else {
                Ok(dashvertex_fs::write_file(Path::new("-"), text.as_bytes())?)
            }
        }
    }
}

fn summary(report: &Report) -> String {
    if report.unchanged {
        return format!("{}: nothing to fix", report.file);
    }
    let parts = report
        .parts
        .iter()
        .filter(|p| {
            !p.report.changes.is_empty() || !p.notes.is_empty() || p.report.sets_dropped > 0
        })
        .count();
    let notes: usize = report.parts.iter().map(|p| p.notes.len()).sum::<usize>()
        + report.skins.iter().map(|s| s.notes.len()).sum::<usize>()
        + report.notes.len();
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
    let opts = dashvertex_validate::Options {
        format: Some(format),
        limits: *limits,
        max_diagnostics: 1,
        levels: dashvertex_validate::Code::ALL
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
        ..dashvertex_validate::Options::default()
    };
    dashvertex_validate::validate_bytes(name, bytes, &opts)
        .counts
        .errors
        > 0
}

fn export(e: dashvertex_gltf::export::ExportError) -> CliError {
    CliError::Output(format!("the fixed file cannot be written: {e}"))
}

/// Reads, repairs and encodes.
fn build(a: &FixArgs) -> Result<Output, CliError> {
    let limits = &a.ctx.limits;
    let named_out = a.to.or_else(|| Format::from_extension(a.output));
    let (gltf, bytes) = match reduce::read_source(a.input, a.ctx)? {
        reduce::Opened::Gltf(g) => (Some(g), Vec::new()),
        reduce::Opened::Bytes(bytes) => (None, bytes),
    };
    let file = a.input.display().to_string();
    if let Some(g) = gltf {
        let in_format = match g.container {
            dashvertex_gltf::Container::Glb => Format::Glb,
            dashvertex_gltf::Container::Gltf => Format::Gltf,
        };
        let format = named_out.unwrap_or(in_format);
        let Some(container) = reduce::container(Some(format)) else {
            return Err(CliError::Usage(format!(
                "{} is glTF: its output must be .gltf or .glb (or --to gltf|glb)",
                a.input.display()
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
        let fixed =
            dashvertex_fix::fix_gltf(&g, &policy, limits).map_err(|e| input_error(a.input, e))?;
        let notes = if g.byte_order_mark {
            vec![dashvertex_fix::Note::ByteOrderMark]
        } else {
            Vec::new()
        };
        let report = Report::new(file, policy, fixed.parts, fixed.skins, notes);
        let read_buffers = reduce::external_buffers(&g, a.input);
        let files = reduce::buffer_files(a.output, a.embed);
        let (written, present) = match fixed.editor {
            Some(e) => (
                e.finish_files(container, &files).map_err(export)?,
                Vec::new(),
            ),
            None => {
                let u = reduce::unchanged_gltf(*g, a.input, a.output, container, &files)?;
                (u.written, u.present)
            }
        };
        return Ok(Output {
            main: written.main,
            files: written.files,
            present,
            format,
            report,
            read_buffers,
        });
    }
    // DashVertex.
    let in_format = formats::decide(a.input, &bytes);
    let format = named_out.unwrap_or(in_format);
    if format.is_gltf() {
        return Err(CliError::Usage(format!(
            "{} is DashVertex {}: dashvertex fix writes DashVertex (json, dmx, raw); dashvertex convert does not make glTF either",
            a.input.display(),
            in_format.as_str()
        )));
    }
    let mut loaded = formats::load(&file, &bytes, in_format, limits)?;
    let part = dashvertex_fix::fix_document(loaded.document_mut(), a.bones, &a.policy)
        .map_err(|e| input_error(a.input, e))?;
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
        formats::save(&loaded, format, &SaveOptions::default())?
    };
    Ok(Output {
        main,
        files: Vec::new(),
        present: Vec::new(),
        format,
        report,
        read_buffers: Vec::new(),
    })
}
