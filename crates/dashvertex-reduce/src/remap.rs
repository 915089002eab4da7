//! Joint order as a contract: rewrite a glTF file's skins so that joint `i` is the bone
//! the manifest numbers `i` (`dashvertex remap`), changing no influence.
//!
//! Each skin that is not already in manifest order ([`Manifest::first_out_of_order`])
//! gets its joint list and inverse bind matrices permuted to the manifest's order
//! ([`Editor::reorder_skin`]): manifest bones the file lacks (and retired indices)
//! become placeholder joints, so every manifest bone keeps its index, and joints the
//! manifest does not have follow the manifest's bones in their file order (or, locked,
//! the remap is refused, naming them). Every primitive whose mesh a remapped skin
//! deforms gets new `JOINTS_n` accessors with its joint values renumbered; its
//! `WEIGHTS_n` accessors are kept as they are, so skinning sums the same terms in the
//! same order and gives the same bits.
//!
//! ```no_run
//! use dashvertex_reduce::remap::{Options, remap};
//! use dashvertex_reduce::manifest::Manifest;
//! use dashvertex_gltf::{Container, export::BufferFiles};
//! # fn run(gltf: &dashvertex_gltf::Gltf, manifest: &Manifest) -> Result<(), Box<dyn std::error::Error>> {
//! let out = remap(gltf, manifest, &Options::default())?;
//! match out.finish(Container::Glb, &BufferFiles::Embed)? {
//!     Some(written) => { /* write written.main */ }
//!     None => { /* already in manifest order: nothing to change */ }
//! }
//! # Ok(()) }
//! ```

use std::collections::HashMap;

use dashvertex_gltf::Gltf;
use dashvertex_gltf::export::{BufferFiles, Editor, ExportError, JointSlot, Written};
use dashvertex_gltf::skinning;

use crate::manifest::{Lookup, Manifest, OrderMismatch};

mod renumber;
use renumber::Renumbered;

/// How a remap treats bones the manifest does not have.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Refuse (naming them) instead of appending joints the manifest does not have, and
    /// refuse weight on a bone the manifest retired ([`RemapError::RetiredWeighted`]).
    pub locked: bool,
}

/// The most joints a skin can be given: `JOINTS_n` are at most UNSIGNED_SHORT, so a joint
/// past index 65535 could never carry weight.
pub const MAX_SKIN_JOINTS: usize = 65_536;

/// The most joints the rewritten skins of one file hold together, placeholders included
/// (each is a node and an inverse bind matrix in the output): a manifest's size times a
/// file's skin count cannot drive the output beyond it.
pub const MAX_JOINTS_WRITTEN: usize = 1 << 20;

/// A joint list longer than a glTF skin can use, or more joints than one output holds.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum JointLimit {
    /// One skin would get more joints than `JOINTS_n` can index.
    #[error(
        "a skin in manifest order would have {joints} joints, but glTF joint indices stop at {} (JOINTS_n are at most UNSIGNED_SHORT); compact the manifest (its retired and unused indices) or keep one manifest per rig",
        MAX_SKIN_JOINTS - 1
    )]
    Skin {
        /// The joints it would have (every manifest index, then appended bones).
        joints: usize,
    },
    /// The skins together would get more joints than one output holds.
    #[error(
        "the skins in manifest order would hold {total} joints together (every manifest index for each skin), more than the {MAX_JOINTS_WRITTEN} one output holds; keep one manifest per rig, or fewer skins per file"
    )]
    Total {
        /// The joints so far.
        total: usize,
    },
}

/// Counts the joints written into one output's skins against [`MAX_SKIN_JOINTS`] and
/// [`MAX_JOINTS_WRITTEN`], before any is built.
#[derive(Debug, Default)]
pub(crate) struct JointBudget {
    used: usize,
}

impl JointBudget {
    /// Takes `joints` for one more skin.
    pub(crate) fn take(&mut self, joints: usize) -> Result<(), JointLimit> {
        if joints > MAX_SKIN_JOINTS {
            return Err(JointLimit::Skin { joints });
        }
        self.used = self.used.saturating_add(joints);
        if self.used > MAX_JOINTS_WRITTEN {
            return Err(JointLimit::Total { total: self.used });
        }
        Ok(())
    }
}

/// What happened to one skin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkinRemap {
    /// The skin's index.
    pub skin: usize,
    /// Where its joint order first departed from the manifest's (`None`: already in
    /// order, left alone).
    pub mismatch: Option<OrderMismatch>,
    /// Manifest bones the skin lacks, given placeholder joints at their index.
    pub placeholders: Vec<String>,
    /// The skin's bones the manifest does not have, appended after the manifest's.
    pub appended: Vec<String>,
    /// Bones the manifest retired that still carry weight in a primitive the skin
    /// deforms (kept at their index; refused with `locked`), with the first vertex.
    pub retired_weighted: Vec<(String, RetiredAt)>,
    /// `(mesh, primitive)` whose joint values were renumbered.
    pub primitives: Vec<(usize, usize)>,
}

/// Where weight on a retired bone was first found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetiredAt {
    /// The mesh.
    pub mesh: usize,
    /// The primitive.
    pub primitive: usize,
    /// The vertex.
    pub vertex: usize,
    /// The influence set (`JOINTS_n`).
    pub set: usize,
}

/// A remap worked out: the edit, and what it does per skin.
#[derive(Debug)]
pub struct Remap<'g> {
    editor: Option<Editor<'g>>,
    /// Every skin of the file, in order.
    pub skins: Vec<SkinRemap>,
}

impl Remap<'_> {
    /// True when every skin already follows the manifest (nothing to write).
    pub fn already_in_order(&self) -> bool {
        self.editor.is_none()
    }

    /// The remapped file as `container` (`None` when already in order).
    pub fn finish(
        self,
        container: dashvertex_gltf::Container,
        files: &BufferFiles,
    ) -> Result<Option<Written>, RemapError> {
        match self.editor {
            Some(mut ed) => {
                // Only joint values change, and the input was checked: everything else
                // is copied from the input file where its load kept it open.
                ed.splice_carried();
                Ok(Some(ed.finish_files(container, files)?))
            }
            None => Ok(None),
        }
    }
}

/// Why a file cannot be remapped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RemapError {
    /// The file has no skin.
    #[error("the file has no skin: there is no joint order to remap")]
    NoSkin,
    /// `locked`, and a skin has bones the manifest does not have.
    #[error(
        "skin {skin} has bone(s) the manifest does not have: {}; add them to the manifest, or remap without locking it to append them",
        .bones.iter().map(|b| format!("{b:?}")).collect::<Vec<_>>().join(", ")
    )]
    NotInManifest {
        /// The skin.
        skin: usize,
        /// The bones, in joint order.
        bones: Vec<String>,
    },
    /// `locked`, and a vertex carries weight on a joint whose bone the manifest retired.
    #[error(
        "{pointer}: vertex {} carries weight on joint {joint} (bone {name:?}), which the manifest retired (index {index}); weight that vertex on a current bone, or bring the bone back with `dashvertex manifest update`",
        .at.vertex
    )]
    RetiredWeighted {
        /// JSON Pointer of the `JOINTS_n` attribute.
        pointer: String,
        /// The skin.
        skin: usize,
        /// The joint, as the file numbers it.
        joint: usize,
        /// Its bone name.
        name: String,
        /// The retired index.
        index: u32,
        /// Where.
        at: RetiredAt,
    },
    /// The manifest is too large for the file's skins.
    #[error(transparent)]
    Joints(#[from] JointLimit),
    /// Two joints of a skin are one manifest bone (its name and a former name).
    #[error(
        "skin {skin} has joints {first:?} and {second:?}, which are one manifest bone (one is a former name); rename one of them"
    )]
    SameBone {
        /// The skin.
        skin: usize,
        /// The first joint's name.
        first: String,
        /// The second's.
        second: String,
    },
    /// Two joints of a skin have the same bone name.
    #[error("skin {skin} has two joints named {name:?}; bone names must be unique")]
    DuplicateName {
        /// The skin.
        skin: usize,
        /// The name.
        name: String,
    },
    /// A mesh is deformed by skins whose joint lists differ, so its joint values cannot
    /// follow both.
    #[error(
        "mesh {mesh} is used with skins {first} and {second}, whose joint lists differ; its joint values cannot follow both"
    )]
    SharedMesh {
        /// The mesh.
        mesh: usize,
        /// One skin.
        first: usize,
        /// Another, with a different joint list.
        second: usize,
    },
    /// Influence data the remap cannot carry over unchanged.
    #[error("{pointer}: {why}")]
    Data {
        /// JSON Pointer of the attribute.
        pointer: String,
        /// What is wrong.
        why: String,
    },
    /// The output cannot be written.
    #[error(transparent)]
    Export(#[from] ExportError),
}

/// Works out the remap of every skin of `gltf` to `manifest`'s order and prepares the
/// edit; see the [module documentation](self). Nothing is copied until
/// [`Remap::finish`].
pub fn remap<'g>(
    gltf: &'g Gltf,
    manifest: &Manifest,
    opts: &Options,
) -> Result<Remap<'g>, RemapError> {
    let root = &gltf.root;
    if root.skins.is_empty() {
        return Err(RemapError::NoSkin);
    }
    let lookup = manifest.lookup();
    let mut budget = JointBudget::default();
    // Per skin: the old -> new joint map (None when in order), the joint slots, and which
    // of its joints are bones the manifest retired.
    let mut plans: Vec<SkinPlan> = Vec::with_capacity(root.skins.len());
    for s in 0..root.skins.len() {
        plans.push(plan_skin(root, s, &lookup, manifest, opts, &mut budget)?);
    }
    let any_retired = plans.iter().any(|p| p.retired.contains(&true));
    if plans.iter().all(|p| p.map.is_none()) && !any_retired {
        return Ok(Remap {
            editor: None,
            skins: plans.into_iter().map(|p| p.report).collect(),
        });
    }
    let mesh_skin = mesh_skins(root)?;
    let mut ed = if plans.iter().any(|p| p.map.is_some()) {
        let mut ed = Editor::new(gltf)?;
        for (s, plan) in plans.iter().enumerate() {
            if let Some(slots) = &plan.slots {
                ed.reorder_skin(s, slots)?;
            }
        }
        Some(ed)
    } else {
        None
    };
    for p in skinning::primitive_sets(root) {
        let Some(s) = mesh_skin.get(p.mesh).copied().flatten() else {
            continue;
        };
        if let Some(plan) = plans.get_mut(s) {
            renumber_primitive(gltf, &p, s, plan, &lookup, opts, ed.as_mut())?;
        }
    }
    Ok(Remap {
        editor: ed,
        skins: plans.into_iter().map(|p| p.report).collect(),
    })
}

/// One skin's remap: the old → new joint map (`None` when the skin is in order), its
/// joint slots in manifest order, which joints the manifest retired, and the report.
struct SkinPlan {
    map: Option<Vec<u32>>,
    slots: Option<Vec<JointSlot>>,
    retired: Vec<bool>,
    report: SkinRemap,
}

/// Plans skin `s`: refuses duplicate names, bones missing from a locked manifest and two
/// joints of one bone; counts the joints the output will hold against `budget`.
fn plan_skin(
    root: &dashvertex_gltf::document::Root,
    s: usize,
    lookup: &Lookup<&Manifest>,
    manifest: &Manifest,
    opts: &Options,
    budget: &mut JointBudget,
) -> Result<SkinPlan, RemapError> {
    let names = skinning::joint_names(root, s);
    let mut position: HashMap<&str, usize> = HashMap::with_capacity(names.len());
    for (i, n) in names.iter().enumerate() {
        if position.insert(n.as_str(), i).is_some() {
            return Err(RemapError::DuplicateName {
                skin: s,
                name: n.clone(),
            });
        }
    }
    let retired = names
        .iter()
        .map(|n| lookup.entry(n).is_some_and(|e| e.removed))
        .collect();
    let mismatch = lookup.first_out_of_order(&names, !opts.locked);
    let mut report = SkinRemap {
        skin: s,
        mismatch: mismatch.clone(),
        placeholders: Vec::new(),
        appended: Vec::new(),
        retired_weighted: Vec::new(),
        primitives: Vec::new(),
    };
    if mismatch.is_none() {
        return Ok(SkinPlan {
            map: None,
            slots: None,
            retired,
            report,
        });
    }
    report.appended = names
        .iter()
        .filter(|n| !lookup.contains(n))
        .cloned()
        .collect();
    if opts.locked && !report.appended.is_empty() {
        return Err(RemapError::NotInManifest {
            skin: s,
            bones: report.appended,
        });
    }
    budget.take(manifest.len().saturating_add(report.appended.len()))?;
    let slots = joint_slots(s, &names, &position, lookup, manifest, &mut report)?;
    let mut map = vec![0u32; names.len()];
    for (new, slot) in slots.iter().enumerate() {
        if let JointSlot::Existing(old) = slot
            && let Some(m) = map.get_mut(*old)
        {
            *m = u32::try_from(new).map_err(|_| RemapError::Data {
                pointer: format!("/skins/{s}/joints"),
                why: "more joints than 32-bit indices can name".into(),
            })?;
        }
    }
    Ok(SkinPlan {
        map: Some(map),
        slots: Some(slots),
        retired,
        report,
    })
}

/// Skin `s`'s joints in manifest order: the joint that answers to each manifest entry
/// (by name or alias) or a placeholder, then the joints the manifest lacks, in file order.
fn joint_slots(
    s: usize,
    names: &[String],
    position: &HashMap<&str, usize>,
    lookup: &Lookup<&Manifest>,
    manifest: &Manifest,
    report: &mut SkinRemap,
) -> Result<Vec<JointSlot>, RemapError> {
    let mut existing: Vec<Option<usize>> = vec![None; manifest.len()];
    for (old, n) in names.iter().enumerate() {
        let Some(slot) = lookup.position(n).and_then(|p| existing.get_mut(p)) else {
            continue;
        };
        if let Some(first) = slot.replace(old) {
            return Err(RemapError::SameBone {
                skin: s,
                first: names.get(first).cloned().unwrap_or_default(),
                second: n.clone(),
            });
        }
    }
    let mut slots: Vec<JointSlot> = Vec::with_capacity(manifest.len() + names.len());
    for (e, old) in manifest.bones.iter().zip(existing) {
        match old {
            Some(old) => slots.push(JointSlot::Existing(old)),
            None => {
                report.placeholders.push(e.name.clone());
                slots.push(crate::gltf::placeholder(e, position, names.len()));
            }
        }
    }
    for (old, n) in names.iter().enumerate() {
        if !lookup.contains(n) {
            slots.push(JointSlot::Existing(old));
        }
    }
    Ok(slots)
}

/// The skin each mesh's joint values refer to; a mesh deformed by skins with different
/// joint lists cannot follow two orders and is refused.
fn mesh_skins(root: &dashvertex_gltf::document::Root) -> Result<Vec<Option<usize>>, RemapError> {
    let users = skinning::mesh_nodes(root);
    let mut mesh_skin: Vec<Option<usize>> = vec![None; root.meshes.len()];
    for (m, nodes) in users.iter().enumerate() {
        for &n in nodes {
            let Some(s) = root
                .nodes
                .get(n)
                .and_then(|n| n.skin)
                .and_then(|s| usize::try_from(s).ok())
                .filter(|&s| s < root.skins.len())
            else {
                continue;
            };
            let slot = mesh_skin.get_mut(m);
            match slot {
                Some(slot @ None) => *slot = Some(s),
                Some(Some(first)) if *first != s => {
                    let same = root.skins.get(*first).map(|k| &k.joints)
                        == root.skins.get(s).map(|k| &k.joints);
                    if !same {
                        return Err(RemapError::SharedMesh {
                            mesh: m,
                            first: *first,
                            second: s,
                        });
                    }
                }
                _ => {}
            }
        }
    }
    Ok(mesh_skin)
}

/// Renumbers primitive `p`'s joint values by skin `s`'s plan (when the skin moves), and
/// reports (or, locked, refuses) weight on a joint the manifest retired.
fn renumber_primitive(
    gltf: &Gltf,
    p: &skinning::PrimitiveSets,
    s: usize,
    plan: &mut SkinPlan,
    lookup: &Lookup<&Manifest>,
    opts: &Options,
    ed: Option<&mut Editor<'_>>,
) -> Result<(), RemapError> {
    let map = plan.map.as_ref();
    let retired = plan.retired.as_slice();
    if map.is_none() && !retired.contains(&true) {
        return Ok(());
    }
    let identity: Vec<u32>;
    let map_or_identity = match map {
        Some(m) => m.as_slice(),
        None => {
            identity = (0..retired.len())
                .map(|j| u32::try_from(j).unwrap_or(u32::MAX))
                .collect();
            &identity
        }
    };
    let encode = ed.is_some() && map.is_some();
    let mut source = Renumbered::read(gltf, p, map_or_identity, encode)?;
    if let Some((set, vertex, joint)) = source.first_weighted(retired) {
        let name = skinning::joint_names(&gltf.root, s)
            .get(joint)
            .cloned()
            .unwrap_or_default();
        let at = RetiredAt {
            mesh: p.mesh,
            primitive: p.primitive,
            vertex,
            set,
        };
        if opts.locked {
            return Err(RemapError::RetiredWeighted {
                pointer: p.attribute_pointer(&format!("JOINTS_{set}")),
                skin: s,
                joint,
                index: lookup.index_of(&name).unwrap_or(0),
                name,
                at,
            });
        }
        if !plan.report.retired_weighted.iter().any(|(n, _)| *n == name) {
            plan.report.retired_weighted.push((name, at));
        }
    }
    if let (Some(ed), Some(joints)) = (ed, source.take_encoded()) {
        // Only the joint values change: the weights accessors stay as they are.
        ed.set_joints_encoded(p.mesh, p.primitive, source.vertices(), joints)?;
        plan.report.primitives.push((p.mesh, p.primitive));
    }
    Ok(())
}
