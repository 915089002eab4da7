//! `dashvertex fix`: the flags, translated into policies and a `dashvertex_app::fix` job,
//! and the report printed as text or JSON.

use std::path::{Path, PathBuf};

use dashvertex_app::Context;
use dashvertex_app::fix::{self, FixJob};

use crate::common;
use crate::error::CliError;
use crate::formats::{self, Format};

/// How the report is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    /// Lines: a summary per part, then `vertex V: steps: before -> after`.
    Text,
    /// The JSON report (it has a published JSON Schema).
    Json,
}

/// `dashvertex fix` flags.
#[derive(clap::Args)]
pub struct FixCli {
    /// Input: DashVertex JSON/DMX/raw, or glTF/GLB.
    input: PathBuf,
    /// Output file, or `-` for standard output (with --to)
    ///
    /// The same kind as the input. Written atomically; the input's own bytes when
    /// nothing needed fixing.
    #[arg(
        short,
        long,
        value_name = "FILE",
        required_unless_present = "dry_run",
        help_heading = "Output"
    )]
    output: Option<PathBuf>,
    /// Output format: json, dmx, raw, gltf or glb (default: from -o)
    ///
    /// By default the output's extension names it, else the input's format is kept.
    #[arg(long, value_name = "FORMAT", value_parser = formats::any_format(),
          hide_possible_values = true, help_heading = "Output")]
    to: Option<Format>,
    /// Weight-sum rule for DashVertex input: dash or gltf
    ///
    /// `gltf`: sums of 1 by the glTF rule; `dash`: no sum rule. glTF input always meets
    /// the glTF rule.
    #[arg(
        long,
        value_enum,
        value_name = "RULE",
        default_value = "dash",
        hide_possible_values = true,
        help_heading = "Repair"
    )]
    profile: ProfileArg,
    /// Negative and non-finite weights: zero or error
    ///
    /// `zero` drops them; `error` refuses the file.
    #[arg(
        long,
        value_enum,
        value_name = "HOW",
        default_value = "zero",
        hide_possible_values = true,
        help_heading = "Repair"
    )]
    bad_weights: BadWeightsArg,
    /// Weighted joints past the joint count: error or drop
    ///
    /// Joints not below the skin's joint count: `error` refuses the file, `drop` drops
    /// the influence.
    #[arg(
        long,
        value_enum,
        value_name = "HOW",
        default_value = "error",
        hide_possible_values = true,
        help_heading = "Repair"
    )]
    out_of_range: OutOfRangeArg,
    /// Skinned vertices without weight: keep, error, root or nearest
    ///
    /// `keep` them, `error` refuses the file, bind them to the `root` bone, or copy the
    /// `nearest` weighted vertex. Default: `error` under the glTF rule, else `keep`.
    #[arg(
        long,
        value_enum,
        value_name = "HOW",
        hide_possible_values = true,
        help_heading = "Repair"
    )]
    zero_sum: Option<ZeroSumArg>,
    /// Unskinned mesh with influences: error, set or clear
    ///
    /// DashVertex: a mesh marked unskinned that holds influence data: `error` refuses,
    /// `set` marks it skinned, `clear` drops the data.
    #[arg(
        long,
        value_enum,
        value_name = "HOW",
        default_value = "error",
        hide_possible_values = true,
        help_heading = "Repair"
    )]
    skinned_flag: SkinnedFlagArg,
    /// Snap IBM fourth rows within this of (0, 0, 0, 1)
    ///
    /// glTF: inverse bind matrices' fourth rows within this of (0, 0, 0, 1) are snapped
    /// to it; rows further off are refused.
    #[arg(
        long,
        value_name = "X",
        default_value_t = 1e-4,
        help_heading = "Repair"
    )]
    ibm_tolerance: f32,
    /// Bone count for DashVertex input without a skeleton
    ///
    /// Bone indices must stay below it.
    #[arg(long, value_name = "N", help_heading = "Repair")]
    bones: Option<u64>,
    /// Embed a .gltf output's buffers as data URIs
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
    /// The report on standard output: text or json
    ///
    /// `text`: a summary per part, then `vertex V: steps: before -> after`; `json`: the
    /// JSON report (it has a published JSON Schema).
    #[arg(
        long,
        value_enum,
        value_name = "FORMAT",
        default_value = "text",
        hide_possible_values = true,
        help_heading = "Output format"
    )]
    format: ReportFormat,
    /// Changed vertices the text report lists per part (N or all)
    ///
    /// The JSON report lists every change.
    #[arg(long, value_name = "N|all", default_value = "1000", value_parser = listed,
          help_heading = "Output format")]
    list: Listed,
    /// Write the JSON report to this file instead
    ///
    /// A summary line goes to standard error.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    report: Option<PathBuf>,
    /// Repair and check, print the report, write no output
    #[arg(long, help_heading = "Output")]
    dry_run: bool,
    /// Write for an engine's glTF importer (names in --help)
    ///
    /// Vertices with more influences than it reads keep the heaviest, and sums meet the
    /// glTF rule; the output is checked against it.
    #[arg(long, value_name = "ENGINE", value_parser = formats::target(),
          hide_possible_values = true, help_heading = "Repair",
          long_help = formats::target_help("Write for an engine's glTF importer: vertices with more influences than it reads keep the heaviest, and sums meet the glTF rule; the output is checked against it."))]
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
    /// What the flags ask of the repair.
    fn asked(&self) -> fix::Asked {
        use dashvertex_fix::{BadWeights, OutOfRange, SkinnedFlag, ZeroSum};
        fix::Asked {
            gltf_sums: matches!(self.profile, ProfileArg::Gltf),
            bad_weights: match self.bad_weights {
                BadWeightsArg::Error => BadWeights::Error,
                BadWeightsArg::Zero => BadWeights::Zero,
            },
            out_of_range: match self.out_of_range {
                OutOfRangeArg::Error => OutOfRange::Error,
                OutOfRangeArg::Drop => OutOfRange::Drop,
            },
            zero_sum: self.zero_sum.map(|z| match z {
                ZeroSumArg::Keep => ZeroSum::Keep,
                ZeroSumArg::Error => ZeroSum::Error,
                ZeroSumArg::Root => ZeroSum::Root,
                ZeroSumArg::Nearest => ZeroSum::Nearest,
            }),
            skinned_flag: match self.skinned_flag {
                SkinnedFlagArg::Error => SkinnedFlag::Error,
                SkinnedFlagArg::Set => SkinnedFlag::Set,
                SkinnedFlagArg::Clear => SkinnedFlag::Clear,
            },
            ibm_tolerance: self.ibm_tolerance,
        }
    }

    /// Runs the job the flags describe, then prints its report.
    pub fn run(&self, ctx: &Context) -> Result<(), CliError> {
        let asked = self.asked();
        let policy = fix::policy(&asked, &self.input, self.target, ctx)?;
        let dry = PathBuf::from("-");
        let output = self.output.as_deref().unwrap_or(&dry);
        let done = fix::run(&FixJob {
            input: &self.input,
            output,
            to: self.to,
            policy,
            zero_sum_given: self.zero_sum.is_some(),
            target: self.target,
            bones: self.bones,
            embed: self.embed,
            resources: crate::reduce::resources(self.resources),
            report: self.report.as_deref(),
            dry_run: self.dry_run,
            // The JSON report lists every change; the text report only its --list.
            listed: match self.format {
                ReportFormat::Json => None,
                ReportFormat::Text => self.list.0,
            },
            ctx,
        })?;
        if self.report.is_some() {
            common::info(fix::summary(&done.report));
            return Ok(());
        }
        // The output may be standard output: the report then goes to standard error.
        let to_stderr = output == Path::new("-") && !self.dry_run;
        match self.format {
            ReportFormat::Json if !to_stderr => Ok(fix::write_json(Path::new("-"), &done.report)?),
            ReportFormat::Json => {
                common::note(serde_json::to_string_pretty(&done.report).unwrap_or_default());
                Ok(())
            }
            ReportFormat::Text => {
                let text = done.report.to_text(self.list.0);
                if to_stderr {
                    common::note(text.trim_end());
                    Ok(())
                } else {
                    Ok(dashvertex_fs::write_file(Path::new("-"), text.as_bytes())?)
                }
            }
        }
    }
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

#[cfg(test)]
mod tests {
    use clap::Parser;

    /// The flags' defaults are the job's ([`dashvertex_app::fix::Asked::default`]).
    #[test]
    fn the_defaults_are_the_jobs() {
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            fix: super::FixCli,
        }
        let cli = Cli::try_parse_from(["fix", "in.json", "-o", "out.json"]).unwrap();
        assert_eq!(cli.fix.asked(), dashvertex_app::fix::Asked::default());
    }
}
