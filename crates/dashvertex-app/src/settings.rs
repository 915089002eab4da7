//! The reducer's settings a reduce job derives from what a front end asked: the defaults
//! that follow the output's format and the engine target ([`settings`]), the pipeline's
//! options ([`pipeline_options`]), and how a refused setting or a finished part is said.
//! Every front end — the CLI, Python, the inspector's WebAssembly — takes its defaults
//! from here, so none states them again.

use std::path::Path;

use dashvertex_core::Limits;
use dashvertex_formats::Format;
use dashvertex_reduce::Config;
use dashvertex_reduce::pipeline::Options;

use crate::error::AppError;
use crate::words::{Opt, Wording};

/// One line of what the reducer did to a part.
pub fn describe(rep: &dashvertex_reduce::Report, sets: usize) -> String {
    let mut s = format!(
        "reduced {} vertices to {} set(s): {} changed, {} influence(s) dropped over the limit, {} below the threshold, {} rounded away, {} merged, {} negative",
        rep.vertices,
        sets,
        rep.changed,
        rep.dropped,
        rep.below_threshold,
        rep.quantized_away,
        rep.merged,
        rep.negative
    );
    if let Some(d) = &rep.largest_dropped {
        s.push_str(&format!(
            "; largest dropped weight {} at {}",
            d.weight, d.at
        ));
    }
    if let Some(d) = &rep.first_negative {
        s.push_str(&format!("; first negative weight {} at {}", d.weight, d.at));
    }
    if rep.empty > 0 {
        s.push_str(&format!(
            "; {} vertex(es) without influence (first: vertex {})",
            rep.empty,
            rep.first_empty.unwrap_or(0)
        ));
    }
    s
}

/// A reducer setting refused, said with the options that set it as `words` names them.
pub fn config_message(e: &dashvertex_reduce::ConfigError, words: &dyn Wording) -> String {
    use dashvertex_reduce::ConfigError as E;
    let o = |opt| words.option(opt);
    match e {
        E::NoInfluences => format!("{} must be at least 1", o(Opt::MaxInfluences)),
        E::TooManyInfluences(k) => format!(
            "{} {k} is more than {}",
            o(Opt::MaxInfluences),
            dashvertex_reduce::MAX_INFLUENCES
        ),
        E::QuantizedWithoutNormalize => format!(
            "integer weights always sum to exactly 255 or 65535; use {} unit with {} unorm8/unorm16",
            o(Opt::Normalize),
            o(Opt::Quantize)
        ),
        E::MinWeight => format!("{} must be a finite number ≥ 0", o(Opt::MinWeight)),
        E::EmptyRootWithoutRoot => {
            format!("{} root needs a skeleton with a root bone", o(Opt::Empty))
        }
        other => other.to_string(),
    }
}

/// What a front end asked of the reducer, before the defaults that follow the output and
/// the engine target are filled in ([`settings`]).
#[derive(Clone, Copy, Debug)]
pub struct Asked {
    /// Influences kept per vertex (default: the target's, else 4).
    pub max_influences: Option<usize>,
    /// Normalization (default: unit for glTF output, integer weights or a target; else
    /// none).
    pub normalize: Option<dashvertex_reduce::Normalize>,
    /// Weight storage.
    pub quantize: dashvertex_reduce::Quantize,
    /// Influences below this weight are dropped.
    pub min_weight: f32,
    /// What a vertex without influence becomes.
    pub empty: dashvertex_reduce::Empty,
}

/// The reducer's settings for what was asked, writing `output` (as `to`, else as its name
/// says) for `target`: the target's influence count and unit sums where it has them, unit
/// sums for glTF and integer output. Refuses more influences than the target reads.
pub fn settings(
    asked: &Asked,
    output: &Path,
    to: Option<Format>,
    target: Option<&'static dashvertex_core::Target>,
    words: &dyn Wording,
) -> Result<Config, AppError> {
    use dashvertex_reduce::{Normalize, Quantize};
    let most = target.and_then(|t| t.influences());
    let max_influences = match (asked.max_influences, most) {
        (Some(k), Some(m)) if k > m => {
            return Err(AppError::Usage(format!(
                "{} {k}: {} reads {m} influences per vertex",
                words.option(Opt::MaxInfluences),
                target.map_or("the target", |t| t.engine)
            )));
        }
        (Some(k), _) => k,
        (None, m) => m.unwrap_or(4),
    };
    let normalize = match (asked.normalize, target) {
        (_, Some(_)) | (Some(Normalize::Unit), _) => Normalize::Unit,
        (Some(n), None) => n,
        (None, None) => {
            let gltf = to
                .or_else(|| Format::from_extension(output))
                .is_some_and(Format::is_gltf);
            if gltf || !matches!(asked.quantize, Quantize::F32) {
                Normalize::Unit
            } else {
                Normalize::None
            }
        }
    };
    Ok(Config::default()
        .with_max_influences(max_influences)
        .with_quantize(asked.quantize)
        .with_normalize(normalize)
        .with_min_weight(asked.min_weight)
        .with_empty(asked.empty))
}

impl Default for Asked {
    /// Nothing asked: every default applies (4 influences or the target's, the output's
    /// normalization, float weights, no threshold, a vertex without influence refused).
    fn default() -> Self {
        Asked {
            max_influences: None,
            normalize: None,
            quantize: dashvertex_reduce::Quantize::F32,
            min_weight: 0.0,
            empty: dashvertex_reduce::Empty::Error,
        }
    }
}

/// Whether a reduction keeps the file's own bone order: without a manifest file, where
/// the output can hold it (glTF always; DashVertex needs parents before children, which
/// `parents_first` tells); a manifest file starts from the canonical order instead.
pub fn keeps_order(
    manifest_file: bool,
    gltf_output: bool,
    parents_first: impl FnOnce() -> bool,
) -> bool {
    !manifest_file && (gltf_output || parents_first())
}

/// The reduction pipeline's options for a job: a manifest file requires bone names; the
/// skeleton is bounded by `limits`; per-bone source attributes stay unless asked to drop.
pub fn pipeline_options(
    manifest_file: bool,
    locked: bool,
    keep_order: bool,
    drop_source_attributes: bool,
    limits: &Limits,
) -> Options {
    Options {
        locked,
        max_bones: Some(limits.max_bones),
        require_names: manifest_file,
        keep_order,
        keep_source_attributes: !drop_source_attributes,
    }
}

/// The plan of a fitted glTF run of `gltf` (`--fit` when `fit`, `--quantize auto` when
/// `max_error` is given): the pose set of `anims` within the loss report's work budget,
/// the fit's default options with the range of motion weighed by `motion_weight`, `limits`
/// for the skins. The reduce job's and the inspector's.
pub fn fit_plan<'a>(
    gltf: &dashvertex_gltf::Gltf,
    anims: &'a [dashvertex_skin::Animation],
    limits: &'a Limits,
    fit: bool,
    max_error: Option<f64>,
    motion_weight: f64,
) -> dashvertex_reduce::fit::gltf::GltfFit<'a> {
    dashvertex_reduce::fit::gltf::GltfFit {
        fit,
        max_error,
        anims,
        budget: dashvertex_skin::work_budget(gltf, anims),
        options: dashvertex_reduce::fit::FitOptions {
            motion_weight,
            ..dashvertex_reduce::fit::FitOptions::default()
        },
        limits,
    }
}

/// Where a glTF output keeps its buffers: embedded with `--embed` or on standard output
/// (which has no folder to write buffer files into), else beside it as `STEM.bin`.
pub fn buffer_files(output: &Path, embed: bool) -> dashvertex_gltf::export::BufferFiles {
    if embed || output == Path::new("-") {
        dashvertex_gltf::export::BufferFiles::Embed
    } else {
        dashvertex_gltf::export::BufferFiles::Beside {
            stem: output
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "out".into()),
        }
    }
}
