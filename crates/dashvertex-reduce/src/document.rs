//! A DashVertex document reduced whole: the one place that turns a reduction into the
//! document `dashvertex reduce` writes (the CLI and the Python file jobs through
//! `dashvertex-app`) and the WebAssembly `Model.reduce` gives back.
//!
//! ```
//! use dashvertex_core::{Document, InfluenceSet, Mesh, Vertex};
//! use dashvertex_reduce::{Config, Normalize, document::reduce_document};
//! let v = Vertex { position: [1.0, 2.0, 3.0], skin: InfluenceSet::from_pairs(&[(2, 0.6), (0, 0.2), (1, 0.1)]).unwrap() };
//! let doc = Document { mesh: Mesh::skinned(vec![v]), skeleton: None };
//! let cfg = Config::default().with_max_influences(2).with_normalize(Normalize::Unit);
//! let out = reduce_document(&doc, &cfg)?;
//! let kept = out.document.mesh.vertices()[0].skin;
//! assert_eq!(kept.joints, [2, 0, 0, 0]);
//! assert_eq!(kept.weights, [0.75, 0.25, 0.0, 0.0]);
//! assert_eq!(out.dropped_weight.vertices, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use dashvertex_core::{Document, InfluenceSet, Mesh, Skeleton};
use serde::Serialize;

use crate::input::{Input, bone_refs};
use crate::manifest::Manifest;
use crate::pipeline::{Options, PipelineError, Run, parents_first, reduce_all};
use crate::reduce::{Config, Reduced};

/// The reduced document, how the run numbered its bones, and the weight it dropped.
#[derive(Clone, Debug, PartialEq)]
pub struct ReducedDocument {
    /// The document written: the reduced influences, the positions, and the skeleton in
    /// the order of the bone indices (absent for input without bone names).
    pub document: Document,
    /// The reduction (one input) and what the manifest gained.
    pub run: Run,
    /// The input weight that has no place in the output.
    pub dropped_weight: DroppedWeight,
}

/// Reduces `input` (with `positions` and the rest transforms of `skeleton`) with indices
/// from `manifest` and builds the DashVertex document of the result. The bones keep
/// their manifest index: a skeleton in manifest order ([`crate::manifest_skeleton`])
/// when the bones have names, none when they do not (the file's own indices).
pub fn reduce_to_document(
    input: &Input<'_>,
    skeleton: Option<&Skeleton>,
    positions: &[[f32; 3]],
    manifest: &mut Manifest,
    config: &Config,
    opts: &Options,
) -> Result<(Document, Run), PipelineError> {
    let run = reduce_all(&[input], manifest, config, opts)?;
    // One input gives one reduction.
    let mesh = run.reduced.first().map_or_else(
        || Mesh::skinned(Vec::new()),
        |reduced| reduced.to_mesh(positions),
    );
    let document = Document {
        mesh,
        skeleton: run
            .named
            .then(|| crate::manifest_skeleton(skeleton, input, manifest)),
    };
    Ok((document, run))
}

/// Reduces a DashVertex document as `dashvertex reduce` does without a manifest file:
/// the bones keep the file's order where a DashVertex output can hold it (every parent
/// before its children), the canonical order of a new manifest otherwise; a file without
/// a skeleton keeps its bone indices.
pub fn reduce_document(doc: &Document, config: &Config) -> Result<ReducedDocument, PipelineError> {
    let bones = doc.skeleton.as_ref().map(bone_refs).unwrap_or_default();
    let keep_order = parents_first(&bones);
    let input = Input::from_mesh(&doc.mesh, bones)?;
    let positions: Vec<[f32; 3]> = doc.mesh.vertices().iter().map(|v| v.position).collect();
    let opts = Options {
        keep_order,
        ..Options::default()
    };
    let mut manifest = Manifest::default();
    let (document, run) = reduce_to_document(
        &input,
        doc.skeleton.as_ref(),
        &positions,
        &mut manifest,
        config,
        &opts,
    )?;
    let dropped_weight = run
        .reduced
        .first()
        .map(|r| dropped_weight(&doc.mesh, &input, &manifest, run.named, r))
        .unwrap_or_default();
    Ok(ReducedDocument {
        document,
        run,
        dropped_weight,
    })
}

/// The weight a vertex lost.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VertexLoss {
    /// The vertex.
    pub vertex: u64,
    /// The weight of its influences that are not in the output, as the input had them.
    pub weight: f64,
    /// That weight as a share of the vertex's total input weight (0 to 1).
    pub share: f64,
}

/// The weight a reduction dropped: input influences (positive, finite weights) whose
/// bone the vertex no longer has with a positive weight in its output.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DroppedWeight {
    /// Vertices that lost weight.
    pub vertices: u64,
    /// Their lost weight added up.
    pub total: f64,
    /// The vertex that lost the largest share of its weight (the first such vertex).
    pub worst: Option<VertexLoss>,
}

/// The weight of each vertex of `mesh` dropped by `reduced`. Input bone `b` is output
/// index `b` without names, and the manifest's index of its name with them.
fn dropped_weight(
    mesh: &Mesh,
    input: &Input<'_>,
    manifest: &Manifest,
    named: bool,
    reduced: &Reduced,
) -> DroppedWeight {
    let lookup = manifest.lookup();
    // Output index of each input bone index (`None`: a bone the output cannot name).
    let index: Vec<Option<u32>> = if named {
        input
            .bones
            .iter()
            .map(|bone| {
                lookup
                    .position(&bone.name)
                    .and_then(|p| u32::try_from(p).ok())
            })
            .collect()
    } else {
        Vec::new()
    };
    // Without names the output keeps the file's index of every bone.
    let out_of = |j: u32| -> Option<u32> {
        if named {
            index.get(j as usize).copied().flatten()
        } else {
            Some(j)
        }
    };
    let sets = reduced.sets.max(1);
    let mut out = DroppedWeight::default();
    let mut worst_share = 0.0f64;
    for (v, kept) in reduced.influences.chunks(sets).enumerate() {
        let keeps = |bone: Option<u32>| {
            bone.is_some_and(|bone| {
                kept.iter()
                    .flat_map(InfluenceSet::pairs)
                    .any(|(j, w)| j == bone && w > 0.0)
            })
        };
        let (mut total, mut lost) = (0.0f64, 0.0f64);
        for (j, w) in mesh.sets_of(v).flat_map(InfluenceSet::pairs) {
            if w > 0.0 && w.is_finite() {
                total += f64::from(w);
                if !keeps(out_of(j)) {
                    lost += f64::from(w);
                }
            }
        }
        if lost > 0.0 {
            out.vertices += 1;
            out.total += lost;
            let share = lost / total;
            if share > worst_share {
                worst_share = share;
                out.worst = Some(VertexLoss {
                    vertex: v as u64,
                    weight: lost,
                    share,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use dashvertex_core::{Bone, Vertex};

    fn vertex(pairs: &[(u32, f32)]) -> Vertex {
        Vertex {
            position: [0.5, 1.5, 2.5],
            skin: InfluenceSet::from_pairs(pairs).unwrap(),
        }
    }

    fn bone(name: &str, parent: Option<u32>) -> Bone {
        Bone::new(name, parent)
    }

    #[test]
    fn a_parents_first_skeleton_keeps_its_indices_and_bones() {
        let skeleton = Skeleton {
            bones: vec![
                bone("zeta", None),
                bone("alpha", Some(0)),
                bone("mid", Some(1)),
            ],
        };
        let doc = Document {
            mesh: Mesh::skinned(vec![vertex(&[(2, 0.5), (1, 0.3), (0, 0.2)])]),
            skeleton: Some(skeleton.clone()),
        };
        let cfg = Config {
            max_influences: 2,
            ..Config::default()
        };
        let out = reduce_document(&doc, &cfg).unwrap();
        assert_eq!(out.document.mesh.vertices()[0].skin.joints, [2, 1, 0, 0]);
        let names: Vec<&str> = out
            .document
            .skeleton
            .as_ref()
            .unwrap()
            .bones
            .iter()
            .map(|b| b.name.as_str())
            .collect();
        assert_eq!(names, ["zeta", "alpha", "mid"]);
        assert_eq!(out.document.mesh.vertices()[0].position, [0.5, 1.5, 2.5]);
        // bone 0 (0.2 of 1.0) dropped
        let worst = out.dropped_weight.worst.unwrap();
        assert!((worst.share - 0.2).abs() < 1e-6, "{worst:?}");
    }

    #[test]
    fn children_before_parents_take_the_canonical_order() {
        // "child" listed before its parent: DashVertex output cannot hold that order.
        let skeleton = Skeleton {
            bones: vec![bone("child", Some(1)), bone("root", None)],
        };
        let doc = Document {
            mesh: Mesh::skinned(vec![vertex(&[(0, 1.0)])]),
            skeleton: Some(skeleton),
        };
        let out = reduce_document(&doc, &Config::default()).unwrap();
        let s = out.document.skeleton.unwrap();
        assert_eq!(s.bones[0].name, "root");
        assert_eq!(s.bones[1].name, "child");
        // the vertex still follows "child", now index 1
        assert_eq!(out.document.mesh.vertices()[0].skin.joints[0], 1);
        assert_eq!(out.dropped_weight, DroppedWeight::default());
    }

    #[test]
    fn without_a_skeleton_the_file_indices_stay() {
        let doc = Document {
            mesh: Mesh::skinned(vec![vertex(&[(70_000, 0.9), (3, 0.1)])]),
            skeleton: None,
        };
        let cfg = Config {
            max_influences: 1,
            ..Config::default()
        };
        let out = reduce_document(&doc, &cfg).unwrap();
        assert!(out.document.skeleton.is_none());
        assert_eq!(out.document.mesh.vertices()[0].skin.joints[0], 70_000);
        assert_eq!(out.dropped_weight.vertices, 1);
        assert!((out.dropped_weight.total - 0.1).abs() < 1e-6);
    }
}
