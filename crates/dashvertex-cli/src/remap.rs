//! `dashvertex remap`: the flags of the `dashvertex_app::remap` job.

use std::path::PathBuf;

use dashvertex_app::Context;
use dashvertex_app::remap::{self, RemapJob};

use crate::error::CliError;

/// `dashvertex remap` flags.
#[derive(clap::Args, Clone, Debug)]
pub struct RemapArgs {
    /// The glTF or GLB file.
    pub input: PathBuf,
    /// The bone manifest whose indices the joints take (never changed)
    #[arg(long, value_name = "FILE", help_heading = "Manifest")]
    pub manifest: PathBuf,
    /// The output, .gltf or .glb
    ///
    /// Written atomically; a `.gltf` keeps its buffers beside it as `STEM.bin` unless
    /// --embed.
    #[arg(short, long, value_name = "FILE", help_heading = "Output")]
    pub output: PathBuf,
    /// Refuse skins with bones the manifest lacks
    ///
    /// Exit 1, naming them, instead of appending them after the manifest's bones.
    #[arg(long, help_heading = "Manifest")]
    pub locked: bool,
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

/// Runs `dashvertex remap`.
pub fn run(a: &RemapArgs, ctx: &Context) -> Result<(), CliError> {
    remap::run(&RemapJob {
        input: &a.input,
        manifest: &a.manifest,
        output: &a.output,
        locked: a.locked,
        embed: a.embed,
        resources: crate::reduce::resources(a.resources),
        ctx,
    })?;
    Ok(())
}
