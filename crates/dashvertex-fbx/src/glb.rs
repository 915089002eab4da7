//! A scene as a skinned GLB (`spec/fbx.md`): every node of the scene under one root,
//! each mesh triangulated and split by normal and UV where glTF needs it, the first skin
//! deformer of a mesh as a glTF skin (inverse bind matrices from the clusters), materials'
//! base colour, and each animation stack baked by ufbx.

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::buffer::{Buffer, glb};
use crate::dash::narrow;
use crate::glb_mesh::{SkinJoints, primitives};
use crate::{Converted, FbxError, Scene};

/// Counts of what the conversion changed, for the notes.
#[derive(Default)]
pub(crate) struct Changes {
    pub normalized: usize,
    pub unweighted: usize,
    pub dropped: usize,
    pub merged: usize,
    pub zero_normals: usize,
    pub skipped_faces: usize,
    pub bad_uvs: usize,
}

/// The scene as a GLB. Refuses (naming why) a scene glTF cannot hold: a skin of more than
/// 65,536 joints, or more than 4 GiB of data.
pub fn to_glb(scene: &Scene) -> Result<Converted, FbxError> {
    let s = scene.ufbx();
    let mut buf = Buffer::default();
    let mut nodes: Vec<Value> = s.nodes.iter().map(|n| node(n)).collect::<Result<_, _>>()?;
    let mut roots = vec![s.root_node.element.typed_id];
    let mut meshes = Vec::new();
    let mut skins = Vec::new();
    let mut changes = Changes::default();
    let mut notes = vec![scene.conversion()];
    let textures = crate::glb_texture::textures(s, &mut buf);
    let materials: Vec<Value> = s.materials.iter().map(|m| material(m, &textures)).collect();
    let material_index: HashMap<u32, usize> = s
        .materials
        .iter()
        .enumerate()
        .map(|(i, m)| (m.element.typed_id, i))
        .collect();
    for mesh in &s.meshes {
        let skin = mesh
            .skin_deformers
            .first()
            .filter(|d| d.clusters.iter().any(|c| c.bone_node.is_some()));
        let instance = mesh.element.instances.first();
        let Some(instance) = instance else { continue };
        let joints = match skin {
            Some(d) => Some(skin_of(&mut buf, d, instance, &mut skins, &mut changes)?),
            None => None,
        };
        let primitives = primitives(
            &mut buf,
            mesh,
            joints.as_ref().map(|j| &j.1),
            &material_index,
            &mut changes,
        )?;
        if primitives.is_empty() {
            continue;
        }
        meshes.push(json!({ "name": mesh.element.name.to_string(), "primitives": primitives }));
        let m = meshes.len() - 1;
        match joints {
            // A skinned mesh is placed by its joints: its own node is a scene root
            // without a transform.
            Some((k, _)) => {
                nodes.push(json!({ "name": format!("{} (skinned)", mesh.element.name), "mesh": m, "skin": k }));
                roots.push(u32::try_from(nodes.len() - 1).unwrap_or(u32::MAX));
            }
            None => {
                for inst in &mesh.element.instances {
                    if let Some(o) = nodes
                        .get_mut(inst.element.typed_id as usize)
                        .and_then(|n| n.as_object_mut())
                    {
                        o.insert("mesh".into(), json!(m));
                    }
                }
            }
        }
    }
    let animations = crate::glb_anim::animations(scene, &mut buf, &mut notes)?;
    changes.say(&mut notes);
    if !textures.textures.is_empty() {
        notes.push(format!(
            "{} base-colour texture(s) converted from the images embedded in the FBX",
            textures.textures.len()
        ));
    }
    for (why, n) in &textures.skipped {
        notes.push(format!(
            "{n} texture(s) not converted ({why}): their materials keep their base colour"
        ));
    }
    let mut doc = json!({
        "asset": { "version": "2.0", "generator": "dashvertex-fbx (ufbx)" },
        "scene": 0,
        "scenes": [{ "nodes": roots }],
        "nodes": nodes,
        "buffers": [{ "byteLength": buf.bin.len() }],
        "bufferViews": buf.views,
        "accessors": buf.accessors,
    });
    if let Some(o) = doc.as_object_mut() {
        for (key, list) in [
            ("meshes", meshes),
            ("skins", skins),
            ("materials", materials),
            ("images", textures.images),
            ("samplers", textures.samplers),
            ("textures", textures.textures),
            ("animations", animations),
        ] {
            if !list.is_empty() {
                o.insert(key.into(), Value::Array(list));
            }
        }
        if buf.bin.is_empty() {
            o.remove("buffers");
            o.remove("bufferViews");
            o.remove("accessors");
        }
    }
    if buf.bin.len() as u64 > u64::from(u32::MAX) - (1 << 24) {
        return Err(FbxError::Convert(
            "the scene's data pass the 4 GiB a GLB can hold".into(),
        ));
    }
    Ok(Converted {
        glb: glb(&doc, &buf.bin),
        notes,
    })
}

impl Changes {
    fn say(&self, notes: &mut Vec<String>) {
        if self.normalized > 0 {
            notes.push(format!(
                "{} vertex(es) whose weights did not sum to 1 were normalized (glTF requires it)",
                self.normalized
            ));
        }
        if self.unweighted > 0 {
            notes.push(format!(
                "{} vertex(es) no cluster weights were bound to their mesh's node, where they stay",
                self.unweighted
            ));
        }
        if self.dropped > 0 {
            notes.push(format!(
                "{} negative, NaN or infinite weight(s) dropped",
                self.dropped
            ));
        }
        if self.merged > 0 {
            notes.push(format!("{} cluster(s) for a bone another cluster already weights: their weights were added", self.merged));
        }
        if self.skipped_faces > 0 {
            notes.push(format!(
                "{} point or line face(s) left out (glTF triangles only)",
                self.skipped_faces
            ));
        }
        if self.bad_uvs > 0 {
            notes.push(format!(
                "{} NaN or infinite UV coordinate(s) written as 0",
                self.bad_uvs
            ));
        }
        if self.zero_normals > 0 {
            notes.push(format!(
                "{} zero or non-finite normal(s) written as +Z",
                self.zero_normals
            ));
        }
    }
}

/// A node with its name, children and rest TRS (parts at identity left out); refused when
/// a part is not finite in binary32, which glTF cannot hold.
fn node(n: &ufbx::Node) -> Result<Value, FbxError> {
    let t = n.local_transform;
    let parts = [
        t.translation.x,
        t.translation.y,
        t.translation.z,
        t.rotation.x,
        t.rotation.y,
        t.rotation.z,
        t.rotation.w,
        t.scale.x,
        t.scale.y,
        t.scale.z,
    ];
    if parts.iter().any(|x| !narrow(*x).is_finite()) {
        return Err(FbxError::Convert(format!(
            "Model::{}: its rest transform is NaN, infinite or beyond binary32, which glTF cannot hold",
            n.element.name
        )));
    }
    let mut o = serde_json::Map::new();
    let name = if n.is_root {
        "RootNode".to_string()
    } else {
        n.element.name.to_string()
    };
    o.insert("name".into(), json!(name));
    let children: Vec<u32> = n.children.iter().map(|c| c.element.typed_id).collect();
    if !children.is_empty() {
        o.insert("children".into(), json!(children));
    }
    let tr = [
        narrow(t.translation.x),
        narrow(t.translation.y),
        narrow(t.translation.z),
    ];
    if tr != [0.0; 3] {
        o.insert("translation".into(), json!(tr));
    }
    let q = unit_quat(t.rotation);
    if q != [0.0, 0.0, 0.0, 1.0] {
        o.insert("rotation".into(), json!(q));
    }
    let sc = [narrow(t.scale.x), narrow(t.scale.y), narrow(t.scale.z)];
    if sc != [1.0; 3] {
        o.insert("scale".into(), json!(sc));
    }
    Ok(Value::Object(o))
}

/// A rotation as a unit quaternion in binary32 (the identity for one of zero length).
pub(crate) fn unit_quat(q: ufbx::Quat) -> [f32; 4] {
    let len = (q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w).sqrt();
    if !(len.is_finite() && len > 0.0) {
        return [0.0, 0.0, 0.0, 1.0];
    }
    [
        narrow(q.x / len),
        narrow(q.y / len),
        narrow(q.z / len),
        narrow(q.w / len),
    ]
}

/// A material's base colour, with its texture when `textures` converted it (and no metal:
/// FBX's Lambert and Phong are dielectric). A texture takes the colour's place, as in FBX,
/// where a connected texture overrides the colour property: the factor keeps the
/// colour's weight (diffuse factor) alone.
fn material(m: &ufbx::Material, textures: &crate::glb_texture::Textures) -> Value {
    let c = &m.pbr.base_color;
    let f = if m.pbr.base_factor.has_value {
        m.pbr.base_factor.value_vec4.x
    } else {
        1.0
    };
    let texture = crate::glb_texture::base_color_texture(m)
        .and_then(|t| textures.index.get(&t.element.typed_id));
    let alpha = |v: &ufbx::Vec4| if c.value_components >= 4 { v.w } else { 1.0 };
    let rgba = match (texture, c.has_value) {
        (Some(_), _) => [
            f,
            f,
            f,
            if c.has_value {
                alpha(&c.value_vec4)
            } else {
                1.0
            },
        ],
        (None, true) => {
            let v = c.value_vec4;
            [v.x * f, v.y * f, v.z * f, alpha(&v)]
        }
        (None, false) => [1.0; 4],
    }
    .map(|x| {
        narrow(if x.is_finite() {
            x.clamp(0.0, 1.0)
        } else {
            1.0
        })
    });
    let mut pbr = json!({ "baseColorFactor": rgba, "metallicFactor": 0.0 });
    if let (Some(&k), Some(o)) = (texture, pbr.as_object_mut()) {
        o.insert("baseColorTexture".into(), json!({ "index": k }));
    }
    json!({ "name": m.element.name.to_string(), "pbrMetallicRoughness": pbr })
}

/// The glTF skin of `skin` (pushed onto `skins`): a joint per bone node (two clusters of
/// one bone are one joint), the inverse bind matrices from the clusters, and the mesh's
/// own node, for the control points no cluster weights. Gives the skin's index and the
/// joints the primitives use.
fn skin_of<'s>(
    buf: &mut Buffer,
    skin: &'s ufbx::SkinDeformer,
    instance: &ufbx::Node,
    skins: &mut Vec<Value>,
    changes: &mut Changes,
) -> Result<(usize, SkinJoints<'s>), FbxError> {
    let mut joints: Vec<u32> = Vec::new();
    let mut ibm: Vec<[f32; 16]> = Vec::new();
    let mut seen: HashMap<u32, usize> = HashMap::new();
    let mut cluster_joint = Vec::with_capacity(skin.clusters.len());
    for c in &skin.clusters {
        let Some(n) = c.bone_node.as_ref() else {
            cluster_joint.push(None);
            continue;
        };
        let j = match seen.get(&n.element.typed_id) {
            Some(j) => {
                changes.merged += 1;
                *j
            }
            None => {
                seen.insert(n.element.typed_id, joints.len());
                joints.push(n.element.typed_id);
                ibm.push(mat4(&c.geometry_to_bone));
                joints.len() - 1
            }
        };
        cluster_joint.push(u16::try_from(j).ok());
    }
    let own = match seen.get(&instance.element.typed_id) {
        Some(j) => *j,
        None => {
            joints.push(instance.element.typed_id);
            ibm.push(mat4(&instance.geometry_to_node));
            joints.len() - 1
        }
    };
    if ibm.iter().flatten().any(|x| !x.is_finite()) {
        return Err(FbxError::Convert(format!(
            "Deformer::{}: a cluster's bind matrix is NaN, infinite or beyond binary32, which glTF cannot hold",
            skin.element.name
        )));
    }
    let own = u16::try_from(own).map_err(|_| {
        FbxError::Convert(format!(
            "Deformer::{}: {} joints; a glTF skin written by dash holds at most 65,536",
            skin.element.name,
            joints.len()
        ))
    })?;
    let acc = buf.floats(&ibm, None, false);
    skins.push(json!({ "name": skin.element.name.to_string(), "joints": joints, "inverseBindMatrices": acc }));
    Ok((
        skins.len() - 1,
        SkinJoints {
            skin,
            cluster_joint,
            own,
        },
    ))
}

/// A ufbx affine matrix as a column-major glTF MAT4.
pub(crate) fn mat4(m: &ufbx::Matrix) -> [f32; 16] {
    let e = crate::checks::elements(m);
    let [a, b, c, d, e2, f, g, h, i, j, k, l] = e.map(narrow);
    [a, b, c, 0.0, d, e2, f, 0.0, g, h, i, 0.0, j, k, l, 1.0]
}
