//! `GLTF_REFERENCE` beyond the skinning structure: every index into a top-level array
//! that the document holds (accessors' buffer views, primitives' indices, attributes,
//! morph targets and material, animations' samplers, inputs, outputs and target nodes,
//! nodes' cameras, the default scene). Influence attributes and inverse bind matrices are
//! checked where their data are read (`GLTF_ACCESSOR_DATA`); nodes, scenes, skins and
//! buffer views by the structure checks.

use serde_json::Value;

use super::{Ptr, array, members};
use crate::codes::Code;
use crate::inputs::gltf::Doc;
use crate::sink::Sink;
use dashvertex_json::Members;

/// Reports each index at `at` that is not below the length of `target`.
fn check(root: &Value, doc: &Doc, sink: &mut Sink, v: Option<&Value>, target: &str, at: &Ptr) {
    let Some(v) = v else { return };
    let have = array(root, target).len();
    // Wrong types are the type checks' findings, not unresolved references.
    let Some(i) = v.as_u64() else { return };
    if i >= have as u64 {
        let pointer = at.spell();
        doc.push(sink, Code::GLTF_REFERENCE, &pointer, || {
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
    let top = Ptr::ROOT;
    let list = top.key("accessors");
    for (i, a) in array(root, "accessors").iter().enumerate() {
        let base = list.index(i);
        let view = a.member("bufferView");
        check(
            root,
            doc,
            sink,
            view,
            "bufferViews",
            &base.key("bufferView"),
        );
        if let Some(sparse) = a.member("sparse") {
            let at = base.key("sparse");
            for part in ["indices", "values"] {
                let view = sparse.get(part).and_then(|p| p.member("bufferView"));
                let at = at.key(part);
                check(root, doc, sink, view, "bufferViews", &at.key("bufferView"));
            }
        }
    }
    let list = top.key("meshes");
    for (m, mesh) in array(root, "meshes").iter().enumerate() {
        let mesh_at = list.index(m);
        let prims = mesh_at.key("primitives");
        for (p, prim) in members(mesh, "primitives").iter().enumerate() {
            let base = prims.index(p);
            let indices = prim.member("indices");
            check(root, doc, sink, indices, "accessors", &base.key("indices"));
            let material = prim.member("material");
            check(
                root,
                doc,
                sink,
                material,
                "materials",
                &base.key("material"),
            );
            if let Some(attrs) = prim.member("attributes").and_then(Value::as_object) {
                let at = base.key("attributes");
                for (name, v) in attrs.iter().filter(|(n, _)| !influence(n)) {
                    check(root, doc, sink, Some(v), "accessors", &at.key(name));
                }
            }
            let targets = base.key("targets");
            for (t, target) in members(prim, "targets").iter().enumerate() {
                let at = targets.index(t);
                for (name, v) in target.as_object().into_iter().flatten() {
                    check(root, doc, sink, Some(v), "accessors", &at.key(name));
                }
            }
        }
    }
    let list = top.key("animations");
    for (a, anim) in array(root, "animations").iter().enumerate() {
        let anim_at = list.index(a);
        let samplers = members(anim, "samplers").len();
        let channels = anim_at.key("channels");
        for (c, channel) in members(anim, "channels").iter().enumerate() {
            let at = channels.index(c);
            if let Some(s) = channel
                .member("sampler")
                .and_then(Value::as_u64)
                .filter(|&s| s >= samplers as u64)
            {
                let ptr = at.key("sampler").spell();
                doc.push(sink, Code::GLTF_REFERENCE, &ptr, || {
                    format!("{ptr} names sampler {s} of animation {a}, which has {samplers}")
                });
            }
            let node = channel.member("target").and_then(|t| t.member("node"));
            let target = at.key("target");
            check(root, doc, sink, node, "nodes", &target.key("node"));
        }
        let sampler_list = anim_at.key("samplers");
        for (s, sampler) in members(anim, "samplers").iter().enumerate() {
            let at = sampler_list.index(s);
            for part in ["input", "output"] {
                check(
                    root,
                    doc,
                    sink,
                    sampler.get(part),
                    "accessors",
                    &at.key(part),
                );
            }
        }
    }
    let list = top.key("nodes");
    for (n, node) in array(root, "nodes").iter().enumerate() {
        let at = list.index(n);
        check(
            root,
            doc,
            sink,
            node.member("camera"),
            "cameras",
            &at.key("camera"),
        );
    }
    check(
        root,
        doc,
        sink,
        root.member("scene"),
        "scenes",
        &top.key("scene"),
    );
}
