//! `dash-validate` and `dashvertex validate`: one set of flags, one engine.
//!
//! Exit status: 0 when every file is valid, 1 when any is invalid, 2 on a usage or I/O
//! error.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{CommandFactory, FromArgMatches, Parser};
use dashvertex_core::Limits;
use dashvertex_formats::Format;
use dashvertex_validate::render::{self, Style};
use dashvertex_validate::{Code, FileReport, Level, Options, Profile, Report};

use crate::common::{self, Global, Verbosity};

/// Validate skinning data: weights, bone indices, influence sets, skeletons, in
/// DashVertex JSON, DMX, raw records and glTF/GLB.
#[derive(Parser)]
#[command(name = "dash-validate", version, max_term_width = 100)]
pub struct Cli {
    #[command(flatten)]
    pub(crate) args: ValidateArgs,
    #[command(flatten)]
    pub(crate) global: Global,
    /// Print a completion script for this shell on standard output, and exit.
    #[arg(long, value_name = "SHELL", exclusive = true)]
    pub completions: Option<clap_complete::Shell>,
    /// Print the man page (roff) on standard output, and exit.
    #[arg(long, exclusive = true)]
    pub man: bool,
}

/// The flags of `dash-validate`, which `dashvertex validate` takes too.
#[derive(clap::Args, Clone, Debug)]
pub struct ValidateArgs {
    /// Files or directories (searched recursively for .json, .dmx, .raw, .gltf and .glb
    /// files); `-` reads standard input.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Weight-sum rule: `dash` (sums may differ from 1) or `gltf` (the official rule).
    #[arg(long, value_enum)]
    pub profile: Option<ProfileArg>,
    /// Number of bones to range-check bone indices against (overrides the file's
    /// skeleton).
    #[arg(long, conflicts_with = "manifest", value_name = "N")]
    pub bones: Option<u64>,
    /// Bone manifest (`dashvertex manifest`): bone indices are range-checked against its
    /// indices (overriding the file's skeleton), and removed bones must carry no weight.
    #[arg(long, value_name = "FILE")]
    pub manifest: Option<PathBuf>,
    /// Also check what an engine's glTF import would get wrong (spec/targets.md): weight
    /// in influence sets it does not read, a second set it refuses, more joints than it
    /// renders, indices wider than it stores.
    #[arg(long, value_name = "ENGINE", value_parser = crate::formats::target())]
    pub target: Option<&'static dashvertex_core::Target>,
    /// With --manifest: a glTF skin whose joint order is not the manifest's, or that has
    /// bones the manifest lacks, is an error (JOINT_ORDER; without --locked, a warning
    /// that allows bones the manifest lacks after its indices).
    #[arg(long, requires = "manifest")]
    pub locked: bool,
    /// Report format: human (compiler-style), json (schemas/report.schema.json), sarif
    /// (SARIF 2.1.0, for code-scanning views).
    #[arg(long, value_enum, default_value = "human")]
    pub format: OutputFormat,
    /// Diagnostics listed per file (all are counted).
    #[arg(long, default_value_t = 200, value_name = "N")]
    pub max_diagnostics: usize,
    /// `--deny warnings` makes every warning an error; `--deny CODE` makes that code an
    /// error (repeatable). Codes are listed in spec/validation.md.
    #[arg(long, value_name = "warnings|CODE")]
    pub deny: Vec<String>,
    /// Report CODE as a warning, whatever its default (repeatable).
    #[arg(long, value_name = "CODE")]
    pub warn: Vec<String>,
    /// Do not report CODE at all (repeatable): it is neither shown nor counted.
    #[arg(long, value_name = "CODE")]
    pub allow: Vec<String>,
    /// Read inputs as this format instead of detecting it.
    #[arg(long, value_name = "FORMAT", value_parser = crate::formats::any_format())]
    pub input_format: Option<Format>,
    /// Walk hidden files and folders, and paths `.gitignore` excludes, too.
    #[arg(long)]
    pub all_files: bool,
    /// Skip a named `.json` file that holds neither DashVertex nor glTF (a bone manifest,
    /// a weights document, `package.json`), listing it as skipped, as files found in a
    /// folder always are. For hooks and globs that name every staged `.json`.
    #[arg(long)]
    pub skip_other_json: bool,
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
    crate::pool::run(|| run(&cli.args, &cli.global))
}

/// `--profile`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum ProfileArg {
    /// Weight sums may differ from 1 (DashVertex).
    Dash,
    /// Weight sums must be 1 within the glTF tolerance.
    Gltf,
}

/// `--format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// Compiler-style text.
    Human,
    /// The JSON report.
    Json,
    /// SARIF 2.1.0.
    Sarif,
}

const EXTENSIONS: &[&str] = &["json", "dmx", "raw", "gltf", "glb"];

/// One file of a run, as the walk gave it.
enum Item {
    /// Named on the command line: read whatever it is (a FIFO or device the user named
    /// is read up to the input limit).
    Named(PathBuf),
    /// Found in a folder: read only when it is a regular file.
    Found(PathBuf),
    /// Found in a folder and unreadable (a folder that cannot be listed): reported as
    /// `IO_ERROR` with the reason, beside the results of every other file.
    Unreadable(PathBuf, String),
}

impl Item {
    fn path(&self) -> &Path {
        match self {
            Item::Named(p) | Item::Found(p) | Item::Unreadable(p, _) => p,
        }
    }
}

/// Expands directories into the files they hold (spec/security.md §4: each once, no
/// symlink followed out of the folder, regular files only, hidden and `.gitignore`d paths
/// skipped unless `all`, unreadable entries reported and passed). A file named on the
/// command line is always checked (unless `skip_other`); a `.json` found in a directory is
/// checked only when it holds vertex data (DashVertex or glTF): bone manifests, weights
/// documents and other JSON are listed as skipped on standard error, not reported
/// invalid. What is refused, and how many paths `.gitignore` rules excluded, is noted.
fn expand(inputs: &[PathBuf], all: bool, skip_other: bool, max: u64) -> Vec<Item> {
    let walk = dashvertex_fs::Walk::new()
        .extensions(EXTENSIONS)
        .hidden(all)
        .gitignore(!all);
    let mut out = Vec::new();
    for input in inputs {
        let folder = input.is_dir();
        let found = skip_other || folder;
        let (mut files, mut folders) = (0u64, 0u64);
        for e in walk.run(std::slice::from_ref(input)) {
            let p = match e {
                dashvertex_fs::WalkEntry::File(p) => p,
                dashvertex_fs::WalkEntry::Skipped { path, why } => {
                    if !why.starts_with("not a vertex-data") {
                        common::detail(format_args!("skipped {}: {why}", path.display()));
                    }
                    continue;
                }
                dashvertex_fs::WalkEntry::Refused { path, why } => {
                    common::note(format_args!("skipped {}: {why}", path.display()));
                    continue;
                }
                dashvertex_fs::WalkEntry::Unreadable { path, error } => {
                    out.push(Item::Unreadable(path, error));
                    continue;
                }
                dashvertex_fs::WalkEntry::Ignored { path, folder } => {
                    if folder {
                        folders += 1;
                    } else if EXTENSIONS
                        .iter()
                        .any(|x| path.extension().is_some_and(|e| e.eq_ignore_ascii_case(x)))
                    {
                        files += 1;
                    } else {
                        continue;
                    }
                    common::detail(format_args!(
                        "skipped {}: excluded by a .gitignore rule",
                        path.display()
                    ));
                    continue;
                }
            };
            if found
                && p.extension().and_then(|x| x.to_str()) == Some("json")
                && let Some(what) = not_vertex_data(&p, max, folder)
            {
                common::info(format_args!("skipped {}: {what}", p.display()));
                continue;
            }
            out.push(if folder {
                Item::Found(p)
            } else {
                Item::Named(p)
            });
        }
        if files + folders > 0 {
            let plural =
                |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
            let what = match (files, folders) {
                (f, 0) => plural(f, "file", "files"),
                (0, d) => plural(d, "folder", "folders"),
                (f, d) => format!(
                    "{} and {}",
                    plural(f, "file", "files"),
                    plural(d, "folder", "folders")
                ),
            };
            common::note(format_args!(
                "{}: .gitignore rules excluded {what} (-v lists them; --all-files checks them too)",
                input.display()
            ));
        }
    }
    out
}

/// What a JSON file is when it is not vertex data; `None` for DashVertex, glTF, and
/// anything that cannot be told (broken JSON is checked, and reported).
fn not_vertex_data(path: &Path, max: u64, found: bool) -> Option<&'static str> {
    #[derive(serde::Deserialize)]
    struct Probe {
        #[serde(rename = "type")]
        kind: Option<serde_json::Value>,
        bones: Option<serde::de::IgnoredAny>,
        version: Option<serde::de::IgnoredAny>,
    }
    let bytes = if found {
        dashvertex_fs::read_regular(path, max).ok()?
    } else {
        dashvertex_fs::read_input(path, max).ok()?
    };
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace())?;
    // Vertex data is what the one detector says it is.
    if *first != b'{' || Format::text_kind(&bytes).is_some() {
        return None;
    }
    let p: Probe = serde_json::from_slice(&bytes).ok()?;
    Some(match p.kind.as_ref().and_then(|k| k.as_str()) {
        Some("DashBoneWeights") => {
            "a per-bone weights document (dashvertex reduce reads it), not vertex data"
        }
        _ if p.bones.is_some() && p.version.is_some() => "a bone manifest, not vertex data",
        _ => "JSON that is neither DashVertex nor glTF",
    })
}

/// Validates `args.inputs` and prints the report; the exit code says how it went.
pub fn run(args: &ValidateArgs, global: &Global) -> ExitCode {
    let verbosity = global.verbosity();
    let (bones, removed_bones, joint_order) = match &args.manifest {
        None => (args.bones, Vec::new(), None),
        Some(path) => {
            // An unreadable manifest is an I/O problem (2); a corrupt one is invalid data (1).
            let bytes = match dashvertex_fs::read_input(path, Limits::default().max_input_bytes) {
                Ok(b) => b,
                Err(e @ dashvertex_fs::FsError::Empty { .. }) => {
                    common::error(&e);
                    return ExitCode::from(1);
                }
                Err(e) => {
                    common::error(&e);
                    return ExitCode::from(2);
                }
            };
            match crate::reduce::parse_manifest(path, &bytes, &global.limits()) {
                // Removed bones keep their index: they count toward the range.
                Ok(m) => (
                    Some(m.len() as u64),
                    m.removed_indices(),
                    Some(dashvertex_validate::JointOrder::new(m, args.locked)),
                ),
                Err(e) => {
                    common::error(&e);
                    return ExitCode::from(1);
                }
            }
        }
    };
    let levels = match levels(args) {
        // --locked makes the joint order a contract, unless a level was given for it.
        Ok(mut l) if args.locked => {
            l.entry(Code::JOINT_ORDER).or_insert(Level::Deny);
            l
        }
        Ok(l) => l,
        Err(why) => {
            common::error(&why);
            return ExitCode::from(2);
        }
    };
    let opts = Options {
        profile: args.profile.map(|p| match p {
            ProfileArg::Dash => Profile::Dash,
            ProfileArg::Gltf => Profile::Gltf,
        }),
        bones,
        removed_bones,
        progress: None,
        max_diagnostics: args.max_diagnostics,
        deny_warnings: args.deny.iter().any(|d| d == "warnings"),
        levels,
        limits: global.limits(),
        format: args.input_format,
        target: args.target,
        resource_dirs: global.resource_dir.clone(),
        joint_order,
    };
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
        common::error(&e);
        return ExitCode::from(2);
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
    if io_failed {
        ExitCode::from(2)
    } else if report.summary.invalid > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// A progress bar on standard error (bytes over all files), shown only on a terminal
/// and only once a run has taken more than a second.
struct Progress {
    bar: std::sync::OnceLock<indicatif::ProgressBar>,
    start: Instant,
    total: u64,
    done_before: std::sync::atomic::AtomicU64,
}

impl Progress {
    fn new(files: &[Item]) -> Self {
        Progress {
            bar: std::sync::OnceLock::new(),
            start: Instant::now(),
            total: files
                .iter()
                .filter_map(|i| std::fs::metadata(i.path()).ok())
                .map(|m| m.len())
                .sum(),
            done_before: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Bytes of the current file done.
    fn update(&self, in_file: u64) {
        if !std::io::stderr().is_terminal() || self.start.elapsed() < Duration::from_secs(1) {
            return;
        }
        let bar = self.bar.get_or_init(|| {
            let b = indicatif::ProgressBar::new(self.total);
            if let Ok(style) =
                indicatif::ProgressStyle::with_template("{bar:30} {bytes}/{total_bytes} {msg}")
            {
                b.set_style(style);
            }
            b
        });
        let before = self.done_before.load(std::sync::atomic::Ordering::Relaxed);
        bar.set_position(before + in_file);
    }

    fn file_done(&self, path: &Path) {
        let len = std::fs::metadata(path).map_or(0, |m| m.len());
        self.done_before
            .fetch_add(len, std::sync::atomic::Ordering::Relaxed);
        self.update(0);
    }

    fn clear(&self) {
        if let Some(b) = self.bar.get() {
            b.finish_and_clear();
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
