//! The skin checks of an FBX scene: every skin deformer, its clusters and the weights
//! they give each control point, located by FBX object (`Geometry::Body`,
//! `Cluster::Hips`, `Deformer::Skin`) and control point index.

use std::collections::HashMap;

use dashvertex_core::weights::SumCheck;

use crate::Scene;
use crate::findings::{At, Check, CheckOptions, Report};

/// Largest difference allowed between a cluster's bind matrix and the bind pose's, relative
/// to the larger of 1 and the matrix's largest element.
const MATRIX_TOLERANCE: f64 = 1e-4;

/// Runs every skin check on `scene`, reporting each finding to `report` (in a fixed order:
/// meshes, then each mesh's deformers, clusters, and control points in index order).
pub fn check(scene: &Scene, opts: &CheckOptions, report: &mut Report<'_>) {
    let s = scene.ufbx();
    if s.skin_deformers.is_empty() {
        let (meshes, stacks) = (s.meshes.len(), s.anim_stacks.len());
        report(
            Check::NoSkin,
            At {
                kind: "Document",
                name: "",
                vertex: None,
            },
            &|| {
                format!(
                    "no skin deformer: nothing to check ({meshes} mesh(es), {stacks} \
                     animation stack(s))"
                )
            },
        );
        return;
    }
    let bind = bind_poses(s);
    let mut seen = std::collections::HashSet::new();
    for mesh in &s.meshes {
        let mesh_name = mesh.element.name.as_ref();
        if mesh.skin_deformers.len() > 1 {
            let n = mesh.skin_deformers.len();
            report(
                Check::SkinSeveral,
                At {
                    kind: "Geometry",
                    name: mesh_name,
                    vertex: None,
                },
                &|| {
                    format!(
                        "{n} skin deformers on one mesh: glTF and engines apply one; the first is converted"
                    )
                },
            );
        }
        for skin in &mesh.skin_deformers {
            if !seen.insert(skin.element.element_id) {
                continue;
            }
            deformer(skin, &bind, report);
            vertices(mesh, skin, opts, report);
        }
    }
}

/// Each bone's bind matrix from every bind pose, by ufbx node id (the first pose wins).
fn bind_poses(s: &ufbx::Scene) -> HashMap<u32, ufbx::Matrix> {
    let mut out = HashMap::new();
    for pose in s.poses.iter().filter(|p| p.is_bind_pose) {
        for bp in &pose.bone_poses {
            out.entry(bp.bone_node.element.element_id)
                .or_insert(bp.bone_to_world);
        }
    }
    out
}

fn deformer(skin: &ufbx::SkinDeformer, bind: &HashMap<u32, ufbx::Matrix>, report: &mut Report<'_>) {
    let name = skin.element.name.as_ref();
    if skin.skinning_method != ufbx::SkinningMethod::Linear {
        let method = skin.skinning_method;
        report(
            Check::SkinningMode,
            At {
                kind: "Deformer",
                name,
                vertex: None,
            },
            &|| {
                format!(
                    "{method:?} skinning: glTF and engines skin linearly, so the mesh deforms differently; converted as linear"
                )
            },
        );
    }
    let mut bones: HashMap<u32, &str> = HashMap::new();
    for cluster in &skin.clusters {
        let cname = cluster.element.name.as_ref();
        let at = At {
            kind: "Cluster",
            name: cname,
            vertex: None,
        };
        let Some(node) = cluster.bone_node.as_ref() else {
            report(Check::ClusterNotBone, at, &|| {
                "the cluster links to no node: its weights move nothing (dropped on conversion)"
                    .into()
            });
            continue;
        };
        let bone = node.element.name.as_ref();
        if node.bone.is_none() {
            let kind = node.attrib_type;
            report(Check::ClusterNotBone, at, &|| {
                format!(
                    "the cluster links to node {bone:?}, a {kind:?} rather than a bone (limb node); converted as a joint all the same"
                )
            });
        }
        if let Some(first) = bones.insert(node.element.element_id, cname) {
            report(Check::ClusterDuplicate, at, &|| {
                format!(
                    "a second cluster for bone {bone:?} (the first is {first:?}): importers keep one or add the weights; converted by adding them"
                )
            });
        }
        match bind.get(&node.element.element_id) {
            None => report(Check::BindPose, at, &|| {
                format!(
                    "bone {bone:?} has no bind pose entry: the cluster's own bind matrix is used"
                )
            }),
            Some(m) => {
                let diff = matrix_difference(m, &cluster.bind_to_world);
                if diff.is_nan() || diff > MATRIX_TOLERANCE {
                    report(Check::BindPose, at, &|| {
                        format!(
                            "bone {bone:?}: the bind pose and the cluster's bind matrix differ by {diff:.3e} (relative): importers disagree on which to use; the cluster's is used"
                        )
                    });
                }
            }
        }
    }
}

/// The largest element difference of two matrices, relative to the larger of 1 and their
/// largest element.
fn matrix_difference(a: &ufbx::Matrix, b: &ufbx::Matrix) -> f64 {
    let ea = elements(a);
    let eb = elements(b);
    let scale = ea
        .iter()
        .chain(eb.iter())
        .fold(1.0f64, |m, x| m.max(x.abs()));
    let diff = ea.iter().zip(eb.iter()).fold(0.0f64, |m, (x, y)| {
        if (x - y).is_nan() {
            f64::NAN
        } else {
            m.max((x - y).abs())
        }
    });
    diff / scale
}

/// A matrix's twelve elements, column by column.
pub(crate) fn elements(m: &ufbx::Matrix) -> [f64; 12] {
    [
        m.m00, m.m10, m.m20, m.m01, m.m11, m.m21, m.m02, m.m12, m.m22, m.m03, m.m13, m.m23,
    ]
}

/// The per-control-point rules of one skin deformer on `mesh`.
fn vertices(
    mesh: &ufbx::Mesh,
    skin: &ufbx::SkinDeformer,
    opts: &CheckOptions,
    report: &mut Report<'_>,
) {
    let name = mesh.element.name.as_ref();
    for (v, sv) in skin.vertices.iter().enumerate() {
        let at = At {
            kind: "Geometry",
            name,
            vertex: Some(v as u64),
        };
        let weights = crate::weights_of(skin, sv);
        if let Some(bad) = weights
            .iter()
            .find(|w| !(w.weight.is_finite() && w.weight >= 0.0))
        {
            let w = bad.weight;
            let bone = crate::cluster_bone_name(skin, bad.cluster_index);
            report(Check::WeightInvalid, at, &|| {
                format!(
                    "vertex {v} of Geometry::{name}: weight {w} on bone {bone:?} (weights are finite and at least 0)"
                )
            });
            continue;
        }
        let zeros = weights.iter().filter(|w| w.weight == 0.0).count();
        if zeros > 0 {
            report(Check::WeightZero, at, &|| {
                format!(
                    "vertex {v} of Geometry::{name}: {zeros} cluster(s) list it with weight 0 (some importers count it as an influence)"
                )
            });
        }
        let used = weights.len() - zeros;
        if used == 0 {
            report(Check::Unweighted, at, &|| {
                format!(
                    "vertex {v} of Geometry::{name}: no cluster weights it, so it does not follow the skeleton"
                )
            });
            continue;
        }
        if used > opts.influences {
            let limit = opts.influences;
            report(Check::Influences, at, &|| {
                format!(
                    "vertex {v} of Geometry::{name}: {used} influences; {limit} are kept (`dashvertex reduce` chooses which)"
                )
            });
        }
        let mut sum = SumCheck::new();
        for w in weights.iter().filter(|w| w.weight > 0.0) {
            #[allow(
                clippy::cast_possible_truncation,
                reason = "rounded to binary32 as glTF stores it"
            )]
            sum.add_f32(w.weight as f32);
        }
        if !sum.passes() {
            let total = sum.sum;
            report(Check::WeightSum, at, &|| {
                format!(
                    "vertex {v} of Geometry::{name}: weights sum to {total} (off by {:.3e}); glTF requires 1 and engines renormalize at import",
                    (f64::from(total) - 1.0).abs()
                )
            });
        }
    }
}
