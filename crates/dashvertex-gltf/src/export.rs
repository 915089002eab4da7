//! Writing influence sets back into a copy of a glTF file.
//!
//! The document is edited as a JSON value, so everything dash does not touch — other
//! attributes, nodes, animations, materials, extensions, extras — is written back as it
//! was. New data (influence accessors, reordered inverse bind matrices) goes into new
//! buffer views in buffer 0. When the document uses no extension that could refer to
//! accessors or buffer data on its own (see [`PRUNE_SAFE_EXTENSIONS`]), the accessors
//! the edit replaced, and the buffer views only they used, are removed and the buffers
//! compacted: a reduced file is smaller than its input and carries no unused object the
//! input did not have. Otherwise they stay in place, unused, and no index changes.
//!
//! Buffer bytes are copied once, straight into the output; nothing is assembled twice.

use std::collections::BTreeSet;

use base64::Engine;
use serde_json::{Value, json};

use crate::accessor::to_f32;
use crate::load::{Container, Gltf};
use crate::skinning;
use crate::document::component;

/// Weight storage to write.
#[derive(Clone, Debug, PartialEq)]
pub enum Weights {
    /// FLOAT, one `[f32; 4]` per vertex per set.
    F32(Vec<Vec<[f32; 4]>>),
    /// Normalized UNSIGNED_BYTE.
    Unorm8(Vec<Vec<[u8; 4]>>),
    /// Normalized UNSIGNED_SHORT.
    Unorm16(Vec<Vec<[u16; 4]>>),
}

/// How weights are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WeightFormat {
    /// FLOAT.
    F32,
    /// Normalized UNSIGNED_BYTE.
    Unorm8,
    /// Normalized UNSIGNED_SHORT.
    Unorm16,
}

/// Influence sets to write, read vertex by vertex: the exporter encodes them straight
/// into the output, so a caller need not lay them out in memory again.
pub trait InfluenceSource {
    /// Number of sets.
    fn sets(&self) -> usize;
    /// Number of vertices.
    fn vertices(&self) -> usize;
    /// Joint indices of set `s` of vertex `v`.
    fn joints(&self, s: usize, v: usize) -> [u32; 4];
    /// The weight storage.
    fn format(&self) -> WeightFormat;
    /// FLOAT weights of set `s` of vertex `v` (for [`WeightFormat::F32`]).
    fn weights_f32(&self, s: usize, v: usize) -> [f32; 4];
    /// Stored integers of set `s` of vertex `v` (for the normalized formats).
    fn weights_int(&self, s: usize, v: usize) -> [u32; 4];
}

/// The influence sets of one primitive: joints per set (set-major) and weights.
#[derive(Clone, Debug, PartialEq)]
pub struct Influences {
    /// `joints[set][vertex]`.
    pub joints: Vec<Vec<[u32; 4]>>,
    /// Weights in the storage to write.
    pub weights: Weights,
}

impl InfluenceSource for Influences {
    fn sets(&self) -> usize {
        self.joints.len()
    }
    fn vertices(&self) -> usize {
        self.joints.first().map_or(0, Vec::len)
    }
    fn joints(&self, s: usize, v: usize) -> [u32; 4] {
        self.joints
            .get(s)
            .and_then(|x| x.get(v))
            .copied()
            .unwrap_or_default()
    }
    fn format(&self) -> WeightFormat {
        match self.weights {
            Weights::F32(_) => WeightFormat::F32,
            Weights::Unorm8(_) => WeightFormat::Unorm8,
            Weights::Unorm16(_) => WeightFormat::Unorm16,
        }
    }
    fn weights_f32(&self, s: usize, v: usize) -> [f32; 4] {
        match &self.weights {
            Weights::F32(w) => w.get(s).and_then(|x| x.get(v)).copied().unwrap_or_default(),
            _ => [0.0; 4],
        }
    }
    fn weights_int(&self, s: usize, v: usize) -> [u32; 4] {
        match &self.weights {
            Weights::Unorm8(w) => w
                .get(s)
                .and_then(|x| x.get(v))
                .map_or([0; 4], |x| x.map(u32::from)),
            Weights::Unorm16(w) => w
                .get(s)
                .and_then(|x| x.get(v))
                .map_or([0; 4], |x| x.map(u32::from)),
            Weights::F32(_) => [0; 4],
        }
    }
}

impl Influences {
    fn check(&self) -> Result<(), ExportError> {
        let count = self.vertices();
        let sets = match &self.weights {
            Weights::F32(s) => s.iter().map(Vec::len).collect::<Vec<_>>(),
            Weights::Unorm8(s) => s.iter().map(Vec::len).collect(),
            Weights::Unorm16(s) => s.iter().map(Vec::len).collect(),
        };
        if sets.len() != self.joints.len()
            || self.joints.iter().any(|s| s.len() != count)
            || sets.iter().any(|&n| n != count)
        {
            return Err(ExportError::Shape(
                "every set needs joints and weights for every vertex".into(),
            ));
        }
        Ok(())
    }
}

/// What a skin's joint list becomes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JointSlot {
    /// An existing joint of the skin (its old index).
    Existing(usize),
    /// A placeholder node (a bone the file does not have, or a retired index), named:
    /// a child of the skin's common root, with the identity inverse bind matrix.
    Placeholder(String),
    /// A placeholder whose parent bone is an existing joint (its old index): a child of
    /// that joint's node with the identity transform and the joint's inverse bind matrix,
    /// so that its rest pose is its parent's (`spec/reduction.md` §5).
    PlaceholderChild {
        /// The bone's name.
        name: String,
        /// The parent's old joint index.
        parent: usize,
    },
}

/// A joint of a skin made by [`Editor::add_skin`].
#[derive(Clone, Debug, PartialEq)]
pub enum NewJoint {
    /// An existing node.
    Node(u64),
    /// A new node for a bone the file has no node for, with its local transform: a child
    /// of joint `parent` of the same list when that joint comes earlier, else of the
    /// existing joints' common root (or the scene when there is none).
    New {
        /// The bone's name.
        name: String,
        /// Its parent, as a position in the joint list.
        parent: Option<usize>,
        /// Local translation.
        translation: [f32; 3],
        /// Local rotation (x, y, z, w).
        rotation: [f32; 4],
        /// Local scale.
        scale: [f32; 3],
    },
}

/// Why a file cannot be written.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    /// A buffer of the source is unavailable, so the file cannot be copied faithfully.
    #[error("buffer {0} of the source is unavailable: {1}")]
    Buffer(usize, #[source] crate::BufferError),
    /// No such mesh, primitive or skin.
    #[error("{0}")]
    Missing(String),
    /// The influence data does not fit the primitive.
    #[error("{0}")]
    Shape(String),
    /// The result would not fit a GLB (4 GiB).
    #[error("the output would exceed 4 GiB")]
    TooLarge,
    /// A buffer view of the source does not lie inside its buffer, so its bytes cannot
    /// be copied (the exporter would have to invent them).
    #[error("the file cannot be copied: {0}")]
    ViewRange(#[source] crate::ranges::ViewRangeError),
}

/// Extensions that never refer to accessors, buffer views or buffers by themselves:
/// with only these in `extensionsUsed`, replaced data can be pruned safely. Any other
/// extension (Draco, meshopt, GPU instancing, unknown ones) keeps the old data in place.
pub const PRUNE_SAFE_EXTENSIONS: &[&str] = &[
    "KHR_lights_punctual",
    "KHR_materials_anisotropy",
    "KHR_materials_clearcoat",
    "KHR_materials_dispersion",
    "KHR_materials_emissive_strength",
    "KHR_materials_ior",
    "KHR_materials_iridescence",
    "KHR_materials_pbrSpecularGlossiness",
    "KHR_materials_sheen",
    "KHR_materials_specular",
    "KHR_materials_transmission",
    "KHR_materials_unlit",
    "KHR_materials_variants",
    "KHR_materials_volume",
    "KHR_mesh_quantization",
    "KHR_texture_basisu",
    "KHR_texture_transform",
    "KHR_xmp_json_ld",
    "EXT_texture_webp",
    "EXT_texture_avif",
];

/// Where a `.gltf` output keeps its buffers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BufferFiles {
    /// Every buffer as a base64 data URI in the JSON (the output stands alone).
    Embed,
    /// Buffers that were external files (and a GLB's binary chunk) become files named
    /// after the output, `STEM.bin` (`STEM_N.bin` for buffer N > 0); data URIs stay
    /// data URIs.
    Beside {
        /// The output's file stem.
        stem: String,
    },
}

/// A written document: the main file and the buffer files to write beside it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// The `.gltf` or `.glb` bytes.
    pub main: Vec<u8>,
    /// `(file name, bytes)` of external buffers, to write in the same folder.
    pub files: Vec<(String, Vec<u8>)>,
}

/// A new buffer view's bytes.
#[derive(Clone, Debug)]
struct NewView {
    bytes: Vec<u8>,
    target: Option<u32>,
}

/// An edit of a glTF document.
#[derive(Clone, Debug)]
pub struct Editor<'g> {
    gltf: &'g Gltf,
    value: Value,
    /// Views added by the edit; in the JSON they are numbered after the source's, with
    /// `buffer` 0 (placed at [`Editor::finish_files`]).
    new_views: Vec<NewView>,
    /// Source accessors the edit stopped using (old influence and bind matrix accessors).
    replaced: BTreeSet<usize>,
}

/// The array member `key` of an object, created when missing.
fn arr<'v>(v: &'v mut Value, key: &str) -> Result<&'v mut Vec<Value>, ExportError> {
    let o = v
        .as_object_mut()
        .ok_or_else(|| ExportError::Shape(format!("cannot add `{key}` to a non-object")))?;
    let e = o
        .entry(key.to_owned())
        .or_insert_with(|| Value::Array(Vec::new()));
    if !e.is_array() {
        *e = Value::Array(Vec::new());
    }
    e.as_array_mut()
        .ok_or_else(|| ExportError::Shape(format!("`{key}` is not an array")))
}

impl<'g> Editor<'g> {
    /// Starts an edit of `gltf`. Every buffer must be available, and every buffer view
    /// lie inside its buffer.
    pub fn new(gltf: &'g Gltf) -> Result<Self, ExportError> {
        for (i, b) in gltf.buffers().enumerate() {
            if let Err(e) = b {
                return Err(ExportError::Buffer(i, e.clone()));
            }
        }
        if let Some(e) = gltf.view_range_errors().next() {
            return Err(ExportError::ViewRange(e.clone()));
        }
        Ok(Editor {
            gltf,
            value: gltf.value.clone(),
            new_views: Vec::new(),
            replaced: BTreeSet::new(),
        })
    }

    /// Adds bytes as a new buffer view; returns its index.
    fn view(&mut self, bytes: Vec<u8>, target: Option<u32>) -> Result<usize, ExportError> {
        let mut v = json!({"buffer": 0, "byteOffset": 0, "byteLength": bytes.len()});
        if let (Some(t), Some(o)) = (target, v.as_object_mut()) {
            o.insert("target".into(), json!(t));
        }
        self.new_views.push(NewView { bytes, target });
        let views = arr(&mut self.value, "bufferViews")?;
        views.push(v);
        Ok(views.len() - 1)
    }

    fn accessor(
        &mut self,
        view: usize,
        ctype: u32,
        kind: &str,
        count: usize,
        normalized: bool,
    ) -> Result<usize, ExportError> {
        let mut a =
            json!({"bufferView": view, "componentType": ctype, "count": count, "type": kind});
        if let (true, Some(o)) = (normalized, a.as_object_mut()) {
            o.insert("normalized".into(), Value::Bool(true));
        }
        let accs = arr(&mut self.value, "accessors")?;
        accs.push(a);
        Ok(accs.len() - 1)
    }

    /// Replaces the `JOINTS_n` / `WEIGHTS_n` attributes of a primitive (see
    /// [`Editor::set_influences_from`]).
    pub fn set_influences(
        &mut self,
        mesh: usize,
        primitive: usize,
        inf: &Influences,
    ) -> Result<(), ExportError> {
        inf.check()?;
        self.set_influences_from(mesh, primitive, inf)
    }

    /// Replaces the `JOINTS_n` / `WEIGHTS_n` attributes of a primitive with the sets of
    /// `src`, encoded once. Joints are written as UNSIGNED_BYTE when every index is below
    /// 256, else UNSIGNED_SHORT. The old accessors are marked replaced.
    pub fn set_influences_from(
        &mut self,
        mesh: usize,
        primitive: usize,
        src: &dyn InfluenceSource,
    ) -> Result<(), ExportError> {
        let (sets, count) = (src.sets(), src.vertices());
        let mut max = 0u32;
        for s in 0..sets {
            for v in 0..count {
                max = max.max(src.joints(s, v).into_iter().max().unwrap_or(0));
            }
        }
        if max > u32::from(u16::MAX) {
            return Err(ExportError::Shape(format!(
                "joint index {max} does not fit UNSIGNED_SHORT"
            )));
        }
        let wide = max > 255;
        let mut new_attrs: Vec<(String, usize)> = Vec::new();
        for s in 0..sets {
            let mut bytes = Vec::with_capacity(count * if wide { 8 } else { 4 });
            for v in 0..count {
                for j in src.joints(s, v) {
                    // Only a source whose joints change between calls fails here.
                    let too_big =
                        |t: &str| ExportError::Shape(format!("joint index {j} does not fit {t}"));
                    if wide {
                        let j = u16::try_from(j).map_err(|_| too_big("UNSIGNED_SHORT"))?;
                        bytes.extend_from_slice(&j.to_le_bytes());
                    } else {
                        bytes.push(u8::try_from(j).map_err(|_| too_big("UNSIGNED_BYTE"))?);
                    }
                }
            }
            let view = self.view(bytes, Some(34962))?;
            let a = self.accessor(
                view,
                if wide { component::U16 } else { component::U8 },
                "VEC4",
                count,
                false,
            )?;
            new_attrs.push((format!("JOINTS_{s}"), a));
            let (size, ctype, norm) = match src.format() {
                WeightFormat::F32 => (16, component::F32, false),
                WeightFormat::Unorm8 => (4, component::U8, true),
                WeightFormat::Unorm16 => (8, component::U16, true),
            };
            let mut bytes = Vec::with_capacity(count * size);
            for v in 0..count {
                match src.format() {
                    WeightFormat::F32 => {
                        for w in src.weights_f32(s, v) {
                            bytes.extend_from_slice(&w.to_le_bytes());
                        }
                    }
                    WeightFormat::Unorm8 => {
                        for x in src.weights_int(s, v) {
                            bytes.push(u8::try_from(x).map_err(|_| {
                                ExportError::Shape(format!("weight {x} does not fit UNSIGNED_BYTE"))
                            })?);
                        }
                    }
                    WeightFormat::Unorm16 => {
                        for x in src.weights_int(s, v) {
                            let x = u16::try_from(x).map_err(|_| {
                                ExportError::Shape(format!(
                                    "weight {x} does not fit UNSIGNED_SHORT"
                                ))
                            })?;
                            bytes.extend_from_slice(&x.to_le_bytes());
                        }
                    }
                }
            }
            let view = self.view(bytes, Some(34962))?;
            let a = self.accessor(view, ctype, "VEC4", count, norm)?;
            new_attrs.push((format!("WEIGHTS_{s}"), a));
        }
        let attrs = self
            .value
            .pointer_mut(&format!("/meshes/{mesh}/primitives/{primitive}/attributes"))
            .and_then(Value::as_object_mut)
            .ok_or_else(|| {
                ExportError::Missing(format!("mesh {mesh} primitive {primitive} does not exist"))
            })?;
        let old: Vec<String> = attrs
            .keys()
            .filter(|k| k.starts_with("JOINTS_") || k.starts_with("WEIGHTS_"))
            .cloned()
            .collect();
        for k in old {
            // An index beyond usize names no accessor.
            if let Some(i) = attrs
                .remove(&k)
                .and_then(|v| v.as_u64())
                .and_then(|i| usize::try_from(i).ok())
            {
                self.replaced.insert(i);
            }
        }
        for (k, a) in new_attrs {
            attrs.insert(k, json!(a));
        }
        Ok(())
    }

    /// Rewrites skin `skin`'s joint list to `slots` (index = new joint index), with the
    /// inverse bind matrices permuted to match. Placeholders become new childless nodes
    /// under the skin's common root, with identity inverse bind matrices.
    pub fn reorder_skin(&mut self, skin: usize, slots: &[JointSlot]) -> Result<(), ExportError> {
        let gltf = self.gltf;
        let s = gltf
            .root
            .skins
            .get(skin)
            .ok_or_else(|| ExportError::Missing(format!("skin {skin} does not exist")))?;
        let ibm = match s.inverse_bind_matrices {
            Some(i) => Some(
                crate::accessor::read(gltf, i, &dashvertex_core::Limits::UNLIMITED)
                    .map_err(|e| ExportError::Shape(e.to_string()))?,
            ),
            None => None,
        };
        let parents = skinning::parents(&gltf.root);
        let root = skinning::common_ancestors(&parents, &s.joints)
            .last()
            .copied();
        let mut joints = Vec::new();
        let mut mats: Vec<u8> = Vec::new();
        let identity = [
            1.0f32, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
        ];
        let existing = |old: usize| -> Result<(u64, [f32; 16]), ExportError> {
            let node = *s
                .joints
                .get(old)
                .ok_or_else(|| ExportError::Missing(format!("skin {skin} has no joint {old}")))?;
            let m = match &ibm {
                Some(d) => std::array::from_fn(|c| to_f32(d.get(old, c))),
                None => identity,
            };
            Ok((node, m))
        };
        for slot in slots {
            let (node, m): (u64, [f32; 16]) = match slot {
                JointSlot::Existing(old) => existing(*old)?,
                JointSlot::Placeholder(name) => (self.placeholder(name, root)?, identity),
                JointSlot::PlaceholderChild { name, parent } => {
                    let (under, m) = existing(*parent)?;
                    (self.placeholder(name, Some(under))?, m)
                }
            };
            joints.push(json!(node));
            mats.extend(m.iter().flat_map(|x| x.to_le_bytes()));
        }
        if let Some(old) = s
            .inverse_bind_matrices
            .and_then(|i| usize::try_from(i).ok())
        {
            self.replaced.insert(old);
        }
        let view = self.view(mats, None)?;
        let acc = self.accessor(view, component::F32, "MAT4", slots.len(), false)?;
        let sk = self
            .value
            .pointer_mut(&format!("/skins/{skin}"))
            .and_then(Value::as_object_mut)
            .ok_or_else(|| ExportError::Missing(format!("skin {skin} does not exist")))?;
        sk.insert("joints".into(), Value::Array(joints));
        sk.insert("inverseBindMatrices".into(), json!(acc));
        Ok(())
    }

    /// Adds a skin over `joints` (in joint order) and gives it to the nodes `users` (the
    /// nodes of a mesh whose influences were per-bone attributes, which had none). Each
    /// inverse bind matrix is the inverse of its joint's global rest matrix in the scene
    /// (`spec/reduction.md` R5.6); new nodes carry `extras.dash`. Returns the skin's index.
    pub fn add_skin(&mut self, users: &[usize], joints: &[NewJoint]) -> Result<usize, ExportError> {
        use dashvertex_core::math;
        let gltf = self.gltf;
        let existing: Vec<u64> = joints
            .iter()
            .filter_map(|j| match j {
                NewJoint::Node(n) => Some(*n),
                NewJoint::New { .. } => None,
            })
            .collect();
        let parents = skinning::parents(&gltf.root);
        let root = skinning::common_ancestors(&parents, &existing)
            .last()
            .copied();
        let mut globals_of_existing = crate::rest::node_globals(gltf, &existing).into_iter();
        let root_global = root.map_or(math::IDENTITY, |r| {
            crate::rest::node_globals(gltf, &[r])
                .first()
                .copied()
                .unwrap_or(math::IDENTITY)
        });
        let mut nodes_of: Vec<u64> = Vec::with_capacity(joints.len());
        let mut globals: Vec<math::Mat4> = Vec::with_capacity(joints.len());
        let mut scene_roots: Vec<u64> = Vec::new();
        for (k, j) in joints.iter().enumerate() {
            match j {
                NewJoint::Node(n) => {
                    nodes_of.push(*n);
                    globals.push(globals_of_existing.next().unwrap_or(math::IDENTITY));
                }
                NewJoint::New {
                    name,
                    parent,
                    translation,
                    rotation,
                    scale,
                } => {
                    let under = parent
                        .filter(|&p| p < k)
                        .and_then(|p| Some((*nodes_of.get(p)?, *globals.get(p)?)));
                    let mut node = serde_json::Map::new();
                    node.insert("name".into(), json!(name));
                    if *translation != [0.0; 3] {
                        node.insert("translation".into(), json!(translation));
                    }
                    if *rotation != [0.0, 0.0, 0.0, 1.0] {
                        node.insert("rotation".into(), json!(rotation));
                    }
                    if *scale != [1.0; 3] {
                        node.insert("scale".into(), json!(scale));
                    }
                    node.insert(
                        "extras".into(),
                        json!({"dash": "joint for a bone the file has no node for"}),
                    );
                    let nodes = arr(&mut self.value, "nodes")?;
                    nodes.push(Value::Object(node));
                    let idx = (nodes.len() - 1) as u64;
                    let local = math::from_trs(
                        translation.map(f64::from),
                        rotation.map(f64::from),
                        scale.map(f64::from),
                    );
                    let (parent_node, parent_global) = match under {
                        Some((n, g)) => (Some(n), g),
                        None => (root, root_global),
                    };
                    match parent_node.and_then(|r| self.value.pointer_mut(&format!("/nodes/{r}"))) {
                        Some(p) => arr(p, "children")?.push(json!(idx)),
                        None => scene_roots.push(idx),
                    }
                    nodes_of.push(idx);
                    globals.push(math::mul(&parent_global, &local));
                }
            }
        }
        if !scene_roots.is_empty() {
            let scene = gltf.value.get("scene").and_then(Value::as_u64).unwrap_or(0);
            let scenes = arr(&mut self.value, "scenes")?;
            if scenes.is_empty() {
                scenes.push(json!({}));
            }
            if let Some(sc) = usize::try_from(scene).ok().and_then(|s| scenes.get_mut(s)) {
                let list = arr(sc, "nodes")?;
                list.extend(scene_roots.iter().map(|n| json!(n)));
            }
        }
        let mut mats: Vec<u8> = Vec::with_capacity(joints.len() * 64);
        for (k, g) in globals.iter().enumerate() {
            let inv = math::inverse_affine(g).ok_or_else(|| {
                ExportError::Shape(format!(
                    "joint {k}: its rest matrix cannot be inverted (a zero scale)"
                ))
            })?;
            mats.extend(inv.iter().flat_map(|x| to_f32(*x).to_le_bytes()));
        }
        let view = self.view(mats, None)?;
        let acc = self.accessor(view, component::F32, "MAT4", joints.len(), false)?;
        let skins = arr(&mut self.value, "skins")?;
        skins.push(json!({"joints": nodes_of, "inverseBindMatrices": acc}));
        let skin = skins.len() - 1;
        for &u in users {
            if let Some(n) = self
                .value
                .pointer_mut(&format!("/nodes/{u}"))
                .and_then(Value::as_object_mut)
            {
                n.insert("skin".into(), json!(skin));
            }
        }
        Ok(skin)
    }

    /// Removes the named attributes of a primitive (per-bone weight attributes once their
    /// weights are in JOINTS_n / WEIGHTS_n); their accessors are marked replaced, so the
    /// pruning removes them with their data. A name the primitive does not have is
    /// skipped.
    pub fn remove_attributes(
        &mut self,
        mesh: usize,
        primitive: usize,
        names: &[&str],
    ) -> Result<(), ExportError> {
        let attrs = self
            .value
            .pointer_mut(&format!("/meshes/{mesh}/primitives/{primitive}/attributes"))
            .and_then(Value::as_object_mut)
            .ok_or_else(|| {
                ExportError::Missing(format!("mesh {mesh} primitive {primitive} does not exist"))
            })?;
        for name in names {
            if let Some(i) = attrs
                .remove(*name)
                .and_then(|v| v.as_u64())
                .and_then(|i| usize::try_from(i).ok())
            {
                self.replaced.insert(i);
            }
        }
        Ok(())
    }

    /// Adds a placeholder joint node named `name` (identity transform), a child of
    /// `under` when given; returns its index.
    fn placeholder(&mut self, name: &str, under: Option<u64>) -> Result<u64, ExportError> {
        let nodes = arr(&mut self.value, "nodes")?;
        nodes.push(
            json!({"name": name, "extras": {"dash": "placeholder joint for a stable bone index"}}),
        );
        let idx = (nodes.len() - 1) as u64;
        if let Some(node) = under.and_then(|r| self.value.pointer_mut(&format!("/nodes/{r}"))) {
            arr(node, "children")?.push(json!(idx));
        }
        Ok(idx)
    }

    /// Replaces skin `skin`'s inverse bind matrices (column-major, one per joint) with a
    /// new MAT4 FLOAT accessor; the old accessor is marked replaced.
    pub fn set_inverse_bind_matrices(
        &mut self,
        skin: usize,
        matrices: &[[f32; 16]],
    ) -> Result<(), ExportError> {
        let old = self
            .gltf
            .root
            .skins
            .get(skin)
            .ok_or_else(|| ExportError::Missing(format!("skin {skin} does not exist")))?
            .inverse_bind_matrices;
        let bytes: Vec<u8> = matrices
            .iter()
            .flatten()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let view = self.view(bytes, None)?;
        let acc = self.accessor(view, component::F32, "MAT4", matrices.len(), false)?;
        if let Some(old) = old.and_then(|i| usize::try_from(i).ok()) {
            self.replaced.insert(old);
        }
        let sk = self
            .value
            .pointer_mut(&format!("/skins/{skin}"))
            .and_then(Value::as_object_mut)
            .ok_or_else(|| ExportError::Missing(format!("skin {skin} does not exist")))?;
        sk.insert("inverseBindMatrices".into(), json!(acc));
        Ok(())
    }

    /// Writes the result as `container` with every buffer of a `.gltf` embedded (the
    /// output stands alone); see [`Editor::finish_files`].
    pub fn finish(self, container: Container) -> Result<Vec<u8>, ExportError> {
        Ok(self.finish_files(container, &BufferFiles::Embed)?.main)
    }

    /// Writes the result as `container`. A `.glb` carries buffer 0 in its binary chunk
    /// and embeds the others; a `.gltf` keeps its buffers as `files` says. New data goes
    /// to buffer 0. Replaced accessors nothing else uses, and the views only they used,
    /// are removed and every buffer compacted (each kept view keeps its offset modulo 4,
    /// so every accessor stays aligned), unless an extension outside
    /// [`PRUNE_SAFE_EXTENSIONS`] is used.
    pub fn finish_files(
        self,
        container: Container,
        files: &BufferFiles,
    ) -> Result<Written, ExportError> {
        let Editor {
            gltf,
            mut value,
            new_views,
            replaced,
        } = self;
        let n_src_views = gltf.root.buffer_views.len();
        let prune = extensions_used(&value)
            .iter()
            .all(|e| PRUNE_SAFE_EXTENSIONS.contains(&e.as_str()));
        // Which accessors and views stay.
        let n_acc = value
            .get("accessors")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        let mut used = vec![false; n_acc];
        for_each_accessor_ref(&mut value, &mut |i| {
            if let Some(u) = used.get_mut(as_index(*i)) {
                *u = true;
            }
        });
        let removed_acc: BTreeSet<usize> = if prune {
            replaced
                .iter()
                .copied()
                .filter(|&i| !used.get(i).copied().unwrap_or(true))
                .collect()
        } else {
            BTreeSet::new()
        };
        let n_views = n_src_views + new_views.len();
        let mut view_used = vec![false; n_views];
        let mut view_of_removed = vec![false; n_views];
        if let Some(accs) = value.get_mut("accessors").and_then(Value::as_array_mut) {
            for (i, a) in accs.iter_mut().enumerate() {
                let gone = removed_acc.contains(&i);
                for_each_view_ref_of_accessor(a, &mut |v| {
                    let slot = if gone {
                        &mut view_of_removed
                    } else {
                        &mut view_used
                    };
                    if let Some(x) = slot.get_mut(as_index(*v)) {
                        *x = true;
                    }
                });
            }
        }
        for_each_image_view_ref(&mut value, &mut |v| {
            if let Some(x) = view_used.get_mut(as_index(*v)) {
                *x = true;
            }
        });
        let removed_view: Vec<bool> = (0..n_views)
            .map(|v| {
                view_of_removed.get(v).copied().unwrap_or(false)
                    && !view_used.get(v).copied().unwrap_or(false)
            })
            .collect();
        // Trim kept views whose leading or trailing bytes only removed accessors used
        // (an attribute block shared by JOINTS and TEXCOORD, say): `(start, end)` of
        // the span the kept accessors cover, when smaller than the view.
        let trim = if prune && !removed_acc.is_empty() {
            trims(gltf, &value, &removed_acc, &removed_view, &view_of_removed)
        } else {
            vec![None; n_src_views]
        };
        if let Some(accs) = value.get_mut("accessors").and_then(Value::as_array_mut) {
            for a in accs.iter_mut() {
                let view = a.get("bufferView").and_then(Value::as_u64);
                if let Some(Some((start, _))) = view.and_then(|v| trim.get(as_index(v)))
                    && let Some(o) = a.as_object_mut()
                {
                    let off = o.get("byteOffset").and_then(Value::as_u64).unwrap_or(0);
                    o.insert("byteOffset".into(), json!(off.saturating_sub(*start)));
                }
            }
        }
        // Renumber.
        let acc_map: Vec<Option<u64>> = renumber(n_acc, |i| removed_acc.contains(&i));
        let view_map: Vec<Option<u64>> =
            renumber(n_views, |v| removed_view.get(v).copied().unwrap_or(false));
        if let Some(accs) = value.get_mut("accessors").and_then(Value::as_array_mut) {
            let mut i = 0;
            accs.retain(|_| {
                let keep = !removed_acc.contains(&i);
                i += 1;
                keep
            });
            for a in accs.iter_mut() {
                for_each_view_ref_of_accessor(a, &mut |v| remap(v, &view_map));
            }
        }
        for_each_image_view_ref(&mut value, &mut |v| remap(v, &view_map));
        for_each_accessor_ref(&mut value, &mut |i| remap(i, &acc_map));
        // Lay the buffers out: kept views compacted (when pruning) or in place, new
        // views appended to buffer 0.
        let n_buffers = gltf.buffer_count().max(1);
        let mut sizes = vec![0u64; n_buffers];
        // (view index in the output, buffer, source range or new view, output offset)
        let mut placed: Vec<Placed> = Vec::new();
        let src_views = &gltf.root.buffer_views;
        let mut order: Vec<usize> = (0..n_src_views)
            .filter(|&v| !removed_view.get(v).copied().unwrap_or(false))
            .collect();
        order.sort_by_key(|&v| src_views.get(v).map(|x| (x.buffer, x.byte_offset)));
        for v in order {
            let Some(bv) = src_views.get(v) else { continue };
            let b = as_index(bv.buffer);
            let Some(size) = sizes.get_mut(b) else {
                return Err(ExportError::Missing(format!(
                    "buffer {} does not exist",
                    bv.buffer
                )));
            };
            let (start, len) = match trim.get(v).copied().flatten() {
                Some((a, e)) => (bv.byte_offset.saturating_add(a), e.saturating_sub(a)),
                None => (bv.byte_offset, bv.byte_length),
            };
            let offset = if prune {
                size.next_multiple_of(4).saturating_add(start % 4)
            } else {
                bv.byte_offset
            };
            *size = (*size).max(offset.saturating_add(len));
            placed.push(Placed {
                view: v,
                buffer: b,
                from: Origin::Source(start, len),
                offset,
            });
        }
        // Kept whole, in place: every buffer when not pruning, and a buffer no view uses
        // (its bytes are nobody's to drop).
        // Per source buffer, in one pass over the views: whether a kept view lies in it,
        // whether a removed one did.
        let mut keeps = vec![false; n_buffers];
        let mut lost = vec![false; n_buffers];
        for (v, bv) in src_views.iter().enumerate() {
            let slot = if removed_view.get(v).copied().unwrap_or(false) {
                &mut lost
            } else {
                &mut keeps
            };
            if let Some(x) = slot.get_mut(as_index(bv.buffer)) {
                *x = true;
            }
        }
        let bare: Vec<bool> = keeps.iter().zip(&lost).map(|(k, l)| !k && !l).collect();
        let whole: Vec<bool> = bare.iter().map(|&b| b || !prune).collect();
        for (b, size) in sizes.iter_mut().enumerate() {
            if whole.get(b).copied().unwrap_or(false) {
                *size = (*size).max(
                    gltf.buffer(b)
                        .and_then(Result::ok)
                        .map_or(0, |d| d.len() as u64),
                );
            }
        }
        for (k, nv) in new_views.iter().enumerate() {
            // A view the edit itself replaced (influences set twice) is not written.
            if removed_view.get(n_src_views + k).copied().unwrap_or(false) {
                continue;
            }
            let size = sizes.first_mut().ok_or(ExportError::TooLarge)?;
            let offset = size.next_multiple_of(4);
            *size = offset + nv.bytes.len() as u64;
            placed.push(Placed {
                view: n_src_views + k,
                buffer: 0,
                from: Origin::New(k),
                offset,
            });
        }
        // Views and buffers in the JSON.
        if let Some(views) = value.get_mut("bufferViews").and_then(Value::as_array_mut) {
            for p in &placed {
                if let Some(o) = views.get_mut(p.view).and_then(Value::as_object_mut) {
                    o.insert("byteOffset".into(), json!(p.offset));
                    if let Origin::Source(_, len) = p.from {
                        o.insert("byteLength".into(), json!(len));
                    }
                    if let Origin::New(k) = p.from {
                        let nv = new_views.get(k);
                        o.insert("byteLength".into(), json!(nv.map_or(0, |n| n.bytes.len())));
                        if let Some(t) = nv.and_then(|n| n.target) {
                            o.insert("target".into(), json!(t));
                        }
                    }
                }
            }
            let mut v = 0;
            views.retain(|_| {
                let keep = !removed_view.get(v).copied().unwrap_or(false);
                v += 1;
                keep
            });
        }
        // Buffers left without a view by the pruning go too (a buffer must hold at least
        // one byte); buffers that had no view before stay, as they were.
        if let Some(k) = keeps.first_mut() {
            *k |= !new_views.is_empty();
        }
        let removed_buf: Vec<bool> = (0..keeps.len())
            .map(|b| prune && lost.get(b) == Some(&true) && keeps.get(b) == Some(&false))
            .collect();
        let buf_map = renumber(keeps.len(), |b| {
            removed_buf.get(b).copied().unwrap_or(false)
        });
        let has_new = placed.iter().any(|p| matches!(p.from, Origin::New(_)));
        let buffers = arr(&mut value, "buffers")?;
        if buffers.is_empty() && has_new {
            buffers.push(json!({"byteLength": 0}));
        }
        // Where each buffer goes.
        let src_uri = |b: usize| gltf.root.buffers.get(b).and_then(|x| x.uri.clone());
        let glb_bin = |b: usize| b == 0 && (src_uri(0).is_none() || container == Container::Glb);
        let mut bin: Option<usize> = None;
        let mut outside: Vec<(usize, String)> = Vec::new();
        let mut embedded: Vec<usize> = Vec::new();
        for (b, entry) in buffers.iter_mut().enumerate() {
            if removed_buf.get(b).copied().unwrap_or(false) {
                continue;
            }
            let Some(o) = entry.as_object_mut() else {
                continue;
            };
            let named = buf_map.get(b).copied().flatten().unwrap_or(b as u64);
            o.insert(
                "byteLength".into(),
                json!(sizes.get(b).copied().unwrap_or(0)),
            );
            let data_uri = src_uri(b).is_some_and(|u| u.starts_with("data:"));
            if container == Container::Glb && glb_bin(b) {
                o.remove("uri");
                bin = Some(b);
            } else {
                match files {
                    BufferFiles::Beside { stem } if !data_uri => {
                        let name = if named == 0 {
                            format!("{stem}.bin")
                        } else {
                            format!("{stem}_{named}.bin")
                        };
                        o.insert("uri".into(), Value::String(percent_encode(&name)));
                        outside.push((b, name));
                    }
                    _ => embedded.push(b),
                }
            }
        }
        let mut pending: Vec<Option<NewView>> = new_views.into_iter().map(Some).collect();
        let bytes_of =
            |b: usize, pending: &mut Vec<Option<NewView>>| -> Result<Vec<u8>, ExportError> {
                let size = usize::try_from(sizes.get(b).copied().unwrap_or(0))
                    .map_err(|_| ExportError::TooLarge)?;
                let mut out = Vec::with_capacity(size);
                append_buffer(
                    &mut out,
                    b,
                    &placed,
                    gltf,
                    pending,
                    whole.get(b) == Some(&true),
                )?;
                out.resize(size, 0);
                Ok(out)
            };
        for b in &embedded {
            let data = bytes_of(*b, &mut pending)?;
            let uri = format!(
                "data:application/octet-stream;base64,{}",
                base64::engine::general_purpose::STANDARD.encode(&data)
            );
            if let Some(o) = buffers.get_mut(*b).and_then(Value::as_object_mut) {
                o.insert("uri".into(), Value::String(uri));
            }
        }
        let files_out: Vec<(String, Vec<u8>)> = outside
            .into_iter()
            .map(|(b, name)| Ok((name, bytes_of(b, &mut pending)?)))
            .collect::<Result<_, ExportError>>()?;
        if removed_buf.iter().any(|&r| r) {
            if let Some(buffers) = value.get_mut("buffers").and_then(Value::as_array_mut) {
                let mut b = 0;
                buffers.retain(|_| {
                    let keep = !removed_buf.get(b).copied().unwrap_or(false);
                    b += 1;
                    keep
                });
            }
            if let Some(views) = value.get_mut("bufferViews").and_then(Value::as_array_mut) {
                for v in views {
                    visit_index(v.get_mut("buffer"), &mut |i| remap(i, &buf_map));
                }
            }
        }
        let main = match container {
            Container::Gltf => {
                let mut t = serde_json::to_string_pretty(&value)
                    .map_err(|e| ExportError::Shape(e.to_string()))?;
                t.push('\n');
                t.into_bytes()
            }
            Container::Glb => {
                let text =
                    serde_json::to_vec(&value).map_err(|e| ExportError::Shape(e.to_string()))?;
                let bin_len = usize::try_from(bin.and_then(|b| sizes.get(b)).copied().unwrap_or(0))
                    .map_err(|_| ExportError::TooLarge)?;
                let frame = crate::glb::Frame::new(text.len(), bin.map(|_| bin_len))
                    .map_err(|_| ExportError::TooLarge)?;
                // One allocation of the final size; the binary chunk is filled in place.
                let mut out = Vec::with_capacity(frame.total as usize);
                frame.start(&mut out, &text);
                if let Some(b) = bin {
                    append_buffer(
                        &mut out,
                        b,
                        &placed,
                        gltf,
                        &mut pending,
                        whole.get(b) == Some(&true),
                    )?;
                }
                frame.finish(&mut out);
                out
            }
        };
        Ok(Written {
            main,
            files: files_out,
        })
    }
}

/// For each source view, the byte span its kept accessors cover when that is smaller
/// than the view; `None` to keep it whole (a view used by an image or by sparse data, or
/// by no kept accessor directly, is kept whole).
fn trims(
    gltf: &Gltf,
    value: &Value,
    removed_acc: &BTreeSet<usize>,
    removed_view: &[bool],
    lost: &[bool],
) -> Vec<Option<(u64, u64)>> {
    let n = gltf.root.buffer_views.len();
    let mut span: Vec<Option<(u64, u64)>> = vec![None; n];
    let mut whole = vec![false; n];
    if let Some(images) = value.get("images").and_then(Value::as_array) {
        for i in images {
            if let Some(v) = i.get("bufferView").and_then(Value::as_u64)
                && let Some(w) = whole.get_mut(as_index(v))
            {
                *w = true;
            }
        }
    }
    for (i, a) in gltf.root.accessors.iter().enumerate() {
        if removed_acc.contains(&i) {
            continue;
        }
        if let Some(sp) = &a.sparse {
            for v in [sp.indices.buffer_view, sp.values.buffer_view] {
                if let Some(w) = whole.get_mut(as_index(v)) {
                    *w = true;
                }
            }
        }
        let Some(v) = a.buffer_view else { continue };
        let Some(bv) = gltf.root.buffer_views.get(as_index(v)) else {
            continue;
        };
        let elem = crate::document::element_layout(a.component_type, &a.kind).map(|l| l.0);
        let Some(elem) = elem else {
            if let Some(w) = whole.get_mut(as_index(v)) {
                *w = true;
            }
            continue;
        };
        let stride = bv.byte_stride.unwrap_or(elem);
        // At least one stride: a view must not be shorter than its byteStride.
        let end = (a.count.max(1) - 1)
            .checked_mul(stride)
            .and_then(|x| x.checked_add(elem.max(stride)))
            .and_then(|x| x.checked_add(a.byte_offset));
        let Some(end) = end else {
            if let Some(w) = whole.get_mut(as_index(v)) {
                *w = true;
            }
            continue;
        };
        if let Some(s) = span.get_mut(as_index(v)) {
            *s = Some(match *s {
                Some((lo, hi)) => (lo.min(a.byte_offset), hi.max(end)),
                None => (a.byte_offset, end),
            });
        }
    }
    (0..n)
        .map(|v| {
            let bv = gltf.root.buffer_views.get(v)?;
            if whole.get(v).copied().unwrap_or(true)
                || removed_view.get(v).copied().unwrap_or(false)
                || !lost.get(v).copied().unwrap_or(false)
            {
                return None;
            }
            let (lo, hi) = span.get(v).copied().flatten()?;
            // The start stays 4-aligned, so every kept accessor stays aligned to its
            // component size after the shift.
            let lo = lo - lo % 4;
            // Element bytes a stride pads past the last element are kept with it; a span
            // outside the view (a broken file) keeps the view whole.
            let hi = hi.min(bv.byte_length);
            (lo <= hi && (lo > 0 || hi < bv.byte_length)).then_some((lo, hi))
        })
        .collect()
}

/// Where a view's bytes come from.
#[derive(Clone, Copy, Debug)]
enum Origin {
    /// `(offset, length)` in its source buffer.
    Source(u64, u64),
    /// A new view.
    New(usize),
}

/// A view placed in an output buffer.
#[derive(Clone, Copy, Debug)]
struct Placed {
    view: usize,
    buffer: usize,
    from: Origin,
    offset: u64,
}

/// Appends buffer `b`'s output bytes to `out`, in offset order, zeros between views:
/// the source buffer whole when kept in place (then only new views are placed), else
/// view by view. Each new view's bytes are freed once copied, so the output grows while
/// they shrink and the two are never held in full together. Fails (too large) only where
/// an offset does not fit a usize.
fn append_buffer(
    out: &mut Vec<u8>,
    b: usize,
    placed: &[Placed],
    gltf: &Gltf,
    new_views: &mut [Option<NewView>],
    in_place: bool,
) -> Result<(), ExportError> {
    let base = out.len();
    let src = gltf.buffer(b).and_then(Result::ok).unwrap_or_default();
    if in_place {
        out.extend_from_slice(src);
    }
    let mut mine: Vec<&Placed> = placed
        .iter()
        .filter(|p| p.buffer == b && !(in_place && matches!(p.from, Origin::Source(..))))
        .collect();
    mine.sort_by_key(|p| p.offset);
    for p in mine {
        let at = base + usize::try_from(p.offset).map_err(|_| ExportError::TooLarge)?;
        if out.len() < at {
            out.resize(at, 0);
        }
        match p.from {
            Origin::Source(off, len) => {
                let end = off.saturating_add(len);
                out.extend_from_slice(src.get(as_index(off)..as_index(end)).unwrap_or_default());
            }
            Origin::New(k) => {
                if let Some(nv) = new_views.get_mut(k).and_then(Option::take) {
                    out.extend_from_slice(&nv.bytes);
                }
            }
        }
    }
    Ok(())
}

/// A JSON index or offset for a slice lookup: `usize::MAX`, past the end of every slice
/// here, when it does not fit a usize.
fn as_index(i: u64) -> usize {
    usize::try_from(i).unwrap_or(usize::MAX)
}

/// Old index → new index, dropping the indices `gone` says.
fn renumber(n: usize, gone: impl Fn(usize) -> bool) -> Vec<Option<u64>> {
    let mut next = 0u64;
    (0..n)
        .map(|i| {
            if gone(i) {
                None
            } else {
                next += 1;
                Some(next - 1)
            }
        })
        .collect()
}

fn remap(v: &mut u64, map: &[Option<u64>]) {
    if let Some(Some(n)) = map.get(as_index(*v)) {
        *v = *n;
    }
}

/// The `extensionsUsed` names.
fn extensions_used(value: &Value) -> Vec<String> {
    value
        .get("extensionsUsed")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|e| e.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// Visits an integer member, letting `f` change it.
fn visit_index(v: Option<&mut Value>, f: &mut dyn FnMut(&mut u64)) {
    if let Some(v) = v
        && let Some(mut i) = v.as_u64()
    {
        f(&mut i);
        *v = json!(i);
    }
}

/// The elements of an array member (none when it is absent or not an array).
fn each(v: Option<&mut Value>) -> std::slice::IterMut<'_, Value> {
    match v.and_then(Value::as_array_mut) {
        Some(a) => a.iter_mut(),
        None => [].iter_mut(),
    }
}

/// Every place core glTF refers to an accessor: primitive attributes, indices and morph
/// targets, skins' inverse bind matrices, animation sampler inputs and outputs.
fn for_each_accessor_ref(value: &mut Value, f: &mut dyn FnMut(&mut u64)) {
    let Some(root) = value.as_object_mut() else {
        return;
    };
    if let Some(meshes) = root.get_mut("meshes") {
        for m in each(Some(meshes)) {
            for p in each(m.get_mut("primitives")) {
                if let Some(attrs) = p.get_mut("attributes").and_then(Value::as_object_mut) {
                    for a in attrs.values_mut() {
                        visit_index(Some(a), f);
                    }
                }
                visit_index(p.get_mut("indices"), f);
                for t in each(p.get_mut("targets")) {
                    if let Some(t) = t.as_object_mut() {
                        for a in t.values_mut() {
                            visit_index(Some(a), f);
                        }
                    }
                }
            }
        }
    }
    if let Some(skins) = root.get_mut("skins") {
        for s in each(Some(skins)) {
            visit_index(s.get_mut("inverseBindMatrices"), f);
        }
    }
    if let Some(anims) = root.get_mut("animations") {
        for a in each(Some(anims)) {
            for s in each(a.get_mut("samplers")) {
                visit_index(s.get_mut("input"), f);
                visit_index(s.get_mut("output"), f);
            }
        }
    }
}

/// The buffer views an accessor refers to: its own and its sparse data's.
fn for_each_view_ref_of_accessor(a: &mut Value, f: &mut dyn FnMut(&mut u64)) {
    visit_index(a.get_mut("bufferView"), f);
    if let Some(sp) = a.get_mut("sparse") {
        if let Some(i) = sp.get_mut("indices") {
            visit_index(i.get_mut("bufferView"), f);
        }
        if let Some(v) = sp.get_mut("values") {
            visit_index(v.get_mut("bufferView"), f);
        }
    }
}

/// Images stored in buffer views.
fn for_each_image_view_ref(value: &mut Value, f: &mut dyn FnMut(&mut u64)) {
    if let Some(images) = value.get_mut("images").and_then(Value::as_array_mut) {
        for i in images {
            visit_index(i.get_mut("bufferView"), f);
        }
    }
}

/// A file name as a URI reference: the characters RFC 3986 allows in a path segment
/// are kept, the others percent-encoded.
fn percent_encode(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
