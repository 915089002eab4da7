//! A DashVertex document as a new glTF file: the bones as nodes with their rest
//! transforms, a skin whose inverse bind matrices are the inverses of the bones' global
//! rest matrices, and one primitive with POSITION and the influence sets
//! (`spec/reduction.md` §5). Skinning it at the rest pose gives the positions back.

use base64::Engine as _;
use dashvertex_core::math;
use dashvertex_core::{Document, Limits, Skeleton};
use serde_json::{Value, json};

use crate::document::component;
use crate::export::{BufferFiles, Editor, ExportError, Written};
use crate::load::{Container, NoFiles, load_owned};

/// The parent of bone `i` as the writer uses it ([`dashvertex_core::globals_of`]' rule).
fn parent_of(skeleton: &Skeleton, i: usize) -> Option<usize> {
    skeleton
        .bones
        .get(i)?
        .parent
        .and_then(|p| usize::try_from(p).ok())
        .filter(|&p| p < i)
}

/// What [`write()`] changes in `skeleton`'s hierarchy, one sentence per bone: a bone whose
/// parent does not come before it (bone 0 with a parent, a parent out of range or later
/// in the list) is written as a root node, since a node tree needs parents first and the
/// rest pose is composed that way (`dash-validate` reports such a bone as `BONE_ROOT`,
/// `BONE_PARENT_RANGE` or `BONE_PARENT_ORDER`). Empty when nothing changes.
pub fn made_roots(skeleton: &Skeleton) -> Vec<String> {
    skeleton
        .bones
        .iter()
        .enumerate()
        .filter_map(|(i, b)| {
            let p = b.parent?;
            if parent_of(skeleton, i).is_some() {
                return None;
            }
            let why = if usize::try_from(p).is_ok_and(|p| p >= skeleton.len()) {
                "which does not exist"
            } else {
                "which does not come before it"
            };
            Some(format!(
                "bone {i} ({}) names bone {p} as its parent, {why}: written as a root node, its rest pose not composed with that parent's",
                dashvertex_core::text::short(&b.name)
            ))
        })
        .collect()
}

/// The buffer being written, its views and the accessors over them.
#[derive(Default)]
struct Blob {
    /// The buffer's bytes.
    bytes: Vec<u8>,
    /// Buffer views, one per accessor.
    views: Vec<Value>,
    /// Accessors, one per view.
    accessors: Vec<Value>,
}

impl Blob {
    /// Appends `bytes` at the next 4-byte boundary as a view (a vertex-attribute target
    /// unless `ty` is MAT4) and an accessor of `count` elements of `ty` / `ct` with the
    /// members of `extra`; returns the accessor's index.
    fn add(&mut self, bytes: Vec<u8>, count: usize, ty: &str, ct: u32, extra: Value) -> usize {
        while !self.bytes.len().is_multiple_of(4) {
            self.bytes.push(0);
        }
        let mut view =
            json!({"buffer": 0, "byteOffset": self.bytes.len(), "byteLength": bytes.len()});
        if ty != "MAT4"
            && let Some(o) = view.as_object_mut()
        {
            o.insert("target".into(), json!(34962));
        }
        self.views.push(view);
        self.bytes.extend_from_slice(&bytes);
        let mut acc = json!({"bufferView": self.views.len() - 1, "componentType": ct,
            "count": count, "type": ty});
        if let (Some(a), Some(e)) = (acc.as_object_mut(), extra.as_object()) {
            for (k, v) in e {
                a.insert(k.clone(), v.clone());
            }
        }
        self.accessors.push(acc);
        self.accessors.len() - 1
    }
}

/// The mesh's positions as f32 VEC3 bytes, with the `min` / `max` members glTF requires
/// (none for an empty mesh).
fn positions(mesh: &dashvertex_core::Mesh) -> (Vec<u8>, Value) {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    let mut pos = Vec::with_capacity(mesh.len() * 12);
    for v in mesh.vertices() {
        for (k, c) in v.position.iter().enumerate() {
            if let (Some(l), Some(h)) = (lo.get_mut(k), hi.get_mut(k)) {
                *l = l.min(*c);
                *h = h.max(*c);
            }
            pos.extend_from_slice(&c.to_le_bytes());
        }
    }
    let bounds = if mesh.is_empty() {
        json!({})
    } else {
        json!({"min": lo, "max": hi})
    };
    (pos, bounds)
}

/// Writes the mesh's influence sets as `JOINTS_n` (UNSIGNED_BYTE up to 256 `bones`, else
/// UNSIGNED_SHORT) and `WEIGHTS_n` (FLOAT) into `blob` and `attributes`, a weightless
/// slot naming joint 0. Refused beyond 65,536 bones or for a bone index without a bone.
fn influence_sets(
    mesh: &dashvertex_core::Mesh,
    bones: usize,
    blob: &mut Blob,
    attributes: &mut serde_json::Map<String, Value>,
) -> Result<(), ExportError> {
    let n = mesh.len();
    let wide = bones > 256;
    if bones > 65_536 {
        return Err(ExportError::Shape(format!(
            "{bones} bones: glTF joint indices are at most 16 bits"
        )));
    }
    for s in 0..mesh.set_count() {
        let mut joints = Vec::with_capacity(n * if wide { 8 } else { 4 });
        let mut weights = Vec::with_capacity(n * 16);
        for v in 0..n {
            let set = mesh.sets_of(v).nth(s).copied().unwrap_or_default();
            for (j, w) in set.pairs() {
                // A weightless slot names joint 0, as glTF padding does.
                let j = if w == 0.0 { 0 } else { j };
                if j as usize >= bones {
                    return Err(ExportError::Shape(format!(
                        "vertex {v}: bone index {j} has no bone (the skeleton has {bones})"
                    )));
                }
                if wide {
                    joints.extend_from_slice(&u16::try_from(j).unwrap_or(0).to_le_bytes());
                } else {
                    joints.push(u8::try_from(j).unwrap_or(0));
                }
                weights.extend_from_slice(&w.to_le_bytes());
            }
        }
        let ct = if wide { component::U16 } else { component::U8 };
        attributes.insert(
            format!("JOINTS_{s}"),
            json!(blob.add(joints, n, "VEC4", ct, json!({}))),
        );
        attributes.insert(
            format!("WEIGHTS_{s}"),
            json!(blob.add(weights, n, "VEC4", component::F32, json!({}))),
        );
    }
    Ok(())
}

/// The bones of `sk` as nodes with their rest transforms and children, and the roots
/// (bones whose parent does not come before them, [`made_roots`]) for the scene.
fn bone_nodes(sk: &Skeleton) -> (Vec<Value>, Vec<usize>) {
    let mut nodes: Vec<Value> = Vec::new();
    let mut scene_nodes: Vec<usize> = Vec::new();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); sk.len()];
    for (i, b) in sk.bones.iter().enumerate() {
        let mut node = serde_json::Map::new();
        node.insert("name".into(), json!(b.name));
        if b.position != [0.0; 3] {
            node.insert("translation".into(), json!(b.position));
        }
        if b.rotation != [0.0, 0.0, 0.0, 1.0] {
            node.insert("rotation".into(), json!(b.rotation));
        }
        if b.scale != [1.0; 3] {
            node.insert("scale".into(), json!(b.scale));
        }
        nodes.push(Value::Object(node));
        match parent_of(sk, i).and_then(|p| children.get_mut(p)) {
            Some(list) => list.push(i),
            None => scene_nodes.push(i),
        }
    }
    for (node, list) in nodes.iter_mut().zip(&children) {
        if let (Some(o), false) = (node.as_object_mut(), list.is_empty()) {
            o.insert("children".into(), json!(list));
        }
    }
    (nodes, scene_nodes)
}

/// The inverses of `sk`'s global rest matrices as f32 MAT4 bytes (each rounded once to
/// binary32, as glTF stores matrices); refused for a bone whose rest transform cannot be
/// inverted.
fn inverse_bind_matrices(sk: &Skeleton) -> Result<Vec<u8>, ExportError> {
    let mut ibm = Vec::with_capacity(sk.len() * 64);
    for (i, g) in sk.globals().iter().enumerate() {
        let inv = math::inverse_affine(g).ok_or_else(|| {
            ExportError::Shape(format!(
                "bone {i} ({}): its rest transform cannot be inverted: {}",
                dashvertex_core::text::short(sk.bones.get(i).map_or("", |b| &b.name)),
                math::why_not_invertible(g)
            ))
        })?;
        for x in inv {
            #[allow(clippy::cast_possible_truncation)]
            ibm.extend_from_slice(&(x as f32).to_le_bytes());
        }
    }
    Ok(ibm)
}

/// Writes `doc` as a new glTF file in `container` (buffers as `files` says). Weights
/// are FLOAT, joints UNSIGNED_BYTE (up to 256 bones) or UNSIGNED_SHORT; a skeleton
/// beyond 65,536 bones, or a bone index beyond the skeleton, is refused. Faces, normals
/// and UVs are not part of DashVertex and are not written: the primitive is `POINTS`.
pub fn write(
    doc: &Document,
    container: Container,
    files: &BufferFiles,
) -> Result<Written, ExportError> {
    let mesh = &doc.mesh;
    let n = mesh.len();
    let mut blob = Blob::default();
    let (pos, bounds) = positions(mesh);
    let mut attributes = serde_json::Map::new();
    attributes.insert(
        "POSITION".into(),
        json!(blob.add(pos, n, "VEC3", component::F32, bounds)),
    );
    let bones = doc.skeleton.as_ref().map_or(0, Skeleton::len);
    let skinned = mesh.is_skinned() && bones > 0;
    if skinned {
        influence_sets(mesh, bones, &mut blob, &mut attributes)?;
    }
    let mut nodes: Vec<Value> = Vec::new();
    let mut scene_nodes: Vec<usize> = Vec::new();
    let mut skins: Vec<Value> = Vec::new();
    if let Some(sk) = doc.skeleton.as_ref().filter(|s| !s.is_empty()) {
        (nodes, scene_nodes) = bone_nodes(sk);
        if skinned {
            let ibm = inverse_bind_matrices(sk)?;
            let acc = blob.add(ibm, sk.len(), "MAT4", component::F32, json!({}));
            skins.push(json!({"joints": (0..sk.len()).collect::<Vec<_>>(),
                "inverseBindMatrices": acc}));
        }
    }
    let mut mesh_node = json!({"mesh": 0, "name": "mesh"});
    if skinned && let Some(o) = mesh_node.as_object_mut() {
        o.insert("skin".into(), json!(0));
    }
    scene_nodes.push(nodes.len());
    nodes.push(mesh_node);
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&blob.bytes)
    );
    let mut root = json!({
        "asset": {"version": "2.0", "generator": "dash (DashVertex to glTF)"},
        "scene": 0,
        "scenes": [{"nodes": scene_nodes}],
        "nodes": nodes,
        "meshes": [{"primitives": [{"attributes": attributes, "mode": 0}]}],
        "accessors": blob.accessors,
        "bufferViews": blob.views,
        "buffers": [{"byteLength": blob.bytes.len(), "uri": uri}],
    });
    if !skins.is_empty()
        && let Some(o) = root.as_object_mut()
    {
        o.insert("skins".into(), Value::Array(skins));
    }
    let text = serde_json::to_vec(&root).map_err(|e| ExportError::Shape(e.to_string()))?;
    let gltf = load_owned(text, &NoFiles, &Limits::UNLIMITED)
        .map_err(|e| ExportError::Shape(format!("the written document cannot be read: {e}")))?;
    Editor::new(&gltf)?.finish_files(container, files)
}
