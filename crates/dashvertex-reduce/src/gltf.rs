//! glTF in and out of the reducer.

use dashvertex_core::Limits;
use dashvertex_gltf::export::{
    BufferFiles, Editor, ExportError, InfluenceSource, JointSlot, NewJoint, WeightFormat, Written,
};
use dashvertex_gltf::import::{self, ImportError};
use dashvertex_gltf::{Container, Gltf};

use crate::input::{Input, InputError, bone_refs};
use crate::manifest::{BoneRef, Manifest};
use crate::reduce::{Quantize, Reduced};

/// The reducer input of one skinned primitive.
#[derive(Clone, Debug)]
pub struct PrimitiveInput<'g> {
    /// Mesh index.
    pub mesh: usize,
    /// Primitive index.
    pub primitive: usize,
    /// The skin its joint indices refer to.
    pub skin: Option<usize>,
    /// The input (bones = the skin's joints), reading the file's buffers in place.
    pub input: Input<'g>,
    /// True when the input came from per-bone attributes rather than JOINTS/WEIGHTS.
    pub from_attributes: bool,
    /// The bones with their rest transforms (the skin's joints, or the bones of the
    /// per-bone attributes matched to nodes), for DashVertex output.
    pub skeleton: Option<dashvertex_core::Skeleton>,
    /// The node of each bone of `skeleton`, when it has one.
    pub bone_nodes: Vec<Option<u64>>,
    /// POSITION, read in place (the input itself holds no positions for sets read in
    /// place; [`PrimitiveInput::positions`] gives them when an output needs them).
    pub position_view: Option<dashvertex_gltf::accessor::AccessorData<'g>>,
}

impl PrimitiveInput<'_> {
    /// One position per vertex.
    pub fn positions(&self) -> Vec<[f32; 3]> {
        if !self.input.positions.is_empty() {
            return self.input.positions.clone();
        }
        (0..self.input.len())
            .map(|v| dashvertex_gltf::import::position_at(self.position_view.as_ref(), v))
            .collect()
    }
}

/// Why a glTF file cannot be reduced.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GltfReduceError {
    /// The file cannot be imported.
    #[error(transparent)]
    Import(#[from] ImportError),
    /// Influence sets refer to missing joints.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The output cannot be written.
    #[error(transparent)]
    Export(#[from] ExportError),
    /// The manifest gives the file's skins more joints than glTF or one output holds.
    #[error(transparent)]
    Joints(#[from] crate::remap::JointLimit),
    /// Something the reducer cannot do with this file.
    #[error("{0}")]
    Unsupported(String),
}

/// The inputs of every primitive with influences. A primitive with per-bone weight
/// attributes (Blender's "export attributes") is read from them — they hold every
/// influence — and otherwise from its JOINTS_n / WEIGHTS_n sets, in place.
pub fn inputs<'g>(
    gltf: &'g Gltf,
    limits: &Limits,
) -> Result<Vec<PrimitiveInput<'g>>, GltfReduceError> {
    let mut out = Vec::new();
    for p in import::primitives(gltf, limits)? {
        let bones: Vec<BoneRef> = p.skeleton.as_ref().map(bone_refs).unwrap_or_default();
        let mut seen = std::collections::HashSet::new();
        if let Some(dup) = bones.iter().find(|b| !seen.insert(b.name.as_str())) {
            return Err(GltfReduceError::Unsupported(format!(
                "skin {} has two joints named {}; bone names must be unique",
                p.skin.unwrap_or(0),
                dashvertex_core::text::short(&dup.name)
            )));
        }
        if !p.bone_attributes.is_empty() {
            let positions: Vec<[f32; 3]> = (0..p.len()).map(|v| p.position(v)).collect();
            let mut bones = bones;
            let mut attrs: Vec<Option<String>> = vec![None; bones.len()];
            let mut columns: Vec<(u32, Vec<f32>)> = Vec::new();
            for a in p.bone_attributes {
                let index = match a.joint {
                    Some(j) => j,
                    None => {
                        let index = u32::try_from(bones.len()).map_err(|_| {
                            GltfReduceError::Unsupported(
                                "more bones than 32-bit indices can name".into(),
                            )
                        })?;
                        bones.push(BoneRef {
                            name: a.bone.clone(),
                            parent: None,
                        });
                        attrs.push(None);
                        index
                    }
                };
                if let Some(slot) = attrs.get_mut(index as usize) {
                    *slot = Some(a.attribute.clone());
                }
                columns.push((index, a.weights));
            }
            out.push(PrimitiveInput {
                mesh: p.mesh,
                primitive: p.primitive,
                skin: p.skin,
                input: Input::from_columns(bones, positions, columns, attrs),
                from_attributes: true,
                position_view: None,
                skeleton: p.skeleton,
                bone_nodes: p.bone_nodes,
            });
        } else if !p.sets.is_empty() {
            out.push(PrimitiveInput {
                mesh: p.mesh,
                primitive: p.primitive,
                skin: p.skin,
                input: Input::from_views(p.sets, bones, Vec::new())?,
                from_attributes: false,
                position_view: p.positions,
                skeleton: p.skeleton,
                bone_nodes: p.bone_nodes,
            });
        }
    }
    Ok(out)
}

/// A reduced primitive as the exporter reads it: joints and weights straight from the
/// reducer's output, in the storage `quantize` chose.
struct ReducedSets<'r> {
    reduced: &'r Reduced,
    quantize: Quantize,
}

impl InfluenceSource for ReducedSets<'_> {
    fn sets(&self) -> usize {
        self.reduced.sets
    }
    fn vertices(&self) -> usize {
        self.reduced.influences.len() / self.reduced.sets.max(1)
    }
    fn joints(&self, s: usize, v: usize) -> [u32; 4] {
        let i = v * self.reduced.sets + s;
        self.reduced.influences.get(i).map_or([0; 4], |x| x.joints)
    }
    fn format(&self) -> WeightFormat {
        match self.quantize {
            Quantize::F32 => WeightFormat::F32,
            Quantize::Unorm8 => WeightFormat::Unorm8,
            Quantize::Unorm16 => WeightFormat::Unorm16,
        }
    }
    fn weights_f32(&self, s: usize, v: usize) -> [f32; 4] {
        let i = v * self.reduced.sets + s;
        self.reduced
            .influences
            .get(i)
            .map_or([0.0; 4], |x| x.weights)
    }
    fn weights_int(&self, s: usize, v: usize) -> [u32; 4] {
        let i = v * self.reduced.sets + s;
        self.reduced
            .integers
            .as_ref()
            .and_then(|q| q.get(i))
            .copied()
            .unwrap_or([0; 4])
    }
}

/// Skin joints in manifest order: joint `i` is the input bone that answers to manifest
/// entry `i` (by name or alias), else a placeholder; `joints` is the skin's joint count.
fn manifest_slots(
    lookup: &crate::manifest::Lookup<&Manifest>,
    bones: &[BoneRef],
    joints: usize,
    budget: &mut crate::remap::JointBudget,
) -> Result<Vec<JointSlot>, crate::remap::JointLimit> {
    let m = lookup.manifest();
    budget.take(m.len())?;
    let mut existing: Vec<Option<usize>> = vec![None; m.len()];
    // The first input bone of a name wins, as the file lists them.
    for (i, b) in bones.iter().enumerate().take(joints) {
        if let Some(slot) = lookup.position(&b.name).and_then(|p| existing.get_mut(p)) {
            slot.get_or_insert(i);
        }
    }
    // A bone the file lacks hangs under its manifest parent's joint when the file has
    // that one (spec/reduction.md §5), else under the skin's common root.
    let joint_of = |name: &str| {
        lookup
            .position(name)
            .and_then(|q| existing.get(q).copied().flatten())
            .filter(|&j| j < joints)
    };
    Ok(m.bones
        .iter()
        .zip(&existing)
        .map(|(e, old)| match old {
            Some(old) => JointSlot::Existing(*old),
            None => match e.parent.as_deref().and_then(joint_of) {
                Some(parent) => JointSlot::PlaceholderChild {
                    name: e.name.clone(),
                    parent,
                },
                None => JointSlot::Placeholder(e.name.clone()),
            },
        })
        .collect())
}

/// Writes the reduced influences back into a copy of `gltf`: every skin used by a reduced
/// primitive gets its joints in manifest order (placeholder nodes for retired bones and
/// for bones this file does not have), and each primitive gets new JOINTS_n / WEIGHTS_n;
/// the replaced accessors are pruned (see [`Editor::finish_files`]). `files` says where
/// a `.gltf` output keeps its buffers. The reductions are taken and dropped as they are
/// encoded, so the output is assembled without them in memory.
pub fn write(
    gltf: &Gltf,
    manifest: &Manifest,
    reduced: Vec<(&PrimitiveInput<'_>, Reduced)>,
    quantize: Quantize,
    container: Container,
    files: &BufferFiles,
) -> Result<Written, GltfReduceError> {
    write_with(gltf, manifest, reduced, quantize, container, files, false)
}

/// [`write()`], keeping the per-bone weight attributes a primitive was reduced from when
/// `keep_source_attributes`; by default they are removed (their weights are in the new
/// JOINTS_n / WEIGHTS_n, and they are most of a Blender export's size), with their
/// accessors and data. `_` attributes that matched no bone stay.
pub fn write_with(
    gltf: &Gltf,
    manifest: &Manifest,
    reduced: Vec<(&PrimitiveInput<'_>, Reduced)>,
    quantize: Quantize,
    container: Container,
    files: &BufferFiles,
    keep_source_attributes: bool,
) -> Result<Written, GltfReduceError> {
    let each = reduced.into_iter().map(|(p, r)| (p, r, quantize)).collect();
    write_each(
        gltf,
        manifest,
        each,
        container,
        files,
        keep_source_attributes,
    )
}

/// [`write_with`], each primitive's weights in its own storage (what `--quantize auto`
/// chose for it).
pub fn write_each(
    gltf: &Gltf,
    manifest: &Manifest,
    reduced: Vec<(&PrimitiveInput<'_>, Reduced, Quantize)>,
    container: Container,
    files: &BufferFiles,
    keep_source_attributes: bool,
) -> Result<Written, GltfReduceError> {
    let users = dashvertex_gltf::skinning::mesh_nodes(&gltf.root);
    let mut ed = Editor::new(gltf)?;
    // Skins already reordered (hashed: a file may have as many skins as primitives).
    let mut done = std::collections::HashSet::new();
    let lookup = manifest.lookup();
    let mut budget = crate::remap::JointBudget::default();
    for (p, _, _) in &reduced {
        let skins: std::collections::BTreeSet<u64> = users
            .get(p.mesh)
            .into_iter()
            .flatten()
            .filter_map(|&n| gltf.root.nodes.get(n)?.skin)
            .collect();
        if skins.len() > 1 {
            return Err(GltfReduceError::Unsupported(format!(
                "mesh {} is used with {} different skins; its joint indices cannot follow one manifest",
                p.mesh,
                skins.len()
            )));
        }
        let Some(skin) = p.skin else { continue };
        if !done.insert(skin) {
            continue;
        }
        let joints = gltf.root.skins.get(skin).map_or(0, |s| s.joints.len());
        let slots = manifest_slots(&lookup, &p.input.bones, joints, &mut budget)?;
        ed.reorder_skin(skin, &slots)?;
    }
    // A mesh whose influences came from per-bone attributes without a skin gets one over
    // the bones' nodes, in manifest order (new nodes for bones without one).
    let mut skinned_meshes = std::collections::HashSet::new();
    for (p, _, _) in &reduced {
        if p.skin.is_some() || !p.from_attributes || !skinned_meshes.insert(p.mesh) {
            continue;
        }
        let users: Vec<usize> = users
            .get(p.mesh)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&n| gltf.root.nodes.get(n).is_some_and(|n| n.skin.is_none()))
            .collect();
        if users.is_empty() {
            continue;
        }
        ed.add_skin(&users, &new_joints(p, manifest))?;
    }
    // Each reduction is dropped once encoded: the output is built without them.
    for (p, r, quantize) in reduced {
        if let (false, crate::input::Origin::Attributes(names)) =
            (keep_source_attributes, &p.input.origin)
        {
            let names: Vec<&str> = names.iter().flatten().map(String::as_str).collect();
            ed.remove_attributes(p.mesh, p.primitive, &names)?;
        }
        ed.set_influences_from(
            p.mesh,
            p.primitive,
            &ReducedSets {
                reduced: &r,
                quantize,
            },
        )?;
    }
    Ok(ed.finish_files(container, files)?)
}

/// The joints of a new skin for primitive `p` in manifest order: the node a bone matched,
/// else a new node with the bone's rest transform of the DashVertex skeleton
/// ([`crate::manifest_skeleton`]: one root, placeholders under their parents).
fn new_joints(p: &PrimitiveInput<'_>, manifest: &Manifest) -> Vec<NewJoint> {
    let node_of: std::collections::HashMap<&str, u64> = p
        .skeleton
        .iter()
        .flat_map(|s| s.bones.iter().zip(&p.bone_nodes))
        .filter_map(|(b, n)| Some((b.name.as_str(), (*n)?)))
        .collect();
    let skeleton = crate::manifest_skeleton(p.skeleton.as_ref(), &p.input, manifest);
    skeleton
        .bones
        .into_iter()
        .map(|b| match node_of.get(b.name.as_str()) {
            Some(&n) => NewJoint::Node(n),
            None => NewJoint::New {
                parent: b.parent.and_then(|x| usize::try_from(x).ok()),
                translation: b.position,
                rotation: b.rotation,
                scale: b.scale,
                name: b.name,
            },
        })
        .collect()
}

/// The joint slot of manifest bone `e`, which the skin lacks: a placeholder under its
/// manifest parent when the skin has that bone (`position`: joint index by name, below
/// `joints`), so that reading the output back finds its parent (spec/reduction.md R5.5),
/// else under the skin's common root.
pub(crate) fn placeholder(
    e: &crate::manifest::Entry,
    position: &std::collections::HashMap<&str, usize>,
    joints: usize,
) -> JointSlot {
    match e
        .parent
        .as_deref()
        .and_then(|p| position.get(p))
        .filter(|&&p| p < joints)
    {
        Some(&parent) => JointSlot::PlaceholderChild {
            name: e.name.clone(),
            parent,
        },
        None => JointSlot::Placeholder(e.name.clone()),
    }
}
