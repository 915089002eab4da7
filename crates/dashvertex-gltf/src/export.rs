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
//!
//! The edits ([`Editor`]'s methods) only change the JSON and collect new views. Writing
//! ([`Editor::finish_files`]) runs in three phases: `plan` decides what stays and
//! renumbers the JSON, `place` lays the buffers out, `emit` writes the files; `refs`
//! knows every place an index refers to an accessor, a view or a buffer.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::accessor::to_f32;
use crate::document::component;
use crate::load::{Container, Gltf};
use crate::skinning;

mod build;
mod emit;
mod encode;
mod place;
mod plan;
mod refs;

use place::Layout;
use plan::Plan;

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

/// The `attributes` object of primitive `primitive` of mesh `mesh` in the document.
fn attributes_mut(
    value: &mut Value,
    mesh: usize,
    primitive: usize,
) -> Result<&mut serde_json::Map<String, Value>, ExportError> {
    value
        .pointer_mut(&format!("/meshes/{mesh}/primitives/{primitive}/attributes"))
        .and_then(Value::as_object_mut)
        .ok_or_else(|| {
            ExportError::Missing(format!("mesh {mesh} primitive {primitive} does not exist"))
        })
}

/// The joint indices of set `s` of vertex `v`, as the editor reads an [`InfluenceSource`]'s.
pub type JointsOf<'a> = dyn Fn(usize, usize) -> [u32; 4] + Sync + 'a;

/// A primitive's joint values, set by set, already encoded as a `JOINTS_n` accessor
/// holds them: four per vertex, UNSIGNED_SHORT (little-endian) when `wide`, else
/// UNSIGNED_BYTE ([`Editor::set_joints_encoded`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EncodedJoints {
    /// Per set, its bytes.
    pub sets: Vec<Vec<u8>>,
    /// Whether the values are UNSIGNED_SHORT.
    pub wide: bool,
}

/// Influence sets to write, read vertex by vertex: the exporter encodes them straight
/// into the output, so a caller need not lay them out in memory again.
pub trait InfluenceSource: Sync {
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
    /// A range of the input a sparse load left unread could not be read back.
    #[error("the input could not be read again: {0}")]
    Unread(#[source] std::sync::Arc<dashvertex_core::file::FsError>),
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
    /// The output's accessors `0..carried` are the input's own, kept with their bytes
    /// and description (only their `bufferView` and `byteOffset` may be renumbered); the
    /// edit's new accessors follow them. A check of the output before it is written
    /// walks only the others' elements (`dashvertex_validate::Options::carried_accessors`).
    pub carried: u64,
    /// What the edit dropped or changed beyond what it was asked to, one sentence each
    /// (a compressed stream that held the old data of a primitive it rewrote): a front
    /// end shows them, so that no output changes silently.
    pub notes: Vec<String>,
    /// Ranges of `main` (zeros there) that the writer fills from the input file: the
    /// bytes of carried views a sparse load left unread
    /// ([`crate::sparse::load_path_for_rewrite`]). Write `main` with
    /// [`dashvertex_fs::Holes::write_to`] (or [`dashvertex_fs::Batch::add_spliced`]).
    #[cfg(feature = "fs")]
    pub holes: dashvertex_fs::Holes,
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
    /// Whether every carried range of a GLB's binary chunk becomes a hole, read or not
    /// ([`Editor::splice_carried`]).
    splice_carried: bool,
    /// What the edit dropped beyond what it was asked to ([`Written::notes`]).
    notes: Vec<String>,
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
            splice_carried: false,
            notes: Vec::new(),
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
        let new_attrs = self.influence_accessors(src)?;
        let attrs = attributes_mut(&mut self.value, mesh, primitive)?;
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
        self.drop_stream(mesh, primitive);
        Ok(())
    }

    /// Drops the Draco stream of a primitive whose influences the edit replaced (it
    /// holds the old ones), noting it.
    fn drop_stream(&mut self, mesh: usize, primitive: usize) {
        let dropped = self
            .value
            .pointer_mut(&format!("/meshes/{mesh}/primitives/{primitive}"))
            .is_some_and(crate::compressed::strip_draco);
        if dropped {
            self.notes.push(format!(
                "mesh {mesh} primitive {primitive}: its {} stream held the old influences and was dropped; the plain accessors hold the new data (a viewer that decodes Draco would otherwise draw the old binding)",
                crate::compressed::DRACO
            ));
        }
    }

    /// Notes, for [`Written::notes`], what the caller dropped or changed beyond what it
    /// was asked to (a split part that could not keep its primitive's Draco stream).
    pub fn note(&mut self, note: String) {
        // Once each: a split notes the same primitive for each of its parts.
        if !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }

    /// Adds the `JOINTS_n` / `WEIGHTS_n` accessors of the sets of `src`, encoded once
    /// (joints as UNSIGNED_BYTE when every index is below 256, else UNSIGNED_SHORT), and
    /// returns `(attribute name, accessor)` in set order; no primitive refers to them yet.
    pub fn influence_accessors(
        &mut self,
        src: &dyn InfluenceSource,
    ) -> Result<Vec<(String, usize)>, ExportError> {
        let count = src.vertices();
        let mut new_attrs = Vec::new();
        let joints = self.joint_accessors(src.sets(), count, &|s, v| src.joints(s, v))?;
        for (s, (name, a)) in joints.into_iter().enumerate() {
            new_attrs.push((name, a));
            let (ctype, norm) = match src.format() {
                WeightFormat::F32 => (component::F32, false),
                WeightFormat::Unorm8 => (component::U8, true),
                WeightFormat::Unorm16 => (component::U16, true),
            };
            let bytes = encode::weights(src, s)?;
            let view = self.view(bytes, Some(34962))?;
            let a = self.accessor(view, ctype, "VEC4", count, norm)?;
            new_attrs.push((format!("WEIGHTS_{s}"), a));
        }
        Ok(new_attrs)
    }

    /// Adds one `JOINTS_n` accessor per set of `count` vertices, set `s` of vertex `v`
    /// being `joints(s, v)`: UNSIGNED_BYTE when every index is below 256, else
    /// UNSIGNED_SHORT. Returns `(attribute name, accessor)` in set order.
    fn joint_accessors(
        &mut self,
        sets: usize,
        count: usize,
        joints: &JointsOf<'_>,
    ) -> Result<Vec<(String, usize)>, ExportError> {
        let max = encode::max_joint(sets, count, joints);
        if max > u32::from(u16::MAX) {
            return Err(ExportError::Shape(format!(
                "joint index {max} does not fit UNSIGNED_SHORT"
            )));
        }
        let wide = max > 255;
        let mut out = Vec::with_capacity(sets);
        for s in 0..sets {
            let bytes = encode::joints(count, joints, s, wide)?;
            let view = self.view(bytes, Some(34962))?;
            let ctype = if wide { component::U16 } else { component::U8 };
            let a = self.accessor(view, ctype, "VEC4", count, false)?;
            out.push((format!("JOINTS_{s}"), a));
        }
        Ok(out)
    }

    /// Replaces the `JOINTS_n` attributes of a primitive with `joints`, sets of `count`
    /// vertices already encoded, and keeps its `WEIGHTS_n` accessors as they are: for a
    /// renumbering that changes no weight. The old joint accessors are marked replaced.
    /// Fails when a set does not hold `count` vertices.
    pub fn set_joints_encoded(
        &mut self,
        mesh: usize,
        primitive: usize,
        count: usize,
        joints: EncodedJoints,
    ) -> Result<(), ExportError> {
        let (size, ctype) = if joints.wide {
            (8, component::U16)
        } else {
            (4, component::U8)
        };
        let mut new_attrs = Vec::with_capacity(joints.sets.len());
        for (s, bytes) in joints.sets.into_iter().enumerate() {
            if Some(bytes.len()) != count.checked_mul(size) {
                return Err(ExportError::Shape(format!(
                    "JOINTS_{s} holds {} bytes, not {count} vertices'",
                    bytes.len()
                )));
            }
            let view = self.view(bytes, Some(34962))?;
            let a = self.accessor(view, ctype, "VEC4", count, false)?;
            new_attrs.push((format!("JOINTS_{s}"), a));
        }
        let attrs = attributes_mut(&mut self.value, mesh, primitive)?;
        for (k, a) in new_attrs {
            // An index beyond usize names no accessor.
            if let Some(i) = attrs
                .insert(k, json!(a))
                .and_then(|v| v.as_u64())
                .and_then(|i| usize::try_from(i).ok())
            {
                self.replaced.insert(i);
            }
        }
        self.drop_stream(mesh, primitive);
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
                    "joint {k}: its rest matrix cannot be inverted: {}",
                    math::why_not_invertible(g)
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
        let attrs = attributes_mut(&mut self.value, mesh, primitive)?;
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

    /// Makes a GLB output's `Written::holes` cover every range of the binary chunk the
    /// edit carries from a file kept open by a load for rewriting (`sparse::
    /// load_path_for_rewrite`, feature `fs`; after any other load this changes nothing),
    /// whether that load read it or not (ranges of at least `sparse::MIN_HOLE` bytes):
    /// the output then holds
    /// in memory only the JSON and the edit's new views, and the writer copies the rest
    /// from the file inside the kernel. Those ranges are zeros in [`Written::main`], so
    /// this is for a job that does not check its output's carried data in memory (a
    /// remap, which changes joint values only and checked its input).
    pub fn splice_carried(&mut self) {
        self.splice_carried = true;
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
            splice_carried,
            notes,
        } = self;
        crate::compressed::forget_draco_if_unused(&mut value);
        let plan = Plan::new(gltf, &mut value, &replaced, new_views.len());
        plan.apply(&mut value);
        let mut layout = Layout::new(gltf, &plan, &new_views)?;
        layout.splice_carried = splice_carried;
        let mut written = emit::emit(gltf, value, new_views, &plan, &layout, container, files)?;
        written.notes = notes;
        Ok(written)
    }
}

/// A JSON index or offset for a slice lookup: `usize::MAX`, past the end of every slice
/// here, when it does not fit a usize.
fn as_index(i: u64) -> usize {
    usize::try_from(i).unwrap_or(usize::MAX)
}
