//! `dash`: convert, inspect, reduce and manage bone manifests for DashVertex data.

mod error;
mod files;
mod formats;
mod inspect;

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
    /// Largest number of influence sets per vertex accepted.
    #[arg(long, global = true, default_value_t = Limits::default().max_sets)]
    max_sets: u64,
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
    let bytes = files::read_input(path, limits.max_input_bytes).map_err(CliError::Io)?;
    let format = from
        .or_else(|| Format::from_path(path))
        .unwrap_or_else(|| Format::sniff(&bytes));
    Ok((bytes, format))
}

fn run(cli: &Cli) -> Result<(), CliError> {
    let limits = limits(cli);
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
            files::write_atomic(output, &out).map_err(CliError::Io)
        }
        Command::Inspect {
            file,
            from,
            records,
        } => {
            let (bytes, format) = read(file, *from, &limits)?;
            let text = inspect::inspect(&name(file), &bytes, format, *records, &limits)?;
            print!("{text}");
            Ok(())
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
