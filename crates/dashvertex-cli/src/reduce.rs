//! `dashvertex reduce`: the flags, translated into a `dashvertex_app::reduce` job.

use std::path::PathBuf;

use dashvertex_app::Context;
use dashvertex_app::reduce::{self, Asked, Pick, ReduceJob};

use crate::error::CliError;
use crate::formats::{self, Format, SaveOptions};

/// `dashvertex reduce` flags.
#[derive(clap::Args)]
pub struct ReduceCli {
    /// Input: DashVertex JSON/DMX/raw, a per-bone weights document, or glTF/GLB.
    input: PathBuf,
    #[command(flatten)]
    pick: PickArgs,
    /// Output file, or `-` for standard output (with --to)
    ///
    /// DashVertex JSON/DMX/raw, or glTF/GLB for glTF input. Written atomically: a failed
    /// run leaves the destination untouched.
    #[arg(short, long, value_name = "FILE", help_heading = "Output")]
    output: PathBuf,
    /// Output format: json, dmx, raw, gltf or glb (default: from -o)
    ///
    /// Required when the output is `-`.
    #[arg(long, value_name = "FORMAT", value_parser = formats::any_format(),
          hide_possible_values = true, help_heading = "Output")]
    to: Option<Format>,
    /// Influences kept per vertex (default 4, or what --target reads)
    ///
    /// More than 4 fill further influence sets, heaviest first.
    #[arg(long, value_name = "K", help_heading = "Reduction")]
    max_influences: Option<usize>,
    /// Write for an engine's glTF importer (names in --help)
    ///
    /// At most the influences it reads, normalized to the glTF rule, checked against
    /// the engine's limits before writing.
    #[arg(long, value_name = "ENGINE", value_parser = formats::target(),
          hide_possible_values = true, help_heading = "Reduction",
          long_help = formats::target_help("Write for an engine's glTF importer: at most the influences it reads, normalized to the glTF rule, checked against the engine's limits before writing."))]
    target: Option<&'static dashvertex_core::Target>,
    /// Weight sums: none or unit (default: what the output needs)
    ///
    /// `none` keeps weights as they are; `unit` makes them sum to 1 (the glTF rule).
    /// Default: `unit` for glTF/GLB output, --target or --quantize unorm8/unorm16; else
    /// `none` (DashVertex keeps the sums the file had).
    #[arg(
        long,
        value_enum,
        value_name = "SUMS",
        hide_possible_values = true,
        help_heading = "Reduction"
    )]
    normalize: Option<NormalizeArg>,
    /// Weight precision: f32, unorm16, unorm8 or auto
    ///
    /// unorm16/unorm8 store weights as integers whose sums are exactly 65535/255
    /// (needs --normalize unit, the default for them). auto (glTF, with --max-error D):
    /// per primitive the smallest of unorm8, unorm16 and f32 that moves no vertex over D
    /// at any pose of the fit's pose set, with the fewest influences (up to
    /// --max-influences) for which one does.
    #[arg(
        long,
        value_enum,
        value_name = "PRECISION",
        default_value = "f32",
        hide_possible_values = true,
        help_heading = "Reduction"
    )]
    quantize: QuantizeArg,
    /// Drop influences lighter than this
    ///
    /// A vertex's heaviest influence is never dropped.
    #[arg(
        long,
        value_name = "WEIGHT",
        default_value_t = 0.0,
        help_heading = "Reduction"
    )]
    min_weight: f32,
    /// Vertices without influence: error, zero or root
    ///
    /// `error` refuses the file naming the vertex; `zero` writes zero weights; `root`
    /// binds them to the root bone.
    #[arg(
        long,
        value_enum,
        value_name = "HOW",
        default_value = "error",
        hide_possible_values = true,
        help_heading = "Reduction"
    )]
    empty: EmptyArg,
    /// Bone manifest (name -> index): read, extended, written back
    ///
    /// Created when missing. Append-only: new bones get the next indices, so a bone
    /// keeps its index across exports. Use one manifest per skeleton: reduce warns when
    /// the input and the manifest share fewer than half the bones of each.
    #[arg(long, value_name = "FILE", help_heading = "Manifest")]
    manifest: Option<PathBuf>,
    /// Fail (exit 1) if the manifest would change
    #[arg(long, help_heading = "Manifest")]
    locked: bool,
    /// Embed a .gltf output's buffers as data URIs
    ///
    /// By default buffers that were files (and a GLB's binary chunk) are written beside
    /// the output as `STEM.bin`, each atomically, and data URIs stay data URIs.
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
    resources: Option<ResourcesArg>,
    /// Write a JSON loss report: how far reduction moves vertices
    ///
    /// Per primitive: how far the reduction moves vertices (max, p99, mean, worst
    /// vertices) at the rest pose and every keyframe of every animation, beside the
    /// weights dropped; a summary line goes to the terminal.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    report: Option<PathBuf>,
    /// Keep the fewest influences that move no vertex over D
    ///
    /// The fewest influences per vertex (up to --max-influences) that move no vertex
    /// further than D model units, at the rest pose and every keyframe of every
    /// animation (glTF input); exit 1 if even --max-influences does not.
    #[arg(long, value_name = "D", value_parser = positive, help_heading = "Reduction")]
    max_error: Option<f64>,
    /// Fit the kept bones and weights to the full skinning
    ///
    /// glTF: per vertex, the K bones and weights (non-negative, summing to one, exact in
    /// the storage) that move it least from its skinning with every influence over the
    /// animations and range-of-motion poses; never worse than the K heaviest there.
    #[arg(long, help_heading = "Reduction")]
    fit: bool,
    /// Weight of --fit's range-of-motion poses (0: animations alone)
    ///
    /// The range-of-motion poses and the animations are first weighed to count alike; W
    /// (1 by default) scales the range of motion's share: 0 fits to the file's
    /// animations alone, above 1 favours the clips the file does not carry.
    #[arg(
        long,
        value_name = "W",
        default_value_t = 1.0,
        hide_default_value = true,
        help_heading = "Reduction"
    )]
    fit_motion_weight: f64,
    /// Poses for --report, --max-error and --fit from this glTF/GLB
    ///
    /// Its animations, matched to the model's nodes by name, replace the model's own:
    /// for a model exported without its animations.
    #[arg(long, value_name = "FILE", help_heading = "Reduction")]
    poses: Option<PathBuf>,
    /// glTF output: drop the per-bone weight attributes read (Blender's `_BONE`)
    ///
    /// `--drop-source-attributes=false` keeps them.
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_value_t = true,
          default_missing_value = "true", action = clap::ArgAction::Set,
          hide_short_help = true, help_heading = "Output")]
    drop_source_attributes: bool,
}

/// `--mesh M --primitive P`: the glTF primitive a DashVertex output holds (DashVertex
/// holds one mesh; glTF output keeps every primitive).
#[derive(Clone, Copy, Debug, Default, clap::Args)]
pub struct PickArgs {
    /// Mesh a DashVertex output holds (default: the skinned one)
    ///
    /// glTF input to DashVertex output: the mesh whose primitive is written (default:
    /// the only skinned one; glTF output keeps every mesh).
    #[arg(long, value_name = "M", help_heading = "Input")]
    pub mesh: Option<usize>,
    /// Primitive of --mesh a DashVertex output holds (default 0)
    #[arg(long, value_name = "P", help_heading = "Input")]
    pub primitive: Option<usize>,
}

impl From<PickArgs> for Pick {
    fn from(p: PickArgs) -> Pick {
        Pick {
            mesh: p.mesh,
            primitive: p.primitive,
        }
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
    Auto,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum EmptyArg {
    Error,
    Zero,
    Root,
}

fn positive(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(d) if d.is_finite() && d >= 0.0 => Ok(d),
        _ => Err(format!("expected a distance of 0 or more, got {s:?}")),
    }
}

impl ReduceCli {
    /// Runs the job the flags describe.
    pub fn run(&self, ctx: &Context) -> Result<(), CliError> {
        let asked = Asked {
            max_influences: self.max_influences,
            normalize: self.normalize.map(|n| match n {
                NormalizeArg::None => dashvertex_reduce::Normalize::None,
                NormalizeArg::Unit => dashvertex_reduce::Normalize::Unit,
            }),
            quantize: match self.quantize {
                QuantizeArg::F32 | QuantizeArg::Auto => dashvertex_reduce::Quantize::F32,
                QuantizeArg::Unorm16 => dashvertex_reduce::Quantize::Unorm16,
                QuantizeArg::Unorm8 => dashvertex_reduce::Quantize::Unorm8,
            },
            min_weight: self.min_weight,
            empty: match self.empty {
                EmptyArg::Error => dashvertex_reduce::Empty::Error,
                EmptyArg::Zero => dashvertex_reduce::Empty::Zero,
                EmptyArg::Root => dashvertex_reduce::Empty::Root,
            },
        };
        let config = reduce::settings(&asked, &self.output, self.to, self.target, ctx.words)?;
        reduce::run(&ReduceJob {
            input: &self.input,
            output: &self.output,
            to: self.to,
            config,
            manifest: self.manifest.as_deref(),
            locked: self.locked,
            embed: self.embed,
            report: self.report.as_deref(),
            measure: false,
            max_error: self.max_error,
            poses: self.poses.as_deref(),
            fit: self.fit,
            fit_motion_weight: self.fit_motion_weight,
            quantize_auto: matches!(self.quantize, QuantizeArg::Auto),
            target: self.target,
            pick: self.pick.into(),
            convert: false,
            save: SaveOptions::default(),
            drop_source_attributes: self.drop_source_attributes,
            resources: resources(self.resources),
            ctx,
        })?;
        Ok(())
    }
}

/// `--resources`: how a glTF output's images reach their files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ResourcesArg {
    /// Copy them beside the output.
    Copy,
    /// Embed them in the output.
    Embed,
    /// Rewrite their URIs to reach the originals.
    Reference,
}

/// The job's mode for `--resources` (none given: the default).
pub fn resources(arg: Option<ResourcesArg>) -> dashvertex_app::resources::Resources {
    use dashvertex_app::resources::Resources;
    match arg {
        None => Resources::Auto,
        Some(ResourcesArg::Copy) => Resources::Copy,
        Some(ResourcesArg::Embed) => Resources::Embed,
        Some(ResourcesArg::Reference) => Resources::Reference,
    }
}
