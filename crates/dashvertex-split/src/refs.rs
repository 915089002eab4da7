//! References to what a split multiplies, held outside the core schema (`spec/split.md`
//! \[SP13\]).
//!
//! A split never renumbers a node, mesh or skin: the first part keeps the original mesh
//! and skin (when nothing else uses them) and the original node, and every other mesh,
//! node and skin is appended. Accessors are renumbered only when every extension used is
//! one that names no accessor (`dashvertex_gltf::export::PRUNE_SAFE_EXTENSIONS`). So an
//! index held anywhere stays right; what changes is how many objects draw what one drew:
//! a mesh becomes several meshes, a node gets nodes beside it. A reference that acts on
//! what a mesh or node draws must then name each of them:
//!
//! - VRM 0.x (`extensions.VRM`): `blendShapeMaster.blendShapeGroups[].binds[]`
//!   `{mesh, index, weight}` and `firstPerson.meshAnnotations[]` `{mesh, firstPersonFlag}`
//!   become one entry per mesh holding parts of the mesh, the same morph `index`,
//!   `weight` and flag (every part keeps every morph target of its primitive).
//! - VRM 1.0 (`extensions.VRMC_vrm`): `expressions.preset.*` and `expressions.custom.*`
//!   `morphTargetBinds[]` `{node, index, weight}` and `firstPerson.meshAnnotations[]`
//!   `{node, type}` become one entry per node drawing a part of the node's mesh.
//!
//! Their other indices (humanoid bones, the first-person bone, spring bones and
//! colliders: nodes; textures, images, materials) name nothing the split changes.
//! Any other extension at the root, or on a split mesh, skin or primitive, is either
//! known to hold no such index ([`held`]) or refused by name ([`check`]).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use dashvertex_gltf::Gltf;

use crate::budget::{Cost, escape, json_cost};
use crate::{Options, SplitError};

/// What the entries of a reference list name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Names {
    /// A mesh (VRM 0.x).
    Mesh,
    /// A node (VRM 1.0).
    Node,
}

/// A list of references the split rewrites: the JSON Pointer of the array, the member
/// of each entry that holds the index, and what that index names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct List {
    /// JSON Pointer of the array.
    pub at: String,
    /// The member holding the index (`mesh` or `node`).
    pub key: &'static str,
    /// What it names.
    pub names: Names,
}

/// The reference lists of `doc` (those whose parent exists; an absent array is skipped
/// when rewritten).
pub fn lists(doc: &Value) -> Vec<List> {
    let mut out = Vec::new();
    if let Some(vrm) = doc.pointer("/extensions/VRM") {
        let groups = vrm
            .pointer("/blendShapeMaster/blendShapeGroups")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        for g in 0..groups {
            out.push(List {
                at: format!("/extensions/VRM/blendShapeMaster/blendShapeGroups/{g}/binds"),
                key: "mesh",
                names: Names::Mesh,
            });
        }
        out.push(List {
            at: "/extensions/VRM/firstPerson/meshAnnotations".into(),
            key: "mesh",
            names: Names::Mesh,
        });
    }
    if let Some(vrm) = doc.pointer("/extensions/VRMC_vrm") {
        for kind in ["preset", "custom"] {
            let map = vrm
                .pointer(&format!("/expressions/{kind}"))
                .and_then(Value::as_object);
            for name in map.into_iter().flat_map(serde_json::Map::keys) {
                out.push(List {
                    at: format!(
                        "/extensions/VRMC_vrm/expressions/{kind}/{}/morphTargetBinds",
                        escape(name)
                    ),
                    key: "node",
                    names: Names::Node,
                });
            }
        }
        out.push(List {
            at: "/extensions/VRMC_vrm/firstPerson/meshAnnotations".into(),
            key: "node",
            names: Names::Node,
        });
    }
    out
}

/// The index entry `e` names through member `key`.
fn named(e: &Value, key: &str) -> Option<usize> {
    e.get(key)
        .and_then(Value::as_u64)
        .and_then(|i| usize::try_from(i).ok())
}

/// The references of a document, by what they name, for the output budget: per (kind,
/// index), each list naming it (its JSON Pointer) and what one copy of its entries
/// naming it is counted for.
#[derive(Clone, Debug, Default)]
pub struct References {
    entries: BTreeMap<(Names, usize), Vec<(String, u64)>>,
}

impl References {
    /// Gathers the references of `doc`.
    pub fn new(doc: &Value) -> References {
        let mut entries: BTreeMap<(Names, usize), Vec<(String, u64)>> = BTreeMap::new();
        for l in lists(doc) {
            let mut in_list: BTreeMap<usize, u64> = BTreeMap::new();
            let arr = doc.pointer(&l.at).and_then(Value::as_array);
            for e in arr.into_iter().flatten() {
                if let Some(i) = named(e, l.key) {
                    let c = in_list.entry(i).or_default();
                    *c = c.saturating_add(json_cost(e));
                }
            }
            for (i, c) in in_list {
                entries
                    .entry((l.names, i))
                    .or_default()
                    .push((l.at.clone(), c));
            }
        }
        References { entries }
    }

    /// What the entries naming `mesh` (copied `mesh_copies` more times) and those naming
    /// each of `nodes` (copied `node_copies` more times) add to the document.
    pub fn cost(&self, mesh: usize, mesh_copies: u64, nodes: &[usize], node_copies: u64) -> Cost {
        let mut cost = Cost::default();
        let mut count = |key: (Names, usize), copies: u64| {
            for (at, each) in self.entries.get(&key).into_iter().flatten() {
                cost.add(|| at.clone(), *each, copies);
            }
        };
        if mesh_copies > 0 {
            count((Names::Mesh, mesh), mesh_copies);
        }
        if node_copies > 0 {
            for &n in nodes {
                count((Names::Node, n), node_copies);
            }
        }
        cost
    }
}

/// What the split multiplied: per original mesh, the meshes holding its parts; per split
/// node, the nodes drawing its parts (itself first). Ascending, the original first (new
/// objects are appended).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Multiplied {
    /// Per mesh split into several.
    pub meshes: BTreeMap<usize, BTreeSet<usize>>,
    /// Per node with nodes added beside it.
    pub nodes: BTreeMap<usize, BTreeSet<usize>>,
}

impl Multiplied {
    /// Records that the parts of mesh `mesh` went to `into` (which may include `mesh`):
    /// the mesh itself still holds its parts or, drawn by a node the split left alone,
    /// its whole.
    pub fn mesh(&mut self, mesh: usize, into: &[usize]) {
        let set = self.meshes.entry(mesh).or_default();
        set.insert(mesh);
        set.extend(into.iter().copied());
    }

    /// Records node `added` beside `node`.
    pub fn node(&mut self, node: usize, added: usize) {
        let set = self.nodes.entry(node).or_default();
        set.insert(node);
        set.insert(added);
    }
}

/// Rewrites the reference lists of `doc` for what `m` says was multiplied: each entry
/// naming a multiplied mesh or node becomes one entry per mesh or node, in place, every
/// other member copied. Returns the entries added.
pub fn rewrite(doc: &mut Value, m: &Multiplied) -> usize {
    let mut added = 0usize;
    for l in lists(doc) {
        let map = match l.names {
            Names::Mesh => &m.meshes,
            Names::Node => &m.nodes,
        };
        let Some(arr) = doc.pointer_mut(&l.at).and_then(Value::as_array_mut) else {
            continue;
        };
        let hit = |e: &Value| named(e, l.key).and_then(|i| map.get(&i).filter(|s| s.len() > 1));
        if !arr.iter().any(|e| hit(e).is_some()) {
            continue;
        }
        let old = std::mem::take(arr);
        for e in old {
            match hit(&e) {
                Some(into) => {
                    for &x in into {
                        let mut c = e.clone();
                        if let Some(o) = c.as_object_mut() {
                            o.insert(l.key.into(), json!(x));
                        }
                        arr.push(c);
                    }
                    added = added.saturating_add(into.len().saturating_sub(1));
                }
                None => arr.push(e),
            }
        }
    }
    added
}

/// Where an extension is held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// The document's `extensions`.
    Root,
    /// A split mesh's.
    Mesh,
    /// A split skin's.
    Skin,
    /// A split primitive's.
    Primitive,
}

/// What the split does with an extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Held {
    /// Its mesh and node references are rewritten ([`rewrite`]): `VRM`, `VRMC_vrm`.
    Rewritten,
    /// It names nothing the split changes, and is carried as it is (copied with a mesh,
    /// skin or primitive to each of its parts).
    Harmless,
    /// Not known: it could name meshes, nodes, skins or accessors.
    Unknown,
}

/// What the split does with extension `name` held at `place`.
pub fn held(place: Place, name: &str) -> Held {
    match (place, name) {
        (Place::Root, "VRM" | "VRMC_vrm") => Held::Rewritten,
        // Metadata.
        (_, "KHR_xmp_json_ld") => Held::Harmless,
        // Lights, variant names, image-based lights (images), spring bones (nodes, never
        // renumbered).
        (
            Place::Root,
            "KHR_lights_punctual"
            | "KHR_materials_variants"
            | "EXT_lights_image_based"
            | "VRMC_springBone",
        ) => Held::Harmless,
        // Variant mappings name materials and variants, carried with each part's
        // primitive; the Draco stream is dropped from every part ([SP6]).
        (Place::Primitive, "KHR_materials_variants" | "KHR_draco_mesh_compression") => {
            Held::Harmless
        }
        _ => Held::Unknown,
    }
}

/// Checks the extensions at the root and on the split meshes, skins and primitives
/// (`(mesh, primitive)`). An unknown one is refused at its JSON Pointer, or, with
/// [`Options::allow_unknown_extensions`], carried unchanged: the warnings say so.
pub fn check(
    gltf: &Gltf,
    meshes: &BTreeSet<usize>,
    skins: &BTreeSet<usize>,
    primitives: &BTreeSet<(usize, usize)>,
    opts: &Options,
) -> Result<Vec<String>, SplitError> {
    let mut places: Vec<(String, Place)> = vec![(String::new(), Place::Root)];
    places.extend(meshes.iter().map(|m| (format!("/meshes/{m}"), Place::Mesh)));
    places.extend(
        primitives
            .iter()
            .map(|(m, p)| (format!("/meshes/{m}/primitives/{p}"), Place::Primitive)),
    );
    places.extend(skins.iter().map(|s| (format!("/skins/{s}"), Place::Skin)));
    let mut warnings = Vec::new();
    for (at, place) in places {
        let exts = gltf
            .value
            .pointer(&format!("{at}/extensions"))
            .and_then(Value::as_object);
        for name in exts.into_iter().flat_map(serde_json::Map::keys) {
            if held(place, name) != Held::Unknown {
                continue;
            }
            let pointer = format!("{at}/extensions/{}", escape(name));
            if !opts.allow_unknown_extensions {
                return Err(SplitError::UnknownExtension {
                    extension: name.clone(),
                    pointer,
                });
            }
            let carried = match place {
                Place::Root => "left as it was",
                Place::Mesh => "copied to every mesh holding the mesh's parts",
                Place::Skin => "copied to every skin made from the skin",
                Place::Primitive => "copied to every part of the primitive",
            };
            warnings.push(format!(
                "{pointer}: unknown extension {name} {carried}, unchanged: any mesh, node, skin or accessor index in it was not rewritten for the split"
            ));
        }
    }
    Ok(warnings)
}
