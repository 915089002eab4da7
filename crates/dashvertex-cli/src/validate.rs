//! `dash-validate` and `dashvertex validate`: one set of flags, one engine.
//!
//! Exit status: 0 when every file is valid, 1 when any is invalid, 2 on a usage or I/O
//! error.

use std::io::Write;
use std::path::Path;
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
use crate::walk::{Item, expand};

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
    let (bones, removed_bones, joint_order) = match &args.manifest {
        None => (args.bones, Vec::new(), None),
        Some(path) => {
            // An unreadable manifest is an I/O problem (2); a corrupt one is invalid data (1).
            let bytes = dashvertex_fs::read_input(path, Limits::default().max_input_bytes)
                .map_err(|e| match e {
                    dashvertex_fs::FsError::Empty { .. } => CliError::Output(e.to_string()),
                    other => CliError::from(other),
                })?;
            let ctx = crate::words::context(global.limits(), &[], true);
            let m = dashvertex_app::manifest_file::parse_manifest(path, &bytes, &ctx)?;
            // Removed bones keep their index: they count toward the range.
            (
                Some(m.len() as u64),
                m.removed_indices(),
                Some(dashvertex_validate::JointOrder::new(m, args.locked)),
            )
        }
    };
    let levels = match levels(args) {
        // --locked makes the joint order a contract, unless a level was given for it.
        Ok(mut l) if args.locked => {
            l.entry(Code::JOINT_ORDER).or_insert(Level::Deny);
            l
        }
        Ok(l) => l,
        Err(why) => return Err(CliError::Usage(why)),
    };
    let opts = Options::new()
        .with_profile(args.profile.map(|p| match p {
            ProfileArg::Dash => Profile::Dash,
            ProfileArg::Gltf => Profile::Gltf,
        }))
        .with_bones(bones)
        .with_removed_bones(removed_bones)
        .with_max_diagnostics(args.max_diagnostics)
        .with_deny_warnings(args.deny.iter().any(|d| d == "warnings"))
        .with_levels(levels)
        .with_limits(global.limits())
        .with_format(args.input_format)
        .with_target(args.target)
        .with_resource_dirs(global.resource_dir.clone())
        .with_joint_order(joint_order);
    let files = expand(
        &args.inputs,
        args.all_files,
        args.skip_other_json,
        global.max_input_bytes,
    );
    // Styled always; the stream strips the styles unless colour is on (`--color`, the
    // terminal, NO_COLOR, CLICOLOR_FORCE, TERM=dumb).
    let style = Style { color: true };
    let progress = std::sync::Arc::new(Progress::new(&files));
    let mut opts = opts;
    let hook = progress.clone();
    opts.progress = Some(std::sync::Arc::new(move |n| hook.update(n)));
    // Files are checked in parallel in the pool and printed in the order given, on a
    // thread of their own, as they come (a reorder buffer holds the ones that finish
    // early), so the output is the same at any thread count. When not even that thread
    // can be started (a memory limit), every file is checked first and printed after:
    // the same bytes, later.
    let check = |item: &Item| -> Result<FileReport, String> {
        let started = Instant::now();
        let path = item.path();
        let report = if let Item::Unreadable(path, error) = item {
            dashvertex_validate::unreadable(path, error, &opts)
        } else if let Item::Found(path) = item {
            dashvertex_validate::validate_found(path, &opts)
        } else if path == Path::new("-") {
            match dashvertex_fs::read_input(path, opts.limits.max_input_bytes) {
                // Standard input has no folder: a glTF read from it has no external
                // resources (spec/security.md §1), whatever the working directory holds.
                Ok(bytes) => dashvertex_validate::validate_bytes("<stdin>", &bytes, &opts),
                Err(dashvertex_fs::FsError::Empty { .. }) => {
                    dashvertex_validate::validate_bytes("<stdin>", &[], &opts)
                }
                Err(e) => return Err(e.to_string()),
            }
        } else {
            dashvertex_validate::validate_path(path, &opts)
        };
        progress.file_done(path);
        common::detail(format_args!(
            "{}: {} read as {} in {:.3} s",
            report.file,
            std::fs::metadata(path)
                .map_or_else(|_| "input".to_owned(), |m| format!("{} bytes", m.len())),
            report.format.as_deref().unwrap_or("an unknown format"),
            started.elapsed().as_secs_f64()
        ));
        Ok(report)
    };
    let (tx, rx) = std::sync::mpsc::channel::<(usize, Result<FileReport, String>)>();
    let rx = std::sync::Mutex::new(rx);
    let print = || -> (Vec<FileReport>, Option<String>) {
        let mut reports: Vec<FileReport> = Vec::new();
        let mut failed: Option<String> = None;
        let Ok(rx) = rx.lock() else {
            return (reports, Some("the report printer failed".to_owned()));
        };
        let mut stdout = anstream::stdout().lock();
        let mut early = std::collections::BTreeMap::new();
        let mut next = 0;
        for (i, result) in rx.iter() {
            early.insert(i, result);
            while let Some(result) = early.remove(&next) {
                next += 1;
                let report = match result {
                    Ok(r) => r,
                    Err(e) => {
                        failed.get_or_insert(e);
                        continue;
                    }
                };
                if failed.is_some() {
                    continue;
                }
                if args.format == OutputFormat::Human
                    && (verbosity > Verbosity::Quiet || !report.valid)
                {
                    let text = render::file(&report, style);
                    match progress.bar.get() {
                        Some(bar) => bar.suspend(|| {
                            let _ = stdout.write_all(text.as_bytes());
                        }),
                        None => {
                            let _ = stdout.write_all(text.as_bytes());
                        }
                    }
                }
                reports.push(report);
            }
        }
        let _ = stdout.flush();
        (reports, failed)
    };
    let check_all = |tx: std::sync::mpsc::Sender<_>| {
        use rayon::prelude::*;
        files
            .par_iter()
            .enumerate()
            .for_each_with(tx, |tx, (i, path)| {
                let _ = tx.send((i, check(path)));
            });
    };
    let (reports, failed) = std::thread::scope(|scope| {
        match std::thread::Builder::new()
            .name("dash-report".into())
            .spawn_scoped(scope, print)
        {
            Ok(printer) => {
                check_all(tx);
                printer
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p))
            }
            Err(_) => {
                check_all(tx);
                print()
            }
        }
    });
    let mut stdout = anstream::stdout().lock();
    if let Some(e) = failed {
        return Err(CliError::Io(e));
    }
    progress.clear();
    let io_failed = reports.iter().any(FileReport::io_failed);
    let report = Report::new(reports);
    match args.format {
        OutputFormat::Json => {
            let _ = stdout.write_all(report.to_json().as_bytes());
        }
        OutputFormat::Sarif => {
            let _ = serde_json::to_writer_pretty(
                &mut stdout,
                &dashvertex_validate::sarif::log(&report),
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
    Ok(if io_failed {
        ExitCode::from(2)
    } else if report.summary.invalid > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
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
