//! `dashvertex split`: the flags of the `dashvertex_app::split` job.

use std::path::PathBuf;

use dashvertex_app::Context;
use dashvertex_app::split::{self, SplitJob};

use crate::error::CliError;
use crate::formats;

/// `dashvertex split` flags.
#[derive(clap::Args, Clone, Debug)]
pub struct SplitArgs {
    /// The glTF or GLB file.
    pub input: PathBuf,
    /// The output, .gltf or .glb
    ///
    /// Written atomically, after dash-validate accepts it; a `.gltf` keeps its buffers
    /// beside it as `STEM.bin` unless --embed.
    #[arg(short, long, value_name = "FILE", help_heading = "Output")]
    pub output: PathBuf,
    /// Joints one part may use (default: the limit of --target)
    ///
    /// Only joints with weight count.
    #[arg(long, value_name = "N", help_heading = "Split")]
    pub max_joints: Option<usize>,
    /// The engine whose joint limit is the budget (names in --help)
    #[arg(long, value_name = "ENGINE", value_parser = formats::target(),
          hide_possible_values = true, help_heading = "Split",
          long_help = formats::target_help("The engine whose joint limit is the budget; the output is also checked for it."))]
    pub target: Option<&'static dashvertex_core::Target>,
    /// Drop the least influences where a triangle needs too many joints
    ///
    /// Makes an element that needs more joints than N fit by taking the least influences
    /// off its vertices (renormalized), instead of refusing the file; the displacement is
    /// measured at the rest pose and every keyframe and reported.
    #[arg(long, help_heading = "Split")]
    pub reduce: bool,
    /// With --reduce: the largest displacement allowed, in model units
    ///
    /// A larger one refuses the file.
    #[arg(long, value_name = "E", requires = "reduce", help_heading = "Split")]
    pub max_error: Option<f64>,
    /// With --reduce: fit the changed vertices' weights to the animation
    ///
    /// Each vertex the reduction changed gets, on the joints it keeps, the weights that
    /// move it least from its skinning with every influence over the moments measured,
    /// where they move it less than the renormalized weights (the fitted reduction of
    /// `dashvertex reduce --fit`); the report gives both displacements.
    #[arg(long, requires = "reduce", help_heading = "Split")]
    pub fit: bool,
    /// Parts the whole file may be cut into
    ///
    /// A split that needs more is refused before anything is built for its parts.
    #[arg(long, value_name = "N", default_value_t = split::DEFAULT_MAX_PARTS,
          help_heading = "Limits")]
    pub max_parts: usize,
    /// Carry unknown extensions unchanged, with a warning
    ///
    /// Instead of refusing the file: a split node's are copied to every part's node; the
    /// root's and a split mesh's, skin's or primitive's are kept, and copied with it to
    /// its parts, their indices not rewritten.
    #[arg(long, help_heading = "Split")]
    pub allow_unknown_extensions: bool,
    /// Write the split report (JSON) to this file
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub report: Option<PathBuf>,
    /// Embed a .gltf output's buffers as data URIs
    #[arg(long, help_heading = "Output")]
    pub embed: bool,
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
    pub resources: Option<crate::reduce::ResourcesArg>,
}

/// Runs `dashvertex split`.
pub fn run(a: &SplitArgs, ctx: &Context) -> Result<(), CliError> {
    split::run(&SplitJob {
        input: &a.input,
        output: &a.output,
        max_joints: a.max_joints,
        target: a.target,
        reduce: a.reduce,
        max_error: a.max_error,
        fit: a.fit,
        max_parts: a.max_parts,
        allow_unknown_extensions: a.allow_unknown_extensions,
        report: a.report.as_deref(),
        embed: a.embed,
        resources: crate::reduce::resources(a.resources),
        ctx,
    })?;
    Ok(())
}
