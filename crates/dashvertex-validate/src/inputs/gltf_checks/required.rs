//! The glTF schema's shape rules for the parts dash reads: members the schema requires
//! (`GLTF_REQUIRED`), arrays and objects it requires non-empty below the root
//! (`GLTF_EMPTY_ARRAY`; the root arrays are checked with the structure), and top-level
//! collections and extension values of the wrong JSON type (`GLTF_JSON`). The typed reader
//! refuses a wrong type in the members skinning reads; these are the ones it ignores.

use serde_json::Value;

use super::{Ptr, array, members};
use crate::codes::Code;
use crate::inputs::gltf::Doc;
use crate::sink::Sink;
use dashvertex_json::Members;

/// The top-level arrays of objects a glTF document may hold.
const COLLECTIONS: &[&str] = &[
    "accessors",
    "animations",
    "buffers",
    "bufferViews",
    "cameras",
    "images",
    "materials",
    "meshes",
    "nodes",
    "samplers",
    "scenes",
    "skins",
    "textures",
];

/// Reports each of `names` that the object `v` (at `at`) lacks. Values that are not
/// objects are left to the type checks.
fn require(doc: &Doc, sink: &mut Sink, v: &Value, at: &Ptr, names: &[&str]) {
    let Some(obj) = v.as_object() else { return };
    for name in names {
        if obj.member(name).is_none() {
            let pointer = at.spell();
            let pointer = if pointer.is_empty() {
                "/".to_owned()
            } else {
                pointer
            };
            doc.push(sink, Code::GLTF_REQUIRED, &pointer, || {
                format!("`{name}` is required here and missing")
            });
        }
    }
}

/// Reports member `key` of `v` when it is an empty array or object.
fn non_empty(doc: &Doc, sink: &mut Sink, v: &Value, at: &Ptr, key: &str) {
    let empty = match v.member(key) {
        Some(Value::Array(a)) => a.is_empty(),
        Some(Value::Object(o)) => o.is_empty(),
        _ => false,
    };
    if empty {
        let ptr = at.key(key).spell();
        doc.push(sink, Code::GLTF_EMPTY_ARRAY, &ptr, || {
            format!("`{key}` is empty; leave it out instead")
        });
    }
}

fn type_mismatch(doc: &Doc, sink: &mut Sink, at: &Ptr, want: &str) {
    let code = Code::GLTF_JSON;
    let pointer = at.spell();
    sink.push(code, || {
        let mut d = crate::diagnostic::Diagnostic::new(
            code,
            format!("{pointer} is not {want}"),
            doc.at(&pointer),
        );
        d.khronos = vec!["TYPE_MISMATCH"];
        d
    });
}

/// Member `key` of `v` (at `at`), when present, must be an array of objects: a value
/// of another type is `TYPE_MISMATCH`, and elements that are not objects one
/// `ARRAY_TYPE_MISMATCH` at the array (the official pointer), naming the first.
fn list_of_objects(doc: &Doc, sink: &mut Sink, v: &Value, at: &Ptr, key: &str) {
    let at = at.key(key);
    match v.member(key) {
        None => {}
        Some(Value::Array(items)) => {
            if let Some(i) = items.iter().position(|x| !x.is_object()) {
                let code = Code::GLTF_JSON;
                let ptr = at.spell();
                sink.push(code, || {
                    let mut d = crate::diagnostic::Diagnostic::new(
                        code,
                        format!("{ptr}/{i} is not an object"),
                        doc.at(&ptr),
                    );
                    d.khronos = vec!["ARRAY_TYPE_MISMATCH"];
                    d
                });
            }
        }
        Some(_) => type_mismatch(doc, sink, &at, "an array"),
    }
}

/// Runs the checks of the module comment over the document `root`.
pub(crate) fn check_all(root: &Value, doc: &Doc, sink: &mut Sink) {
    let top = Ptr::ROOT;
    require(doc, sink, root, &top, &["asset"]);
    if let Some(asset) = root.member("asset") {
        require(doc, sink, asset, &top.key("asset"), &["version"]);
    }
    for key in COLLECTIONS {
        let list = top.key(key);
        match root.get(*key) {
            None | Some(Value::Array(_)) => {}
            Some(_) => type_mismatch(doc, sink, &list, "an array"),
        }
        for (i, v) in array(root, key).iter().enumerate() {
            if !v.is_object() {
                type_mismatch(doc, sink, &list.index(i), "an object");
            }
        }
    }
    if let Some(ext) = root.member("extensions").and_then(Value::as_object) {
        let exts = top.key("extensions");
        for (name, _) in ext.iter().filter(|(_, v)| !v.is_object()) {
            type_mismatch(doc, sink, &exts.key(name), "an object");
        }
    }
    accessors(root, doc, sink);
    animations(root, doc, sink);
    buffers(root, doc, sink);
    meshes(root, doc, sink);
    let list = top.key("nodes");
    for (n, node) in array(root, "nodes").iter().enumerate() {
        non_empty(doc, sink, node, &list.index(n), "children");
    }
    let list = top.key("scenes");
    for (s, scene) in array(root, "scenes").iter().enumerate() {
        non_empty(doc, sink, scene, &list.index(s), "nodes");
    }
    let list = top.key("skins");
    for (s, skin) in array(root, "skins").iter().enumerate() {
        require(doc, sink, skin, &list.index(s), &["joints"]);
    }
}

/// The members every accessor, and its sparse storage, must have.
fn accessors(root: &Value, doc: &Doc, sink: &mut Sink) {
    let top = Ptr::ROOT;
    let list = top.key("accessors");
    for (i, a) in array(root, "accessors").iter().enumerate() {
        let base = list.index(i);
        require(doc, sink, a, &base, &["componentType", "count", "type"]);
        if let Some(sparse) = a.member("sparse") {
            let base = base.key("sparse");
            require(doc, sink, sparse, &base, &["count", "indices", "values"]);
            if let Some(ix) = sparse.member("indices") {
                require(
                    doc,
                    sink,
                    ix,
                    &base.key("indices"),
                    &["bufferView", "componentType"],
                );
            }
            if let Some(vals) = sparse.member("values") {
                require(doc, sink, vals, &base.key("values"), &["bufferView"]);
            }
        }
    }
}

/// The members every animation, channel, target and sampler must have; an
/// animation's channels and samplers are non-empty.
fn animations(root: &Value, doc: &Doc, sink: &mut Sink) {
    let top = Ptr::ROOT;
    let list = top.key("animations");
    for (i, a) in array(root, "animations").iter().enumerate() {
        let base = list.index(i);
        require(doc, sink, a, &base, &["channels", "samplers"]);
        non_empty(doc, sink, a, &base, "channels");
        non_empty(doc, sink, a, &base, "samplers");
        let channels = base.key("channels");
        for (c, ch) in members(a, "channels").iter().enumerate() {
            let cb = channels.index(c);
            require(doc, sink, ch, &cb, &["sampler", "target"]);
            if let Some(t) = ch.member("target") {
                require(doc, sink, t, &cb.key("target"), &["path"]);
            }
        }
        let samplers = base.key("samplers");
        for (s, sm) in members(a, "samplers").iter().enumerate() {
            require(doc, sink, sm, &samplers.index(s), &["input", "output"]);
        }
    }
}

/// The members every buffer and buffer view must have, and a byteLength of at least 1.
fn buffers(root: &Value, doc: &Doc, sink: &mut Sink) {
    let top = Ptr::ROOT;
    for (key, what) in [("buffers", "buffer"), ("bufferViews", "buffer view")] {
        let names: &[&str] = if key == "buffers" {
            &["byteLength"]
        } else {
            &["buffer", "byteLength"]
        };
        let list = top.key(key);
        for (i, b) in array(root, key).iter().enumerate() {
            let base = list.index(i);
            require(doc, sink, b, &base, names);
            if b.member("byteLength").and_then(Value::as_u64) == Some(0) {
                super::push_as(
                    doc,
                    sink,
                    Code::GLTF_VALUE_RANGE,
                    "VALUE_NOT_IN_RANGE",
                    &base.key("byteLength").spell(),
                    || format!("{what} {i} has byteLength 0; it must be at least 1"),
                );
            }
        }
    }
}

/// The members every mesh and primitive must have; primitives, attributes and
/// targets are non-empty (a morph target not an empty object), attributes an object.
fn meshes(root: &Value, doc: &Doc, sink: &mut Sink) {
    let top = Ptr::ROOT;
    let list = top.key("meshes");
    for (m, mesh) in array(root, "meshes").iter().enumerate() {
        let base = list.index(m);
        require(doc, sink, mesh, &base, &["primitives"]);
        non_empty(doc, sink, mesh, &base, "primitives");
        list_of_objects(doc, sink, mesh, &base, "primitives");
        let prims = base.key("primitives");
        for (p, prim) in members(mesh, "primitives").iter().enumerate() {
            let pb = prims.index(p);
            require(doc, sink, prim, &pb, &["attributes"]);
            non_empty(doc, sink, prim, &pb, "attributes");
            if prim.member("targets").is_some_and(Value::is_array) {
                non_empty(doc, sink, prim, &pb, "targets");
            }
            if prim.member("attributes").is_some_and(|a| !a.is_object()) {
                type_mismatch(doc, sink, &pb.key("attributes"), "an object");
            }
            list_of_objects(doc, sink, prim, &pb, "targets");
            let targets = pb.key("targets");
            for (t, target) in members(prim, "targets").iter().enumerate() {
                if target.as_object().is_some_and(serde_json::Map::is_empty) {
                    let ptr = targets.index(t).spell();
                    doc.push(sink, Code::GLTF_EMPTY_ARRAY, &ptr, || {
                        format!("morph target {t} is an empty object")
                    });
                }
            }
        }
    }
}
