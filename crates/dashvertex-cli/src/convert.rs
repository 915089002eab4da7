//! `dashvertex convert`: between every format dash reads and writes. DashVertex JSON, DMX and
//! raw records convert bit for bit; glTF/GLB becomes DashVertex through the reducer with
//! every influence kept (one primitive, its skin's joints with their rest pose, nothing
//! normalized), naming what DashVertex cannot carry; glTF and GLB convert into each
//! other unchanged.

use std::path::PathBuf;

use dashvertex_app::{Context, convert};
use dashvertex_json::Form;

use crate::error::CliError;
use crate::formats::{self, Format, SaveOptions};

/// JSON output shape.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum FormArg {
    /// One vertex object.
    Vertex,
    /// An array of vertex objects.
    Array,
    /// A DMX document.
    Document,
}

/// `dashvertex convert` flags.
#[derive(clap::Args)]
pub struct ConvertArgs {
    /// Input file, or `-` for standard input
    ///
    /// DashVertex JSON/DMX/raw, a per-bone weights document, glTF or GLB.
    input: PathBuf,
    /// Output file, or `-` for standard output
    ///
    /// Written atomically: a failed run leaves the destination untouched.
    output: PathBuf,
    /// Input format: json, dmx, raw, gltf or glb (default: detected)
    ///
    /// By default the extension names it, else the bytes do.
    #[arg(long, value_name = "FORMAT", value_parser = formats::any_format(),
          hide_possible_values = true, help_heading = "Input")]
    from: Option<Format>,
    /// Output format: json, dmx, raw, gltf or glb (default: from the name)
    ///
    /// Required when the output is `-`.
    #[arg(long, value_name = "FORMAT", value_parser = formats::any_format(),
          hide_possible_values = true, help_heading = "Output")]
    to: Option<Format>,
    /// JSON shape: vertex, array or document (default: the input's)
    ///
    /// `vertex`: one vertex object; `array`: an array of vertex objects; `document`: a
    /// DMX document (the default for binary input).
    #[arg(
        long,
        value_enum,
        value_name = "SHAPE",
        hide_possible_values = true,
        help_heading = "Output"
    )]
    form: Option<FormArg>,
    /// DMX: 16-byte records for an unskinned mesh
    ///
    /// Saves 67 %; needs a reader that knows the dash extension.
    #[arg(long, help_heading = "Output")]
    compact: bool,
    /// Write even if non-zero bytes outside every section are lost
    #[arg(long, help_heading = "Output")]
    drop_unreferenced: bool,
    /// Embed a .gltf output's buffers as data URIs
    ///
    /// By default buffer files are written beside it as `STEM.bin`.
    #[arg(long, help_heading = "Output")]
    embed: bool,
    /// Images a glTF output names: embed, copy or reference
    ///
    /// `embed` them (a .glb's binary chunk, a .gltf's data URIs), `copy` them beside the
    /// output (their folders kept) or `reference` the originals from its folder.
    /// Default: embed for .glb, --embed or standard output; copy for a .gltf in another
    /// folder; unchanged in the input's folder.
    #[arg(
        long,
        value_enum,
        value_name = "HOW",
        hide_possible_values = true,
        help_heading = "Output"
    )]
    resources: Option<crate::reduce::ResourcesArg>,
    #[command(flatten)]
    pick: crate::reduce::PickArgs,
}

impl ConvertArgs {
    fn form(&self) -> Option<Form> {
        self.form.map(|f| match f {
            FormArg::Vertex => Form::Vertex,
            FormArg::Array => Form::Array,
            FormArg::Document => Form::Document,
        })
    }
}

/// Runs `dashvertex convert`: the flags as a convert job (`dashvertex_app::convert`).
pub fn run(a: &ConvertArgs, ctx: &Context) -> Result<(), CliError> {
    convert::run(&convert::ConvertJob {
        input: &a.input,
        output: &a.output,
        from: a.from,
        to: a.to,
        save: SaveOptions {
            form: a.form(),
            binary: dashvertex_binary::WriteOptions {
                compact_unskinned: a.compact,
                drop_unreferenced: a.drop_unreferenced,
            },
        },
        embed: a.embed,
        resources: crate::reduce::resources(a.resources),
        pick: a.pick.into(),
        ctx,
    })
}
