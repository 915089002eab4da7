//! The document's structure the skinning data depends on: arrays the schema says are
//! non-empty, references that resolve, byte strides, and the node forest (one parent at
//! most, no cycle, scenes listing roots). Every check is linear in the document and
//! walks without recursion, whatever the depth of the tree.

use dashvertex_gltf::Gltf;
use dashvertex_gltf::document::{self, component};

use super::Doc;
use super::checks;
use crate::codes::Code;
use crate::sink::Sink;

/// The arrays the glTF schema gives `minItems: 1`.
const NON_EMPTY: &[&str] = &[
    "accessors",
    "animations",
    "buffers",
    "bufferViews",
    "cameras",
    "extensionsRequired",
    "extensionsUsed",
    "images",
    "materials",
    "meshes",
    "nodes",
    "samplers",
    "scenes",
    "skins",
    "textures",
];

/// Structure the skinning data depends on: non-empty arrays, references that resolve,
/// a node forest, byte strides. Every check is linear in the document. Gives the nodes
/// the forest rule broke (listed as the child of a second node, or on a cycle), already
/// reported as `GLTF_NODE_HIERARCHY`.
pub(super) fn structure(gltf: &Gltf, doc: &Doc, sink: &mut Sink) -> Vec<bool> {
    empty_arrays(gltf, doc, sink);
    strides(gltf, doc, sink);
    let (parent, mut broken) = forest(gltf, doc, sink);
    cycles(&parent, &mut broken, doc, sink);
    scene_roots(gltf, &parent, doc, sink);
    let n_nodes = gltf.root.nodes.len();
    for (s, skin) in gltf.root.skins.iter().enumerate() {
        if let Some(k) = skin.skeleton.filter(|&k| k >= n_nodes as u64) {
            missing(
                doc,
                sink,
                format!("/skins/{s}/skeleton"),
                "node",
                k,
                n_nodes,
            );
        }
    }
    broken
}

/// `GLTF_REFERENCE`: `what` `index` at `pointer` names none of the `have` defined.
fn missing(doc: &Doc, sink: &mut Sink, pointer: String, what: &str, index: u64, have: usize) {
    doc.push(sink, Code::GLTF_REFERENCE, &pointer, || {
        format!("{what} {index} does not exist ({have} defined)")
    });
}

/// `GLTF_EMPTY_ARRAY` for each array of [`NON_EMPTY`] present with no element.
fn empty_arrays(gltf: &Gltf, doc: &Doc, sink: &mut Sink) {
    if let Some(obj) = gltf.value.as_object() {
        for key in NON_EMPTY {
            if obj
                .get(*key)
                .and_then(|v| v.as_array())
                .is_some_and(Vec::is_empty)
            {
                doc.push(sink, Code::GLTF_EMPTY_ARRAY, &format!("/{key}"), || {
                    format!("`{key}` is an empty array")
                });
            }
        }
    }
}

/// Buffer views: their buffer exists, their byteStride is valid and not past their
/// length; accessors: the stride of their view fits their elements.
fn strides(gltf: &Gltf, doc: &Doc, sink: &mut Sink) {
    let root = &gltf.root;
    let n_buffers = root.buffers.len();
    for (i, v) in root.buffer_views.iter().enumerate() {
        if v.buffer >= n_buffers as u64 {
            missing(
                doc,
                sink,
                format!("/bufferViews/{i}/buffer"),
                "buffer",
                v.buffer,
                n_buffers,
            );
        }
        if let Some(stride) = v.byte_stride.filter(|&s| !document::byte_stride_valid(s)) {
            let khronos = if (4..=252).contains(&stride) {
                "VALUE_MULTIPLE_OF"
            } else {
                "VALUE_NOT_IN_RANGE"
            };
            checks::push_as(
                doc,
                sink,
                Code::GLTF_BYTE_STRIDE,
                khronos,
                &format!("/bufferViews/{i}/byteStride"),
                || format!("buffer view {i}: byteStride {stride} is not a multiple of 4 in 4…252"),
            );
        } else if let Some(stride) = v.byte_stride.filter(|&s| s > v.byte_length) {
            doc.push(
                sink,
                Code::GLTF_BYTE_STRIDE,
                &format!("/bufferViews/{i}/byteStride"),
                || {
                    format!(
                        "buffer view {i}: byteStride {stride} is larger than its byteLength {}",
                        v.byte_length
                    )
                },
            );
        }
    }
    for (i, a) in root.accessors.iter().enumerate() {
        let Some(view) = a.buffer_view else { continue };
        let Some(stride) = usize::try_from(view)
            .ok()
            .and_then(|v| root.buffer_views.get(v))
            .and_then(|v| v.byte_stride)
            .filter(|&s| document::byte_stride_valid(s))
        else {
            continue;
        };
        let (Some(size), Some(n)) = (
            component::size(a.component_type),
            document::components(&a.kind),
        ) else {
            continue;
        };
        if stride < size * n || stride % size != 0 {
            doc.push(sink, Code::GLTF_BYTE_STRIDE, &format!("/accessors/{i}"), || {
                format!(
                    "accessor {i}: the byteStride {stride} of buffer view {view} does not fit {} {} elements of {} bytes",
                    a.kind,
                    component::name(a.component_type),
                    size * n
                )
            });
        }
    }
}

/// Each node's parent, and the nodes the forest rule broke so far: a child of a second
/// node (`GLTF_NODE_HIERARCHY`). Meshes, skins and children that nodes name must exist.
fn forest(gltf: &Gltf, doc: &Doc, sink: &mut Sink) -> (Vec<Option<usize>>, Vec<bool>) {
    let root = &gltf.root;
    let n_nodes = root.nodes.len();
    let mut parent: Vec<Option<usize>> = vec![None; n_nodes];
    let mut broken = vec![false; n_nodes];
    for (p, node) in root.nodes.iter().enumerate() {
        if let Some(m) = node.mesh.filter(|&m| m >= root.meshes.len() as u64) {
            missing(
                doc,
                sink,
                format!("/nodes/{p}/mesh"),
                "mesh",
                m,
                root.meshes.len(),
            );
        }
        if let Some(s) = node.skin.filter(|&s| s >= root.skins.len() as u64) {
            missing(
                doc,
                sink,
                format!("/nodes/{p}/skin"),
                "skin",
                s,
                root.skins.len(),
            );
        }
        for (k, &c) in node.children.iter().enumerate() {
            let ptr = format!("/nodes/{p}/children/{k}");
            match usize::try_from(c).ok().and_then(|c| parent.get_mut(c)) {
                None => missing(doc, sink, ptr, "node", c, n_nodes),
                Some(slot @ None) => *slot = Some(p),
                Some(Some(first)) => {
                    let first = *first;
                    if let Some(b) = usize::try_from(c).ok().and_then(|c| broken.get_mut(c)) {
                        *b = true;
                    }
                    doc.push(sink, Code::GLTF_NODE_HIERARCHY, &ptr, || {
                        format!("node {c} is a child of node {first} and again of node {p}")
                    });
                }
            }
        }
    }
    (parent, broken)
}

/// `GLTF_NODE_HIERARCHY` once per cycle of parent links, its members marked `broken`:
/// a colour walk up the parent links, 1 = on the current path, 2 = known acyclic.
fn cycles(parent: &[Option<usize>], broken: &mut [bool], doc: &Doc, sink: &mut Sink) {
    let n_nodes = parent.len();
    let mut state = vec![0u8; n_nodes];
    for start in 0..n_nodes {
        let mut path = Vec::new();
        let mut cur = Some(start);
        while let Some(c) = cur {
            match state.get(c).copied() {
                Some(0) => {
                    if let Some(s) = state.get_mut(c) {
                        *s = 1;
                    }
                    path.push(c);
                    cur = parent.get(c).copied().flatten();
                }
                Some(1) => {
                    // One diagnostic per cycle, at the node array, naming its members
                    // (the official validator reports each member separately).
                    let from = path.iter().position(|&n| n == c).unwrap_or(0);
                    let members = path.get(from..).unwrap_or_default();
                    for &m in members {
                        if let Some(b) = broken.get_mut(m) {
                            *b = true;
                        }
                    }
                    let mut names: Vec<String> =
                        members.iter().take(8).map(|n| n.to_string()).collect();
                    if members.len() > 8 {
                        names.push(format!("… ({} nodes)", members.len()));
                    }
                    doc.push(sink, Code::GLTF_NODE_HIERARCHY, "/nodes", || {
                        format!(
                            "nodes {} form a cycle: each is its own ancestor",
                            names.join(", ")
                        )
                    });
                    break;
                }
                _ => break,
            }
        }
        for n in path {
            if let Some(s) = state.get_mut(n) {
                *s = 2;
            }
        }
    }
}

/// A scene lists existing nodes, and only roots.
fn scene_roots(gltf: &Gltf, parent: &[Option<usize>], doc: &Doc, sink: &mut Sink) {
    let (root, n_nodes) = (&gltf.root, parent.len());
    for (s, scene) in root.scenes.iter().enumerate() {
        for (k, &n) in scene.nodes.iter().enumerate() {
            let ptr = format!("/scenes/{s}/nodes/{k}");
            match usize::try_from(n).ok().and_then(|n| parent.get(n)) {
                None => missing(doc, sink, ptr, "node", n, n_nodes),
                Some(Some(p)) => doc.push(sink, Code::GLTF_NODE_HIERARCHY, &ptr, || {
                    format!(
                        "scene {s} lists node {n}, which is not a root (its parent is node {p})"
                    )
                }),
                Some(None) => {}
            }
        }
    }
}

/// For each node, whether it or an ancestor (along first parents) is `broken`: its
/// ancestry is not well defined, so root checks on it would repeat the hierarchy error.
/// Each node is walked once (paths are remembered), no recursion.
pub(super) fn below_broken(parents: &[Option<u64>], broken: &[bool]) -> Vec<bool> {
    let n = parents.len();
    let mut known: Vec<Option<bool>> = vec![None; n];
    let mut path = Vec::new();
    for start in 0..n {
        path.clear();
        let mut cur = Some(start);
        let result = loop {
            let Some(c) = cur else { break false };
            if let Some(Some(k)) = known.get(c) {
                break *k;
            }
            path.push(c);
            // (A walk longer than the nodes is on a cycle, which structure marks broken.)
            if broken.get(c).copied().unwrap_or(false) || path.len() > n {
                break true;
            }
            cur = parents
                .get(c)
                .copied()
                .flatten()
                .and_then(|p| usize::try_from(p).ok());
        };
        for &p in &path {
            if let Some(k) = known.get_mut(p) {
                *k = Some(result);
            }
        }
    }
    known.into_iter().map(|k| k.unwrap_or(false)).collect()
}

/// The root of each node's tree (along first parents); `None` below a cycle. Each node
/// is walked once, no recursion.
pub(super) fn tree_roots(parents: &[Option<u64>]) -> Vec<Option<usize>> {
    let n = parents.len();
    let mut known: Vec<Option<Option<usize>>> = vec![None; n];
    let mut path = Vec::new();
    for start in 0..n {
        path.clear();
        let mut cur = start;
        let result = loop {
            if let Some(Some(k)) = known.get(cur) {
                break *k;
            }
            if path.len() > n {
                break None;
            }
            path.push(cur);
            match parents
                .get(cur)
                .copied()
                .flatten()
                .and_then(|p| usize::try_from(p).ok())
            {
                Some(p) => cur = p,
                None => break Some(cur),
            }
        };
        for &p in &path {
            if let Some(k) = known.get_mut(p) {
                *k = Some(result);
            }
        }
    }
    known.into_iter().map(Option::flatten).collect()
}
