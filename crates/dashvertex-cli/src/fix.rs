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
    /// The JSON report (`schemas/fix-report.schema.json`).
    Json,
}

/// `dashvertex fix` flags.
#[derive(clap::Args)]
pub struct FixCli {
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
    /// Images a glTF output names by URI: `embed` them (a .glb's binary chunk, a .gltf's
    /// data URIs), `copy` them beside the output (their folders kept) or `reference` the
    /// originals from its folder. Default: embed for .glb, --embed or standard output;
    /// copy for a .gltf in another folder; unchanged in the input's folder.
    #[arg(long, value_enum, value_name = "HOW")]
    resources: Option<crate::reduce::ResourcesArg>,
    /// The report on standard output: text or json.
    #[arg(long, value_enum, default_value = "text")]
    format: ReportFormat,
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
    /// Runs the job the flags describe, then prints its report.
    pub fn run(&self, ctx: &Context) -> Result<(), CliError> {
        use dashvertex_fix::{BadWeights, OutOfRange, SkinnedFlag, ZeroSum};
        let asked = fix::Asked {
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
        };
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
