//! glTF → the dash model: influence sets, skin joints as a skeleton, and per-bone weight
//! attributes as Blender's "export attributes" writes them.

use dashvertex_core::{Bone, Document, InfluenceSet, Limits, Mesh, Skeleton, Vertex};

use crate::accessor::{self, AccessorData, to_f32};
use crate::document::component;
use crate::load::Gltf;
use crate::skinning;

/// How a primitive stored its weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WeightStorage {
    /// FLOAT.
    Float,
    /// Normalized UNSIGNED_BYTE.
    Unorm8,
    /// Normalized UNSIGNED_SHORT.
    Unorm16,
}

/// One weight attribute per bone (Blender's `_NAME` custom attributes).
#[derive(Clone, Debug, PartialEq)]
pub struct BoneAttribute {
    /// The attribute name as stored (`__UPPERARM.L`).
    pub attribute: String,
    /// The bone it was matched to: a skin joint's name; without a skin, the node it
    /// matched, else the name derived from the attribute.
    pub bone: String,
    /// The bone's index in the primitive's skeleton (the skin's joint index, or the
    /// position in the skeleton built from the nodes).
    pub joint: Option<u32>,
    /// One weight per vertex.
    pub weights: Vec<f32>,
}

/// An imported skinned primitive.
#[derive(Clone, Debug)]
pub struct Primitive {
    /// Mesh index.
    pub mesh: usize,
    /// Primitive index.
    pub primitive: usize,
    /// Positions and influence sets (bone index = joint index of `skin`); the skeleton
    /// is the skin's joints.
    pub document: Document,
    /// The skin the joint indices refer to (the smallest skin of the nodes using the
    /// mesh), if any.
    pub skin: Option<usize>,
    /// How the weights were stored.
    pub storage: WeightStorage,
    /// Per-bone weight attributes.
    pub bone_attributes: Vec<BoneAttribute>,
    /// `_` attributes that match no bone (left alone).
    pub unmatched_attributes: Vec<String>,
}

/// Why a file cannot be imported.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// An accessor cannot be read or has an unusable format.
    #[error("{pointer}: {message}")]
    Data {
        /// JSON Pointer.
        pointer: String,
        /// What is wrong.
        message: String,
    },
    /// A per-bone attribute matches several bones.
    #[error(
        "{pointer}: attribute {attribute} matches bones {} (names differ only in case); rename one of the bones (and its vertex group) so that the names differ in more than case, and export again",
        .candidates.join(", ")
    )]
    Ambiguous {
        /// JSON Pointer of the attribute.
        pointer: String,
        /// The attribute.
        attribute: String,
        /// The bones it matches.
        candidates: Vec<String>,
    },
    /// Two attributes give weights for the same bone.
    #[error("attributes {first} and {second} both give weights for bone {bone}")]
    DuplicateAttribute {
        /// The bone.
        bone: String,
        /// First attribute.
        first: String,
        /// Second attribute.
        second: String,
    },
}

/// The skeleton of skin `s`: one bone per joint, named after its node (or `node<N>`),
/// parented to the nearest ancestor that is also a joint, with its rest transform from
/// the node tree (matrix nodes decomposed, nodes between two
/// joints folded into the lower one). `None` beyond 32-bit bone indices.
pub fn skeleton(gltf: &Gltf, s: usize) -> Option<Skeleton> {
    let skin = gltf.root.skins.get(s)?;
    u32::try_from(skin.joints.len()).ok()?;
    let names = skin
        .joints
        .iter()
        .map(|&j| skinning::joint_name(&gltf.root, j))
        .collect();
    let mut bones = crate::rest::bones(gltf, &skin.joints, names);
    if let Some(i) = skin.inverse_bind_matrices
        && let Ok(ibm) = accessor::read(gltf, i, &Limits::UNLIMITED)
        && ibm.components == 16
        && ibm.count == skin.joints.len()
    {
        let binds: Vec<[f64; 16]> = (0..ibm.count)
            .map(|j| std::array::from_fn(|c| ibm.get(j, c)))
            .collect();
        crate::rest::bind_pose(&mut bones, &binds);
    }
    Some(Skeleton { bones })
}

fn read<'g>(
    gltf: &'g Gltf,
    pointer: &str,
    index: u64,
    limits: &Limits,
) -> Result<AccessorData<'g>, ImportError> {
    accessor::read(gltf, index, limits).map_err(|e| ImportError::Data {
        pointer: pointer.to_owned(),
        message: e.to_string(),
    })
}

/// Names by their upper-cased form, for [`match_bone`]: built once, so matching every
/// attribute is linear in attributes plus names.
struct NameIndex<'n> {
    names: &'n [String],
    by_upper: std::collections::HashMap<String, Vec<usize>>,
}

impl<'n> NameIndex<'n> {
    fn new(names: &'n [String]) -> Self {
        let mut by_upper: std::collections::HashMap<String, Vec<usize>> =
            std::collections::HashMap::new();
        for (i, n) in names.iter().enumerate() {
            by_upper.entry(n.to_uppercase()).or_default().push(i);
        }
        NameIndex { names, by_upper }
    }
}

/// The bone an attribute name refers to. Blender writes a custom attribute `X` as
/// `_X` upper-cased, so `_UpperArm.L` arrives as `__UPPERARM.L`: one leading underscore is
/// the exporter's, and the match with bone names is case-insensitive. Returns the name's
/// index, `Ok(None)` when nothing matches, and refuses a match with several names
/// (`arm` and `Arm`), naming them.
fn match_bone(
    attribute: &str,
    index: &NameIndex<'_>,
    base: &str,
) -> Result<Option<usize>, ImportError> {
    let mut candidate = attribute.strip_prefix('_');
    while let Some(c) = candidate {
        match index.by_upper.get(&c.to_uppercase()).map(Vec::as_slice) {
            None | Some([]) => candidate = c.strip_prefix('_'),
            Some([one]) => return Ok(Some(*one)),
            Some(many) => {
                let mut pointer = base.to_owned();
                dashvertex_json::pointer::push_token(&mut pointer, attribute);
                return Err(ImportError::Ambiguous {
                    pointer,
                    attribute: attribute.to_owned(),
                    candidates: many
                        .iter()
                        .filter_map(|&i| index.names.get(i).cloned())
                        .collect(),
                });
            }
        }
    }
    Ok(None)
}

/// The skeleton of per-bone attributes in a file without a skin (Blender's export with
/// `export_skins` off: the bones are plain nodes): each attribute is matched to a node
/// without a mesh by name ([`match_bone`]); matched bones come first, in attribute order,
/// with parents and rest pose from the node tree; an attribute
/// that matches no node follows as a bone named after it (without the leading
/// underscores), without a parent and with the identity transform. Returns the skeleton
/// and, per attribute, its bone.
fn attribute_skeleton(
    gltf: &Gltf,
    attributes: &[&String],
    base: &str,
) -> Result<AttributeSkeleton, ImportError> {
    let candidates: Vec<(u64, String)> = gltf
        .root
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.mesh.is_none())
        .filter_map(|(i, n)| Some((i as u64, n.name.clone()?)))
        .collect();
    let names: Vec<String> = candidates.iter().map(|(_, n)| n.clone()).collect();
    let index = NameIndex::new(&names);
    let mut matched: Vec<Option<usize>> = Vec::with_capacity(attributes.len());
    for a in attributes {
        matched.push(match_bone(a, &index, base)?);
    }
    let nodes: Vec<u64> = matched
        .iter()
        .flatten()
        .filter_map(|&c| candidates.get(c).map(|(n, _)| *n))
        .collect();
    let node_names: Vec<String> = matched
        .iter()
        .flatten()
        .filter_map(|&c| names.get(c).cloned())
        .collect();
    let mut bones = crate::rest::bones(gltf, &nodes, node_names);
    let mut bone_nodes: Vec<Option<u64>> = nodes.iter().copied().map(Some).collect();
    let mut of_attribute = Vec::with_capacity(attributes.len());
    let mut next_matched = 0usize;
    for (a, m) in attributes.iter().zip(&matched) {
        if m.is_some() {
            of_attribute.push(next_matched);
            next_matched += 1;
        } else {
            of_attribute.push(bones.len());
            bones.push(Bone::new(a.trim_start_matches('_'), None));
            bone_nodes.push(None);
        }
    }
    Ok(AttributeSkeleton {
        skeleton: Skeleton { bones },
        of_attribute,
        bone_nodes,
    })
}

/// What [`attribute_skeleton`] found.
struct AttributeSkeleton {
    skeleton: Skeleton,
    /// Per attribute, its bone.
    of_attribute: Vec<usize>,
    /// Per bone, the node it matched.
    bone_nodes: Vec<Option<u64>>,
}

/// One influence set of a primitive, read where it lies.
#[derive(Clone, Debug, PartialEq)]
pub struct SetView<'g> {
    /// `JOINTS_n`: VEC4 UNSIGNED_BYTE or UNSIGNED_SHORT.
    pub joints: AccessorData<'g>,
    /// `WEIGHTS_n`: VEC4 FLOAT or normalized UNSIGNED_BYTE / UNSIGNED_SHORT.
    pub weights: AccessorData<'g>,
    /// What a stored weight is divided by: 1, 255 or 65535.
    pub scale: f64,
}

impl SetView<'_> {
    /// The set of vertex `v`: joint indices, and weights as the model holds them
    /// (`stored / scale`, rounded once to binary32).
    #[inline]
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    pub fn get(&self, v: usize) -> InfluenceSet {
        let w = self.weights.get4(v);
        InfluenceSet {
            // Exact: joints are UNSIGNED_BYTE or UNSIGNED_SHORT (`primitives` checks), whole
            // numbers in 0 ..= 65535.
            joints: self.joints.get4(v).map(|j| j as u32),
            weights: w.map(|x| to_f32(x / self.scale)),
        }
    }
}

impl SetView<'_> {
    /// The sets of vertices `start..start + out.len()` into `out`, each as
    /// [`SetView::get`] gives it. The usual storage (UNSIGNED_BYTE or UNSIGNED_SHORT
    /// joints; FLOAT, or normalized UNSIGNED_BYTE / UNSIGNED_SHORT weights; no sparse
    /// data) is decoded straight from the bytes, with the component types matched once
    /// per block; any other storage, and vertices past the accessors, vertex by vertex.
    pub fn get_block(&self, start: usize, out: &mut [InfluenceSet]) {
        if !self.typed_block(start, out) {
            for (o, v) in out.iter_mut().zip(start..) {
                *o = self.get(v);
            }
        }
    }

    /// [`SetView::get_block`] for the usual storage; false (nothing written) for any
    /// other. Weights are `stored / scale` rounded once to binary32, as the general path
    /// computes them; a FLOAT weight with scale 1 is itself (a NaN goes through the same
    /// conversion as there).
    fn typed_block(&self, start: usize, out: &mut [InfluenceSet]) -> bool {
        let n = out.len();
        let (jt, wt) = (self.joints.component_type, self.weights.component_type);
        let jsize = match jt {
            component::U8 => 1,
            component::U16 => 2,
            _ => return false,
        };
        let wsize = match wt {
            component::F32 => 4,
            component::U8 => 1,
            component::U16 => 2,
            _ => return false,
        };
        let (Some(j), Some(w)) = (
            self.joints.vec4_run(start, n, jsize),
            self.weights.vec4_run(start, n, wsize),
        ) else {
            return false;
        };
        let scale = self.scale;
        // Fixed-size patterns, no array `map`: each compiles to a few moves.
        let j8 = |b: &[u8]| {
            let [x, y, z, t] = <[u8; 4]>::try_from(b).unwrap_or([0; 4]);
            [u32::from(x), u32::from(y), u32::from(z), u32::from(t)]
        };
        let u16s = |b: &[u8]| accessor::u16x4_le(<[u8; 8]>::try_from(b).unwrap_or([0; 8]));
        let j16 = |b: &[u8]| {
            let [x, y, z, t] = u16s(b);
            [u32::from(x), u32::from(y), u32::from(z), u32::from(t)]
        };
        let wf = |b: &[u8]| {
            let [x, y, z, t] = accessor::f32x4_le(<[u8; 16]>::try_from(b).unwrap_or([0; 16]));
            let one = |x: f32| {
                if scale == 1.0 && !x.is_nan() {
                    x
                } else {
                    to_f32(f64::from(x) / scale)
                }
            };
            [one(x), one(y), one(z), one(t)]
        };
        let int = |x: u16| to_f32(f64::from(x) / scale);
        let w8 = |b: &[u8]| {
            let [x, y, z, t] = <[u8; 4]>::try_from(b).unwrap_or([0; 4]);
            [x, y, z, t].map(|q| int(u16::from(q)))
        };
        let w16 = |b: &[u8]| {
            let [x, y, z, t] = u16s(b);
            [int(x), int(y), int(z), int(t)]
        };
        match (jt, wt) {
            (component::U8, component::F32) => fill(out, j, 4, j8, w, 16, wf),
            (component::U8, component::U8) => fill(out, j, 4, j8, w, 4, w8),
            (component::U8, _) => fill(out, j, 4, j8, w, 8, w16),
            (_, component::F32) => fill(out, j, 8, j16, w, 16, wf),
            (_, component::U8) => fill(out, j, 8, j16, w, 4, w8),
            _ => fill(out, j, 8, j16, w, 8, w16),
        }
        true
    }
}

/// Decodes each element `k` of `out` from the joints' bytes (`jlen` bytes every `j.1`) and
/// the weights' (`wlen` bytes every `w.1`); an element past the bytes (never: the runs
/// were checked) is left zero.
#[inline(always)]
fn fill(
    out: &mut [InfluenceSet],
    j: (&[u8], usize),
    jlen: usize,
    joints: impl Fn(&[u8]) -> [u32; 4],
    w: (&[u8], usize),
    wlen: usize,
    weights: impl Fn(&[u8]) -> [f32; 4],
) {
    let ((jb, js), (wb, ws)) = (j, w);
    for (k, o) in out.iter_mut().enumerate() {
        let (ja, wa) = (k * js, k * ws);
        *o = match (jb.get(ja..ja + jlen), wb.get(wa..wa + wlen)) {
            (Some(jx), Some(wx)) => InfluenceSet {
                joints: joints(jx),
                weights: weights(wx),
            },
            _ => InfluenceSet::ZERO,
        };
    }
}

/// A skinned primitive as views over its accessors: nothing is copied but the
/// per-bone attributes (Blender's, usually few vertices).
#[derive(Clone, Debug)]
pub struct PrimitiveView<'g> {
    /// Mesh index.
    pub mesh: usize,
    /// Primitive index.
    pub primitive: usize,
    /// The skin the joint indices refer to (the smallest skin of the nodes using the
    /// mesh), if any.
    pub skin: Option<usize>,
    /// The skin's joints as a skeleton; without a skin, the bones of the per-bone
    /// attributes (matched to nodes by name, see `attribute_skeleton`).
    pub skeleton: Option<Skeleton>,
    /// The node of each bone of `skeleton` (a skin's joint node; without a skin, the
    /// node a per-bone attribute matched, `None` for one that matched none).
    pub bone_nodes: Vec<Option<u64>>,
    /// POSITION, when present.
    pub positions: Option<AccessorData<'g>>,
    /// The influence sets, in set order.
    pub sets: Vec<SetView<'g>>,
    /// How the weights were stored (the last set's storage when sets differ).
    pub storage: WeightStorage,
    /// Per-bone weight attributes.
    pub bone_attributes: Vec<BoneAttribute>,
    /// `_` attributes that match no bone (left alone).
    pub unmatched_attributes: Vec<String>,
}

impl PrimitiveView<'_> {
    /// Number of vertices: POSITION's count, else the first set's.
    pub fn len(&self) -> usize {
        self.positions
            .as_ref()
            .map(|a| a.count)
            .or_else(|| self.sets.first().map(|s| s.joints.count))
            .unwrap_or(0)
    }

    /// True when the primitive has no vertex.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Vertex `v`'s position (zeros without POSITION).
    pub fn position(&self, v: usize) -> [f32; 3] {
        position_at(self.positions.as_ref(), v)
    }
}

/// Element `v` of a POSITION accessor as the model holds it (zeros without one).
pub fn position_at(positions: Option<&AccessorData<'_>>, v: usize) -> [f32; 3] {
    positions.map_or([0.0; 3], |a| {
        let p = a.get4(v);
        [to_f32(p[0]), to_f32(p[1]), to_f32(p[2])]
    })
}

/// Every primitive that has influence sets or per-bone attributes, as views.
pub fn primitives<'g>(
    gltf: &'g Gltf,
    limits: &Limits,
) -> Result<Vec<PrimitiveView<'g>>, ImportError> {
    let users = skinning::mesh_nodes(&gltf.root);
    // In (mesh, primitive) order, as the loop below visits them: each primitive's sets
    // are the next entry when it has any (no search per primitive).
    let mut sets_of = skinning::primitive_sets(&gltf.root).into_iter().peekable();
    let mut out = Vec::new();
    for (m, mesh) in gltf.root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            let sets = match sets_of.next_if(|x| x.mesh == m && x.primitive == p) {
                Some(x) => {
                    // Before anything is sized by the number of sets.
                    x.check_limit(limits).map_err(|e| ImportError::Data {
                        message: e.limit.to_string(),
                        pointer: e.pointer,
                    })?;
                    x.sets
                }
                None => Vec::new(),
            };
            let bone_attrs: Vec<(&String, u64)> = prim
                .attributes
                .iter()
                .filter(|(k, _)| k.starts_with('_'))
                .filter_map(|(k, v)| Some((k, v.as_u64()?)))
                .collect();
            if sets.is_empty() && bone_attrs.is_empty() {
                continue;
            }
            let base = format!("/meshes/{m}/primitives/{p}/attributes");
            let skin = skinning::limiting_skin(
                &gltf.root,
                users.get(m).map(Vec::as_slice).unwrap_or_default(),
            )
            .map(|(s, _)| s);
            let skel = skin.and_then(|s| skeleton(gltf, s));
            let positions = match prim.attribute("POSITION") {
                Some(a) => Some(read(gltf, &format!("{base}/POSITION"), a, limits)?),
                None => None,
            };
            let (views, storage) = set_views(gltf, &base, &sets, limits)?;
            let count = positions
                .as_ref()
                .map(|a| a.count)
                .or_else(|| views.first().map(|s| s.joints.count))
                .unwrap_or(0);
            if let Some(s) = views.iter().position(|s| s.joints.count != count) {
                return Err(ImportError::Data {
                    pointer: format!("{base}/JOINTS_{s}"),
                    message: format!(
                        "{} elements but the primitive has {count} vertices",
                        views.get(s).map_or(0, |v| v.joints.count)
                    ),
                });
            }
            let BoneAttributes {
                skeleton: skel,
                bone_nodes,
                attributes,
                unmatched,
            } = bone_attributes(gltf, &base, bone_attrs, (skin, skel), limits)?;
            out.push(PrimitiveView {
                mesh: m,
                primitive: p,
                skin,
                skeleton: skel,
                bone_nodes,
                positions,
                sets: views,
                storage,
                bone_attributes: attributes,
                unmatched_attributes: unmatched,
            });
        }
    }
    Ok(out)
}

/// The JOINTS / WEIGHTS views of each of `sets` of the primitive whose attributes are at
/// `base`, and the storage its weights are in (the last non-FLOAT set's); refused for a
/// set without both, joints not VEC4 UNSIGNED_BYTE / UNSIGNED_SHORT, or weights not VEC4
/// FLOAT / UNSIGNED_BYTE / UNSIGNED_SHORT with one element per joint element.
fn set_views<'g>(
    gltf: &'g Gltf,
    base: &str,
    sets: &[skinning::SetRef],
    limits: &Limits,
) -> Result<(Vec<SetView<'g>>, WeightStorage), ImportError> {
    let mut storage = WeightStorage::Float;
    let mut views = Vec::new();
    for s in sets {
        let (Some(j), Some(w)) = (s.joints, s.weights) else {
            return Err(ImportError::Data {
                pointer: base.to_owned(),
                message: format!("set {} has JOINTS or WEIGHTS but not both", s.n),
            });
        };
        let jd = read(gltf, &format!("{base}/JOINTS_{}", s.n), j, limits)?;
        let wd = read(gltf, &format!("{base}/WEIGHTS_{}", s.n), w, limits)?;
        if jd.components != 4 || !matches!(jd.component_type, component::U8 | component::U16) {
            return Err(ImportError::Data {
                pointer: format!("{base}/JOINTS_{}", s.n),
                message: "joints must be VEC4 UNSIGNED_BYTE or UNSIGNED_SHORT".into(),
            });
        }
        let scale = match wd.component_type {
            component::F32 => 1.0,
            component::U8 => {
                storage = WeightStorage::Unorm8;
                255.0
            }
            component::U16 => {
                storage = WeightStorage::Unorm16;
                65535.0
            }
            _ => {
                return Err(ImportError::Data {
                    pointer: format!("{base}/WEIGHTS_{}", s.n),
                    message: "weights must be FLOAT or normalized UNSIGNED_BYTE / UNSIGNED_SHORT"
                        .into(),
                });
            }
        };
        if wd.components != 4 || wd.count != jd.count {
            return Err(ImportError::Data {
                pointer: format!("{base}/WEIGHTS_{}", s.n),
                message: "weights must be VEC4 with one element per joint element".into(),
            });
        }
        views.push(SetView {
            joints: jd,
            weights: wd,
            scale,
        });
    }
    Ok((views, storage))
}

/// A primitive's per-bone attributes, matched to bones.
struct BoneAttributes {
    /// The skeleton the attributes are matched to: the skin's, or one built from the
    /// nodes without a skin.
    skeleton: Option<Skeleton>,
    /// Each bone's node.
    bone_nodes: Vec<Option<u64>>,
    /// The usable attributes matched to a bone.
    attributes: Vec<BoneAttribute>,
    /// Attributes not usable or matching no bone.
    unmatched: Vec<String>,
}

/// The per-bone attributes `bone_attrs` (name, accessor) of the primitive at `base`: the
/// usable ones (one FLOAT or normalized integer per vertex), matched to the joints of
/// `skin` (with its skeleton `skel`), or without a skin to the nodes; two attributes of
/// one bone are refused.
fn bone_attributes(
    gltf: &Gltf,
    base: &str,
    bone_attrs: Vec<(&String, u64)>,
    (skin, skel): (Option<usize>, Option<Skeleton>),
    limits: &Limits,
) -> Result<BoneAttributes, ImportError> {
    // Per-bone attributes: the usable ones (one FLOAT or normalized integer per
    // vertex), matched to the skin's joints, or without a skin to the nodes.
    let mut unmatched = Vec::new();
    let mut usable = Vec::new();
    for (name, index) in bone_attrs {
        let data = read(gltf, &format!("{base}/{name}"), index, limits)?;
        let scale = match (data.components, data.component_type, data.normalized) {
            (1, component::F32, _) => 1.0,
            (1, component::U8, true) => 255.0,
            (1, component::U16, true) => 65535.0,
            _ => {
                unmatched.push(name.clone());
                continue;
            }
        };
        usable.push((name, data, scale));
    }
    let mut bone_nodes: Vec<Option<u64>> = match (skin, &skel) {
        (Some(s), Some(_)) => gltf
            .root
            .skins
            .get(s)
            .map(|s| s.joints.iter().copied().map(Some).collect())
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    let (skel, bone_of): (Option<Skeleton>, Vec<Option<usize>>) = match skel {
        Some(sk) => {
            let joint_names: Vec<String> = sk.bones.iter().map(|b| b.name.clone()).collect();
            let index = NameIndex::new(&joint_names);
            let bone_of = usable
                .iter()
                .map(|(name, _, _)| match_bone(name, &index, base))
                .collect::<Result<_, _>>()?;
            (Some(sk), bone_of)
        }
        None if usable.is_empty() => (None, Vec::new()),
        None => {
            let names: Vec<&String> = usable.iter().map(|(n, _, _)| *n).collect();
            let found = attribute_skeleton(gltf, &names, base)?;
            bone_nodes = found.bone_nodes;
            (
                Some(found.skeleton),
                found.of_attribute.into_iter().map(Some).collect(),
            )
        }
    };
    let mut bone_attributes: Vec<BoneAttribute> = Vec::new();
    let mut by_bone: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    for ((name, data, scale), bone) in usable.into_iter().zip(bone_of) {
        let Some(j) = bone else {
            unmatched.push(name.clone());
            continue;
        };
        let bone_name = skel
            .as_ref()
            .and_then(|s| s.bones.get(j))
            .map(|b| b.name.clone())
            .unwrap_or_default();
        if let Some(prev) = by_bone.get(&j).and_then(|&i| bone_attributes.get(i)) {
            return Err(ImportError::DuplicateAttribute {
                bone: bone_name,
                first: prev.attribute.clone(),
                second: name.clone(),
            });
        }
        let joint = u32::try_from(j).map_err(|_| ImportError::Data {
            pointer: format!("{base}/{name}"),
            message: format!("bone {j} is beyond 32-bit bone indices"),
        })?;
        by_bone.insert(j, bone_attributes.len());
        bone_attributes.push(BoneAttribute {
            attribute: name.clone(),
            bone: bone_name,
            joint: Some(joint),
            weights: (0..data.count)
                .map(|v| to_f32(data.get(v, 0) / scale))
                .collect(),
        });
    }
    Ok(BoneAttributes {
        skeleton: skel,
        bone_nodes,
        attributes: bone_attributes,
        unmatched,
    })
}

/// Imports every primitive that has influence sets or per-bone attributes into the dash
/// model (the views of [`primitives`], copied out).
pub fn import(gltf: &Gltf, limits: &Limits) -> Result<Vec<Primitive>, ImportError> {
    let mut out = Vec::new();
    for view in primitives(gltf, limits)? {
        let count = view.len();
        let vertices: Vec<Vertex> = (0..count)
            .map(|v| Vertex {
                position: view.position(v),
                skin: view.sets.first().map_or(InfluenceSet::ZERO, |s| s.get(v)),
            })
            .collect();
        let extra: Vec<Vec<InfluenceSet>> = view
            .sets
            .iter()
            .skip(1)
            .map(|s| (0..count).map(|v| s.get(v)).collect())
            .collect();
        let mesh_model = Mesh::from_parts(!view.sets.is_empty(), vertices, extra).map_err(|e| {
            ImportError::Data {
                pointer: format!(
                    "/meshes/{}/primitives/{}/attributes",
                    view.mesh, view.primitive
                ),
                message: e.to_string(),
            }
        })?;
        out.push(Primitive {
            mesh: view.mesh,
            primitive: view.primitive,
            document: Document {
                mesh: mesh_model,
                skeleton: view.skeleton,
            },
            skin: view.skin,
            storage: view.storage,
            bone_attributes: view.bone_attributes,
            unmatched_attributes: view.unmatched_attributes,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blender_attribute_names_match_case_insensitively() {
        let names: Vec<String> = ["Root", "UpperArm.L", "arm", "Arm"]
            .map(String::from)
            .to_vec();
        let joints = NameIndex::new(&names);
        assert_eq!(match_bone("__UPPERARM.L", &joints, ""), Ok(Some(1)));
        assert_eq!(match_bone("_UPPERARM.L", &joints, ""), Ok(Some(1)));
        assert_eq!(match_bone("__ROOT", &joints, ""), Ok(Some(0)));
        assert_eq!(match_bone("_COLOR", &joints, ""), Ok(None));
        assert!(matches!(
            match_bone("__ARM", &joints, "/a"),
            Err(ImportError::Ambiguous { candidates, .. }) if candidates == ["arm", "Arm"]
        ));
    }
}
