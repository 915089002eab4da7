//! The reduction algorithm (`spec/reduction.md` §2), one vertex at a time, in stages:
//! [`select`] (drop negatives, merge repeated bones, threshold, order by weight then bone
//! index, keep K; [`fast`] is the same selection for the common inputs), then [`finish`]
//! (empty vertices, normalization, [`quantize`], padding into sets). [`chunk`] runs the
//! stages over a range of vertices; [`reduce`] runs chunks in parallel and joins them.

mod chunk;
mod fast;
mod finish;
mod quantize;
mod select;
mod settings;
#[cfg(test)]
mod test_inputs;

use dashvertex_core::{InfluenceSet, Mesh, Vertex};

use crate::input::Input;
use crate::manifest::{Lookup, Manifest, ManifestError};

pub use settings::UnknownSetting;

/// Weight normalization.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Normalize {
    /// Keep the weights as they are (the seed: sums need not be 1).
    None,
    /// Scale so the float32 sum passes the glTF rule exactly as the official validator
    /// computes it.
    Unit,
}

/// Weight storage precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantize {
    /// binary32.
    F32,
    /// 16-bit normalized integers summing to exactly 65535.
    Unorm16,
    /// 8-bit normalized integers summing to exactly 255.
    Unorm8,
}

impl Quantize {
    /// The integer a full weight is, for integer storage.
    pub fn max(self) -> Option<u32> {
        match self {
            Quantize::F32 => None,
            Quantize::Unorm16 => Some(65535),
            Quantize::Unorm8 => Some(255),
        }
    }
}

/// What to do with a vertex left without influence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Empty {
    /// Fail, naming the vertex.
    Error,
    /// Write all-zero weights (bone 0, weight 0 in every slot).
    Zero,
    /// Bind it to the root bone with weight 1.
    Root,
}

/// Reducer settings.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct Config {
    /// Influences kept per vertex (K).
    pub max_influences: usize,
    /// Normalization.
    pub normalize: Normalize,
    /// Precision.
    pub quantize: Quantize,
    /// Influences lighter than this are dropped, except a vertex's heaviest.
    pub min_weight: f32,
    /// Vertices without influence.
    pub empty: Empty,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_influences: 4,
            normalize: Normalize::None,
            quantize: Quantize::F32,
            min_weight: 0.0,
            empty: Empty::Error,
        }
    }
}

/// A dropped influence worth reporting.
#[derive(Clone, Debug, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct Dropped {
    /// Its weight.
    pub weight: f32,
    /// The vertex.
    pub vertex: u64,
    /// The output bone index.
    pub bone: u32,
    /// Where it was, as text.
    pub at: String,
}

impl Dropped {
    /// True when `(weight, vertex, bone)` should replace this one as "largest": heavier,
    /// or as heavy and earlier (by vertex, then bone index), so the choice never depends
    /// on input order.
    pub(crate) fn beaten_by(&self, weight: f32, vertex: u64, bone: u32) -> bool {
        weight > self.weight || (weight == self.weight && (vertex, bone) < (self.vertex, self.bone))
    }
}

/// What the reduction did, serialized once for every front end (the WebAssembly API, the
/// reduce report of `schemas/reduce-report.schema.json`, Python): camelCase names, the
/// counts of dropped influences named by why they went.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// Vertices processed.
    pub vertices: u64,
    /// Vertices whose influences changed (anything dropped, merged, scaled or rounded).
    pub changed: u64,
    /// Influences dropped because a vertex had more than K.
    #[serde(rename = "droppedOverLimit")]
    pub dropped: u64,
    /// Influences dropped by the minimum-weight threshold.
    pub below_threshold: u64,
    /// Influences rounded to 0 by quantization (or, with `unit` and `f32`, a share too
    /// small for binary32), and dropped.
    #[serde(rename = "roundedAway")]
    pub quantized_away: u64,
    /// Duplicate bones merged into one influence.
    pub merged: u64,
    /// Negative weights dropped.
    pub negative: u64,
    /// The first negative weight.
    pub first_negative: Option<Dropped>,
    /// The heaviest influence dropped (by K, threshold or quantization).
    pub largest_dropped: Option<Dropped>,
    /// Vertices that had no influence.
    pub empty: u64,
    /// The first of them.
    pub first_empty: Option<u64>,
    /// The most influences any vertex had.
    pub max_influences_in: u64,
}

/// Why a reduction failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReduceError {
    /// NaN or infinity in the input.
    #[error("{at}: weight {weight} is not finite")]
    NonFinite {
        /// Where.
        at: String,
        /// The value.
        weight: String,
    },
    /// A vertex has no influence and the policy is `error`.
    #[error(
        "vertex {0} has no influence (an empty-vertex policy of zero or root accepts such vertices)"
    )]
    Empty(u64),
    /// With `--normalize none`, a kept weight is above 1 (as written, or after repeated
    /// bones were merged): the output would break the weight range rule.
    #[error(
        "vertex {vertex}: weight {weight} of {bone} is above 1{merged} (normalizing to a unit sum keeps it in range)"
    )]
    AboveOne {
        /// The vertex.
        vertex: u64,
        /// The bone, as "bone NAME (index N)".
        bone: String,
        /// The weight kept, as text.
        weight: String,
        /// " after merging repeats of the bone" when that made it so, else empty.
        merged: &'static str,
    },
    /// Settings that contradict each other.
    #[error(transparent)]
    Config(#[from] ConfigError),
}

/// Settings the reducer cannot run with, in the library's own words: each front end says
/// them with its own option names (`--max-influences` on the command line,
/// `maxInfluences` in JavaScript).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// `max_influences` is 0.
    #[error("the influences kept per vertex must be at least 1")]
    NoInfluences,
    /// `max_influences` is above [`MAX_INFLUENCES`].
    #[error("{0} influences kept per vertex is more than the {MAX_INFLUENCES} the reducer keeps")]
    TooManyInfluences(usize),
    /// Integer weights without unit normalization.
    #[error(
        "integer weights always sum to exactly 255 or 65535: quantized weights need unit normalization"
    )]
    QuantizedWithoutNormalize,
    /// `min_weight` is negative or not finite.
    #[error("the minimum weight must be a finite number of at least 0")]
    MinWeight,
    /// `Empty::Root` for an input without a root bone.
    #[error("binding vertices without influence to the root needs a skeleton with a root bone")]
    EmptyRootWithoutRoot,
}

/// The reduced influences.
#[derive(Clone, Debug, PartialEq)]
pub struct Reduced {
    /// Sets per vertex.
    pub sets: usize,
    /// `influences[v * sets + s]`: bone indices (manifest indices) and weights.
    pub influences: Vec<InfluenceSet>,
    /// For integer storage, the integers behind the weights (same layout).
    pub integers: Option<Vec<[u32; 4]>>,
    /// What happened.
    pub report: Report,
}

impl Reduced {
    /// Set `s` of every vertex.
    pub fn set(&self, s: usize) -> impl Iterator<Item = &InfluenceSet> {
        self.influences.iter().skip(s).step_by(self.sets.max(1))
    }

    /// A mesh with these influences at `positions`.
    pub fn to_mesh(&self, positions: &[[f32; 3]]) -> Mesh {
        let vertices: Vec<Vertex> = positions
            .iter()
            .zip(self.set(0))
            .map(|(&position, &skin)| Vertex { position, skin })
            .collect();
        let extra = (1..self.sets)
            .map(|s| self.set(s).copied().collect())
            .collect();
        Mesh::from_parts(true, vertices, extra).unwrap_or_default()
    }
}

/// The most influences per vertex the reducer keeps (256 sets of 4): the number sizes
/// per-vertex buffers, so it is bounded here whatever a caller asks.
pub const MAX_INFLUENCES: usize = 1024;

/// The output index of each input bone, from the manifest (every input bone must be in
/// it, by name or alias; call [`Manifest::update`] first).
pub fn index_map(input: &Input, manifest: &Manifest) -> Result<Vec<u32>, ManifestError> {
    index_map_in(input, &manifest.lookup())
}

/// [`index_map`] with a manifest index built once ([`Manifest::lookup`]).
pub fn index_map_in(input: &Input, lookup: &Lookup<&Manifest>) -> Result<Vec<u32>, ManifestError> {
    input
        .bones
        .iter()
        .map(|b| {
            lookup.index_of(&b.name).ok_or_else(|| {
                ManifestError::Locked(vec![format!("bone {:?} is not in the manifest", b.name)])
            })
        })
        .collect()
}

/// The manifest index of the skeleton's root: the first root in the manifest's
/// numbering order.
pub fn root_index(input: &Input, manifest: &Manifest) -> Option<u32> {
    root_index_in(input, &manifest.lookup())
}

/// [`root_index`] with a manifest index built once.
pub fn root_index_in(input: &Input, lookup: &Lookup<&Manifest>) -> Option<u32> {
    let order = crate::manifest::canonical_order(&input.bones);
    lookup.index_of(order.first()?)
}

/// Reduces every vertex of `input`. `map[b]` is the output bone index of input bone `b`;
/// `root` is the output index of the root bone (for [`Empty::Root`]).
pub fn reduce(
    input: &Input,
    map: &[u32],
    root: Option<u32>,
    cfg: &Config,
) -> Result<Reduced, ReduceError> {
    reduce_with(input, map, root, cfg, true)
}

/// Vertices per parallel chunk of the reducer.
const REDUCE_CHUNK: usize = 1 << 15;

/// One chunk's index and its share of the output: sets, and quantized weights when
/// quantizing.
type ChunkOut<'a> = (usize, &'a mut [InfluenceSet], Option<&'a mut [[u32; 4]]>);

/// [`reduce`], with the fast selection allowed or not (tests compare both).
fn reduce_with(
    input: &Input,
    map: &[u32],
    root: Option<u32>,
    cfg: &Config,
    allow_fast: bool,
) -> Result<Reduced, ReduceError> {
    if cfg.max_influences == 0 {
        return Err(ConfigError::NoInfluences.into());
    }
    if cfg.max_influences > MAX_INFLUENCES {
        return Err(ConfigError::TooManyInfluences(cfg.max_influences).into());
    }
    if cfg.quantize != Quantize::F32 && cfg.normalize == Normalize::None {
        return Err(ConfigError::QuantizedWithoutNormalize.into());
    }
    if !(cfg.min_weight.is_finite() && cfg.min_weight >= 0.0) {
        return Err(ConfigError::MinWeight.into());
    }
    if cfg.empty == Empty::Root && root.is_none() {
        return Err(ConfigError::EmptyRootWithoutRoot.into());
    }
    let n = input.len();
    let max_sets = cfg.max_influences.div_ceil(4).max(1);
    // Vertices are independent: chunks run in parallel, each finishing its vertices into
    // its own part of the one output, so nothing is joined or copied afterwards and the
    // result is the same at any thread count.
    let per_chunk = REDUCE_CHUNK * max_sets;
    let mut influences = vec![InfluenceSet::ZERO; n * max_sets];
    let mut integers = cfg.quantize.max().map(|_| vec![[0u32; 4]; n * max_sets]);
    let chunks: Vec<Result<chunk::Chunk, ReduceError>> = {
        use dashvertex_core::par::prelude::*;
        // The quantized weights' chunks, when there are any, beside the sets' chunks.
        let mut ints = integers
            .as_mut()
            .map(|q| q.chunks_mut(per_chunk))
            .into_iter()
            .flatten();
        let parts: Vec<ChunkOut<'_>> = influences
            .chunks_mut(per_chunk)
            .enumerate()
            .map(|(c, out)| (c, out, ints.next()))
            .collect();
        parts
            .into_par_iter()
            // One scratch (with its bone table) per worker job, not per chunk.
            .map_init(
                || chunk::Scratch::for_map(map),
                |sc, (c, out, ints)| {
                    let range = (c * REDUCE_CHUNK).min(n)..n.min((c + 1) * REDUCE_CHUNK);
                    chunk::reduce_range(input, map, root, cfg, allow_fast, range, out, ints, sc)
                },
            )
            .collect()
    };
    let mut widest = 1;
    let mut report = Report::default();
    for chunk in chunks {
        let chunk = chunk?;
        widest = widest.max(chunk.widest);
        report.append(chunk.report);
    }
    // Every vertex gets the sets the widest one needs.
    if widest < max_sets {
        influences = influences
            .chunks(max_sets)
            .flat_map(|c| c.iter().take(widest).copied())
            .collect();
        integers = integers.map(|q| {
            q.chunks(max_sets)
                .flat_map(|c| c.iter().take(widest).copied())
                .collect()
        });
    }
    if cfg.normalize == Normalize::None {
        finish::above_one(input, map, &influences, widest)?;
    }
    Ok(Reduced {
        sets: widest,
        influences,
        integers,
        report,
    })
}

/// Records a dropped influence in `report` when it is the largest dropped so far (`at` is
/// only called then).
fn note_drop(
    report: &mut Report,
    weight: f32,
    vertex: u64,
    bone: u32,
    at: impl FnOnce() -> String,
) {
    if report
        .largest_dropped
        .as_ref()
        .is_none_or(|d| d.beaten_by(weight, vertex, bone))
    {
        report.largest_dropped = Some(Dropped {
            weight,
            vertex,
            bone,
            at: at(),
        });
    }
}

/// A float64 intermediate as the binary32 weight it becomes.
#[allow(clippy::cast_possible_truncation)]
#[inline]
fn to_f32(x: f64) -> f32 {
    // f64 → f32 rounds to the nearest binary32 (±infinity beyond its range): no truncation.
    x as f32
}

/// "bone NAME (index N)" for an output index.
pub(crate) fn bone_label(input: &Input, map: &[u32], out: u32) -> String {
    match map
        .iter()
        .position(|&m| m == out)
        .and_then(|b| input.bones.get(b))
    {
        Some(b) => format!(
            "bone {} (index {out})",
            dashvertex_core::text::short(&b.name)
        ),
        None => format!("bone index {out}"),
    }
}
