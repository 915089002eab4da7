//! The per-bone weights document: one weight list per bone, dense or sparse
//! (`spec/reduction.md` §1; schema `schemas/bone-weights.schema.json`).
//!
//! ```json
//! {"type": "DashBoneWeights", "vertexCount": 3,
//!  "bones": [{"name": "root", "weights": [1, 0.5, 0]},
//!            {"name": "arm", "parent": "root", "vertices": [1, 2], "weights": [0.5, 1]}]}
//! ```

use std::borrow::Cow;

use dashvertex_json::number::F32;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;

use crate::input::{Candidates, Input};
use crate::manifest::BoneRef;

/// The constant `"DashBoneWeights"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WeightsType;

impl<'de> Deserialize<'de> for WeightsType {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if s == WEIGHTS_TYPE {
            Ok(WeightsType)
        } else {
            Err(serde::de::Error::custom(format_args!(
                "type is {s:?}; expected \"DashBoneWeights\""
            )))
        }
    }
}

impl JsonSchema for WeightsType {
    fn schema_name() -> Cow<'static, str> {
        "WeightsType".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "const": "DashBoneWeights" })
    }
}

/// One bone's weights.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BoneWeights {
    /// Bone name (unique; the manifest's key).
    pub name: String,
    /// Parent bone name; absent or null for a root.
    #[serde(default)]
    pub parent: Option<String>,
    /// Dense form: one weight per vertex. Sparse form: one weight per entry of
    /// `vertices`.
    pub weights: Vec<F32>,
    /// Sparse form (a vertex group): the vertices `weights` apply to.
    #[serde(default)]
    pub vertices: Option<Vec<u32>>,
}

/// A per-bone weights document.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(rename = "DashBoneWeights")]
pub struct WeightsDoc {
    /// Always `"DashBoneWeights"`.
    #[serde(rename = "type")]
    pub kind: WeightsType,
    /// Number of vertices.
    pub vertex_count: u32,
    /// Optional positions, one `[x, y, z]` per vertex (zeros when absent).
    #[serde(default)]
    pub positions: Option<Vec<[F32; 3]>>,
    /// The bones.
    pub bones: Vec<BoneWeights>,
}

/// Why a weights document cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{pointer}: {message}")]
pub struct DocError {
    /// JSON Pointer of the problem.
    pub pointer: String,
    /// What is wrong (with line and column for syntax and type errors).
    pub message: String,
}

/// The JSON Schema of the document.
pub fn schema() -> Schema {
    let mut s = schemars::generate::SchemaSettings::draft2020_12()
        .for_deserialize()
        .into_generator()
        .into_root_schema_for::<WeightsDoc>();
    s.insert(
        "$id".into(),
        serde_json::Value::String("https://dash.invalid/schemas/bone-weights.schema.json".into()),
    );
    s
}

/// The `type` member of a JSON text whose outermost value is an object, when it is a
/// string (`"DashBoneWeights"` for a weights document, `"DashModelExchange"` for a
/// DashVertex document); `None` otherwise.
pub fn document_type(text: &str) -> Option<String> {
    #[derive(Deserialize)]
    struct Probe {
        #[serde(rename = "type")]
        kind: Option<String>,
    }
    serde_json::from_str::<Probe>(text).ok()?.kind
}

/// The `type` a weights document has.
pub const WEIGHTS_TYPE: &str = "DashBoneWeights";

/// Parses a weights document and turns it into reducer input.
pub fn parse(text: &str, max_vertices: u64) -> Result<Input<'static>, DocError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let doc: WeightsDoc = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let pointer = dashvertex_json::pointer::pointer_of(e.path());
        DocError {
            pointer,
            message: e.into_inner().to_string(),
        }
    })?;
    let n = doc.vertex_count as usize;
    if u64::from(doc.vertex_count) > max_vertices {
        return Err(DocError {
            pointer: "/vertexCount".into(),
            message: format!("{n} vertices exceeds the limit of {max_vertices}"),
        });
    }
    // Every vertex costs the document at least a byte (a dense weight, a sparse entry
    // or a position), so a count beyond the text's length is a claim, not data: it
    // would only drive allocations.
    if n > text.len() {
        return Err(DocError {
            pointer: "/vertexCount".into(),
            message: format!(
                "{n} vertices in a document of {} bytes: more vertices than the document can describe",
                text.len()
            ),
        });
    }
    let err = |pointer: String, message: String| DocError { pointer, message };
    let mut seen_names = std::collections::HashSet::new();
    let mut bones = Vec::with_capacity(doc.bones.len());
    for (i, b) in doc.bones.iter().enumerate() {
        if !seen_names.insert(b.name.as_str()) {
            return Err(err(
                format!("/bones/{i}/name"),
                format!("bone name {:?} is used twice", b.name),
            ));
        }
        match &b.vertices {
            None if b.weights.len() != n => {
                return Err(err(
                    format!("/bones/{i}/weights"),
                    format!(
                        "{} weights for {n} vertices (dense form needs one per vertex)",
                        b.weights.len()
                    ),
                ));
            }
            Some(v) if v.len() != b.weights.len() => {
                return Err(err(
                    format!("/bones/{i}/vertices"),
                    format!("{} vertices but {} weights", v.len(), b.weights.len()),
                ));
            }
            Some(v) => {
                if let Some((k, bad)) = v.iter().enumerate().find(|(_, x)| **x as usize >= n) {
                    return Err(err(
                        format!("/bones/{i}/vertices/{k}"),
                        format!("vertex {bad} is out of range ({n} vertices)"),
                    ));
                }
            }
            None => {}
        }
        bones.push(BoneRef {
            name: b.name.clone(),
            parent: b.parent.clone(),
        });
    }
    let positions = match &doc.positions {
        Some(p) if p.len() != n => {
            return Err(err(
                "/positions".into(),
                format!("{} positions for {n} vertices", p.len()),
            ));
        }
        Some(p) => p.iter().map(|c| c.map(|x| x.0)).collect(),
        None => vec![[0.0; 3]; n],
    };
    let cands = candidates(&doc, n)?;
    Ok(Input {
        bones,
        positions,
        data: crate::input::Data::Lists(cands),
        origin: crate::input::Origin::BoneWeights,
    })
}

/// The per-vertex candidate lists of `doc`'s `n` vertices (checked before): counted, then
/// filled.
fn candidates(doc: &WeightsDoc, n: usize) -> Result<Candidates, DocError> {
    let err = |pointer: String, message: String| DocError { pointer, message };
    let mut counts = vec![0u32; n + 1];
    for b in &doc.bones {
        match &b.vertices {
            None => {
                for (c, w) in counts.iter_mut().zip(&b.weights) {
                    *c += u32::from(w.0 != 0.0);
                }
            }
            Some(v) => {
                for (&vx, w) in v.iter().zip(&b.weights) {
                    if let Some(c) = counts.get_mut(vx as usize) {
                        *c += u32::from(w.0 != 0.0);
                    }
                }
            }
        }
    }
    let mut cands = Candidates::with_counts(counts.get(..n).unwrap_or_default());
    for (i, b) in doc.bones.iter().enumerate() {
        let bi = u32::try_from(i).map_err(|_| {
            err(
                format!("/bones/{i}"),
                "more bones than 32-bit indices can name".into(),
            )
        })?;
        match &b.vertices {
            None => {
                // One weight per vertex (checked above), and vertexCount is a u32.
                for (v, w) in (0..doc.vertex_count).zip(&b.weights) {
                    if w.0 != 0.0 {
                        stored(cands.push(v as usize, bi, w.0, v), || format!("/bones/{i}"))?;
                    }
                }
            }
            Some(vs) => {
                for (k, (&vx, w)) in vs.iter().zip(&b.weights).enumerate() {
                    if w.0 != 0.0 {
                        let k = u32::try_from(k).map_err(|_| {
                            err(
                                format!("/bones/{i}/vertices"),
                                "more than 2^32 entries".into(),
                            )
                        })?;
                        stored(cands.push(vx as usize, bi, w.0, k), || {
                            format!("/bones/{i}")
                        })?;
                    }
                }
            }
        }
    }
    Ok(cands)
}

/// `Ok` when an entry was stored; else the error of an entry the per-vertex counts left
/// no room for (they are counted from the same entries, so this names a fault of the
/// reader, not of the file).
fn stored(stored: bool, pointer: impl FnOnce() -> String) -> Result<(), DocError> {
    stored.then_some(()).ok_or_else(|| DocError {
        pointer: pointer(),
        message: "an entry outside the vertices counted for the document".into(),
    })
}
