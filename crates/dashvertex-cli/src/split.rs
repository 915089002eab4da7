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
    /// The output, `.gltf` or `.glb` (written atomically, after dash-validate accepts
    /// it; a `.gltf` keeps its buffers beside it as `STEM.bin` unless --embed).
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Joints one part may use (only joints with weight count). Default: the joint
    /// limit of --target.
    #[arg(long, value_name = "N")]
    pub max_joints: Option<usize>,
    /// The engine whose joint limit is the budget (spec/targets.md); the output is also
    /// checked for it.
    #[arg(long, value_name = "ENGINE", value_parser = formats::target())]
    pub target: Option<&'static dashvertex_core::Target>,
    /// Make an element that needs more joints than N fit by taking the least
    /// influences off its vertices (renormalized), instead of refusing the file; the
    /// displacement is measured at the rest pose and every keyframe and reported.
    #[arg(long)]
    pub reduce: bool,
    /// With --reduce: the largest displacement allowed, in model units; more refuses
    /// the file.
    #[arg(long, value_name = "E", requires = "reduce")]
    pub max_error: Option<f64>,
    /// Parts the whole file may be cut into; a split that needs more is refused before
    /// anything is built for its parts (spec/split.md SP10).
    #[arg(long, value_name = "N", default_value_t = split::DEFAULT_MAX_PARTS)]
    pub max_parts: usize,
    /// Carry extensions split does not know unchanged, with a warning, instead of
    /// refusing the file: a split node's are copied to every part's node (spec/split.md
    /// SP11); the root's and a split mesh's, skin's or primitive's are kept, and copied
    /// with it to its parts, their indices not rewritten (SP13).
    #[arg(long)]
    pub allow_unknown_extensions: bool,
    /// Write the split report (schemas/split-report.schema.json) to this JSON file.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// For `.gltf` output: embed every buffer as a base64 data URI.
    #[arg(long)]
    pub embed: bool,
    /// Images a glTF output names by URI: `embed` them (a .glb's binary chunk, a .gltf's
    /// data URIs), `copy` them beside the output (their folders kept) or `reference` the
    /// originals from its folder. Default: embed for .glb, --embed or standard output;
    /// copy for a .gltf in another folder; unchanged in the input's folder.
    #[arg(long, value_enum, value_name = "HOW")]
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
        max_parts: a.max_parts,
        allow_unknown_extensions: a.allow_unknown_extensions,
        report: a.report.as_deref(),
        embed: a.embed,
        resources: crate::reduce::resources(a.resources),
        ctx,
    })?;
    Ok(())
}
