//! Reduction in the page: the dash reducer (`spec/reduction.md`) with its options, on a
//! decoded file, as `dashvertex reduce` does without a manifest, and its report with
//! the weight it dropped.

use dashvertex_reduce::document::{DroppedWeight, reduce_document};
use dashvertex_reduce::input::InputError;
use dashvertex_reduce::pipeline::PipelineError;
use dashvertex_reduce::{Config, Empty, Normalize, Quantize, ReduceError};
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

    /// The reducer's settings.
    pub fn to_config(&self) -> Result<Config, Failure> {
        use Normalize as N;
        use Quantize as Q;
        let d = Config::default();
        Ok(Config {
            max_influences: self.max_influences.unwrap_or(d.max_influences),
            normalize: choice(
                &self.normalize,
                "normalize",
                &[("none", N::None), ("unit", N::Unit)],
            )?
            .unwrap_or(d.normalize),
            quantize: choice(
                &self.quantize,
                "quantize",
                &[
                    ("f32", Q::F32),
                    ("unorm16", Q::Unorm16),
                    ("unorm8", Q::Unorm8),
                ],
            )?
            .unwrap_or(d.quantize),
            min_weight: self.min_weight.unwrap_or(d.min_weight),
            empty: choice(
                &self.empty,
                "empty",
                &[
                    ("error", Empty::Error),
                    ("zero", Empty::Zero),
                    ("root", Empty::Root),
                ],
            )?
            .unwrap_or(d.empty),
        })
    }
}

/// The value named `given` among `names` (`None` when not given), or a failure listing them.
fn choice<T: Copy>(
    given: &Option<String>,
    what: &str,
    names: &[(&str, T)],
) -> Result<Option<T>, Failure> {
    let Some(given) = given else {
        return Ok(None);
    };
    match names.iter().find(|(n, _)| n == given) {
        Some((_, v)) => Ok(Some(*v)),
        None => {
            let all: Vec<&str> = names.iter().map(|(n, _)| *n).collect();
            Err(Failure::options(format!(
                "unknown {what} {given:?} (expected {})",
                all.join(", ")
            )))
        }
    }
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

/// A refused setting, said with the JavaScript option names (`reduce({maxInfluences})`).
fn config_options(e: &dashvertex_reduce::ConfigError) -> String {
    use dashvertex_reduce::ConfigError as E;
    match e {
        E::NoInfluences => "maxInfluences must be at least 1".into(),
        E::TooManyInfluences(k) => format!(
            "maxInfluences {k} is more than {}",
            dashvertex_reduce::MAX_INFLUENCES
        ),
        E::QuantizedWithoutNormalize => "integer weights always sum to exactly 255 or 65535; quantize 'unorm8'/'unorm16' needs normalize: 'unit'".into(),
        E::MinWeight => "minWeight must be a finite number ≥ 0".into(),
        E::EmptyRootWithoutRoot => "empty: 'root' needs a skeleton with a root bone".into(),
        other => other.to_string(),
    }
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
