//! The glTF rewrite of one split (mesh, skin) pair (`spec/split.md` §5): parts whose
//! joints fit together share a mesh, and each mesh gets a skin (the subset of the
//! original joint nodes, their inverse bind matrices copied) and a node beside each
//! node that drew the original. The first mesh and skin take the original's places
//! when nothing else uses them; the original node draws the first mesh.

use serde_json::{Value, json};

use dashvertex_gltf::Gltf;
use dashvertex_gltf::export::{Editor, ExportError};
use dashvertex_gltf::skinning::PrimitiveSets;

use crate::partition::{MERGE_CANDIDATES, Part};
use crate::read::{PartInfluences, Read};

/// One skinned primitive of the pair's mesh, split.
pub struct Cut<'a> {
    /// Its influence attributes.
    pub sets: &'a PrimitiveSets,
    /// What was read (with `reduce`'s changes).
    pub read: &'a Read,
    /// Its parts.
    pub parts: &'a [Part],
    /// One part over every vertex: the vertex data stays, only influences are written.
    pub whole: bool,
}

/// Parts drawn with one skin, in one mesh.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Group {
    /// The skin's joints (original joint indices, ascending).
    pub joints: Vec<u32>,
    /// `(cut, part)` in order.
    pub members: Vec<(usize, usize)>,
}

/// Where one part went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    /// Output mesh.
    pub mesh: usize,
    /// Primitive in it.
    pub primitive: usize,
    /// Output skin.
    pub skin: usize,
    /// Vertices written.
    pub vertices: usize,
    /// Joints of the skin.
    pub skin_joints: usize,
}

/// What the rewrite needs to know of the node tree, gathered once per document: each
/// node's parent, the scenes that list a root node, and the `weights` channels that
/// drive a node.
pub struct Tree {
    /// Parent of each node.
    pub parents: Vec<Option<u64>>,
    /// Per root node, the scenes listing it.
    pub scenes: std::collections::BTreeMap<usize, Vec<usize>>,
    /// Per node, `(animation, channel JSON)` of the `weights` channels that target it.
    pub weights: std::collections::BTreeMap<usize, Vec<(usize, Value)>>,
}

impl Tree {
    /// Gathers the tree of `gltf`.
    pub fn new(gltf: &Gltf) -> Tree {
        let mut scenes: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
        for (s, scene) in gltf.root.scenes.iter().enumerate() {
            for &n in &scene.nodes {
                if let Ok(n) = usize::try_from(n) {
                    let l = scenes.entry(n).or_default();
                    if l.last() != Some(&s) {
                        l.push(s);
                    }
                }
            }
        }
        let mut weights: std::collections::BTreeMap<usize, Vec<(usize, Value)>> =
            Default::default();
        let anims = gltf.value.get("animations").and_then(Value::as_array);
        for (a, anim) in anims.into_iter().flatten().enumerate() {
            for c in anim
                .get("channels")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let node = c.pointer("/target/node").and_then(Value::as_u64);
                if let Some(n) = node.and_then(|n| usize::try_from(n).ok())
                    && c.pointer("/target/path").and_then(Value::as_str) == Some("weights")
                {
                    weights.entry(n).or_default().push((a, c.clone()));
                }
            }
        }
        Tree {
            parents: dashvertex_gltf::skinning::parents(&gltf.root),
            scenes,
            weights,
        }
    }
}

/// Per cut and part, where it went (`None` for a part no group held).
pub type Placements = Vec<Vec<Option<Placed>>>;

/// Sorted union of two sorted lists.
fn union(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut u: Vec<u32> = a.iter().chain(b).copied().collect();
    u.sort_unstable();
    u.dedup();
    u
}

/// Puts parts into groups, in `(cut, part)` order: each into the first of the first
/// [`MERGE_CANDIDATES`] groups its joints fit with, else a new group.
pub fn group(cuts: &[Cut<'_>], max: usize) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for (c, cut) in cuts.iter().enumerate() {
        for (k, part) in cut.parts.iter().enumerate() {
            let fit = groups
                .iter()
                .take(MERGE_CANDIDATES)
                .position(|g| union(&g.joints, &part.joints).len() <= max);
            match fit.and_then(|i| groups.get_mut(i)) {
                Some(g) => {
                    g.joints = union(&g.joints, &part.joints);
                    g.members.push((c, k));
                }
                None => groups.push(Group {
                    joints: part.joints.clone(),
                    members: vec![(c, k)],
                }),
            }
        }
    }
    groups
}

/// The pair being written.
pub struct Pair<'a> {
    /// The mesh.
    pub mesh: usize,
    /// The skin.
    pub skin: usize,
    /// The nodes that draw the mesh with the skin.
    pub users: &'a [usize],
    /// Whether the first group takes the mesh's place (nothing else draws it).
    pub reuse_mesh: bool,
    /// Whether the first group takes the skin's place (no earlier pair took it).
    pub reuse_skin: bool,
}

/// A copy of `v` with member `key` set to `x`.
fn with(v: &Value, key: &str, x: Value) -> Value {
    let mut v = v.clone();
    if let Some(o) = v.as_object_mut() {
        o.insert(key.into(), x);
    }
    v
}

/// `name` with ".partK" appended (no name stays none).
fn suffixed(v: &mut Value, k: usize) {
    if let Some(o) = v.as_object_mut()
        && let Some(Value::String(n)) = o.get("name").cloned()
    {
        o.insert("name".into(), json!(format!("{n}.part{k}")));
    }
}

/// Writes the primitive of part `part` of `cut` (original JSON `orig`) into new
/// accessors, with joints renumbered by `local`; returns its JSON and vertex count.
fn part_primitive(
    ed: &mut Editor<'_>,
    orig: &Value,
    cut: &Cut<'_>,
    part: &Part,
    local: &[u32],
    scratch: &mut Vec<u32>,
) -> Result<(Value, usize), ExportError> {
    let read = cut.read;
    let mut prim = orig.clone();
    // The primitive's Draco stream holds its whole old data: no part may keep it.
    if dashvertex_gltf::compressed::strip_draco(&mut prim) {
        ed.note(format!(
            "mesh {} primitive {}: its {} stream held the primitive's data before the split and was dropped from every part; the plain accessors hold each part's data",
            cut.sets.mesh,
            cut.sets.primitive,
            dashvertex_gltf::compressed::DRACO
        ));
    }
    for (name, acc) in &cut.sets.attributes {
        if let Some(a) = acc
            && (name.starts_with("JOINTS_") || name.starts_with("WEIGHTS_") || !cut.whole)
        {
            ed.mark_replaced(*a);
        }
    }
    if cut.whole {
        let all: Vec<u32> = (0..u32::try_from(read.vertices).unwrap_or(u32::MAX)).collect();
        let src = PartInfluences {
            stored: &read.stored,
            vertices: &all,
            local,
        };
        let new = ed.influence_accessors(&src)?;
        if let Some(attrs) = prim.get_mut("attributes").and_then(Value::as_object_mut) {
            attrs.retain(|k, _| !k.starts_with("JOINTS_") && !k.starts_with("WEIGHTS_"));
            for (k, a) in new {
                attrs.insert(k, json!(a));
            }
        }
        return Ok((prim, read.vertices));
    }
    let (vertices, indices) = part_vertices(read, part, scratch);
    let mut attrs = serde_json::Map::new();
    for (name, acc) in &cut.sets.attributes {
        if name.starts_with("JOINTS_") || name.starts_with("WEIGHTS_") {
            continue;
        }
        if let Some(a) = acc {
            attrs.insert(name.clone(), json!(ed.gather(*a, &vertices, true)?));
        }
    }
    let src = PartInfluences {
        stored: &read.stored,
        vertices: &vertices,
        local,
    };
    for (k, a) in ed.influence_accessors(&src)? {
        attrs.insert(k, json!(a));
    }
    if let Some(o) = prim.as_object_mut() {
        o.insert("attributes".into(), Value::Object(attrs));
        if let Some(i) = o.get("indices").and_then(Value::as_u64) {
            ed.mark_replaced(i);
        }
        let idx = ed.add_indices(&indices, read.index_type)?;
        o.insert("indices".into(), json!(idx));
        // A strip, fan or loop was cut as the list it draws: the part is that list.
        if read.mode == 4 {
            o.remove("mode");
        } else {
            o.insert("mode".into(), json!(read.mode));
        }
    }
    if let Some(targets) = orig.get("targets").and_then(Value::as_array) {
        let targets = part_targets(ed, targets, &vertices)?;
        if let Some(o) = prim.as_object_mut() {
            o.insert("targets".into(), Value::Array(targets));
        }
    }
    Ok((prim, vertices.len()))
}

/// The vertices of `part` of `read`, ascending, and its elements' indices renumbered
/// to them. `scratch` is all `u32::MAX` between parts (set once, and the part's own
/// vertices put back at the end): clearing it for each part cost the primitive's vertex
/// count per part.
fn part_vertices(read: &Read, part: &Part, scratch: &mut Vec<u32>) -> (Vec<u32>, Vec<u32>) {
    if scratch.len() != read.vertices {
        scratch.clear();
        scratch.resize(read.vertices, u32::MAX);
    }
    let mut vertices: Vec<u32> = Vec::new();
    for &e in &part.elements {
        let e = e as usize;
        for &v in read
            .indices
            .get(e * read.arity..(e + 1) * read.arity)
            .unwrap_or_default()
        {
            if let Some(s) = scratch.get_mut(v as usize)
                && *s == u32::MAX
            {
                *s = 0;
                vertices.push(v);
            }
        }
    }
    vertices.sort_unstable();
    for (k, &v) in vertices.iter().enumerate() {
        if let Some(s) = scratch.get_mut(v as usize) {
            *s = u32::try_from(k).unwrap_or(u32::MAX);
        }
    }
    let mut indices = Vec::with_capacity(part.elements.len() * read.arity);
    for &e in &part.elements {
        let e = e as usize;
        for &v in read
            .indices
            .get(e * read.arity..(e + 1) * read.arity)
            .unwrap_or_default()
        {
            indices.push(scratch.get(v as usize).copied().unwrap_or(0));
        }
    }
    for &v in &vertices {
        if let Some(s) = scratch.get_mut(v as usize) {
            *s = u32::MAX;
        }
    }
    (vertices, indices)
}

/// The morph `targets` of a part, each accessor gathered at the part's `vertices` (the
/// original marked replaced); members that are not accessor indices are kept as they
/// are.
fn part_targets(
    ed: &mut Editor<'_>,
    targets: &[Value],
    vertices: &[u32],
) -> Result<Vec<Value>, ExportError> {
    let mut out = Vec::with_capacity(targets.len());
    for t in targets {
        let mut nt = serde_json::Map::new();
        if let Some(t) = t.as_object() {
            for (name, a) in t {
                match a.as_u64() {
                    Some(a) => {
                        ed.mark_replaced(a);
                        nt.insert(name.clone(), json!(ed.gather(a, vertices, true)?));
                    }
                    None => {
                        nt.insert(name.clone(), a.clone());
                    }
                }
            }
        }
        out.push(Value::Object(nt));
    }
    Ok(out)
}

/// What [`write_pair`] wrote.
pub struct Written {
    /// Per cut and part, where it went.
    pub placed: Placements,
    /// The objects added: meshes, nodes, skins, `weights` channels.
    pub added: [usize; 4],
    /// The meshes that hold the pair's parts, in group order (the first group's is the
    /// original mesh when it took its place).
    pub meshes: Vec<usize>,
    /// `(split node, node added beside it)`, in group order.
    pub nodes: Vec<(usize, usize)>,
}

/// What [`write_pair`] copies for each group of a pair's skin: the skin's JSON without
/// its joints, its joints, and its inverse-bind-matrix accessor.
struct SkinBase {
    /// The skin's JSON, `joints` emptied (each group sets its own).
    json: Value,
    /// The skin's joint nodes.
    joints: Vec<u64>,
    /// Its inverse-bind-matrix accessor, if any.
    ibm: Option<u64>,
}

impl SkinBase {
    /// Skin `skin` of `gltf`, refused as missing when it does not exist.
    fn new(gltf: &Gltf, skin: usize) -> Result<SkinBase, ExportError> {
        let mut json = gltf
            .value
            .pointer(&format!("/skins/{skin}"))
            .cloned()
            .ok_or_else(|| ExportError::Missing(format!("skin {skin} does not exist")))?;
        if let Some(j) = json.get_mut("joints") {
            j.take();
        }
        let original = gltf.root.skins.get(skin);
        Ok(SkinBase {
            json,
            joints: original.map(|s| s.joints.clone()).unwrap_or_default(),
            ibm: original.and_then(|s| s.inverse_bind_matrices),
        })
    }

    /// Writes group `g`'s skin (`group`'s joints and their inverse bind matrices): in the
    /// pair's skin's place for the first group when it takes it, else as a new skin
    /// (counted in `added`). Returns its index.
    fn write_group(
        &self,
        ed: &mut Editor<'_>,
        pair: &Pair<'_>,
        group: &Group,
        g: usize,
        added: &mut [usize; 4],
    ) -> Result<usize, ExportError> {
        let nodes: Vec<u64> = group
            .joints
            .iter()
            .filter_map(|&j| self.joints.get(j as usize).copied())
            .collect();
        let mut skin = with(&self.json, "joints", json!(nodes));
        if let Some(i) = self.ibm {
            ed.mark_replaced(i);
            let m = ed.gather(i, &group.joints, false)?;
            skin = with(&skin, "inverseBindMatrices", json!(m));
        }
        if g == 0 && pair.reuse_skin {
            if let Some(s) = ed.json_mut().pointer_mut(&format!("/skins/{}", pair.skin)) {
                *s = skin;
            }
            return Ok(pair.skin);
        }
        suffixed(&mut skin, g);
        added[2] += 1;
        ed.push("skins", skin)
    }
}

/// Points the pair's nodes at group `g`'s mesh and skin `(mesh, skin)`: the original
/// nodes draw the first group; for each other group, a node added beside each (counted
/// in `added` with the animation channels it takes, and listed in `nodes`).
#[allow(clippy::too_many_arguments)]
fn place_nodes(
    ed: &mut Editor<'_>,
    gltf: &Gltf,
    pair: &Pair<'_>,
    tree: &Tree,
    g: usize,
    (mesh_index, skin_index): (usize, usize),
    added: &mut [usize; 4],
    nodes: &mut Vec<(usize, usize)>,
) -> Result<(), ExportError> {
    for &u in pair.users {
        if g == 0 {
            if let Some(o) = ed
                .json_mut()
                .pointer_mut(&format!("/nodes/{u}"))
                .and_then(Value::as_object_mut)
            {
                o.insert("mesh".into(), json!(mesh_index));
                o.insert("skin".into(), json!(skin_index));
            }
            continue;
        }
        added[1] += 1;
        let (n, channels) = sibling(ed, gltf, u, g, mesh_index, skin_index, tree)?;
        added[3] += channels;
        nodes.push((u, n));
    }
    Ok(())
}

/// What group `g`'s mesh holds, in the original order as `(primitive, part, cut)`: its
/// parts (`cut` indexes `cuts`), and for the first group the mesh's primitives without
/// influences (`cut_of` none: kept as they are).
fn group_items(
    group: &Group,
    g: usize,
    cuts: &[Cut<'_>],
    cut_of: &[Option<usize>],
) -> Vec<(usize, usize, Option<usize>)> {
    let mut items: Vec<(usize, usize, Option<usize>)> = group
        .members
        .iter()
        .filter_map(|&(c, k)| Some((cuts.get(c)?.sets.primitive, k, Some(c))))
        .collect();
    if g == 0 {
        items.extend(
            cut_of
                .iter()
                .enumerate()
                .filter(|(_, c)| c.is_none())
                .map(|(p, _)| (p, 0, None)),
        );
    }
    items.sort_unstable();
    items
}

/// Writes group `g`'s mesh (`mesh_json` with primitives `prims`) at `mesh_index`: in the
/// pair's mesh's place when it takes it, else appended (named `.partK` past the first
/// group).
fn store_mesh(
    ed: &mut Editor<'_>,
    pair: &Pair<'_>,
    mesh_json: &Value,
    prims: Vec<Value>,
    mesh_index: usize,
    g: usize,
) -> Result<(), ExportError> {
    let mut mesh = with(mesh_json, "primitives", Value::Array(prims));
    if mesh_index == pair.mesh {
        if let Some(m) = ed.json_mut().pointer_mut(&format!("/meshes/{}", pair.mesh)) {
            *m = mesh;
        }
    } else {
        if g > 0 {
            suffixed(&mut mesh, g);
        }
        ed.push("meshes", mesh)?;
    }
    Ok(())
}

/// Writes `pair`'s groups; returns where each part went and what was added.
pub fn write_pair(
    ed: &mut Editor<'_>,
    gltf: &Gltf,
    pair: &Pair<'_>,
    cuts: &[Cut<'_>],
    groups: &[Group],
    tree: &Tree,
) -> Result<Written, ExportError> {
    // The mesh and skin each group copies, without their primitives and joints (a null
    // holds their place): copied whole, each group would copy every primitive and
    // joint of the original once more.
    let mut mesh_json = gltf
        .value
        .pointer(&format!("/meshes/{}", pair.mesh))
        .cloned()
        .ok_or_else(|| ExportError::Missing(format!("mesh {} does not exist", pair.mesh)))?;
    let originals: Vec<Value> = match mesh_json.get_mut("primitives").map(Value::take) {
        Some(Value::Array(a)) => a,
        _ => Vec::new(),
    };
    let skin_base = SkinBase::new(gltf, pair.skin)?;
    let mut cut_of: Vec<Option<usize>> = vec![None; originals.len()];
    for (c, cut) in cuts.iter().enumerate() {
        if let Some(slot) = cut_of.get_mut(cut.sets.primitive) {
            *slot = Some(c);
        }
    }
    let mut placed: Vec<Vec<Option<Placed>>> =
        cuts.iter().map(|c| vec![None; c.parts.len()]).collect();
    let mut added = [0usize; 4];
    let mut meshes = Vec::with_capacity(groups.len());
    let mut added_nodes = Vec::new();
    let mut local = vec![u32::MAX; skin_base.joints.len()];
    let mut scratch = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        for (k, &j) in group.joints.iter().enumerate() {
            if let Some(l) = local.get_mut(j as usize) {
                *l = u32::try_from(k).unwrap_or(u32::MAX);
            }
        }
        let skin_index = skin_base.write_group(ed, pair, group, g, &mut added)?;
        let items = group_items(group, g, cuts, &cut_of);
        let mesh_index = if g == 0 && pair.reuse_mesh {
            pair.mesh
        } else {
            added[0] += 1;
            ed.json_mut()
                .get("meshes")
                .and_then(Value::as_array)
                .map_or(0, Vec::len)
        };
        let mut prims = Vec::with_capacity(items.len());
        for (p, k, c) in items {
            let orig = originals.get(p).cloned().unwrap_or(Value::Null);
            match c.and_then(|c| Some((c, cuts.get(c)?))) {
                None => prims.push(orig),
                Some((c, cut)) => {
                    let Some(part) = cut.parts.get(k) else {
                        continue;
                    };
                    let (json, vertices) =
                        part_primitive(ed, &orig, cut, part, &local, &mut scratch)?;
                    if let Some(slot) = placed.get_mut(c).and_then(|v| v.get_mut(k)) {
                        *slot = Some(Placed {
                            mesh: mesh_index,
                            primitive: prims.len(),
                            skin: skin_index,
                            vertices,
                            skin_joints: group.joints.len(),
                        });
                    }
                    prims.push(json);
                }
            }
        }
        meshes.push(mesh_index);
        store_mesh(ed, pair, &mesh_json, prims, mesh_index, g)?;
        place_nodes(
            ed,
            gltf,
            pair,
            tree,
            g,
            (mesh_index, skin_index),
            &mut added,
            &mut added_nodes,
        )?;
        for &j in &group.joints {
            if let Some(l) = local.get_mut(j as usize) {
                *l = u32::MAX;
            }
        }
    }
    Ok(Written {
        placed,
        added,
        meshes,
        nodes: added_nodes,
    })
}

/// What the nodes added beside a split node take of one of its extensions
/// (`spec/split.md` \[SP11\]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Carry {
    /// Copied to every added node: it says how the node's mesh is drawn, and each part
    /// is drawn as the whole was (`KHR_node_visibility`, `EXT_mesh_gpu_instancing` whose
    /// instances draw every part alike, `KHR_node_selectability`,
    /// `KHR_node_hoverability`, `KHR_xmp_json_ld` metadata).
    Copy,
    /// Kept on the original node only: it belongs to the node's place, not to what it
    /// draws (`KHR_lights_punctual`: copied, the light would shine once per part;
    /// `VRMC_node_constraint`: it turns the node, and a skinned node's own transform is
    /// ignored by the drawing, glTF 2.0 §3.7.3.2; the nodes it names keep their indices).
    Stay,
    /// Refused: the added nodes cannot take it.
    Refuse(crate::ExtensionRefusal),
    /// Not known to the split.
    Unknown,
}

/// What the split does with node extension `name`.
pub fn carry(name: &str) -> Carry {
    match name {
        "KHR_node_visibility"
        | "EXT_mesh_gpu_instancing"
        | "KHR_node_selectability"
        | "KHR_node_hoverability"
        | "KHR_xmp_json_ld" => Carry::Copy,
        "KHR_lights_punctual" | "VRMC_node_constraint" => Carry::Stay,
        "MSFT_lod" => Carry::Refuse(crate::ExtensionRefusal::NodeIndices),
        _ => Carry::Unknown,
    }
}

/// Adds the node that draws group `g` for node `u`: its name (suffixed), `weights`,
/// extras and the extensions [`carry`] copies, where `u` is in the tree (beside it);
/// copies the `weights` channels that drive `u`. Returns the node and the channels added. What it
/// copies is counted beforehand by [`crate::budget::pair_cost`].
fn sibling(
    ed: &mut Editor<'_>,
    gltf: &Gltf,
    u: usize,
    g: usize,
    mesh: usize,
    skin: usize,
    tree: &Tree,
) -> Result<(usize, usize), ExportError> {
    // Only the members copied are cloned (not the node's children, say).
    let orig = gltf.value.pointer(&format!("/nodes/{u}"));
    let mut node = serde_json::Map::new();
    for key in ["name", "weights", "extras"] {
        if let Some(v) = orig.and_then(|o| o.get(key)) {
            node.insert(key.into(), v.clone());
        }
    }
    // The node's extensions that belong to what it draws; an unknown one reaches here
    // only when the caller allowed it (`Options::allow_unknown_extensions`).
    if let Some(exts) = orig
        .and_then(|o| o.get("extensions"))
        .and_then(Value::as_object)
    {
        let copied: serde_json::Map<String, Value> = exts
            .iter()
            .filter(|(name, _)| matches!(carry(name), Carry::Copy | Carry::Unknown))
            .map(|(name, v)| (name.clone(), v.clone()))
            .collect();
        if !copied.is_empty() {
            node.insert("extensions".into(), Value::Object(copied));
        }
    }
    node.insert("mesh".into(), json!(mesh));
    node.insert("skin".into(), json!(skin));
    let mut node = Value::Object(node);
    suffixed(&mut node, g);
    let n = ed.push("nodes", node)?;
    match tree.parents.get(u).copied().flatten() {
        Some(p) => {
            if let Some(c) = ed
                .json_mut()
                .pointer_mut(&format!("/nodes/{p}/children"))
                .and_then(Value::as_array_mut)
            {
                c.push(json!(n));
            }
        }
        None => {
            for &s in tree.scenes.get(&u).into_iter().flatten() {
                if let Some(list) = ed
                    .json_mut()
                    .pointer_mut(&format!("/scenes/{s}/nodes"))
                    .and_then(Value::as_array_mut)
                {
                    list.push(json!(n));
                }
            }
        }
    }
    let copies = tree.weights.get(&u).map_or(&[][..], Vec::as_slice);
    for (a, c) in copies {
        let mut c = c.clone();
        if let Some(t) = c.pointer_mut("/target/node") {
            *t = json!(n);
        }
        if let Some(list) = ed
            .json_mut()
            .pointer_mut(&format!("/animations/{a}/channels"))
            .and_then(Value::as_array_mut)
        {
            list.push(c);
        }
    }
    Ok((n, copies.len()))
}
