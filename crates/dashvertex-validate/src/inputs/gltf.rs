//! glTF input: every influence check of the official Khronos validator, with the same
//! semantics, plus the checks it lacks (`spec/validation.md` §7).

use dashvertex_core::InfluenceSet;
use dashvertex_gltf::accessor::{self, AccessorData};
use dashvertex_gltf::skinning::{self, PrimitiveSets};
use dashvertex_gltf::spec::{self, component};
use dashvertex_gltf::{Gltf, LoadError, Resolver};
use dashvertex_json::pointer::Locator;

use super::gltf_checks as checks;
use crate::codes::Code;
use crate::diagnostic::{Diagnostic, Location};
use crate::influences::{Checker, Encoding, Field, Locate, MeshStats, Profile, Scratch};
use crate::options::{JointOrder, Options};
use crate::sink::Sink;

/// Vertices per parallel chunk: large enough that scheduling costs nothing, small
/// enough that two cores share a 100k-vertex mesh.
const VERTEX_CHUNK: usize = 1 << 15;

/// Pointer locations in the document's JSON text.
pub(crate) struct Doc<'a> {
    locator: Locator<'a>,
}

impl Doc<'_> {
    pub(crate) fn at(&self, pointer: &str) -> Location {
        let (line, column) = self.locator.line_col_nearest(pointer);
        Location {
            pointer: Some(pointer.to_owned()),
            line: Some(line as u64),
            column: Some(column as u64),
            ..Location::default()
        }
    }

    pub(crate) fn push(
        &self,
        sink: &mut Sink,
        code: Code,
        pointer: &str,
        message: impl FnOnce() -> String,
    ) {
        sink.push(code, || Diagnostic::new(code, message(), self.at(pointer)));
    }
}

/// Per-vertex locations inside one primitive's influence accessors.
struct PrimLocate<'a> {
    doc: &'a Doc<'a>,
    joints: Vec<(String, &'a AccessorData<'a>)>,
    weights: Vec<(String, &'a AccessorData<'a>)>,
}

impl Locate for PrimLocate<'_> {
    fn slot(&self, v: u64, set: usize, slot: usize, field: Field) -> Location {
        let list = match field {
            Field::Bone => &self.joints,
            Field::Weight => &self.weights,
        };
        let (pointer, data) = match list.get(set) {
            Some((p, d)) => (p.as_str(), Some(*d)),
            None => ("", None),
        };
        Location {
            vertex: Some(v),
            set: u32::try_from(set).ok(),
            slot: u32::try_from(slot).ok(),
            offset: data.and_then(|d| d.offset_of(usize::try_from(v).ok()?, slot)),
            ..self.doc.at(pointer)
        }
    }

    fn weights(&self, v: u64) -> Location {
        let (pointer, data) = match self.weights.first() {
            Some((p, d)) => (p.as_str(), Some(*d)),
            None => ("", None),
        };
        Location {
            vertex: Some(v),
            offset: data.and_then(|d| d.offset_of(usize::try_from(v).ok()?, 0)),
            ..self.doc.at(pointer)
        }
    }

    fn position(&self, v: u64) -> Location {
        self.weights(v)
    }
}

/// Validates a glTF document, returning the profile used and giving back bytes handed
/// over once the checks are done (`None` when they were borrowed, or the document could
/// not be loaded). Bytes handed over (a file read for the purpose) are read in place;
/// borrowed bytes cost a copy of a GLB's binary chunk.
pub fn validate_keeping(
    bytes: std::borrow::Cow<'_, [u8]>,
    resolver: &dyn Resolver,
    opts: &Options,
    sink: &mut Sink,
) -> (Profile, Option<Vec<u8>>) {
    let profile = opts.profile.unwrap_or(Profile::Gltf);
    let loaded = match bytes {
        std::borrow::Cow::Borrowed(b) => dashvertex_gltf::load(b, resolver, &opts.limits),
        std::borrow::Cow::Owned(v) => dashvertex_gltf::load_owned(v, resolver, &opts.limits),
    };
    let gltf = match loaded {
        Ok(g) => g,
        Err(e) => {
            let (code, location, message) = match &e {
                LoadError::Glb { offset, .. } => (
                    Code::GLTF_GLB,
                    Location {
                        offset: Some(*offset),
                        ..Location::default()
                    },
                    e.to_string(),
                ),
                LoadError::Json {
                    pointer,
                    line,
                    column,
                    message,
                } => (
                    Code::GLTF_JSON,
                    Location {
                        pointer: Some(pointer.clone()),
                        line: Some(*line as u64),
                        column: Some(*column as u64),
                        ..Location::default()
                    },
                    // The location is the diagnostic's own; the message need not repeat it.
                    message.clone(),
                ),
                LoadError::Limit(_) => (Code::LIMIT_EXCEEDED, Location::default(), e.to_string()),
                // Reading a file (load_path) is not this path's; any other failure to load.
                _ => (Code::IO_ERROR, Location::default(), e.to_string()),
            };
            sink.push(code, || Diagnostic::new(code, message, location));
            return (profile, None);
        }
    };
    let doc = Doc {
        locator: Locator::new(&gltf.text),
    };
    if gltf.byte_order_mark {
        let code = Code::GLTF_JSON;
        sink.push(code, || {
            Diagnostic::new(
                code,
                "the JSON starts with a UTF-8 byte order mark (bytes EF BB BF); glTF JSON has none"
                    .to_owned(),
                Location {
                    offset: Some(gltf.json_offset),
                    line: Some(1),
                    column: Some(1),
                    ..Location::default()
                },
            )
        });
    }
    checks::buffers::check_all(&gltf, &doc, sink);
    ranges_and_budget(&gltf, &doc, sink);
    let broken = structure(&gltf, &doc, sink);
    checks::required::check_all(&gltf.value, &doc, sink);
    checks::references::check_all(&gltf.value, &doc, sink);
    checks::nodes::check_all(&gltf.value, &doc, sink);
    checks::animations::check_all(&gltf, &doc, opts, sink);
    checks::bounds::check_all(&gltf, &doc, opts, sink);
    checks::buffer_views::check_all(&gltf.value, &doc, sink);
    checks::primitives::check_all(&gltf, &doc, opts, sink);
    checks::accessors::check_all(&gltf.value, &doc, sink);
    checks::attributes::check_all(&gltf.value, &doc, sink);
    checks::morph::check_all(&gltf.value, &doc, sink);
    checks::extensions::check_all(&gltf.value, &doc, sink);
    checks::vertex_views::check_all(&gltf.value, &doc, sink);
    checks::texcoords::check_all(&gltf.value, &doc, sink);
    checks::colors::check_all(&gltf, &doc, opts, sink);
    let tainted = below_broken(&skinning::parents(&gltf.root), &broken);
    skins(&gltf, &doc, &tainted, opts, sink);
    skin_scenes(&gltf, &doc, &tainted, sink);
    accessor_usage(&gltf, &doc, sink);
    for (s, skin) in gltf.root.skins.iter().enumerate() {
        let ptr = format!("/skins/{s}/joints");
        crate::influences::target_joints(
            opts.target,
            skin.joints.len(),
            &|| doc.at(&ptr),
            &format!("skin {s}"),
            sink,
        );
    }
    let prims = skinning::primitive_sets(&gltf.root);
    let users = skinning::mesh_nodes(&gltf.root);
    nodes(&gltf, &doc, &prims, sink);
    // Per skin, once: the joints a manifest bars from weight (shared by its primitives).
    let barred: Vec<Barred> = match &opts.joint_order {
        Some(order) => (0..gltf.root.skins.len())
            .map(|s| barred_joints(&gltf, s, order))
            .collect(),
        None => Vec::new(),
    };
    for p in &prims {
        primitive(&gltf, &doc, p, &users, &barred, profile, opts, sink);
    }
    crate::inputs::gltf_floats::positions(&gltf, &doc, &prims, opts, sink);
    crate::inputs::gltf_floats::animations(&gltf, &doc, opts, sink);
    drop(doc);
    (profile, gltf.into_input())
}

/// `GLTF_BUFFER_VIEW_RANGE` for each buffer view outside its buffer, and
/// `GLTF_ACCESSOR_BUDGET` once for the accessors the element budget refuses (both decided
/// by the reader when the document loaded, spec/security.md [L2] [L3]). The reads these
/// refuse report nothing more.
fn ranges_and_budget(gltf: &Gltf, doc: &Doc, sink: &mut Sink) {
    for e in gltf.view_range_errors() {
        // At the member that leaves the buffer: the offset, when the view starts past it.
        let member = if e.byte_offset >= e.buffer_length {
            "byteOffset"
        } else {
            "byteLength"
        };
        doc.push(
            sink,
            Code::GLTF_BUFFER_VIEW_RANGE,
            &format!("/bufferViews/{}/{member}", e.view),
            || {
                format!(
                    "buffer view {}: byteOffset {} + byteLength {} = {} is past the end of buffer {} (byteLength {})",
                    e.view, e.byte_offset, e.byte_length, e.end, e.buffer, e.buffer_length
                )
            },
        );
    }
    let mut refused = gltf.budget_refused();
    if let Some(first) = refused.next() {
        let more = refused.count();
        doc.push(
            sink,
            Code::GLTF_ACCESSOR_BUDGET,
            &format!("/accessors/{}/count", first.index),
            || {
                format!(
                    "accessor {}: its {} elements, read from {} place(s), take the elements the document's accessors declare to {}, past its budget of {} (2^20 + {} per byte of its {}-byte input); it{} {} not checked",
                    first.index,
                    first.count,
                    first.uses,
                    first.total,
                    first.budget,
                    dashvertex_gltf::budget::PER_BYTE,
                    first.input_bytes,
                    if more > 0 {
                        format!(" and the {more} accessor(s) after it that dash reads")
                    } else {
                        String::new()
                    },
                    if more > 0 { "are" } else { "is" },
                )
            },
        );
    }
}

/// True for a read refused for a cause reported once elsewhere: an unavailable buffer
/// (`GLTF_BUFFER`), a view outside its buffer (`GLTF_BUFFER_VIEW_RANGE`), the element
/// budget (`GLTF_ACCESSOR_BUDGET`).
pub(crate) fn reported_elsewhere(e: &dashvertex_gltf::AccessorError) -> bool {
    matches!(
        e,
        dashvertex_gltf::AccessorError::Buffer { .. }
            | dashvertex_gltf::AccessorError::ViewRange { .. }
            | dashvertex_gltf::AccessorError::Budget(_)
    )
}

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
fn structure(gltf: &Gltf, doc: &Doc, sink: &mut Sink) -> Vec<bool> {
    let root = &gltf.root;
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
    let missing = |sink: &mut Sink, pointer: String, what: &str, index: u64, have: usize| {
        doc.push(sink, Code::GLTF_REFERENCE, &pointer, || {
            format!("{what} {index} does not exist ({have} defined)")
        });
    };
    let (n_buffers, n_nodes) = (root.buffers.len(), root.nodes.len());
    for (i, v) in root.buffer_views.iter().enumerate() {
        if v.buffer >= n_buffers as u64 {
            missing(
                sink,
                format!("/bufferViews/{i}/buffer"),
                "buffer",
                v.buffer,
                n_buffers,
            );
        }
        if let Some(stride) = v.byte_stride.filter(|&s| !spec::byte_stride_valid(s)) {
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
            .filter(|&s| spec::byte_stride_valid(s))
        else {
            continue;
        };
        let (Some(size), Some(n)) = (component::size(a.component_type), spec::components(&a.kind))
        else {
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
    // A node forest: one parent at most, no node its own ancestor.
    let mut parent: Vec<Option<usize>> = vec![None; n_nodes];
    let mut broken = vec![false; n_nodes];
    for (p, node) in root.nodes.iter().enumerate() {
        if let Some(m) = node.mesh.filter(|&m| m >= root.meshes.len() as u64) {
            missing(
                sink,
                format!("/nodes/{p}/mesh"),
                "mesh",
                m,
                root.meshes.len(),
            );
        }
        if let Some(s) = node.skin.filter(|&s| s >= root.skins.len() as u64) {
            missing(
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
                None => missing(sink, ptr, "node", c, n_nodes),
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
    // Colour walk up the parent links: 1 = on the current path, 2 = known acyclic.
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
    for (s, scene) in root.scenes.iter().enumerate() {
        for (k, &n) in scene.nodes.iter().enumerate() {
            let ptr = format!("/scenes/{s}/nodes/{k}");
            match usize::try_from(n).ok().and_then(|n| parent.get(n)) {
                None => missing(sink, ptr, "node", n, n_nodes),
                Some(Some(p)) => doc.push(sink, Code::GLTF_NODE_HIERARCHY, &ptr, || {
                    format!(
                        "scene {s} lists node {n}, which is not a root (its parent is node {p})"
                    )
                }),
                Some(None) => {}
            }
        }
    }
    for (s, skin) in root.skins.iter().enumerate() {
        if let Some(k) = skin.skeleton.filter(|&k| k >= n_nodes as u64) {
            missing(sink, format!("/skins/{s}/skeleton"), "node", k, n_nodes);
        }
    }
    broken
}

/// For each node, whether it or an ancestor (along first parents) is `broken`: its
/// ancestry is not well defined, so root checks on it would repeat the hierarchy error.
/// Each node is walked once (paths are remembered), no recursion.
fn below_broken(parents: &[Option<u64>], broken: &[bool]) -> Vec<bool> {
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
fn tree_roots(parents: &[Option<u64>]) -> Vec<Option<usize>> {
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

/// `NODE_SKIN_NO_SCENE`: a scene that holds a skinned node must hold its joints' root.
/// Skins whose joints have no common root, or whose ancestry the hierarchy error broke,
/// are left to those diagnostics. Each (node tree, joint tree) pair is checked once.
fn skin_scenes(gltf: &Gltf, doc: &Doc, tainted: &[bool], sink: &mut Sink) {
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

/// `ACCESSOR_USAGE_OVERRIDE`: an accessor (or the buffer view it lies in) holds inverse
/// bind matrices and vertex attributes at once. Reported once per skin, at its
/// `inverseBindMatrices`, naming the first attribute that also uses the data.
fn accessor_usage(gltf: &Gltf, doc: &Doc, sink: &mut Sink) {
    let root = &gltf.root;
    if root.skins.iter().all(|s| s.inverse_bind_matrices.is_none()) {
        return;
    }
    let view_of = |a: u64| {
        usize::try_from(a)
            .ok()
            .and_then(|a| root.accessors.get(a))
            .and_then(|a| a.buffer_view)
    };
    // The first vertex attribute reading each accessor and each buffer view.
    let mut by_accessor: std::collections::HashMap<u64, String> = std::collections::HashMap::new();
    let mut by_view: std::collections::HashMap<u64, String> = std::collections::HashMap::new();
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            for (name, v) in &prim.attributes {
                let Some(a) = v.as_u64() else { continue };
                let what = || format!("attribute {name} of mesh {m} primitive {p}");
                by_accessor.entry(a).or_insert_with(what);
                if let Some(view) = view_of(a) {
                    by_view.entry(view).or_insert_with(what);
                }
            }
        }
    }
    for (s, skin) in root.skins.iter().enumerate() {
        let Some(ibm) = skin.inverse_bind_matrices else {
            continue;
        };
        let clash = match by_accessor.get(&ibm) {
            Some(user) => Some(format!("accessor {ibm} is also {user}")),
            None => view_of(ibm).and_then(|v| {
                by_view
                    .get(&v)
                    .map(|user| format!("its buffer view {v} also holds {user}"))
            }),
        };
        if let Some(clash) = clash {
            doc.push(
                sink,
                Code::GLTF_ACCESSOR_USAGE,
                &format!("/skins/{s}/inverseBindMatrices"),
                || format!("skin {s}: the inverse bind matrices are vertex data too: {clash}"),
            );
        }
    }
}

/// True when the accessor's buffer view has a byteStride outside 4…252 or not a
/// multiple of 4 (reported once by [`structure`]).
fn bad_stride(gltf: &Gltf, accessor: u64) -> bool {
    usize::try_from(accessor)
        .ok()
        .and_then(|i| gltf.root.accessors.get(i))
        .and_then(|a| a.buffer_view)
        .and_then(|v| gltf.root.buffer_views.get(usize::try_from(v).ok()?))
        .and_then(|v| v.byte_stride)
        .is_some_and(|s| !spec::byte_stride_valid(s))
}

/// Skin rules: joints, common root, skeleton, inverse bind matrices. The root and
/// skeleton checks skip a skin with a joint below a hierarchy error (`tainted`): that
/// error is the root cause.
fn skins(gltf: &Gltf, doc: &Doc, tainted: &[bool], opts: &Options, sink: &mut Sink) {
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
fn barred_joints(gltf: &Gltf, skin: usize, order: &JointOrder) -> Barred {
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
struct Barred {
    removed: std::sync::Arc<[u32]>,
    foreign: std::sync::Arc<[u32]>,
    names: std::sync::Arc<[String]>,
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
    let strided = acc
        .buffer_view
        .and_then(|v| gltf.root.buffer_views.get(usize::try_from(v).ok()?))
        .is_some_and(|v| v.byte_stride.is_some());
    if acc.kind != "MAT4" || acc.component_type != component::F32 || strided {
        doc.push(sink, Code::GLTF_IBM_FORMAT, &ptr, || {
            format!(
                "skin {s}: inverse bind matrices are {} {}{}; they must be MAT4 FLOAT without byteStride",
                acc.kind,
                component::name(acc.component_type),
                if strided { " with a byteStride" } else { "" }
            )
        });
        return;
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

/// Node rules: skins without meshes or joints, meshes with joints without skins.
fn nodes(gltf: &Gltf, doc: &Doc, prims: &[PrimitiveSets], sink: &mut Sink) {
    for (i, n) in gltf.root.nodes.iter().enumerate() {
        let has_joints = n.mesh.is_some_and(|m| {
            prims
                .iter()
                .any(|p| p.mesh as u64 == m && p.sets.iter().any(|s| s.joints.is_some()))
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
    }
}

fn joints_format_ok(a: &AccessorData) -> bool {
    a.components == 4 && !a.normalized && matches!(a.component_type, component::U8 | component::U16)
}

/// The weight encoding, and whether the accessor's format is valid.
fn weights_format(a: &AccessorData) -> (Option<Encoding>, bool) {
    if a.components != 4 {
        return (None, false);
    }
    match (a.component_type, a.normalized) {
        (component::F32, false) => (Some(Encoding::Float), true),
        (component::F32, true) => (Some(Encoding::Float), false),
        // Read as normalized whatever the flag says, as the official validator does.
        (component::U8, n) => (Some(Encoding::Unorm8), n),
        (component::U16, n) => (Some(Encoding::Unorm16), n),
        _ => (None, false),
    }
}

#[allow(clippy::too_many_arguments)]
fn primitive(
    gltf: &Gltf,
    doc: &Doc,
    p: &PrimitiveSets,
    users: &[Vec<usize>],
    barred: &[Barred],
    profile: Profile,
    opts: &Options,
    sink: &mut Sink,
) {
    let base = p.pointer();
    // Names and continuity.
    for name in &p.malformed {
        doc.push(
            sink,
            Code::GLTF_SET_CONTINUITY,
            &p.attribute_pointer(name),
            || format!("attribute {name} is not a valid JOINTS_n / WEIGHTS_n name"),
        );
    }
    let mut blocked = !p.malformed.is_empty();
    for (i, s) in p.sets.iter().enumerate() {
        if s.n as usize != i {
            blocked = true;
            let name = if s.joints.is_some() {
                "JOINTS"
            } else {
                "WEIGHTS"
            };
            doc.push(
                sink,
                Code::GLTF_SET_CONTINUITY,
                &p.attribute_pointer(&format!("{name}_{}", s.n)),
                || {
                    format!(
                        "{name}_{} follows set {}; sets must start at 0 without gaps",
                        s.n,
                        i.saturating_sub(1)
                    )
                },
            );
            break;
        }
    }
    for s in &p.sets {
        if s.joints.is_none() || s.weights.is_none() {
            blocked = true;
            let (have, miss) = if s.joints.is_some() {
                ("JOINTS", "WEIGHTS")
            } else {
                ("WEIGHTS", "JOINTS")
            };
            doc.push(
                sink,
                Code::GLTF_SET_MISMATCH,
                &format!("{base}/attributes"),
                || format!("{have}_{} has no {miss}_{}", s.n, s.n),
            );
        }
    }
    if blocked {
        return;
    }
    // Read every set's accessors and check their formats.
    let mut joints = Vec::new();
    let mut weights = Vec::new();
    let mut encodings = Vec::new();
    for s in &p.sets {
        for (name, acc, is_joints) in [("JOINTS", s.joints, true), ("WEIGHTS", s.weights, false)] {
            let attr = format!("{name}_{}", s.n);
            let ptr = p.attribute_pointer(&attr);
            let Some(index) = acc else { continue };
            let data = match accessor::read(gltf, index, &opts.limits) {
                Ok(d) => d,
                Err(e) => {
                    blocked = true;
                    // An unavailable buffer was reported once, as GLTF_BUFFER (or a
                    // missing one as GLTF_REFERENCE), a bad stride as GLTF_BYTE_STRIDE.
                    if !reported_elsewhere(&e) && !bad_stride(gltf, index) {
                        doc.push(sink, Code::GLTF_ACCESSOR_DATA, &ptr, || {
                            format!("{attr}: {e}")
                        });
                    }
                    continue;
                }
            };
            let acc_meta = usize::try_from(index)
                .ok()
                .and_then(|i| gltf.root.accessors.get(i));
            if !is_joints && acc_meta.is_some_and(|a| a.buffer_view.is_none() && a.sparse.is_none())
            {
                // One root cause: every weight is zero, so every vertex would fail.
                blocked = true;
                doc.push(sink, Code::GLTF_ACCESSOR_NO_DATA, &ptr, || {
                    format!(
                        "{attr}: accessor {index} has neither bufferView nor sparse data, so all {} weights are zero",
                        data.count
                    )
                });
                continue;
            }
            let strided = acc_meta
                .and_then(|a| a.buffer_view)
                .and_then(|v| gltf.root.buffer_views.get(usize::try_from(v).ok()?))
                .and_then(|v| v.byte_stride);
            if acc_meta.is_some_and(|a| a.byte_offset % 4 != 0)
                || strided.is_some_and(|s| s % 4 != 0)
            {
                doc.push(sink, Code::GLTF_ACCESSOR_ALIGNMENT, &ptr, || {
                    format!(
                        "{attr}: accessor {index}'s byteOffset or byteStride is not a multiple of 4"
                    )
                });
            }
            if is_joints {
                if !joints_format_ok(&data) {
                    blocked = true;
                    let t = accessor_kind(gltf, index);
                    doc.push(sink, Code::GLTF_JOINTS_FORMAT, &ptr, || {
                        format!(
                            "{attr} is {t} {}{}; joints must be VEC4 UNSIGNED_BYTE or UNSIGNED_SHORT (data not checked)",
                            component::name(data.component_type),
                            if data.normalized { " normalized" } else { "" }
                        )
                    });
                }
                joints.push((ptr, data));
            } else {
                let (enc, ok) = weights_format(&data);
                if !ok {
                    let t = accessor_kind(gltf, index);
                    let code = Code::GLTF_WEIGHTS_FORMAT;
                    doc.push(sink, code, &ptr, || {
                        format!(
                            "{attr} is {t} {}{}; weights must be VEC4 FLOAT or normalized UNSIGNED_BYTE / UNSIGNED_SHORT",
                            component::name(data.component_type),
                            if data.normalized { " normalized" } else { "" }
                        )
                    });
                }
                match enc {
                    Some(e) => encodings.push(e),
                    None => blocked = true,
                }
                weights.push((ptr, data));
            }
        }
    }
    if blocked {
        return;
    }
    // Every attribute of the primitive has the same count.
    let mut counts: Vec<(String, u64)> = Vec::new();
    for (name, acc) in &p.attributes {
        if let Some(a) = acc.and_then(|i| gltf.root.accessors.get(usize::try_from(i).ok()?)) {
            counts.push((name.clone(), a.count));
        }
    }
    if let Some((first_name, first)) = counts.first().cloned()
        && let Some((name, n)) = counts.iter().find(|(_, n)| *n != first)
    {
        doc.push(
            sink,
            Code::GLTF_COUNT_MISMATCH,
            &p.attribute_pointer(name),
            || {
                format!(
                    "{name} has {n} elements but {first_name} has {first}; influences not checked"
                )
            },
        );
        return;
    }
    let encoding = encodings.first().copied().unwrap_or(Encoding::Float);
    // Which skin limits the joint range.
    let mesh_users = users.get(p.mesh).map(Vec::as_slice).unwrap_or_default();
    let limit = skinning::limiting_skin(&gltf.root, mesh_users);
    if limit.is_none() {
        doc.push(sink, Code::BONE_RANGE_UNCHECKED, &base, || {
            format!(
                "mesh {} is used by no node with a skin: joint indices were not range-checked (the other checks ran)",
                p.mesh
            )
        });
    }
    let count = joints.first().map_or(0, |(_, d)| d.count);
    let nsets = p.sets.len();
    let uniform = encodings.iter().all(|&e| e == encoding);
    let Barred {
        removed,
        foreign,
        names,
    } = limit
        .and_then(|(skin, _)| barred.get(skin))
        .cloned()
        .unwrap_or_default();
    let checker = Checker {
        profile,
        bones: limit.map(|(_, n)| n as u64),
        removed,
        foreign,
        names,
        skinned: true,
        encoding: if uniform { encoding } else { Encoding::Float },
        target: opts.target,
    };
    let loc = PrimLocate {
        doc,
        joints: joints.iter().map(|(p, d)| (p.clone(), d)).collect(),
        weights: weights.iter().map(|(p, d)| (p.clone(), d)).collect(),
    };
    // Vertices in chunks, checked in parallel, each into its own sink; the sinks are
    // appended in vertex order, so the report is the same at any thread count.
    let max = checker.encoding.max();
    let chunk_report = |chunk: usize| {
        let mut sink = sink.fork();
        let mut stats = MeshStats::default();
        let mut scratch = Scratch::default();
        let mut sets = vec![InfluenceSet::ZERO; nsets];
        let mut raw = vec![[0u32; 4]; nsets];
        let end = count.min((chunk + 1) * VERTEX_CHUNK);
        for v in chunk * VERTEX_CHUNK..end {
            for (s, (set, r)) in sets.iter_mut().zip(raw.iter_mut()).enumerate() {
                let (Some((_, jd)), Some((_, wd)), Some(enc)) =
                    (joints.get(s), weights.get(s), encodings.get(s))
                else {
                    continue;
                };
                let w = wd.get4(v);
                // Accessor values widened to f64: joints are u8/u16 integers (the format is
                // checked first), weights a float or a normalized integer's value.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let (to_u32, to_f32) = (|x: f64| x as u32, |x: f64| x as f32);
                set.joints = jd.get4(v).map(to_u32);
                match enc.max() {
                    Some(m) => {
                        set.weights = w.map(|x| to_f32(x / f64::from(m)));
                        *r = w.map(to_u32);
                    }
                    None => {
                        set.weights = w.map(to_f32);
                        *r = [0; 4];
                    }
                }
            }
            checker.vertex(
                v as u64,
                &sets,
                max.map(|_| raw.as_slice()),
                &loc,
                &mut sink,
                &mut stats,
                &mut scratch,
            );
        }
        (sink, stats)
    };
    let chunks: Vec<(Sink, MeshStats)> = {
        use rayon::prelude::*;
        (0..count.div_ceil(VERTEX_CHUNK))
            .into_par_iter()
            .map(chunk_report)
            .collect()
    };
    let mut stats = MeshStats::default();
    for (s, st) in chunks {
        sink.append(s);
        stats.append(st);
    }
    checker.mesh(
        &stats,
        nsets,
        None,
        &|s| doc.at(&p.attribute_pointer(&format!("WEIGHTS_{s}"))),
        sink,
    );
}

/// The `type` of accessor `index` (empty when there is none).
fn accessor_kind(gltf: &Gltf, index: u64) -> String {
    gltf.root
        .accessors
        .get(usize::try_from(index).unwrap_or(usize::MAX))
        .map(|a| a.kind.clone())
        .unwrap_or_default()
}
