//! `GLTF_REFERENCE` beyond the skinning structure: every index into a top-level array
//! that the document holds (accessors' buffer views, primitives' indices, attributes,
//! morph targets and material, animations' samplers, inputs, outputs and target nodes,
//! nodes' cameras, the default scene). Influence attributes and inverse bind matrices are
//! checked where their data are read (`GLTF_ACCESSOR_DATA`); nodes, scenes, skins and
//! buffer views by the structure checks.

use dashvertex_json::pointer::push_token;
use serde_json::Value;

use super::{array, members};
use crate::codes::Code;
use crate::inputs::gltf::Doc;
use crate::sink::Sink;

/// Reports each index at `pointer` that is not below the length of `target`.
fn check(root: &Value, doc: &Doc, sink: &mut Sink, v: Option<&Value>, target: &str, pointer: &str) {
    let Some(v) = v else { return };
    let have = array(root, target).len();
    // Wrong types are the type checks' findings, not unresolved references.
    let Some(i) = v.as_u64() else { return };
    if i >= have as u64 {
        doc.push(sink, Code::GLTF_REFERENCE, pointer, || {
            format!("{pointer} names {target} {i}, which does not exist ({have} defined)")
        });
    }
}

/// Whether an attribute's data are checked by the influence checks.
fn influence(name: &str) -> bool {
    name.starts_with("JOINTS_") || name.starts_with("WEIGHTS_")
}

/// Reports every unresolved reference listed in the module comment.
pub(crate) fn check_all(root: &Value, doc: &Doc, sink: &mut Sink) {
    for (i, a) in array(root, "accessors").iter().enumerate() {
        let base = format!("/accessors/{i}");
        check(
            root,
            doc,
            sink,
            a.get("bufferView"),
            "bufferViews",
            &format!("{base}/bufferView"),
        );
        if let Some(sparse) = a.get("sparse") {
            for part in ["indices", "values"] {
                check(
                    root,
                    doc,
                    sink,
                    sparse.get(part).and_then(|p| p.get("bufferView")),
                    "bufferViews",
                    &format!("{base}/sparse/{part}/bufferView"),
                );
            }
        }
    }
    for (m, mesh) in array(root, "meshes").iter().enumerate() {
        for (p, prim) in members(mesh, "primitives").iter().enumerate() {
            let base = format!("/meshes/{m}/primitives/{p}");
            check(
                root,
                doc,
                sink,
                prim.get("indices"),
                "accessors",
                &format!("{base}/indices"),
            );
            check(
                root,
                doc,
                sink,
                prim.get("material"),
                "materials",
                &format!("{base}/material"),
            );
            if let Some(attrs) = prim.get("attributes").and_then(Value::as_object) {
                for (name, v) in attrs.iter().filter(|(n, _)| !influence(n)) {
                    let mut ptr = format!("{base}/attributes");
                    push_token(&mut ptr, name);
                    check(root, doc, sink, Some(v), "accessors", &ptr);
                }
            }
            for (t, target) in members(prim, "targets").iter().enumerate() {
                for (name, v) in target.as_object().into_iter().flatten() {
                    let mut ptr = format!("{base}/targets/{t}");
                    push_token(&mut ptr, name);
                    check(root, doc, sink, Some(v), "accessors", &ptr);
                }
            }
        }
    }
    for (a, anim) in array(root, "animations").iter().enumerate() {
        let samplers = members(anim, "samplers").len();
        for (c, channel) in members(anim, "channels").iter().enumerate() {
            let ptr = format!("/animations/{a}/channels/{c}/sampler");
            if let Some(s) = channel
                .get("sampler")
                .and_then(Value::as_u64)
                .filter(|&s| s >= samplers as u64)
            {
                doc.push(sink, Code::GLTF_REFERENCE, &ptr, || {
                    format!("{ptr} names sampler {s} of animation {a}, which has {samplers}")
                });
            }
            check(
                root,
                doc,
                sink,
                channel.get("target").and_then(|t| t.get("node")),
                "nodes",
                &format!("/animations/{a}/channels/{c}/target/node"),
            );
        }
        for (s, sampler) in members(anim, "samplers").iter().enumerate() {
            for part in ["input", "output"] {
                check(
                    root,
                    doc,
                    sink,
                    sampler.get(part),
                    "accessors",
                    &format!("/animations/{a}/samplers/{s}/{part}"),
                );
            }
        }
    }
    for (n, node) in array(root, "nodes").iter().enumerate() {
        check(
            root,
            doc,
            sink,
            node.get("camera"),
            "cameras",
            &format!("/nodes/{n}/camera"),
        );
    }
    check(root, doc, sink, root.get("scene"), "scenes", "/scene");
}
