//! Writing influence sets back into a copy of a glTF file.
//!
//! The document is edited as a JSON value, so everything dash does not touch — other
//! attributes, nodes, animations, materials, extensions, extras — is written back as it
//! was. New data (influence accessors, reordered inverse bind matrices) goes into new
//! buffer views appended to the binary chunk (GLB) or to a new embedded buffer (`.gltf`);
//! the old influence accessors stay in place (unused), so no existing index changes.

use base64::Engine;
use serde_json::{Map, Value, json};

use crate::glb;
use crate::load::{Container, Gltf};
use crate::skinning;
use crate::spec::component;

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

/// The little-endian bytes of one set's values, vertex after vertex.
fn le_bytes<T: Copy, const B: usize>(set: Option<&Vec<[T; 4]>>, to: fn(T) -> [u8; B]) -> Vec<u8> {
    set.into_iter()
        .flatten()
        .flatten()
        .flat_map(|&x| to(x))
        .collect()
}

impl Weights {
    fn sets(&self) -> usize {
        match self {
            Weights::F32(s) => s.len(),
            Weights::Unorm8(s) => s.len(),
            Weights::Unorm16(s) => s.len(),
        }
    }
}

/// The influence sets of one primitive: joints per set (set-major) and weights.
#[derive(Clone, Debug, PartialEq)]
pub struct Influences {
    /// `joints[set][vertex]`.
    pub joints: Vec<Vec<[u32; 4]>>,
    /// Weights in the storage to write.
    pub weights: Weights,
}

/// What a skin's joint list becomes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JointSlot {
    /// An existing joint of the skin (its old index).
    Existing(usize),
    /// A placeholder node (a bone the file does not have, or a retired index), named.
    Placeholder(String),
}

/// Why a file cannot be written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    /// A buffer of the source is unavailable, so the file cannot be copied faithfully.
    #[error("buffer {0} of the source is unavailable: {1}")]
    Buffer(usize, String),
    /// No such mesh, primitive or skin.
    #[error("{0}")]
    Missing(String),
    /// The influence data does not fit the primitive.
    #[error("{0}")]
    Shape(String),
    /// The result would not fit a GLB (4 GiB).
    #[error("the output would exceed 4 GiB")]
    TooLarge,
}

/// An editable copy of a glTF document.
#[derive(Clone, Debug)]
pub struct Editor {
    value: Value,
    /// The GLB binary chunk (buffer 0 of a GLB), extended with new data.
    bin: Option<Vec<u8>>,
    /// New data for a `.gltf` (one new embedded buffer).
    extra: Vec<u8>,
    /// Index of the buffer new data goes to.
    target_buffer: usize,
    /// Buffers of the source, to embed when written elsewhere.
    sources: Vec<Option<Vec<u8>>>,
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

impl Editor {
    /// Starts an edit of `gltf`. Every buffer must be available.
    pub fn new(gltf: &Gltf) -> Result<Self, ExportError> {
        let mut sources = Vec::new();
        for (i, b) in gltf.buffers().enumerate() {
            match b {
                Ok(d) => sources.push(Some(d.to_vec())),
                Err(e) => return Err(ExportError::Buffer(i, e.to_owned())),
            }
        }
        let mut value = gltf.value.clone();
        let glb_bin = gltf.container == Container::Glb
            && gltf.root.buffers.first().is_some_and(|b| b.uri.is_none());
        let (bin, target_buffer) = if glb_bin {
            (sources.first().cloned().flatten(), 0)
        } else {
            let buffers = arr(&mut value, "buffers")?;
            buffers.push(json!({"byteLength": 0}));
            (None, buffers.len() - 1)
        };
        Ok(Editor {
            value,
            bin,
            extra: Vec::new(),
            target_buffer,
            sources,
        })
    }

    fn data(&mut self) -> &mut Vec<u8> {
        match &mut self.bin {
            Some(b) => b,
            None => &mut self.extra,
        }
    }

    /// Appends bytes as a new buffer view (4-byte aligned); returns its index.
    fn view(&mut self, bytes: &[u8], target: Option<u32>) -> Result<usize, ExportError> {
        let buffer = self.target_buffer;
        let data = self.data();
        while !data.len().is_multiple_of(4) {
            data.push(0);
        }
        let offset = data.len();
        data.extend_from_slice(bytes);
        let mut v = json!({"buffer": buffer, "byteOffset": offset, "byteLength": bytes.len()});
        if let (Some(t), Some(o)) = (target, v.as_object_mut()) {
            o.insert("target".into(), json!(t));
        }
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

    /// Replaces the `JOINTS_n` / `WEIGHTS_n` attributes of a primitive. Joints are written
    /// as UNSIGNED_BYTE when every index is below 256, else UNSIGNED_SHORT.
    pub fn set_influences(
        &mut self,
        mesh: usize,
        primitive: usize,
        inf: &Influences,
    ) -> Result<(), ExportError> {
        let count = inf.joints.first().map_or(0, Vec::len);
        if inf.joints.len() != inf.weights.sets() || inf.joints.iter().any(|s| s.len() != count) {
            return Err(ExportError::Shape(
                "every set needs joints and weights for every vertex".into(),
            ));
        }
        let max = inf
            .joints
            .iter()
            .flatten()
            .flatten()
            .copied()
            .max()
            .unwrap_or(0);
        if max > u32::from(u16::MAX) {
            return Err(ExportError::Shape(format!(
                "joint index {max} does not fit UNSIGNED_SHORT"
            )));
        }
        let wide = max > 255;
        let mut new_attrs: Vec<(String, usize)> = Vec::new();
        for (s, joints) in inf.joints.iter().enumerate() {
            let bytes: Vec<u8> = if wide {
                joints
                    .iter()
                    .flatten()
                    .flat_map(|&j| (j as u16).to_le_bytes())
                    .collect()
            } else {
                joints.iter().flatten().map(|&j| j as u8).collect()
            };
            let v = self.view(&bytes, Some(34962))?;
            let a = self.accessor(
                v,
                if wide { component::U16 } else { component::U8 },
                "VEC4",
                count,
                false,
            )?;
            new_attrs.push((format!("JOINTS_{s}"), a));
            let (bytes, ctype, norm) = match &inf.weights {
                Weights::F32(w) => (le_bytes(w.get(s), f32::to_le_bytes), component::F32, false),
                Weights::Unorm8(w) => (le_bytes(w.get(s), u8::to_le_bytes), component::U8, true),
                Weights::Unorm16(w) => (le_bytes(w.get(s), u16::to_le_bytes), component::U16, true),
            };
            let v = self.view(&bytes, Some(34962))?;
            let a = self.accessor(v, ctype, "VEC4", count, norm)?;
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
            attrs.remove(&k);
        }
        for (k, a) in new_attrs {
            attrs.insert(k, json!(a));
        }
        Ok(())
    }

    /// Rewrites skin `skin`'s joint list to `slots` (index = new joint index), with the
    /// inverse bind matrices permuted to match. Placeholders become new childless nodes
    /// under the skin's common root, with identity inverse bind matrices.
    pub fn reorder_skin(
        &mut self,
        gltf: &Gltf,
        skin: usize,
        slots: &[JointSlot],
    ) -> Result<(), ExportError> {
        let s = gltf
            .root
            .skins
            .get(skin)
            .ok_or_else(|| ExportError::Missing(format!("skin {skin} does not exist")))?;
        let ibm = match s.inverse_bind_matrices {
            Some(i) => Some(
                crate::accessor::read(gltf, i, &dash_core::Limits::UNLIMITED)
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
        for slot in slots {
            let (node, m): (u64, [f32; 16]) = match slot {
                JointSlot::Existing(old) => {
                    let node = *s.joints.get(*old).ok_or_else(|| {
                        ExportError::Missing(format!("skin {skin} has no joint {old}"))
                    })?;
                    let m = match &ibm {
                        Some(d) => std::array::from_fn(|c| d.get(*old, c) as f32),
                        None => identity,
                    };
                    (node, m)
                }
                JointSlot::Placeholder(name) => {
                    let nodes = arr(&mut self.value, "nodes")?;
                    nodes.push(json!({"name": name, "extras": {"dash": "placeholder joint for a stable bone index"}}));
                    let idx = (nodes.len() - 1) as u64;
                    if let Some(node) =
                        root.and_then(|r| self.value.pointer_mut(&format!("/nodes/{r}")))
                    {
                        arr(node, "children")?.push(json!(idx));
                    }
                    (idx, identity)
                }
            };
            joints.push(json!(node));
            mats.extend(m.iter().flat_map(|x| x.to_le_bytes()));
        }
        let view = self.view(&mats, None)?;
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

    /// Writes the result as `container`. A `.gltf` output embeds every buffer (so it
    /// stands alone wherever it is written); a `.glb` output carries buffer 0 in its
    /// binary chunk when the source had one, and embeds the others.
    pub fn finish(mut self, container: Container) -> Result<Vec<u8>, ExportError> {
        let b64 = |d: &[u8]| {
            format!(
                "data:application/octet-stream;base64,{}",
                base64::engine::general_purpose::STANDARD.encode(d)
            )
        };
        let bin = self.bin.take();
        let extra = std::mem::take(&mut self.extra);
        let target = self.target_buffer;
        let sources = std::mem::take(&mut self.sources);
        let buffers = arr(&mut self.value, "buffers")?;
        let mut glb_bin: Option<Vec<u8>> = None;
        for (i, b) in buffers.iter_mut().enumerate() {
            let data: Vec<u8> = if i == 0 && bin.is_some() {
                bin.clone().unwrap_or_default()
            } else if i == target && bin.is_none() {
                extra.clone()
            } else {
                sources.get(i).cloned().flatten().unwrap_or_default()
            };
            let Some(o) = b.as_object_mut() else { continue };
            o.insert("byteLength".into(), json!(data.len()));
            if container == Container::Glb && i == 0 && bin.is_some() {
                o.remove("uri");
                glb_bin = Some(data);
            } else {
                o.insert("uri".into(), Value::String(b64(&data)));
            }
        }
        let text =
            serde_json::to_string(&self.value).map_err(|e| ExportError::Shape(e.to_string()))?;
        Ok(match container {
            Container::Gltf => {
                let mut t = serde_json::to_string_pretty(&self.value).unwrap_or(text);
                t.push('\n');
                t.into_bytes()
            }
            Container::Glb => {
                let size = text.len() + glb_bin.as_ref().map_or(0, Vec::len) + 64;
                if size > u32::MAX as usize {
                    return Err(ExportError::TooLarge);
                }
                glb::build(text.as_bytes(), glb_bin.as_deref())
            }
        })
    }
}

/// A JSON object map (re-exported for callers that edit values).
pub type Object = Map<String, Value>;
