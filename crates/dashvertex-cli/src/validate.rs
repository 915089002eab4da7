//! `dash-validate` and `dashvertex validate`: one set of flags, one engine.
//!
//! Exit status: 0 when every file is valid, 1 when any is invalid, 2 on a usage or I/O
//! error.

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use clap::{CommandFactory, FromArgMatches, Parser};
use dashvertex_core::Limits;
use dashvertex_validate::render::{self, Style};
use dashvertex_validate::{Code, FileReport, Level, Options, Profile, Report};

use crate::common::{self, Global, Verbosity};
use crate::error::{CliError, ExitStatus};
use crate::progress::Progress;
pub use crate::validate_args::{EXAMPLES, EXAMPLES_SUB, OutputFormat, ProfileArg, ValidateArgs};
use crate::walk::expand;
use dashvertex_app::validate::{self, Input, Outcome};

/// Validate skinning data: weights, bone indices, influence sets, skeletons, in
/// DashVertex JSON, DMX, raw records and glTF/GLB.
#[derive(Parser)]
#[command(name = "dash-validate", version, max_term_width = 100, after_long_help = EXAMPLES)]
pub struct Cli {
    #[command(flatten)]
    pub(crate) args: ValidateArgs,
    #[command(flatten)]
    pub(crate) global: Global,
    /// Print a completion script for this shell, and exit
    ///
    /// SHELL is bash, elvish, fish, powershell or zsh.
    #[arg(
        long,
        value_name = "SHELL",
        exclusive = true,
        hide_possible_values = true
    )]
    pub completions: Option<clap_complete::Shell>,
    /// Print the man page (roff) on standard output, and exit.
    #[arg(long, exclusive = true)]
    pub man: bool,
}

/// The `dash-validate` command: inputs are required, unless it is asked for its
/// completions or man page.
pub fn command() -> clap::Command {
    Cli::command()
        .mut_arg("inputs", |a| {
            a.required(false)
                .required_unless_present_any(["completions", "man"])
        })
        .override_usage("dash-validate [OPTIONS] <INPUTS>...")
}

/// The `dash-validate` process.
pub fn main() -> ExitCode {
    dashvertex_fs::install_signal_cleanup();
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    common::init_color(&argv);
    let matches = match command().try_get_matches_from(&argv) {
        Ok(m) => m,
        Err(e) => return common::clap_exit(&e),
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => return common::clap_exit(&e),
    };
    if let Some(shell) = cli.completions {
        return crate::docs::print_completions(&mut command(), shell);
    }
    if cli.man {
        return crate::docs::print_man(command());
    }
    cli.global.apply();
    crate::pool::run(|| run_to_exit(&cli.args, &cli.global))
}

/// Validates `args.inputs` and prints the report; the exit code says how it went (1: a
/// file is invalid, 2: a file could not be read). A manifest or level flag that cannot be
/// used is an error.
pub fn run(args: &ValidateArgs, global: &Global) -> Result<ExitCode, CliError> {
    let verbosity = global.verbosity();
    let opts = options(args, global)?;
    let files = expand(
        &args.inputs,
        args.all_files,
        args.skip_other_json,
        global.max_input_bytes,
    );
    let progress = std::sync::Arc::new(Progress::new(&files));
    let hook = progress.clone();
    let opts = opts.with_progress(Some(
        std::sync::Arc::new(move |n| hook.update(n)) as dashvertex_validate::ProgressFn
    ));
    let check = |item: &Input| -> Result<FileReport, CliError> {
        let started = Instant::now();
        let report = validate::check(item, &opts, &crate::words::Flags)?;
        progress.file_done(item.path());
        common::detail(format_args!(
            "{}: {} read as {} in {:.3} s",
            report.file,
            std::fs::metadata(item.path())
                .map_or_else(|_| "input".to_owned(), |m| format!("{} bytes", m.len())),
            report.format.as_deref().unwrap_or("an unknown format"),
            started.elapsed().as_secs_f64()
        ));
        Ok(report)
    };
    // Styled always; the stream strips the styles unless colour is on (`--color`, the
    // terminal, NO_COLOR, CLICOLOR_FORCE, TERM=dumb). Reports are printed in the order
    // given, as they come.
    let style = Style { color: true };
    let mut reports: Vec<FileReport> = Vec::new();
    let mut failed: Option<CliError> = None;
    validate::in_order(&files, check, |result| {
        let report = match result {
            Ok(r) if failed.is_none() => r,
            Ok(_) => return,
            Err(e) => {
                failed.get_or_insert(e);
                return;
            }
        };
        if args.format == OutputFormat::Human && (verbosity > Verbosity::Quiet || !report.valid) {
            let text = render::file(&report, style);
            let mut stdout = anstream::stdout().lock();
            match progress.bar.get() {
                Some(bar) => bar.suspend(|| {
                    let _ = stdout.write_all(text.as_bytes());
                }),
                None => {
                    let _ = stdout.write_all(text.as_bytes());
                }
            }
            let _ = stdout.flush();
        }
        reports.push(report);
    });
    if let Some(e) = failed {
        return Err(e);
    }
    progress.clear();
    let outcome = Outcome::of(&reports);
    print_run(args, verbosity, Report::new(reports));
    Ok(match outcome {
        Outcome::IoFailed => ExitCode::from(2),
        Outcome::Invalid => ExitCode::from(1),
        Outcome::Valid => ExitCode::SUCCESS,
    })
}

/// The validator's options for these flags, through the validate job's one policy for
/// what a manifest and `--locked` mean.
fn options(args: &ValidateArgs, global: &Global) -> Result<Options, CliError> {
    // An unreadable manifest is an I/O problem (2); a corrupt one is invalid data (1).
    let manifest = match &args.manifest {
        None => None,
        Some(path) => {
            let bytes = dashvertex_fs::read_input(path, Limits::default().max_input_bytes)
                .map_err(|e| match e {
                    dashvertex_fs::FsError::Empty { .. } => CliError::Output(e.to_string()),
                    other => CliError::from(other),
                })?;
            let ctx = crate::words::context(global.limits(), &[], true);
            Some(dashvertex_app::manifest_file::parse_manifest(
                path, &bytes, &ctx,
            )?)
        }
    };
    let mut asked = validate::Asked::new().with_manifest(manifest, args.locked);
    asked.profile = args.profile.map(|p| match p {
        ProfileArg::Dash => Profile::Dash,
        ProfileArg::Gltf => Profile::Gltf,
    });
    asked.bones = args.bones;
    asked.levels = levels(args).map_err(CliError::Usage)?;
    asked.deny_warnings = args.deny.iter().any(|d| d == "warnings");
    asked.max_diagnostics = Some(args.max_diagnostics);
    asked.limits = global.limits();
    asked.format = args.input_format;
    asked.target = args.target;
    asked.resource_dirs = global.resource_dir.clone();
    let ctx = crate::words::context(global.limits(), &[], true);
    validate::options(asked, ctx.words)
}

/// What a run prints after the files' own reports: the JSON or SARIF log, or the summary
/// of a run over several files.
fn print_run(args: &ValidateArgs, verbosity: Verbosity, report: Report) {
    let mut stdout = anstream::stdout().lock();
    match args.format {
        OutputFormat::Json => {
            let _ = stdout.write_all(report.to_json().as_bytes());
        }
        OutputFormat::Sarif => {
            let _ = serde_json::to_writer_pretty(
                &mut stdout,
                &dashvertex_validate::sarif::log_with(&report, &|c| {
                    dashvertex_app::advice::advice(c, &crate::words::Flags)
                        .or_else(|| c.help().map(str::to_owned))
                }),
            );
            let _ = stdout.write_all(b"\n");
        }
        OutputFormat::Human => {
            if report.summary.files > 1 && verbosity > Verbosity::Quiet {
                let _ = stdout.write_all(render::summary(&report.summary).as_bytes());
            }
        }
    }
    let _ = stdout.flush();
}

/// [`run`], its error printed and turned into the exit code.
pub fn run_to_exit(args: &ValidateArgs, global: &Global) -> ExitCode {
    match run(args, global) {
        Ok(code) => code,
        Err(CliError::BrokenPipe) => ExitCode::SUCCESS,
        Err(e) => {
            common::error(&e);
            ExitCode::from(e.exit_code())
        }
    }
}

/// The per-code levels of `--allow`, `--warn` and `--deny CODE`; a code named twice, an
/// unknown code, or IO_ERROR (which decides exit code 2) is a usage error.
fn levels(args: &ValidateArgs) -> Result<std::collections::BTreeMap<Code, Level>, String> {
    let mut out = std::collections::BTreeMap::new();
    let lists = [
        ("--allow", &args.allow, Level::Allow),
        ("--warn", &args.warn, Level::Warn),
        ("--deny", &args.deny, Level::Deny),
    ];
    for (flag, names, level) in lists {
        for name in names
            .iter()
            .filter(|n| !(flag == "--deny" && *n == "warnings"))
        {
            let code = Code::parse(name).ok_or_else(|| {
                format!(
                    "{flag} {}: no such code (the codes are listed in spec/validation.md)",
                    dashvertex_fs::short(name)
                )
            })?;
            if code == Code::IO_ERROR {
                return Err(format!(
                    "{flag} IO_ERROR: a file that cannot be read always fails"
                ));
            }
            if out.insert(code, level).is_some() {
                return Err(format!("{name} is given more than one level"));
            }
        }
    }
    Ok(out)
}
