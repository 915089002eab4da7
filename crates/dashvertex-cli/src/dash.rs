//! `dashvertex`: validate, convert, inspect, reduce and manage bone manifests.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::common::{self, Global};
use crate::error::CliError;
use crate::formats::{self, Format, SaveOptions};
use crate::{inspect, reduce};

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
    Reduce {
        /// Input: DashVertex JSON/DMX/raw, a per-bone weights document, or glTF/GLB.
        input: PathBuf,
        /// Output: DashVertex JSON/DMX/raw, or glTF/GLB for glTF input; `-` for standard
        /// output (with --to). Written atomically.
        #[arg(short, long, value_name = "FILE")]
        output: PathBuf,
        /// Output format (default: from the output's extension; required for `-`).
        #[arg(long, value_name = "FORMAT", value_parser = formats::any_format())]
        to: Option<Format>,
        /// Influences kept per vertex (K; default 4, or what --target reads); more than 4
        /// fill further sets, heaviest first.
        #[arg(long, value_name = "K")]
        max_influences: Option<usize>,
        /// Write for an engine (spec/targets.md): at most the influences it reads,
        /// normalized to the glTF rule, checked against it before writing.
        #[arg(long, value_name = "ENGINE", value_parser = formats::target())]
        target: Option<&'static dashvertex_core::Target>,
        /// `none` keeps weights as they are; `unit` makes them sum to 1 (the glTF rule).
        /// Default: what the output requires: `unit` for glTF/GLB output, --target or
        /// --quantize unorm8/unorm16; else `none` (DashVertex keeps the sums the file had).
        #[arg(long, value_enum)]
        normalize: Option<NormalizeArg>,
        /// Weight precision: f32, or unorm16/unorm8 with integer sums of exactly
        /// 65535/255 (needs --normalize unit).
        #[arg(long, value_enum, default_value = "f32")]
        quantize: QuantizeArg,
        /// Drop influences lighter than this (never a vertex's heaviest).
        #[arg(long, value_name = "WEIGHT", default_value_t = 0.0)]
        min_weight: f32,
        /// Vertices without influence: error, zero weights, or bound to the root bone.
        #[arg(long, value_enum, default_value = "error")]
        empty: EmptyArg,
        /// Bone manifest (name -> index): read, extended with new bones, written back.
        #[arg(long, value_name = "FILE")]
        manifest: Option<PathBuf>,
        /// Fail (exit 1) if the manifest would change.
        #[arg(long)]
        locked: bool,
        /// For `.gltf` output: embed every buffer as a base64 data URI. By default buffers
        /// that were files (and a GLB's binary chunk) are written beside the output as
        /// `STEM.bin`, each atomically, and data URIs stay data URIs.
        #[arg(long)]
        embed: bool,
        /// Write a loss report (JSON) here: per primitive, how far the reduction moves
        /// vertices (max, p99, mean, worst vertices) at the rest pose and every keyframe of
        /// every animation, beside the weights dropped; a summary line goes to the terminal.
        #[arg(long, value_name = "FILE")]
        report: Option<PathBuf>,
        /// Keep the fewest influences per vertex (up to --max-influences) that move no
        /// vertex further than D model units, at the rest pose and every keyframe of every
        /// animation (glTF input); exit 1 if even --max-influences does not.
        #[arg(long, value_name = "D", value_parser = positive)]
        max_error: Option<f64>,
        /// For --report and --max-error: take the poses from this glTF/GLB's animations
        /// (matched to the model's nodes by name) instead of the model's own, for a model
        /// exported without its animations.
        #[arg(long, value_name = "FILE")]
        poses: Option<PathBuf>,
        #[command(flatten)]
        pick: reduce::Pick,
        /// glTF output: remove the per-bone weight attributes (Blender's `_BONE`) the
        /// influences were read from; `--drop-source-attributes=false` keeps them.
        #[arg(long, value_name = "BOOL", num_args = 0..=1, default_value_t = true,
              default_missing_value = "true", action = clap::ArgAction::Set,
              hide_short_help = true)]
        drop_source_attributes: bool,
    },
    /// Repair influence data with named policies, listing every change.
    ///
    /// The smallest change that makes the influence data valid (spec/fix.md); nothing is
    /// written unless the result passes dash-validate.
    Fix(FixCli),
    /// Rewrite a glTF's joint order to a bone manifest's, changing no influence.
    Remap(crate::remap::RemapArgs),
    /// Create, update or show a bone manifest.
    Manifest {
        #[command(subcommand)]
        command: ManifestCommand,
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

/// `dashvertex fix` flags.
#[derive(clap::Args)]
struct FixCli {
    /// Input: DashVertex JSON/DMX/raw, or glTF/GLB.
    input: PathBuf,
    /// Output (same kind as the input; `-` for standard output with --to). Written
    /// atomically; the input's own bytes when nothing needed fixing.
    #[arg(short, long, value_name = "FILE", required_unless_present = "dry_run")]
    output: Option<PathBuf>,
    /// Output format (default: from the output's extension, else the input's).
    #[arg(long, value_name = "FORMAT", value_parser = formats::any_format())]
    to: Option<Format>,
    /// DashVertex input: the weight-sum rule to meet (`gltf`: sums of 1 by the glTF rule;
    /// `dash`: no sum rule). glTF input always meets the glTF rule.
    #[arg(long, value_enum, default_value = "dash")]
    profile: ProfileArg,
    /// Negative and non-finite weights: `zero` drops them, `error` refuses the file.
    #[arg(long, value_enum, default_value = "zero")]
    bad_weights: BadWeightsArg,
    /// Weighted joints not below the joint count: `error` refuses the file, `drop` drops
    /// the influence.
    #[arg(long, value_enum, default_value = "error")]
    out_of_range: OutOfRangeArg,
    /// Skinned vertices without weight: `keep`, `error`, bind to the `root` bone, or copy
    /// the `nearest` weighted vertex. Default: `error` under the glTF rule, else `keep`.
    #[arg(long, value_enum)]
    zero_sum: Option<ZeroSumArg>,
    /// DashVertex mesh marked unskinned that holds influence data: `error` refuses, `set`
    /// marks it skinned, `clear` drops the data.
    #[arg(long, value_enum, default_value = "error")]
    skinned_flag: SkinnedFlagArg,
    /// glTF: snap inverse bind matrices' fourth rows within this of (0, 0, 0, 1); refuse
    /// rows further off.
    #[arg(long, value_name = "X", default_value_t = 1e-4)]
    ibm_tolerance: f32,
    /// DashVertex input without a skeleton: the bone count indices must stay below.
    #[arg(long, value_name = "N")]
    bones: Option<u64>,
    /// For `.gltf` output: embed every buffer as a data URI.
    #[arg(long)]
    embed: bool,
    /// The report on standard output: text or json.
    #[arg(long, value_enum, default_value = "text")]
    format: crate::fix::ReportFormat,
    /// Changed vertices the text report lists per part: a number, or `all` (the JSON
    /// report lists every change).
    #[arg(long, value_name = "N|all", default_value = "1000", value_parser = listed)]
    list: Listed,
    /// Write the JSON report to this file instead (a summary line goes to standard error).
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// Repair and check, print the report, write no output.
    #[arg(long)]
    dry_run: bool,
    /// Write for an engine (spec/targets.md): vertices with more influences than it
    /// reads keep the heaviest, and sums meet the glTF rule; checked against it.
    #[arg(long, value_name = "ENGINE", value_parser = formats::target())]
    target: Option<&'static dashvertex_core::Target>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ProfileArg {
    Dash,
    Gltf,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum BadWeightsArg {
    Error,
    Zero,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum SkinnedFlagArg {
    Error,
    Set,
    Clear,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum OutOfRangeArg {
    Error,
    Drop,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ZeroSumArg {
    Keep,
    Error,
    Root,
    Nearest,
}

impl FixCli {
    fn run(&self, ctx: &reduce::Context) -> Result<(), CliError> {
        use dashvertex_fix::{BadWeights, OutOfRange, Policy, SumRule, ZeroSum};
        let sum = match (self.profile, Format::from_extension(&self.input)) {
            _ if self.target.is_some() => SumRule::Gltf,
            (_, Some(f)) if f.is_gltf() => SumRule::Gltf,
            (ProfileArg::Gltf, _) => SumRule::Gltf,
            (ProfileArg::Dash, _) => SumRule::Dash,
        };
        let mut policy = Policy::for_rule(sum);
        policy.bad_weights = match self.bad_weights {
            BadWeightsArg::Error => BadWeights::Error,
            BadWeightsArg::Zero => BadWeights::Zero,
        };
        policy.out_of_range = match self.out_of_range {
            OutOfRangeArg::Error => OutOfRange::Error,
            OutOfRangeArg::Drop => OutOfRange::Drop,
        };
        if let Some(z) = self.zero_sum {
            policy.zero_sum = match z {
                ZeroSumArg::Keep => ZeroSum::Keep,
                ZeroSumArg::Error => ZeroSum::Error,
                ZeroSumArg::Root => ZeroSum::Root,
                ZeroSumArg::Nearest => ZeroSum::Nearest,
            };
        }
        if !(self.ibm_tolerance >= 0.0 && self.ibm_tolerance < 1.0) {
            return Err(CliError::Usage(
                "--ibm-tolerance must be at least 0 and below 1".into(),
            ));
        }
        policy.ibm_tolerance = self.ibm_tolerance;
        policy.skinned_flag = match self.skinned_flag {
            SkinnedFlagArg::Error => dashvertex_fix::SkinnedFlag::Error,
            SkinnedFlagArg::Set => dashvertex_fix::SkinnedFlag::Set,
            SkinnedFlagArg::Clear => dashvertex_fix::SkinnedFlag::Clear,
        };
        policy.max_influences = self.target.and_then(|t| t.influences());
        let dry = PathBuf::from("-");
        crate::fix::fix(&crate::fix::FixArgs {
            input: &self.input,
            output: self.output.as_deref().unwrap_or(&dry),
            to: self.to,
            policy,
            zero_sum_given: self.zero_sum.is_some(),
            listed: self.list.0,
            target: self.target,
            bones: self.bones,
            embed: self.embed,
            format: self.format,
            report: self.report.as_deref(),
            dry_run: self.dry_run,
            ctx,
        })
    }
}

#[derive(Subcommand)]
enum ManifestCommand {
    /// Number a skeleton's bones (parents first, siblings by name) into a new manifest.
    Init {
        /// A file with a skeleton (DashVertex, per-bone weights, glTF).
        from: PathBuf,
        /// The manifest to write.
        #[arg(short, long)]
        output: PathBuf,
        /// Replace an existing manifest.
        #[arg(long)]
        force: bool,
    },
    /// Add new bones, retire missing ones, apply renames; never renumber (unless
    /// --compact).
    Update {
        /// The manifest.
        manifest: PathBuf,
        /// A file with the current skeleton.
        #[arg(long)]
        from: Option<PathBuf>,
        /// Rename a bone, keeping its index: `--rename old=new` (repeatable).
        #[arg(long, value_parser = parse_rename)]
        rename: Vec<(String, String)>,
        /// The skeleton is partial: add bones but retire none.
        #[arg(long)]
        partial: bool,
        /// Drop retired bones and renumber; prints the old -> new table.
        #[arg(long)]
        compact: bool,
        /// Fail (exit 1) if anything would change.
        #[arg(long)]
        locked: bool,
    },
    /// Print a manifest as a table.
    Show {
        /// The manifest.
        manifest: PathBuf,
    },
    /// Show how B's bone numbering differs from A's: bones added, retired, brought back,
    /// renamed (by B's aliases) and moved. A and B are manifests, or files with a
    /// skeleton (numbered as `manifest init` would).
    Diff {
        /// The first manifest or file.
        a: PathBuf,
        /// The second.
        b: PathBuf,
        /// Exit 1 when they differ (for CI).
        #[arg(long)]
        check: bool,
    },
}

/// `--list N|all`: a count, or `None` for all.
#[derive(Clone, Copy, Debug)]
struct Listed(Option<usize>);

fn listed(s: &str) -> Result<Listed, String> {
    if s == "all" {
        return Ok(Listed(None));
    }
    s.parse()
        .map(|n| Listed(Some(n)))
        .map_err(|_| format!("{s} is not a count or `all`"))
}

fn positive(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(d) if d.is_finite() && d >= 0.0 => Ok(d),
        _ => Err(format!("expected a distance of 0 or more, got {s:?}")),
    }
}

fn parse_rename(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((a, b)) if !a.is_empty() && !b.is_empty() => Ok((a.to_owned(), b.to_owned())),
        _ => Err(format!("expected OLD=NEW, got {s:?}")),
    }
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum NormalizeArg {
    None,
    Unit,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum QuantizeArg {
    F32,
    Unorm16,
    Unorm8,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum EmptyArg {
    Error,
    Zero,
    Root,
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
    let ctx = reduce::Context {
        limits,
        resource_dirs: &cli.global.resource_dir,
        wait: !cli.no_wait,
    };
    match &cli.command {
        Command::Convert(args) => crate::convert::run(args, &ctx),
        Command::Reduce {
            input,
            output,
            max_influences,
            target,
            normalize,
            quantize,
            min_weight,
            empty,
            manifest,
            locked,
            embed,
            to,
            report,
            max_error,
            poses,
            pick,
            drop_source_attributes,
        } => {
            let most = target.and_then(|t| t.influences());
            let max_influences = match (*max_influences, most) {
                (Some(k), Some(m)) if k > m => {
                    return Err(CliError::Usage(format!(
                        "--max-influences {k}: {} reads {m} influences per vertex",
                        target.map_or("the target", |t| t.engine)
                    )));
                }
                (Some(k), _) => k,
                (None, m) => m.unwrap_or(4),
            };
            reduce::reduce(&reduce::ReduceArgs {
                input,
                output,
                to: *to,
                config: dashvertex_reduce::Config {
                    max_influences,
                    normalize: match (normalize, target) {
                        (_, Some(_)) | (Some(NormalizeArg::Unit), _) => {
                            dashvertex_reduce::Normalize::Unit
                        }
                        (Some(NormalizeArg::None), None) => dashvertex_reduce::Normalize::None,
                        (None, None) => {
                            let gltf = to
                                .or_else(|| Format::from_extension(output))
                                .is_some_and(Format::is_gltf);
                            if gltf || !matches!(quantize, QuantizeArg::F32) {
                                dashvertex_reduce::Normalize::Unit
                            } else {
                                dashvertex_reduce::Normalize::None
                            }
                        }
                    },
                    quantize: match quantize {
                        QuantizeArg::F32 => dashvertex_reduce::Quantize::F32,
                        QuantizeArg::Unorm16 => dashvertex_reduce::Quantize::Unorm16,
                        QuantizeArg::Unorm8 => dashvertex_reduce::Quantize::Unorm8,
                    },
                    min_weight: *min_weight,
                    empty: match empty {
                        EmptyArg::Error => dashvertex_reduce::Empty::Error,
                        EmptyArg::Zero => dashvertex_reduce::Empty::Zero,
                        EmptyArg::Root => dashvertex_reduce::Empty::Root,
                    },
                },
                manifest: manifest.as_deref(),
                locked: *locked,
                embed: *embed,
                report: report.as_deref(),
                max_error: *max_error,
                poses: poses.as_deref(),
                target: *target,
                pick: *pick,
                convert: false,
                save: SaveOptions::default(),
                drop_source_attributes: *drop_source_attributes,
                ctx: &ctx,
            })
        }
        Command::Manifest { command } => match command {
            ManifestCommand::Init {
                from,
                output,
                force,
            } => reduce::manifest_init(from, output, *force, &ctx),
            ManifestCommand::Update {
                manifest,
                from,
                rename,
                partial,
                compact,
                locked,
            } => reduce::manifest_update(
                manifest,
                from.as_deref(),
                rename,
                *partial,
                *compact,
                *locked,
                &ctx,
            ),
            ManifestCommand::Diff { a, b, check } => {
                let lines = reduce::manifest_diff(a, b, &ctx)?;
                let mut text = lines.join("\n");
                text.push_str(if lines.is_empty() {
                    "no difference\n"
                } else {
                    "\n"
                });
                dashvertex_fs::write_file(Path::new("-"), text.as_bytes())?;
                if *check && !lines.is_empty() {
                    return Err(CliError::Output(format!(
                        "the bone numbering differs ({} change(s))",
                        lines.len()
                    )));
                }
                Ok(())
            }
            ManifestCommand::Show { manifest } => {
                let text = reduce::manifest_show(manifest, &limits)?;
                Ok(dashvertex_fs::write_file(Path::new("-"), text.as_bytes())?)
            }
        },
        Command::Fix(f) => f.run(&ctx),
        Command::Remap(args) => crate::remap::run(args, &ctx),
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
                Some(f) if !f.is_gltf() => {
                    reduce::Opened::Bytes(dashvertex_fs::read_input(file, limits.max_input_bytes)?)
                }
                _ => reduce::read_source(file, &ctx)?,
            };
            let text = match read {
                reduce::Opened::Gltf(g) => {
                    let size = g.input_len();
                    crate::inspect_gltf::inspect(&name(file), size, &g, *records, &limits)?
                }
                reduce::Opened::Bytes(bytes) => {
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
        Command::Validate(args) => return crate::validate::run(args, &cli.global),
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
