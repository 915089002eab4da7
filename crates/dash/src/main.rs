//! `dash`: convert, inspect, reduce and manage bone manifests for DashVertex data.

mod error;
mod formats;
mod inspect;
mod reduce;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use dash_core::Limits;
use dash_json::Form;

use crate::error::CliError;
use crate::formats::{Format, SaveOptions};

/// Tools for skinned-vertex data: DashVertex JSON, the DMX binary container, raw records.
#[derive(Parser)]
#[command(name = "dash", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Largest input accepted, in bytes.
    #[arg(long, global = true, default_value_t = Limits::default().max_input_bytes)]
    max_input_bytes: u64,
    /// Largest vertex count accepted.
    #[arg(long, global = true, default_value_t = Limits::default().max_vertices)]
    max_vertices: u64,
    /// Largest bone count accepted.
    #[arg(long, global = true, default_value_t = Limits::default().max_bones)]
    max_bones: u64,
    /// Largest number of influence sets per vertex accepted (at least 1: every vertex
    /// has its first set).
    #[arg(long, global = true, default_value_t = Limits::default().max_sets,
          value_parser = clap::value_parser!(u64).range(1..))]
    max_sets: u64,
    /// A folder glTF external resources may also resolve into (repeatable). By default a
    /// buffer URI must stay inside its glTF file's folder.
    #[arg(long, global = true, value_name = "DIR")]
    resource_dir: Vec<PathBuf>,
    /// Fail at once (exit 2) when another run holds the manifest's lock, instead of
    /// waiting for it.
    #[arg(long, global = true)]
    no_wait: bool,
    /// Threads working on vertices (0: one per core). Outputs and reports are the same
    /// at any count.
    #[arg(long, global = true, default_value_t = 0)]
    threads: usize,
}

/// JSON output shape.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum FormArg {
    /// One vertex object.
    Vertex,
    /// An array of vertex objects.
    Array,
    /// A DMX document.
    Document,
}

#[derive(Subcommand)]
enum Command {
    /// Convert between DashVertex JSON, the DMX container and raw records, losslessly.
    Convert {
        /// Input file, or `-` for standard input.
        input: PathBuf,
        /// Output file, or `-` for standard output. Written atomically.
        output: PathBuf,
        /// Input format (default: from the extension, else detected from the bytes).
        #[arg(long)]
        from: Option<Format>,
        /// Output format (default: from the extension; required for `-`).
        #[arg(long)]
        to: Option<Format>,
        /// JSON shape to write (default: the input's; a document for binary input).
        #[arg(long, value_enum)]
        form: Option<FormArg>,
        /// Use 16-byte vertex records when the mesh is unskinned (saves 67 %; needs a
        /// reader that knows the dash extension).
        #[arg(long)]
        compact: bool,
        /// Write even if non-zero bytes outside every section of the input are lost.
        #[arg(long)]
        drop_unreferenced: bool,
    },
    /// Keep the strongest K influences per vertex, with bone indices from a manifest.
    Reduce {
        /// Input: DashVertex JSON/DMX/raw, a per-bone weights document, or glTF/GLB.
        input: PathBuf,
        /// Output: DashVertex JSON/DMX/raw, or glTF/GLB for glTF input; `-` for standard
        /// output (with --to). Written atomically.
        #[arg(short, long)]
        output: PathBuf,
        /// Output format (default: from the output's extension; required for `-`).
        #[arg(long, value_enum)]
        to: Option<reduce::OutputKind>,
        /// Influences kept per vertex (K); more than 4 fill further sets, heaviest first.
        #[arg(long, default_value_t = 4)]
        max_influences: usize,
        /// `none` keeps weights as they are; `unit` makes them sum to 1 (the glTF rule).
        #[arg(long, value_enum, default_value = "none")]
        normalize: NormalizeArg,
        /// Weight precision: f32, or unorm16/unorm8 with integer sums of exactly
        /// 65535/255 (needs --normalize unit).
        #[arg(long, value_enum, default_value = "f32")]
        quantize: QuantizeArg,
        /// Drop influences lighter than this (never a vertex's heaviest).
        #[arg(long, default_value_t = 0.0)]
        min_weight: f32,
        /// Vertices without influence: error, zero weights, or bound to the root bone.
        #[arg(long, value_enum, default_value = "error")]
        empty: EmptyArg,
        /// Bone manifest (name -> index): read, extended with new bones, written back.
        #[arg(long)]
        manifest: Option<PathBuf>,
        /// Fail (exit 1) if the manifest would change.
        #[arg(long)]
        locked: bool,
        /// Print nothing on success.
        #[arg(short, long)]
        quiet: bool,
        /// For `.gltf` output: embed every buffer as a base64 data URI. By default buffers
        /// that were files (and a GLB's binary chunk) are written beside the output as
        /// `STEM.bin`, each atomically, and data URIs stay data URIs.
        #[arg(long)]
        embed: bool,
    },
    /// Create, update or show a bone manifest.
    Manifest {
        #[command(subcommand)]
        command: ManifestCommand,
    },
    /// Show a file's header, sections, counts and first records.
    Inspect {
        /// The file, or `-` for standard input.
        file: PathBuf,
        /// Input format (default: from the extension, else detected).
        #[arg(long)]
        from: Option<Format>,
        /// How many vertices and bones to print.
        #[arg(long, default_value_t = 4)]
        records: usize,
    },
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

fn limits(cli: &Cli) -> Limits {
    Limits {
        max_input_bytes: cli.max_input_bytes,
        max_vertices: cli.max_vertices,
        max_bones: cli.max_bones,
        max_sets: cli.max_sets,
    }
}

fn name(path: &Path) -> String {
    if path == Path::new("-") {
        "<stdin>".to_owned()
    } else {
        path.display().to_string()
    }
}

fn read(path: &Path, from: Option<Format>, limits: &Limits) -> Result<(Vec<u8>, Format), CliError> {
    let bytes = dash_fs::read_input(path, limits.max_input_bytes)?;
    let format = from.unwrap_or_else(|| Format::decide(path, &bytes));
    Ok((bytes, format))
}

fn run(cli: &Cli) -> Result<(), CliError> {
    let limits = limits(cli);
    let ctx = reduce::Context {
        limits,
        resource_dirs: &cli.resource_dir,
        wait: !cli.no_wait,
    };
    match &cli.command {
        Command::Convert {
            input,
            output,
            from,
            to,
            form,
            compact,
            drop_unreferenced,
        } => {
            let to = to.or_else(|| Format::from_path(output)).ok_or_else(|| {
                CliError::Usage(format!(
                    "cannot tell the output format of {}; pass --to json|dmx|raw",
                    name(output)
                ))
            })?;
            if form.is_some() && to != Format::Json {
                return Err(CliError::Usage(
                    "--form sets the shape of JSON output; the output here is binary".to_owned(),
                ));
            }
            let (bytes, from) = read(input, *from, &limits)?;
            let loaded = formats::load(&name(input), &bytes, from, &limits)?;
            let opts = SaveOptions {
                form: form.map(|f| match f {
                    FormArg::Vertex => Form::Vertex,
                    FormArg::Array => Form::Array,
                    FormArg::Document => Form::Document,
                }),
                binary: dash_binary::WriteOptions {
                    compact_unskinned: *compact,
                    drop_unreferenced: *drop_unreferenced,
                },
            };
            let out = formats::save(&loaded, to, &opts)?;
            Ok(dash_fs::write_file(output, &out)?)
        }
        Command::Reduce {
            input,
            output,
            max_influences,
            normalize,
            quantize,
            min_weight,
            empty,
            manifest,
            locked,
            quiet,
            embed,
            to,
        } => reduce::reduce(&reduce::ReduceArgs {
            input,
            output,
            to: *to,
            config: dash_reduce::Config {
                max_influences: *max_influences,
                normalize: match normalize {
                    NormalizeArg::None => dash_reduce::Normalize::None,
                    NormalizeArg::Unit => dash_reduce::Normalize::Unit,
                },
                quantize: match quantize {
                    QuantizeArg::F32 => dash_reduce::Quantize::F32,
                    QuantizeArg::Unorm16 => dash_reduce::Quantize::Unorm16,
                    QuantizeArg::Unorm8 => dash_reduce::Quantize::Unorm8,
                },
                min_weight: *min_weight,
                empty: match empty {
                    EmptyArg::Error => dash_reduce::Empty::Error,
                    EmptyArg::Zero => dash_reduce::Empty::Zero,
                    EmptyArg::Root => dash_reduce::Empty::Root,
                },
            },
            manifest: manifest.as_deref(),
            locked: *locked,
            quiet: *quiet,
            embed: *embed,
            ctx: &ctx,
        }),
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
            ManifestCommand::Show { manifest } => {
                let text = reduce::manifest_show(manifest)?;
                Ok(dash_fs::write_file(Path::new("-"), text.as_bytes())?)
            }
        },
        Command::Inspect {
            file,
            from,
            records,
        } => {
            let (bytes, format) = read(file, *from, &limits)?;
            let text = inspect::inspect(&name(file), &bytes, format, *records, &limits)?;
            Ok(dash_fs::write_file(Path::new("-"), text.as_bytes())?)
        }
    }
}

fn main() -> ExitCode {
    dash_fs::install_signal_cleanup();
    let cli = Cli::parse();
    if cli.threads > 0 {
        // Fails only when a pool exists already, which cannot happen this early.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(cli.threads)
            .build_global();
    }
    match run(&cli) {
        Ok(()) | Err(CliError::BrokenPipe) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
