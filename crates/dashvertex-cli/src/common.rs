//! What both commands share: the global flags (limits, resources, threads, verbosity,
//! colour), colour set-up, and how a message is printed.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use dashvertex_core::Limits;

/// Flags every command and subcommand takes.
#[derive(clap::Args, Clone, Debug)]
pub struct Global {
    /// Largest input read into memory, in bytes.
    #[arg(long, global = true, help_heading = "Limits", hide_short_help = true,
          value_name = "BYTES", default_value_t = Limits::default().max_input_bytes)]
    pub max_input_bytes: u64,
    /// Largest vertex count accepted.
    #[arg(long, global = true, help_heading = "Limits", hide_short_help = true,
          value_name = "N", default_value_t = Limits::default().max_vertices)]
    pub max_vertices: u64,
    /// Largest bone count accepted.
    #[arg(long, global = true, help_heading = "Limits", hide_short_help = true,
          value_name = "N", default_value_t = Limits::default().max_bones)]
    pub max_bones: u64,
    /// Largest number of influence sets per vertex accepted (at least 1: every vertex
    /// has its first set).
    #[arg(long, global = true, help_heading = "Limits", hide_short_help = true,
          value_name = "N", default_value_t = Limits::default().max_sets,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_sets: u64,
    /// Another folder glTF resources may be read from (repeatable)
    ///
    /// By default a buffer or image URI must resolve inside its glTF file's folder.
    #[arg(long, global = true, value_name = "DIR", help_heading = "Input")]
    pub resource_dir: Vec<PathBuf>,
    /// Worker threads (0: one per core)
    ///
    /// At most four per core; fewer under a memory limit (`ulimit -v`: at most a quarter
    /// of it for threads) or when the system cannot start them. Outputs and reports are
    /// the same at any count.
    #[arg(long, global = true, value_name = "N", default_value_t = 0)]
    pub threads: usize,
    /// Print only what is wrong
    ///
    /// Nothing for valid files, no summary lines, no notes about the run (skipped files,
    /// formats read); invalid files are still reported in full.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Print more: what each step did, how long each file took
    #[arg(short, long, global = true)]
    pub verbose: bool,
    /// When to colour the output: auto, always or never
    ///
    /// `auto`: on a terminal, unless NO_COLOR is set or TERM=dumb (CLICOLOR_FORCE forces
    /// it); `always`: also into files and pipes; `never`.
    #[arg(
        long,
        global = true,
        value_enum,
        value_name = "WHEN",
        default_value = "auto",
        hide_possible_values = true
    )]
    pub color: ColorWhen,
}

impl Global {
    /// The resource limits the flags set.
    pub fn limits(&self) -> Limits {
        Limits {
            max_input_bytes: self.max_input_bytes,
            max_vertices: self.max_vertices,
            max_bones: self.max_bones,
            max_sets: self.max_sets,
        }
    }

    /// How much to print.
    pub fn verbosity(&self) -> Verbosity {
        if self.quiet {
            Verbosity::Quiet
        } else if self.verbose {
            Verbosity::Verbose
        } else {
            Verbosity::Normal
        }
    }

    /// Applies the flags that act on the whole process: verbosity and the thread pool
    /// (started once, before any work; see `crate::pool`).
    pub fn apply(&self) {
        set_verbosity(self.verbosity());
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let started = crate::pool::start(self.threads, cores);
        if started.capped {
            detail(format_args!(
                "--threads {}: at most {} per core, {} here",
                self.threads,
                crate::pool::PER_CORE,
                started.wanted
            ));
        }
        if started.threads < started.wanted {
            let line = format!(
                "{} thread(s) of the {} wanted fit in this process's memory limit or could be \
                 started; working on {}: the results are the same",
                started.threads, started.wanted, started.threads
            );
            // Asked for by --threads: say so; else with -v only (every run under a limit
            // would print it).
            if self.threads > 0 {
                note(line);
            } else {
                detail(line);
            }
        }
    }
}

/// How much a command prints beside its results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verbosity {
    /// `-q`: problems only.
    Quiet,
    /// The default.
    Normal,
    /// `-v`.
    Verbose,
}

/// `--color`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorWhen {
    /// On a terminal, unless the environment says otherwise.
    Auto,
    /// Always (also into files and pipes).
    Always,
    /// Never.
    Never,
}

/// Applies `--color` before the arguments are parsed, so clap's own help and errors follow
/// it too. Only the last `--color` counts, as clap takes it; a bad value is left for clap
/// to report.
pub fn init_color(args: &[OsString]) {
    let mut choice = anstream::ColorChoice::Auto;
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        let a = a.to_string_lossy();
        if a == "--" {
            break;
        }
        let value = match a.strip_prefix("--color") {
            Some("") => it.next().map(|v| v.to_string_lossy().into_owned()),
            Some(v) => v.strip_prefix('=').map(str::to_owned),
            None => None,
        };
        match value.as_deref() {
            Some("always") => choice = anstream::ColorChoice::Always,
            Some("never") => choice = anstream::ColorChoice::Never,
            Some("auto") => choice = anstream::ColorChoice::Auto,
            _ => {}
        }
    }
    choice.write_global();
}

/// Prints `error: MESSAGE` on standard error (the prefix styled).
pub fn error(message: impl std::fmt::Display) {
    let s = dashvertex_validate::render::palette::ERROR;
    anstream::eprintln!("{s}error{s:#}: {message}");
}

static VERBOSITY: std::sync::OnceLock<Verbosity> = std::sync::OnceLock::new();

/// Sets the process's verbosity (once, from the flags).
pub fn set_verbosity(v: Verbosity) {
    let _ = VERBOSITY.set(v);
}

/// The process's verbosity ([`Verbosity::Normal`] until set).
pub fn verbosity() -> Verbosity {
    VERBOSITY.get().copied().unwrap_or(Verbosity::Normal)
}

/// Prints `note: MESSAGE` on standard error unless quiet.
pub fn note(message: impl std::fmt::Display) {
    if verbosity() > Verbosity::Quiet {
        let s = dashvertex_validate::render::palette::NOTE;
        anstream::eprintln!("{s}note{s:#}: {message}");
    }
}

/// Prints a plain line on standard error unless quiet.
pub fn info(message: impl std::fmt::Display) {
    if verbosity() > Verbosity::Quiet {
        anstream::eprintln!("{message}");
    }
}

/// Prints a plain line on standard error with `-v` only.
pub fn detail(message: impl std::fmt::Display) {
    if verbosity() == Verbosity::Verbose {
        anstream::eprintln!("{message}");
    }
}

/// Prints `warning: MESSAGE` on standard error unless quiet.
pub fn warning(message: impl std::fmt::Display) {
    if verbosity() > Verbosity::Quiet {
        let s = dashvertex_validate::render::palette::WARNING;
        anstream::eprintln!("{s}warning{s:#}: {message}");
    }
}

/// Warns when a manifest just numbered Blender's automatic neutral bone
/// ([`dashvertex_manifest::BLENDER_NEUTRAL_BONE`]), which would otherwise slip in unnoticed.
pub fn warn_neutral_bone(added: &[(String, u32)]) {
    for (name, index) in added
        .iter()
        .filter(|(n, _)| n == dashvertex_manifest::BLENDER_NEUTRAL_BONE)
    {
        warning(format_args!(
            "the manifest now numbers bone {name:?} (index {index}): the joint Blender's glTF exporter adds to hold the vertices no bone weights, not a bone of the rig; weight those vertices to a real bone in Blender (Weight Paint) and export again, then retire it with `dashvertex manifest update M --from FILE`, or keep it if those vertices are meant to follow no bone"
        ));
    }
}

/// Prints a clap error (or the help or version it carries) and gives the exit code: 0
/// for help and version, 2 for a usage error. A closed standard output is not an error.
pub fn clap_exit(e: &clap::Error) -> ExitCode {
    let _ = e.print();
    if e.use_stderr() {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}
