//! Reduction in the page: the dash reducer (`spec/reduction.md`) with its options, on a
//! decoded file, as `dashvertex reduce` does without a manifest, and its report with
//! the weight it dropped.

use dashvertex_reduce::document::{DroppedWeight, reduce_document};
use dashvertex_reduce::input::InputError;
use dashvertex_reduce::pipeline::PipelineError;
use std::path::Path;

use dashvertex_app::settings::{Asked, config_message, settings};
use dashvertex_app::{Opt, Wording};
use dashvertex_reduce::{Config, Empty, Quantize, ReduceError};
use dashvertex_validate::Location;
use serde::{Deserialize, Serialize};

use crate::failure::Failure;
use crate::model::Decoded;

/// Reducer options, as a JSON object with the flags of `dashvertex reduce` as members (all
/// optional, with the command's defaults): `maxInfluences` (K, 4), `normalize`
/// (`"none"` or `"unit"`; `"none"`), `quantize` (`"f32"`, `"unorm16"`, `"unorm8"`;
/// `"f32"`), `minWeight` (0) and `empty` (`"error"`, `"zero"`, `"root"`; `"error"`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReduceOptions {
    /// `--max-influences`.
    pub max_influences: Option<usize>,
    /// `--normalize`.
    pub normalize: Option<String>,
    /// `--quantize`.
    pub quantize: Option<String>,
    /// `--min-weight`.
    pub min_weight: Option<f32>,
    /// `--empty`.
    pub empty: Option<String>,
}

impl ReduceOptions {
    /// Options from JSON text (`None` or empty: the defaults).
    pub fn from_json(text: Option<&str>) -> Result<Self, Failure> {
        match text.map(str::trim) {
            None | Some("" | "null" | "undefined") => Ok(ReduceOptions::default()),
            Some(t) => serde_json::from_str(t).map_err(|e| Failure::options(e.to_string())),
        }
    }

    /// The reducer's settings: what was given, parsed by the reducer's own names, and the
    /// defaults the reduce job gives a DashVertex output (`dashvertex_app::settings`):
    /// 4 influences, float weights kept as they sum unless integer weights ask for unit
    /// sums, no threshold, a vertex without influence refused.
    pub fn to_config(&self) -> Result<Config, Failure> {
        let asked = Asked {
            max_influences: self.max_influences,
            normalize: parsed(&self.normalize, "normalize")?,
            quantize: parsed(&self.quantize, "quantize")?.unwrap_or(Quantize::F32),
            min_weight: self.min_weight.unwrap_or(0.0),
            empty: parsed(&self.empty, "empty")?.unwrap_or(Empty::Error),
        };
        settings(&asked, Path::new("out.json"), None, None, &JsWords).map_err(Failure::options)
    }
}

/// Options named as the JavaScript API spells them (`maxInfluences`), jobs as its calls.
struct JsWords;

impl Wording for JsWords {
    fn option(&self, opt: Opt) -> String {
        let mut out = String::new();
        let mut upper = false;
        for c in opt.keyword().chars() {
            match c {
                '_' => upper = true,
                c if upper => {
                    out.extend(c.to_uppercase());
                    upper = false;
                }
                c => out.push(c),
            }
        }
        out
    }
}

/// The value of option `what` as the reducer's names parse it (`None` when not given).
fn parsed<T: std::str::FromStr>(given: &Option<String>, what: &str) -> Result<Option<T>, Failure>
where
    T::Err: std::fmt::Display,
{
    given
        .as_deref()
        .map(|g| {
            g.parse::<T>()
                .map_err(|e| Failure::options(format!("{what}: {e}")))
        })
        .transpose()
}

/// What a reduction did: the reducer's report, and the weight it dropped.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReductionReport {
    /// Influences kept per vertex (K).
    pub max_influences: usize,
    /// Influence sets per vertex in the output.
    pub sets: usize,
    /// The reducer's own report (vertices, changed, dropped, …), its fields in place.
    #[serde(flatten)]
    pub reduced: dashvertex_reduce::Report,
    /// The weight dropped.
    pub dropped_weight: DroppedWeight,
}

/// A reduced file and its report.
#[derive(Clone, Debug)]
pub struct Reduction {
    /// The file with the reduced influences (skeleton and everything else kept).
    pub decoded: Decoded,
    /// What the reduction did.
    pub report: ReductionReport,
}

/// Reduces `decoded` with `opts` as `dashvertex reduce` does without a manifest
/// ([`dashvertex_reduce::document::reduce_document`]): bone `b` of the output is bone `b`
/// of the skeleton when it lists parents first (or index `b` of a file without one).
pub fn reduce(decoded: &Decoded, opts: &ReduceOptions) -> Result<Reduction, Failure> {
    let cfg = opts.to_config()?;
    let out = reduce_document(decoded.document(), &cfg).map_err(pipeline_failure)?;
    let (reduced, sets) = out
        .run
        .reduced
        .first()
        .map(|r| (r.report.clone(), r.sets))
        .unwrap_or_default();
    let report = ReductionReport {
        max_influences: cfg.max_influences,
        sets,
        reduced,
        dropped_weight: out.dropped_weight,
    };
    Ok(Reduction {
        decoded: decoded.with_document(out.document),
        report,
    })
}

fn pipeline_failure(e: PipelineError) -> Failure {
    match e {
        PipelineError::Input(e) => input_failure(e),
        PipelineError::Reduce(e) => reduce_failure(e),
        other => Failure {
            code: Failure::REDUCE.to_owned(),
            message: other.to_string(),
            location: Box::new(Location::default()),
        },
    }
}

fn input_failure(e: InputError) -> Failure {
    let location = match &e {
        InputError::BoneRange {
            vertex, set, slot, ..
        } => Location {
            vertex: Some(*vertex as u64),
            set: u32::try_from(*set).ok(),
            slot: u32::try_from(*slot).ok(),
            ..Location::default()
        },
        _ => Location::default(),
    };
    Failure {
        code: Failure::REDUCE.to_owned(),
        message: e.to_string(),
        location: Box::new(location),
    }
}

/// A refused setting, said with the JavaScript option names (`reduce({maxInfluences})`)
/// by the reduce job's own wording of it.
fn config_options(e: &dashvertex_reduce::ConfigError) -> String {
    config_message(e, &JsWords)
}

fn reduce_failure(e: ReduceError) -> Failure {
    let vertex = match &e {
        ReduceError::Empty(v) => Some(*v),
        ReduceError::AboveOne { vertex, .. } => Some(*vertex),
        _ => None,
    };
    let message = match &e {
        ReduceError::Config(c) => config_options(c),
        other => other.to_string(),
    };
    Failure {
        code: Failure::REDUCE.to_owned(),
        message,
        location: Box::new(Location {
            vertex,
            ..Location::default()
        }),
    }
}
