//! Morph targets (`GLTF_MORPH`): each target attribute has a base attribute of the same
//! name and the same count, every primitive of a mesh has as many targets, and a mesh's or
//! node's `weights` has one weight per target.

use dashvertex_json::pointer::push_token;
use serde_json::Value;

use super::{accessor as accessor_json, array, members, push_as};
use crate::codes::Code;
use crate::inputs::gltf::Doc;
use crate::sink::Sink;
use dashvertex_json::Members;

fn count(root: &Value, v: &Value) -> Option<u64> {
    accessor_json(root, v.as_u64()?)?
        .member("count")
        .and_then(Value::as_u64)
}

/// Runs the checks of the module comment.
pub(crate) fn check_all(root: &Value, doc: &Doc, sink: &mut Sink) {
    let meshes = array(root, "meshes");
    let mut targets_of_mesh: Vec<Option<usize>> = Vec::with_capacity(meshes.len());
    for (m, mesh) in meshes.iter().enumerate() {
        let prims = members(mesh, "primitives");
        let first = prims.first().map(|p| members(p, "targets").len());
        for (p, prim) in prims.iter().enumerate() {
            let base = format!("/meshes/{m}/primitives/{p}");
            let targets = members(prim, "targets");
            if let Some(f) = first.filter(|&f| f != targets.len()) {
                let ptr = if prim.member("targets").is_some() {
                    format!("{base}/targets")
                } else {
                    base.clone()
                };
                push_as(
                    doc,
                    sink,
                    Code::GLTF_MORPH,
                    "MESH_PRIMITIVES_UNEQUAL_TARGETS_COUNT",
                    &ptr,
                    || {
                        format!(
                            "primitive {p} has {} morph targets, primitive 0 {f}",
                            targets.len()
                        )
                    },
                );
            }
            let attrs = prim.member("attributes").and_then(Value::as_object);
            for (t, target) in targets.iter().enumerate() {
                for (name, v) in target.as_object().into_iter().flatten() {
                    let mut ptr = format!("{base}/targets/{t}");
                    push_token(&mut ptr, name);
                    match attrs.and_then(|a| a.member(name)) {
                        None => push_as(
                            doc,
                            sink,
                            Code::GLTF_MORPH,
                            "MESH_PRIMITIVE_MORPH_TARGET_NO_BASE_ACCESSOR",
                            &ptr,
                            || {
                                format!(
                                    "morph target {t} moves {name}, which the primitive does not have"
                                )
                            },
                        ),
                        Some(b) => {
                            if let (Some(have), Some(want)) = (count(root, v), count(root, b))
                                && have != want
                            {
                                push_as(
                                    doc,
                                    sink,
                                    Code::GLTF_MORPH,
                                    "MESH_PRIMITIVE_MORPH_TARGET_INVALID_ATTRIBUTE_COUNT",
                                    &ptr,
                                    || {
                                        format!(
                                            "morph target {t}'s {name} has {have} elements, the base {want}"
                                        )
                                    },
                                );
                            }
                        }
                    }
                }
            }
        }
        targets_of_mesh.push(first);
        if let (Some(w), Some(n)) = (mesh.member("weights").and_then(Value::as_array), first)
            && w.len() != n
        {
            push_as(
                doc,
                sink,
                Code::GLTF_MORPH,
                "MESH_INVALID_WEIGHTS_COUNT",
                &format!("/meshes/{m}/weights"),
                || format!("mesh {m} has {} weights for {n} morph targets", w.len()),
            );
        }
    }
    for (i, node) in array(root, "nodes").iter().enumerate() {
        let Some(w) = node.member("weights").and_then(Value::as_array) else {
            continue;
        };
        let ptr = format!("/nodes/{i}/weights");
        match node.member("mesh").and_then(Value::as_u64) {
            None => push_as(
                doc,
                sink,
                Code::GLTF_DEPENDENCY,
                "UNSATISFIED_DEPENDENCY",
                &ptr,
                || format!("node {i} has morph weights but no mesh"),
            ),
            Some(m) => {
                let n = usize::try_from(m)
                    .ok()
                    .and_then(|m| targets_of_mesh.get(m).copied().flatten());
                if let Some(n) = n.filter(|&n| n != w.len()) {
                    push_as(
                        doc,
                        sink,
                        Code::GLTF_MORPH,
                        "NODE_WEIGHTS_INVALID",
                        &ptr,
                        || {
                            format!(
                                "node {i} has {} weights; its mesh has {n} morph targets",
                                w.len()
                            )
                        },
                    );
                }
            }
        }
    }
}
