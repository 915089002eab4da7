//! `dashvertex`: validate, convert, inspect, reduce and manage bone manifests.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::common::{self, Global};
use crate::error::{CliError, ExitStatus};
use crate::formats::{self, Format};

/// Tools for skinned-vertex data: glTF/GLB skins, DashVertex JSON, DMX and raw records.
#[derive(Parser)]
#[command(
    name = "dashvertex",
    version,
    max_term_width = 100,
    after_long_help = "\
Examples:
  dashvertex inspect rig.glb
  dashvertex validate --target threejs rig.glb
  dashvertex reduce rig.glb -o rig4.glb --manifest rig.manifest.json"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    global: Global,
    /// Fail at once when another run holds the manifest's lock
    ///
    /// Exit 2 instead of waiting for the other run to finish.
    #[arg(long, global = true, help_heading = "Manifest", hide_short_help = true)]
    no_wait: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Check skinning data: the `dash-validate` command, with the same flags.
    #[command(after_long_help = crate::validate::EXAMPLES_SUB)]
    Validate(crate::validate::ValidateArgs),
    /// Convert between glTF/GLB, DashVertex JSON, the DMX container and raw records.
    ///
    /// DashVertex formats convert bit for bit. glTF/GLB becomes DashVertex with every
    /// influence kept, the skin's joints as bones with their rest pose, and a note of
    /// what DashVertex cannot carry (faces, normals, UVs, animations); pick a primitive
    /// with --mesh/--primitive. glTF and GLB convert into each other unchanged.
    #[command(after_long_help = "\
Examples:
  dashvertex convert rig.json rig.dmx
  dashvertex convert rig.glb rig.json --mesh 0 --primitive 1
  dashvertex convert rig.gltf rig.glb")]
    Convert(crate::convert::ConvertArgs),
    /// Keep the strongest K influences per vertex, with bone indices from a manifest.
    ///
    /// Deterministic; bone indices come from an append-only manifest, so adding a bone
    /// never renumbers the others. Every rule dash-validate runs is run over the output
    /// before it is written.
    #[command(after_long_help = "\
Examples:
  dashvertex reduce rig.glb -o rig4.glb --manifest rig.manifest.json
  dashvertex reduce rig.glb -o rig.json --max-influences 4 --normalize unit
  dashvertex reduce rig.glb -o three.glb --target threejs --report loss.json")]
    Reduce(crate::reduce::ReduceCli),
    /// Repair influence data with named policies, listing every change.
    ///
    /// The smallest change that makes the influence data valid; nothing is written
    /// unless the result passes dash-validate, and a file with nothing to fix is copied.
    #[command(after_long_help = "\
Examples:
  dashvertex fix rig.glb -o fixed.glb
  dashvertex fix rig.glb --dry-run --zero-sum nearest
  dashvertex fix rig.json -o fixed.json --profile gltf --format json")]
    Fix(crate::fix::FixCli),
    /// Rewrite a glTF's joint order to a bone manifest's, changing no influence.
    #[command(after_long_help = "\
Examples:
  dashvertex remap rig.glb --manifest rig.manifest.json -o ordered.glb
  dashvertex remap rig.gltf --manifest rig.manifest.json -o ordered.gltf --locked")]
    Remap(crate::remap::RemapArgs),
    /// Cut skinned primitives into parts of at most N joints each.
    ///
    /// One mesh, node and skin per part, for engines with a joint palette limit. Parts
    /// grow over adjacent triangles and merge while they fit; a triangle that needs more
    /// than N joints is refused with its location, or with --reduce loses its least
    /// influences. Nothing is written unless dash-validate accepts the result.
    #[command(after_long_help = "\
Examples:
  dashvertex split rig.glb -o parts.glb --max-joints 8
  dashvertex split rig.glb -o bevy.glb --target bevy --report split.json
  dashvertex split rig.glb -o parts.glb --max-joints 4 --reduce --max-error 0.01")]
    Split(crate::split::SplitArgs),
    /// Create, update or show a bone manifest.
    #[command(after_long_help = "\
Examples:
  dashvertex manifest init rig.glb -o rig.manifest.json
  dashvertex manifest update rig.manifest.json --from rig-v2.glb
  dashvertex manifest diff rig.glb rig-v2.glb")]
    Manifest {
        #[command(subcommand)]
        command: crate::manifest::ManifestCommand,
    },
    /// Show what a file holds: header, counts, skins, joint order, weight sums.
    ///
    /// A file's header, sections, counts and first records; for glTF/GLB its skins and
    /// joint order, and per skinned primitive its sets, influence counts and weight sums.
    #[command(after_long_help = "\
Examples:
  dashvertex inspect rig.glb
  dashvertex inspect rig.dmx --records 10
  cat rig.raw | dashvertex inspect - --from raw")]
    Inspect {
        /// The file, or `-` for standard input.
        file: PathBuf,
        /// Input format: json, dmx, raw, gltf or glb (default: detected)
        ///
        /// By default the extension names it, else the bytes do.
        #[arg(long, value_name = "FORMAT", value_parser = formats::any_format(),
              hide_possible_values = true, help_heading = "Input")]
        from: Option<Format>,
        /// How many vertices and bones to print
        #[arg(long, value_name = "N", default_value_t = 4, help_heading = "Output")]
        records: usize,
    },
    /// Print a shell completion script on standard output.
    ///
    /// For `dashvertex`, or with --validate for `dash-validate`.
    #[command(after_long_help = "\
Examples:
  dashvertex completions bash > ~/.local/share/bash-completion/completions/dashvertex
  dashvertex completions zsh --validate > ~/.zfunc/_dash-validate")]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
        /// For the `dash-validate` command instead.
        #[arg(long)]
        validate: bool,
    },
    /// Write the man pages into a folder.
    ///
    /// dashvertex(1), one per subcommand (dashvertex-reduce(1), ...) and dash-validate(1).
    #[command(after_long_help = "\
Examples:
  dashvertex man ~/.local/share/man/man1")]
    Man {
        /// The folder (created if missing).
        dir: PathBuf,
    },
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
            let text = dashvertex_app::inspect::run(&dashvertex_app::inspect::InspectJob {
                input: file,
                from: *from,
                records: *records,
                ctx: &ctx,
            })?;
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
