//! Skins and the nodes that use them: joints that exist, are distinct and share a root,
//! the skeleton, the inverse bind matrices, the scenes a skinned node is in, a manifest's
//! barred joints, and which nodes have a skin without a mesh (or the reverse).

use dashvertex_gltf::Gltf;
use dashvertex_gltf::accessor;
use dashvertex_gltf::document::component;
use dashvertex_gltf::skinning::{self, PrimitiveSets};

use super::hierarchy::tree_roots;
use super::{Doc, reported_elsewhere};
use crate::codes::Code;
use crate::diagnostic::Location;
use crate::options::{JointOrder, Options};
use crate::sink::Sink;

/// `NODE_SKIN_NO_SCENE`: a scene that holds a skinned node must hold its joints' root.
/// Skins whose joints have no common root, or whose ancestry the hierarchy error broke,
/// are left to those diagnostics. Each (node tree, joint tree) pair is checked once.
pub(super) fn skin_scenes(gltf: &Gltf, doc: &Doc, tainted: &[bool], sink: &mut Sink) {
    let root = &gltf.root;
    if root.scenes.is_empty() || root.skins.is_empty() {
        return;
    }
    let parents = skinning::parents(root);
    let tops = tree_roots(&parents);
    let top = |n: u64| {
        usize::try_from(n)
            .ok()
            .and_then(|n| tops.get(n).copied().flatten())
    };
    // The scenes that list each root, and every (scene, root) pair.
    let mut scenes_of: std::collections::HashMap<usize, Vec<usize>> =
        std::collections::HashMap::new();
    let mut listed = std::collections::HashSet::new();
    for (k, scene) in root.scenes.iter().enumerate() {
        for &n in &scene.nodes {
            if let Ok(n) = usize::try_from(n)
                && listed.insert((k, n))
            {
                scenes_of.entry(n).or_default().push(k);
            }
        }
    }
    // Per skin: its joints' tree, when the joints are sound and share a root.
    let joint_tree: Vec<Option<usize>> = root
        .skins
        .iter()
        .map(|skin| {
            let sound = !skin.joints.is_empty()
                && skin.joints.iter().all(|&j| {
                    usize::try_from(j)
                        .ok()
                        .and_then(|j| tainted.get(j))
                        .is_some_and(|t| !t)
                });
            if !sound || skinning::common_ancestors(&parents, &skin.joints).is_empty() {
                return None;
            }
            skin.joints.first().and_then(|&j| top(j))
        })
        .collect();
    let mut checked: std::collections::HashMap<(usize, usize), Option<usize>> =
        std::collections::HashMap::new();
    for (i, node) in root.nodes.iter().enumerate() {
        let Some(s) = node.skin.and_then(|s| usize::try_from(s).ok()) else {
            continue;
        };
        let (Some(Some(joints)), Some(mine)) = (joint_tree.get(s), top(i as u64)) else {
            continue;
        };
        let lacking = *checked.entry((mine, *joints)).or_insert_with(|| {
            scenes_of
                .get(&mine)
                .into_iter()
                .flatten()
                .copied()
                .find(|&k| !listed.contains(&(k, *joints)))
        });
        if let Some(k) = lacking {
            doc.push(sink, Code::GLTF_SKIN_SCENE, &format!("/nodes/{i}"), || {
                format!(
                    "node {i} uses skin {s}, but scene {k}, which holds the node, does not hold node {joints}, the root of the skin's joints"
                )
            });
        }
    }
}

/// Skin rules: joints, common root, skeleton, inverse bind matrices. The root and
/// skeleton checks skip a skin with a joint below a hierarchy error (`tainted`): that
/// error is the root cause.
pub(super) fn skins(gltf: &Gltf, doc: &Doc, tainted: &[bool], opts: &Options, sink: &mut Sink) {
    let parents = skinning::parents(&gltf.root);
    let n_nodes = gltf.root.nodes.len() as u64;
    for (s, skin) in gltf.root.skins.iter().enumerate() {
        let ptr = format!("/skins/{s}/joints");
        if skin.joints.is_empty() {
            doc.push(sink, Code::GLTF_SKIN_JOINTS, &ptr, || {
                format!("skin {s} has no joints")
            });
            continue;
        }
        let mut bad = false;
        let mut listed = std::collections::HashSet::new();
        for (k, &j) in skin.joints.iter().enumerate() {
            if j >= n_nodes {
                bad = true;
                doc.push(sink, Code::GLTF_SKIN_JOINTS, &format!("{ptr}/{k}"), || {
                    format!("skin {s}: joint {k} names node {j}, which does not exist")
                });
            } else if !listed.insert(j) {
                bad = true;
                doc.push(sink, Code::GLTF_SKIN_JOINTS, &format!("{ptr}/{k}"), || {
                    format!("skin {s}: node {j} is listed twice")
                });
            }
        }
        // A joint that names no node shares no root with the others (official
        // SKIN_NO_COMMON_ROOT); a repeated one changes no ancestry.
        let unresolved = skin.joints.iter().any(|&j| j >= n_nodes);
        let below_error = skin.joints.iter().any(|&j| {
            usize::try_from(j)
                .ok()
                .and_then(|j| tainted.get(j))
                .is_some_and(|t| *t)
        });
        if unresolved && !below_error {
            doc.push(sink, Code::GLTF_SKIN_ROOT, &ptr, || {
                format!("skin {s}: a joint names no node, so the joints have no common root")
            });
        } else if !bad && !below_error {
            let common = skinning::common_ancestors(&parents, &skin.joints);
            if common.is_empty() {
                doc.push(sink, Code::GLTF_SKIN_ROOT, &ptr, || {
                    format!("skin {s}: the joints have no common root node")
                });
            } else if let Some(k) = skin
                .skeleton
                .filter(|k| *k < n_nodes && !common.contains(k))
            {
                doc.push(
                    sink,
                    Code::GLTF_SKIN_SKELETON,
                    &format!("/skins/{s}/skeleton"),
                    || format!("skin {s}: skeleton node {k} is not a common root of the joints"),
                );
            }
        }
        if let (false, Some(order)) = (bad, &opts.joint_order) {
            let names = skinning::joint_names(&gltf.root, s);
            // One diagnostic per skin: the first joint out of place names the cause.
            if let Some(m) = order.lookup().first_out_of_order(&names, !order.locked) {
                doc.push(sink, Code::JOINT_ORDER, &ptr, || {
                    format!("skin {s}: {m}; the joint order differs from the manifest's")
                });
            }
            if let Some(k) = names
                .iter()
                .position(|n| n == dashvertex_manifest::BLENDER_NEUTRAL_BONE)
            {
                doc.push(sink, Code::NEUTRAL_BONE, &format!("{ptr}/{k}"), || {
                    format!(
                        "skin {s}: joint {k} is {:?}, the joint Blender's glTF exporter adds to hold the vertices no bone weights; a manifest that numbers it keeps it for every rig",
                        dashvertex_manifest::BLENDER_NEUTRAL_BONE
                    )
                });
            }
        }
        if let Some(ibm) = skin.inverse_bind_matrices {
            inverse_bind_matrices(gltf, doc, s, ibm, skin.joints.len(), opts, sink);
        }
    }
}

/// The joints of `skin` that may carry no weight under `order`: bones the manifest retired,
/// and (locked) bones it does not have (`foreign`, a subset); both sorted, with the joint
/// names for messages.
pub(super) fn barred_joints(gltf: &Gltf, skin: usize, order: &JointOrder) -> Barred {
    let names = skinning::joint_names(&gltf.root, skin);
    let (mut removed, mut foreign) = (Vec::new(), Vec::new());
    for (j, n) in names.iter().enumerate() {
        let Ok(j) = u32::try_from(j) else { break };
        match order.lookup().entry(n) {
            Some(e) if e.removed => removed.push(j),
            None if order.locked => {
                removed.push(j);
                foreign.push(j);
            }
            _ => {}
        }
    }
    if removed.is_empty() {
        return Barred::default();
    }
    Barred {
        removed: removed.into(),
        foreign: foreign.into(),
        names: names.into(),
    }
}

/// A skin's joints barred from weight ([`barred_joints`]), shared by its primitives.
#[derive(Clone, Default)]
pub(super) struct Barred {
    /// Joints that may carry no weight, sorted.
    pub(super) removed: std::sync::Arc<[u32]>,
    /// Those of them the manifest does not have (`--locked`), sorted.
    pub(super) foreign: std::sync::Arc<[u32]>,
    /// The skin's joint names, for messages.
    pub(super) names: std::sync::Arc<[String]>,
}

fn inverse_bind_matrices(
    gltf: &Gltf,
    doc: &Doc,
    s: usize,
    ibm: u64,
    joints: usize,
    opts: &Options,
    sink: &mut Sink,
) {
    let ptr = format!("/skins/{s}/inverseBindMatrices");
    let Some(acc) = usize::try_from(ibm)
        .ok()
        .and_then(|i| gltf.root.accessors.get(i))
    else {
        doc.push(sink, Code::GLTF_ACCESSOR_DATA, &ptr, || {
            format!("skin {s}: inverse bind matrix accessor {ibm} does not exist")
        });
        return;
    };
    let strided = gltf.view_stride(ibm).is_some();
    if acc.kind != "MAT4" || acc.component_type != component::F32 {
        doc.push(sink, Code::GLTF_IBM_FORMAT, &ptr, || {
            format!(
                "skin {s}: inverse bind matrices are {} {}; they must be MAT4 FLOAT",
                acc.kind,
                component::name(acc.component_type)
            )
        });
        return;
    }
    // Readable all the same (every reader here honours the stride): the rest is checked.
    if strided {
        doc.push(sink, Code::GLTF_IBM_STRIDE, &ptr, || {
            format!(
                "skin {s}: the inverse bind matrices' buffer view has a byteStride; they must be tightly packed"
            )
        });
    }
    if acc.count < joints as u64 {
        doc.push(sink, Code::GLTF_IBM_COUNT, &ptr, || {
            format!(
                "skin {s}: {} inverse bind matrices for {joints} joints",
                acc.count
            )
        });
    }
    if acc.buffer_view.is_none() && acc.sparse.is_none() {
        // Every matrix is zero: one finding for the accessor, not one per matrix.
        doc.push(sink, Code::GLTF_ACCESSOR_NO_DATA, &ptr, || {
            format!(
                "skin {s}: inverse bind matrix accessor {ibm} has neither bufferView nor sparse data, so every matrix is zero"
            )
        });
        return;
    }
    let data = match accessor::read(gltf, ibm, &opts.limits) {
        Ok(d) => d,
        Err(e) if reported_elsewhere(&e) => return,
        Err(e) => {
            doc.push(sink, Code::GLTF_ACCESSOR_DATA, &ptr, || {
                format!("skin {s}: {e}")
            });
            return;
        }
    };
    for m in 0..data.count {
        let e: [f64; 16] = std::array::from_fn(|c| data.get(m, c));
        let at = || Location {
            offset: data.offset_of(m, 0),
            ..doc.at(&ptr)
        };
        if e.iter().any(|x| !x.is_finite()) {
            sink.report(Code::GLTF_IBM_NON_FINITE, at, || {
                format!("skin {s}: inverse bind matrix {m} has a NaN or infinite element")
            });
            continue;
        }
        // Column-major: the fourth row is elements 3, 7, 11, 15.
        let row = [e[3], e[7], e[11], e[15]];
        if row != [0.0, 0.0, 0.0, 1.0] {
            sink.report(Code::GLTF_IBM_ROW, at, || {
                format!(
                    "skin {s}: inverse bind matrix {m} has fourth row ({} {} {} {}), not (0 0 0 1)",
                    row[0], row[1], row[2], row[3]
                )
            });
            continue;
        }
        // With the last row (0 0 0 1) the determinant is that of the upper 3×3 block.
        let d = e[0] * (e[5] * e[10] - e[9] * e[6]) - e[4] * (e[1] * e[10] - e[9] * e[2])
            + e[8] * (e[1] * e[6] - e[5] * e[2]);
        let scale = e
            .iter()
            .take(11)
            .map(|x| x.abs())
            .fold(0.0, f64::max)
            .max(1e-30);
        if d.abs() <= 1e-9 * scale * scale * scale {
            sink.report(Code::GLTF_IBM_SINGULAR, at, || {
                format!("skin {s}: inverse bind matrix {m} is singular (determinant {d:e})")
            });
        }
    }
}

/// Node rules: skins without meshes or joints, meshes with joints without skins, and a
/// skinned mesh's node that has a parent or a transform of its own, neither of which
/// moves a skinned mesh (the official validator's two warnings).
pub(super) fn nodes(gltf: &Gltf, doc: &Doc, prims: &[PrimitiveSets], sink: &mut Sink) {
    let parents = dashvertex_gltf::skinning::parents(&gltf.root);
    let json_nodes = gltf
        .value
        .get("nodes")
        .and_then(serde_json::Value::as_array);
    // The meshes with a JOINTS_n attribute, found once (a search of every primitive's
    // sets per node was nodes × sets).
    let mut with_joints = vec![false; gltf.root.meshes.len()];
    for p in prims {
        if p.sets.iter().any(|s| s.joints.is_some())
            && let Some(m) = with_joints.get_mut(p.mesh)
        {
            *m = true;
        }
    }
    for (i, n) in gltf.root.nodes.iter().enumerate() {
        let has_joints = n.mesh.is_some_and(|m| {
            usize::try_from(m)
                .ok()
                .and_then(|m| with_joints.get(m))
                .is_some_and(|j| *j)
        });
        match (n.skin, n.mesh) {
            (Some(_), None) => doc.push(
                sink,
                Code::GLTF_SKIN_WITHOUT_MESH,
                &format!("/nodes/{i}/skin"),
                || format!("node {i} has a skin but no mesh"),
            ),
            (Some(_), Some(m)) if !has_joints => doc.push(
                sink,
                Code::GLTF_SKIN_WITHOUT_JOINTS,
                &format!("/nodes/{i}"),
                || format!("node {i} has a skin but mesh {m} has no JOINTS_n attributes"),
            ),
            (None, Some(m)) if has_joints => doc.push(
                sink,
                Code::GLTF_MESH_UNSKINNED,
                &format!("/nodes/{i}/mesh"),
                || format!("node {i} instantiates mesh {m}, which has joints, without a skin"),
            ),
            _ => {}
        }
        if n.skin.is_some() && n.mesh.is_some() {
            if let Some(Some(p)) = parents.get(i) {
                doc.push(
                    sink,
                    Code::GLTF_SKINNED_MESH_NON_ROOT,
                    &format!("/nodes/{i}"),
                    || {
                        format!(
                            "node {i} has a skinned mesh and a parent (node {p}), whose transforms do not move it"
                        )
                    },
                );
            }
            let matrix = json_nodes
                .and_then(|l| l.get(i))
                .is_some_and(|v| v.get("matrix").is_some());
            if matrix || n.translation.is_some() || n.rotation.is_some() || n.scale.is_some() {
                doc.push(
                    sink,
                    Code::GLTF_SKINNED_MESH_LOCAL_TRANSFORMS,
                    &format!("/nodes/{i}"),
                    || {
                        format!(
                            "node {i} has a skinned mesh and a transform of its own, which does not move it"
                        )
                    },
                );
            }
        }
    }
}
