//! `dashvertex`: validate, convert, inspect, reduce and manage bone manifests.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::common::{self, Global};
use crate::error::{CliError, ExitStatus};
use crate::formats::{self, Format};
use crate::inspect;

/// Tools for skinned-vertex data: DashVertex JSON, the DMX binary container, raw records
/// and glTF/GLB skins.
#[derive(Parser)]
#[command(name = "dashvertex", version, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    global: Global,
    /// Fail at once (exit 2) when another run holds the manifest's lock, instead of
    /// waiting for it.
    #[arg(long, global = true)]
    no_wait: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Check skinning data: the `dash-validate` command, with the same flags.
    Validate(crate::validate::ValidateArgs),
    /// Convert between glTF/GLB, DashVertex JSON, the DMX container and raw records.
    ///
    /// DashVertex formats convert bit for bit. glTF/GLB becomes DashVertex with every
    /// influence kept, the skin's joints as bones with their rest pose, and a note of
    /// what DashVertex cannot carry (faces, normals, UVs, animations); pick a primitive
    /// with --mesh/--primitive. glTF and GLB convert into each other unchanged.
    Convert(crate::convert::ConvertArgs),
    /// Keep the strongest K influences per vertex, with bone indices from a manifest.
    Reduce(crate::reduce::ReduceCli),
    /// Repair influence data with named policies, listing every change.
    ///
    /// The smallest change that makes the influence data valid (spec/fix.md); nothing is
    /// written unless the result passes dash-validate.
    Fix(crate::fix::FixCli),
    /// Rewrite a glTF's joint order to a bone manifest's, changing no influence.
    Remap(crate::remap::RemapArgs),
    /// Cut skinned primitives into parts of at most N joints each (one mesh, node and
    /// skin per part), for engines with a joint palette limit.
    ///
    /// Parts grow over adjacent triangles and merge while they fit; a triangle that
    /// needs more than N joints is refused with its location, or with --reduce loses
    /// its least influences (spec/split.md). Nothing is written unless dash-validate
    /// accepts the result.
    Split(crate::split::SplitArgs),
    /// Create, update or show a bone manifest.
    Manifest {
        #[command(subcommand)]
        command: crate::manifest::ManifestCommand,
    },
    /// Show a file's header, sections, counts and first records; for glTF/GLB its skins
    /// and joint order, and per skinned primitive its sets, influence counts and weight
    /// sums.
    Inspect {
        /// The file, or `-` for standard input.
        file: PathBuf,
        /// Input format (default: from the extension, else detected).
        #[arg(long, value_name = "FORMAT", value_parser = formats::any_format())]
        from: Option<Format>,
        /// How many vertices and bones to print.
        #[arg(long, default_value_t = 4)]
        records: usize,
    },
    /// Print a shell completion script for `dashvertex` (or, with --validate, for
    /// `dash-validate`) on standard output.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
        /// For the `dash-validate` command instead.
        #[arg(long)]
        validate: bool,
    },
    /// Write man pages: dashvertex(1), one per subcommand (dashvertex-reduce(1), ...) and
    /// dash-validate(1), into a folder.
    Man {
        /// The folder (created if missing).
        dir: PathBuf,
    },
}

fn name(path: &Path) -> String {
    if path == Path::new("-") {
        "<stdin>".to_owned()
    } else {
        path.display().to_string()
    }
}

fn run(cli: &Cli) -> Result<(), CliError> {
    let limits = cli.global.limits();
    let ctx = crate::words::context(limits, &cli.global.resource_dir, !cli.no_wait);
    match &cli.command {
        Command::Convert(args) => crate::convert::run(args, &ctx),
        Command::Reduce(args) => args.run(&ctx),
        Command::Manifest { command } => command.run(&ctx),
        Command::Fix(f) => f.run(&ctx),
        Command::Remap(args) => crate::remap::run(args, &ctx),
        Command::Split(args) => crate::split::run(args, &ctx),
        Command::Man { dir } => {
            crate::docs::write_man_pages(dir, Cli::command(), crate::validate::command())
        }
        Command::Validate(_) | Command::Completions { .. } => Ok(()),
        Command::Inspect {
            file,
            from,
            records,
        } => {
            let read = match from {
                Some(f) if !f.is_gltf() => dashvertex_app::Opened::Bytes(
                    dashvertex_fs::read_input(file, limits.max_input_bytes)?,
                ),
                // Inspect refuses nothing it can read: it lists the file's errors.
                _ => dashvertex_app::input::read_source_for(
                    file,
                    &ctx,
                    dashvertex_validate::Work::Show,
                )?,
            };
            let text = match read {
                dashvertex_app::Opened::Gltf(g) => {
                    let size = g.input_len();
                    crate::inspect_gltf::inspect(&name(file), size, &g, *records, &limits)?
                }
                dashvertex_app::Opened::Bytes(bytes) => {
                    let format = from.unwrap_or_else(|| formats::decide(file, &bytes));
                    inspect::inspect(&name(file), &bytes, format, *records, &limits)?
                }
            };
            Ok(dashvertex_fs::write_file(Path::new("-"), text.as_bytes())?)
        }
    }
}

/// The `dashvertex` process.
pub fn main() -> ExitCode {
    dashvertex_fs::install_signal_cleanup();
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    common::init_color(&argv);
    let cli = match Cli::command()
        .try_get_matches_from(&argv)
        .and_then(|m| Cli::from_arg_matches(&m))
    {
        Ok(c) => c,
        Err(e) => return common::clap_exit(&e),
    };
    cli.global.apply();
    crate::pool::run(|| dispatch(&cli))
}

/// Runs the command `cli` names (in the process's thread pool).
fn dispatch(cli: &Cli) -> ExitCode {
    match &cli.command {
        Command::Validate(args) => return crate::validate::run_to_exit(args, &cli.global),
        Command::Completions { shell, validate } => {
            return if *validate {
                crate::docs::print_completions(&mut crate::validate::command(), *shell)
            } else {
                crate::docs::print_completions(&mut Cli::command(), *shell)
            };
        }
        _ => {}
    }
    match run(cli) {
        Ok(()) | Err(CliError::BrokenPipe) => ExitCode::SUCCESS,
        Err(e) => {
            common::error(&e);
            ExitCode::from(e.exit_code())
        }
    }
}
