//! A glTF document decoded for drawing: every primitive's positions, indices and
//! influence sets (joints and weights of every `JOINTS_n`/`WEIGHTS_n` pair) as flat
//! arrays, the node hierarchy with its transforms, the skins with their inverse bind
//! matrices, and the animations' keyframes.
//!
//! Decoding is lenient: what cannot be read (a primitive, a set, an animation) is left
//! out with a note in [`Scene::problems`], and the rest is still drawn. The validator's
//! report says what is wrong; this module only says what it could not show.

use dashvertex_core::Limits;
use dashvertex_gltf::Gltf;
use dashvertex_gltf::accessor::{self, AccessorData};
use dashvertex_gltf::document::component;
use dashvertex_gltf::skinning;
use serde::Serialize;

/// `x` rounded to binary32, as the arrays hand it to WebGL.
#[allow(clippy::cast_possible_truncation)] // f64 to f32 rounds; it cannot wrap.
fn f32_of(x: f64) -> f32 {
    x as f32
}

/// One influence set of a primitive: four joints and four weights per vertex.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Set {
    /// The `n` of `JOINTS_n`/`WEIGHTS_n`.
    pub n: u32,
    /// Joint indices, four per vertex (into the skin's `joints`).
    pub joints: Vec<u32>,
    /// Weights, four per vertex, as the model holds them (integers divided by 255 or
    /// 65535).
    pub weights: Vec<f32>,
}

/// A primitive, decoded.
#[derive(Clone, Debug, Default)]
pub struct Primitive {
    /// What the page needs to know besides the arrays.
    pub info: PrimitiveInfo,
    /// `x y z` per vertex.
    pub positions: Vec<f32>,
    /// Vertex indices (`None` when the primitive has none, or they were unusable).
    pub indices: Option<Vec<u32>>,
    /// The influence sets, in set order.
    pub sets: Vec<Set>,
}

/// A primitive's description.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PrimitiveInfo {
    /// Mesh index.
    pub mesh: usize,
    /// Primitive index within the mesh.
    pub primitive: usize,
    /// Topology (`mode`: 0 points … 4 triangles, the default).
    pub mode: u64,
    /// Vertices.
    pub vertex_count: usize,
    /// Influence sets read.
    pub set_count: usize,
    /// Whether it has usable indices.
    pub indexed: bool,
    /// The skin the joint indices refer to (the smallest skin among the nodes using the
    /// mesh), if any.
    pub skin: Option<usize>,
    /// The nodes that draw it.
    pub nodes: Vec<usize>,
    /// Attribute name → accessor index, as the file gives them (for matching a
    /// diagnostic's `/accessors/N` pointer to the primitive).
    pub attributes: serde_json::Map<String, serde_json::Value>,
}

/// A node.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Node {
    /// Its name (`node<N>` when it has none).
    pub name: String,
    /// Children, as the file lists them (the page refuses cycles and second parents).
    pub children: Vec<u64>,
    /// Mesh drawn.
    pub mesh: Option<u64>,
    /// Skin used.
    pub skin: Option<u64>,
    /// Local translation.
    pub translation: [f64; 3],
    /// Local rotation quaternion `x y z w`.
    pub rotation: [f64; 4],
    /// Local scale.
    pub scale: [f64; 3],
    /// Local matrix (column-major), when the node gives one instead of TRS.
    pub matrix: Option<Vec<f64>>,
}

/// A skin.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Skin {
    /// Its name, if any.
    pub name: Option<String>,
    /// Joint nodes (the joint index space).
    pub joints: Vec<u64>,
    /// The `skeleton` node, if given.
    pub skeleton: Option<u64>,
    /// Inverse bind matrices, 16 per joint (column-major; the identity when the skin has
    /// none or they cannot be read).
    #[serde(skip)]
    pub inverse_bind: Vec<f32>,
}

/// One animation channel that moves a node.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Channel {
    /// Target node.
    pub node: usize,
    /// `translation`, `rotation` or `scale`.
    pub path: &'static str,
    /// `STEP`, `LINEAR` or `CUBICSPLINE`.
    pub interpolation: &'static str,
    /// Keyframe times.
    #[serde(skip)]
    pub times: Vec<f32>,
    /// Output values (in-tangent, value, out-tangent per keyframe for CUBICSPLINE).
    #[serde(skip)]
    pub values: Vec<f32>,
}

/// An animation.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Animation {
    /// Its name (`animation<N>` when it has none).
    pub name: String,
    /// Channels on node transforms.
    pub channels: Vec<Channel>,
}

/// The decoded document.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Scene {
    /// Nodes.
    pub nodes: Vec<Node>,
    /// Root nodes of the scene shown (`scene`, else the first; empty when the file has
    /// no scene: the page then shows every parentless node).
    pub roots: Vec<u64>,
    /// Skins.
    pub skins: Vec<Skin>,
    /// Primitives, mesh by mesh.
    pub primitives: Vec<PrimitiveInfo>,
    /// Animations.
    pub animations: Vec<Animation>,
    /// What could not be shown, and why.
    pub problems: Vec<String>,
    /// The primitive data (arrays), in the order of `primitives`.
    #[serde(skip)]
    pub data: Vec<Primitive>,
}

fn read<'g>(
    gltf: &'g Gltf,
    index: u64,
    what: &str,
    problems: &mut Vec<String>,
) -> Option<AccessorData<'g>> {
    match accessor::read(gltf, index, &Limits::default()) {
        Ok(a) => Some(a),
        Err(e) => {
            problems.push(format!("{what}: {e}"));
            None
        }
    }
}

/// Decodes everything the page draws.
pub fn decode(gltf: &Gltf) -> Scene {
    let mut scene = Scene::default();
    let root = &gltf.root;
    let values = gltf.value.get("nodes").and_then(|v| v.as_array());
    for (i, n) in root.nodes.iter().enumerate() {
        let matrix = values
            .and_then(|list| list.get(i))
            .and_then(|v| v.get("matrix"))
            .and_then(|m| m.as_array())
            .filter(|m| m.len() == 16)
            .map(|m| m.iter().map(|x| x.as_f64().unwrap_or(0.0)).collect());
        scene.nodes.push(Node {
            name: skinning::joint_name(root, i as u64),
            children: n.children.clone(),
            mesh: n.mesh,
            skin: n.skin,
            translation: n.translation.unwrap_or([0.0; 3]),
            rotation: n.rotation.unwrap_or([0.0, 0.0, 0.0, 1.0]),
            scale: n.scale.unwrap_or([1.0; 3]),
            matrix,
        });
    }
    let chosen = gltf
        .value
        .get("scene")
        .and_then(serde_json::Value::as_u64)
        .and_then(|s| usize::try_from(s).ok())
        .unwrap_or(0);
    scene.roots = root
        .scenes
        .get(chosen)
        .map(|s| s.nodes.clone())
        .unwrap_or_default();
    for (s, skin) in root.skins.iter().enumerate() {
        let inverse_bind = inverse_bind(gltf, s, &mut scene.problems);
        scene.skins.push(Skin {
            name: skin.name.clone(),
            joints: skin.joints.clone(),
            skeleton: skin.skeleton,
            inverse_bind,
        });
    }
    let users = skinning::mesh_nodes(root);
    let meshes = gltf.value.get("meshes").and_then(|v| v.as_array());
    for (m, mesh) in root.meshes.iter().enumerate() {
        let nodes = users.get(m).cloned().unwrap_or_default();
        let skin = skinning::limiting_skin(root, &nodes).map(|(s, _)| s);
        for (p, prim) in mesh.primitives.iter().enumerate() {
            let value = meshes
                .and_then(|l| l.get(m))
                .and_then(|v| v.get("primitives"))
                .and_then(|v| v.get(p));
            let here = format!("mesh {m} primitive {p}");
            if let Some(decoded) = primitive(gltf, prim, value, &here, &mut scene.problems) {
                let mut d = decoded;
                d.info.mesh = m;
                d.info.primitive = p;
                d.info.skin = skin;
                d.info.nodes.clone_from(&nodes);
                d.info.attributes.clone_from(&prim.attributes);
                scene.primitives.push(d.info.clone());
                scene.data.push(d);
            }
        }
    }
    animations(gltf, &mut scene);
    scene
}

/// Skin `s`'s inverse bind matrices, 16 per joint (identities where missing).
fn inverse_bind(gltf: &Gltf, s: usize, problems: &mut Vec<String>) -> Vec<f32> {
    const IDENTITY: [f32; 16] = [
        1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
    ];
    let Some(skin) = gltf.root.skins.get(s) else {
        return Vec::new();
    };
    let n = skin.joints.len();
    let mut out = Vec::with_capacity(n.saturating_mul(16));
    let data = skin
        .inverse_bind_matrices
        .and_then(|a| read(gltf, a, &format!("skin {s} inverseBindMatrices"), problems))
        .filter(|d| d.components == 16 && d.component_type == component::F32);
    for j in 0..n {
        match &data {
            Some(d) if j < d.count => out.extend((0..16).map(|c| f32_of(d.get(j, c)))),
            _ => out.extend_from_slice(&IDENTITY),
        }
    }
    out
}

/// One primitive's arrays (`None` when it has no usable POSITION).
fn primitive(
    gltf: &Gltf,
    prim: &dashvertex_gltf::document::Primitive,
    value: Option<&serde_json::Value>,
    here: &str,
    problems: &mut Vec<String>,
) -> Option<Primitive> {
    let Some(pos_index) = prim.attribute("POSITION") else {
        problems.push(format!("{here}: no POSITION, not drawn"));
        return None;
    };
    let pos = read(gltf, pos_index, &format!("{here} POSITION"), problems)?;
    if pos.components != 3 {
        problems.push(format!("{here}: POSITION is not VEC3, not drawn"));
        return None;
    }
    let count = pos.count;
    let mut positions = Vec::with_capacity(count.saturating_mul(3));
    for v in 0..count {
        let p = pos.get4(v);
        positions.extend_from_slice(&[f32_of(p[0]), f32_of(p[1]), f32_of(p[2])]);
    }
    let mode = value
        .and_then(|v| v.get("mode"))
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(4);
    let indices = value
        .and_then(|v| v.get("indices"))
        .and_then(serde_json::Value::as_u64)
        .and_then(|a| indices(gltf, a, count, here, problems));
    let mut sets = Vec::new();
    for n in 0u32.. {
        let (j, w) = (
            prim.attribute(&format!("JOINTS_{n}")),
            prim.attribute(&format!("WEIGHTS_{n}")),
        );
        let (Some(j), Some(w)) = (j, w) else {
            if j.is_some() || w.is_some() {
                problems.push(format!(
                    "{here}: set {n} has JOINTS or WEIGHTS but not both"
                ));
            }
            break;
        };
        if let Some(set) = set(gltf, n, j, w, count, here, problems) {
            sets.push(set);
        } else {
            break;
        }
    }
    Some(Primitive {
        info: PrimitiveInfo {
            mode,
            vertex_count: count,
            set_count: sets.len(),
            indexed: indices.is_some(),
            ..PrimitiveInfo::default()
        },
        positions,
        indices,
        sets,
    })
}

/// A primitive's indices, when every one names a vertex.
fn indices(
    gltf: &Gltf,
    a: u64,
    count: usize,
    here: &str,
    problems: &mut Vec<String>,
) -> Option<Vec<u32>> {
    let data = read(gltf, a, &format!("{here} indices"), problems)?;
    let mut out = Vec::with_capacity(data.count);
    for i in 0..data.count {
        let x = data.get(i, 0);
        if !(x >= 0.0 && x < count as f64) {
            problems.push(format!(
                "{here}: index {i} is {x}, not a vertex; drawn without indices"
            ));
            return None;
        }
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        // A whole number in 0 .. count (checked above).
        out.push(x as u32);
    }
    Some(out)
}

/// Influence set `n` (`JOINTS_n` accessor `j`, `WEIGHTS_n` accessor `w`).
fn set(
    gltf: &Gltf,
    n: u32,
    j: u64,
    w: u64,
    count: usize,
    here: &str,
    problems: &mut Vec<String>,
) -> Option<Set> {
    let jd = read(gltf, j, &format!("{here} JOINTS_{n}"), problems)?;
    let wd = read(gltf, w, &format!("{here} WEIGHTS_{n}"), problems)?;
    let scale = match wd.component_type {
        component::F32 => 1.0,
        component::U8 => 255.0,
        component::U16 => 65535.0,
        _ => 0.0,
    };
    let joints_ok = matches!(jd.component_type, component::U8 | component::U16);
    if jd.components != 4 || wd.components != 4 || !joints_ok || scale == 0.0 {
        problems.push(format!(
            "{here}: set {n} is not VEC4 integer joints with VEC4 weights; not drawn"
        ));
        return None;
    }
    if jd.count != count || wd.count != count {
        problems.push(format!(
            "{here}: set {n} does not have one element per vertex; not drawn"
        ));
        return None;
    }
    let mut out = Set {
        n,
        joints: Vec::with_capacity(count * 4),
        weights: Vec::with_capacity(count * 4),
    };
    for v in 0..count {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        // UNSIGNED_BYTE or UNSIGNED_SHORT (checked above): whole numbers in 0 ..= 65535.
        out.joints.extend(jd.get4(v).map(|x| x as u32));
        out.weights.extend(wd.get4(v).map(|x| f32_of(x / scale)));
    }
    Some(out)
}

/// The animations' node channels, through the skinning evaluator's reader.
fn animations(gltf: &Gltf, scene: &mut Scene) {
    use dashvertex_skin::{Interpolation, Path};
    let list = match dashvertex_skin::animations(gltf, &Limits::default()) {
        Ok(list) => list,
        Err(e) => {
            scene.problems.push(format!("animations not played: {e}"));
            return;
        }
    };
    for a in list {
        let channels = a
            .channels
            .iter()
            .map(|c| Channel {
                node: c.node,
                path: match c.path {
                    Path::Translation => "translation",
                    Path::Rotation => "rotation",
                    Path::Scale => "scale",
                },
                interpolation: match c.interpolation {
                    Interpolation::Step => "STEP",
                    Interpolation::Linear => "LINEAR",
                    Interpolation::CubicSpline => "CUBICSPLINE",
                },
                times: c.times.iter().map(|&t| f32_of(t)).collect(),
                values: c.values.iter().map(|&x| f32_of(x)).collect(),
            })
            .collect();
        scene.animations.push(Animation {
            name: a.name.unwrap_or_else(|| format!("animation{}", a.index)),
            channels,
        });
    }
}
