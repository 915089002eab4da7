//! glTF and GLB: each skinned primitive is a part (joint indices range over its limiting
//! skin, the smallest skin of the nodes that use the mesh); inverse bind matrices are
//! repaired per skin. Only what changed is rewritten, through the exporter's
//! [`Editor`]: a primitive with a change gets new `JOINTS_n` / `WEIGHTS_n` accessors in a
//! legal format, a skin with a snapped matrix a new inverse-bind-matrix accessor, and
//! everything else in the document is written back as it was.

use dashvertex_core::{Limits, SLOTS};
use dashvertex_gltf::Gltf;
use dashvertex_gltf::accessor::{self, AccessorData};
use dashvertex_gltf::document::component;
use dashvertex_gltf::export::{Editor, Influences as Written, Weights};
use dashvertex_gltf::skinning::{self, PrimitiveSets};

use crate::error::FixError;
use crate::part::{self, Influences, PartContext};
use crate::policy::Policy;
use crate::report::{Note, Part, SkinReport};
use crate::vertex::{Storage, to_f32};

/// The repair of a glTF document: the report's parts and skins, and the edit to finish
/// (`None` when nothing changed).
pub struct Fixed<'g> {
    /// Every skinned primitive, in mesh then primitive order.
    pub parts: Vec<Part>,
    /// Skins whose inverse bind matrices changed.
    pub skins: Vec<SkinReport>,
    /// The edit, when anything changed.
    pub editor: Option<Editor<'g>>,
    /// The document's structural repairs (spec/fix.md §4, "structure"): a skin's
    /// skeleton, animation data in strided views, keyframes out of order; then the
    /// vertex attributes' ("attributes"): normals and tangents renormalized, tangent
    /// signs snapped, colours clamped, and what could not be repaired exactly.
    pub structure: Vec<Note>,
}

fn read<'g>(
    gltf: &'g Gltf,
    pointer: &str,
    index: u64,
    limits: &Limits,
) -> Result<AccessorData<'g>, FixError> {
    accessor::read(gltf, index, limits).map_err(|source| FixError::Accessor {
        pointer: pointer.to_owned(),
        source,
    })
}

fn type_name(data: &AccessorData<'_>) -> String {
    let t = component::name(data.component_type);
    if data.normalized {
        format!("normalized {t}")
    } else {
        t
    }
}

/// Repairs every skinned primitive and every skin of `gltf`; the report lists every
/// changed vertex.
pub fn fix_gltf<'g>(
    gltf: &'g Gltf,
    policy: &Policy,
    limits: &Limits,
) -> Result<Fixed<'g>, FixError> {
    fix_gltf_listing(gltf, policy, limits, None)
}

/// [`fix_gltf`], the report listing at most `listed` changed vertices per primitive with
/// their slots (`None`: all) and counting the others: what a caller that shows only the
/// first changes asks for, so that a file changed in millions of vertices is not held
/// twice.
pub fn fix_gltf_listing<'g>(
    gltf: &'g Gltf,
    policy: &Policy,
    limits: &Limits,
    listed: Option<usize>,
) -> Result<Fixed<'g>, FixError> {
    let root = &gltf.root;
    let users = skinning::mesh_nodes(root);
    let mut parts = Vec::new();
    let mut edits: Vec<(usize, usize, Written)> = Vec::new();
    let mut refused = Vec::new();
    for ps in skinning::primitive_sets(root) {
        if ps.sets.is_empty() {
            continue;
        }
        let skin = skinning::limiting_skin(
            root,
            users.get(ps.mesh).map(Vec::as_slice).unwrap_or_default(),
        );
        let (part, written) = match fix_primitive(gltf, &ps, skin, policy, limits, listed) {
            Ok(done) => done,
            // Refusals of every part are reported together; anything else at once.
            Err(e @ (FixError::Refused { .. } | FixError::Several(_))) => {
                refused.push(e);
                continue;
            }
            Err(e) => return Err(e),
        };
        if let Some(w) = written {
            edits.push((ps.mesh, ps.primitive, w));
        }
        parts.push(part);
    }
    if let Some(e) = FixError::join_all(refused) {
        return Err(e);
    }
    let mut skins = Vec::new();
    let mut matrices: Vec<(usize, Matrices)> = Vec::new();
    for (s, sk) in root.skins.iter().enumerate() {
        let Some(ibm) = sk.inverse_bind_matrices else {
            continue;
        };
        if let Some((report, mats)) = snap_inverse_bind_matrices(gltf, s, ibm, policy, limits)? {
            skins.push(report);
            matrices.push((s, mats));
        }
    }
    let mut editor = if edits.is_empty() && matrices.is_empty() {
        None
    } else {
        let mut e = Editor::new(gltf)?;
        for (m, p, w) in &edits {
            e.set_influences(*m, *p, w)?;
        }
        for (s, mats) in &matrices {
            e.set_inverse_bind_matrices(*s, mats)?;
        }
        Some(e)
    };
    let mut structure = crate::structure::repair(gltf, limits, &mut editor)?;
    structure.extend(crate::attributes::repair(gltf, limits, &mut editor)?);
    Ok(Fixed {
        parts,
        skins,
        editor,
        structure,
    })
}

/// A skin's inverse bind matrices, column-major.
type Matrices = Vec<[f32; 16]>;

/// Skin `s`'s inverse bind matrices (accessor `ibm`) with every fourth row within
/// `--ibm-tolerance` of (0 0 0 1) snapped to it: the skin's report and its new matrices,
/// or `None` when every row was exact. Refuses matrices that are not MAT4 FLOAT, hold a
/// NaN or infinity, or whose row is further off (not affine: no guess at the one meant).
fn snap_inverse_bind_matrices(
    gltf: &Gltf,
    s: usize,
    ibm: u64,
    policy: &Policy,
    limits: &Limits,
) -> Result<Option<(SkinReport, Matrices)>, FixError> {
    let pointer = format!("/skins/{s}/inverseBindMatrices");
    let data = read(gltf, &pointer, ibm, limits)?;
    if data.component_type != component::F32 || data.components != 16 {
        return Err(FixError::Unfixable {
            pointer,
            message: format!(
                "the inverse bind matrices are {} with {} components, not MAT4 FLOAT; dashvertex fix does not convert them",
                type_name(&data),
                data.components
            ),
        });
    }
    let mut notes = Vec::new();
    let mut mats = Vec::with_capacity(data.count);
    for i in 0..data.count {
        let mut m: [f32; 16] = std::array::from_fn(|c| to_f32(data.get(i, c)));
        if m.iter().any(|x| !x.is_finite()) {
            return Err(FixError::Unfixable {
                pointer,
                message: format!(
                    "inverse bind matrix {i} has a NaN or infinite element; dashvertex fix does not invent a matrix"
                ),
            });
        }
        // Column-major: the fourth row is elements 3, 7, 11 and 15. Compared exactly,
        // as the official validator does (-0.0 equals 0.0).
        let row = [m[3], m[7], m[11], m[15]];
        let target = [0.0f32, 0.0, 0.0, 1.0];
        if row != target {
            let off = row
                .iter()
                .zip(target)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0f32, f32::max);
            if off > policy.ibm_tolerance {
                return Err(FixError::Unfixable {
                    pointer,
                    message: format!(
                        "inverse bind matrix {i} has fourth row ({} {} {} {}), {off} from \
                         (0 0 0 1): more than --ibm-tolerance {}; the matrix is not affine, \
                         and dashvertex fix does not guess which one was meant",
                        row[0], row[1], row[2], row[3], policy.ibm_tolerance
                    ),
                });
            }
            notes.push(Note::IbmRow {
                joint: i as u64,
                before: row,
            });
            (m[3], m[7], m[11], m[15]) = (0.0, 0.0, 0.0, 1.0);
        }
        mats.push(m);
    }
    Ok((!notes.is_empty()).then(|| {
        let report = SkinReport {
            skin: s,
            pointer: format!("/skins/{s}"),
            notes,
        };
        (report, mats)
    }))
}

/// A primitive's influence sets as read, before any repair.
struct ReadSets<'g> {
    /// Each set's joints accessor, with its JSON Pointer.
    joints: Vec<(String, AccessorData<'g>)>,
    /// Each set's weights accessor.
    weights: Vec<AccessorData<'g>>,
    /// How each set's weights are stored.
    storages: Vec<Storage>,
    /// The vertex count every set shares.
    count: usize,
}

/// Reads every influence set of `ps`, noting in `notes` the types and alignment a rewrite
/// changes. Refuses a set with JOINTS but not WEIGHTS (or the reverse), weights without
/// data, accessors that are not VEC4, weights of a type fix does not convert, and sets
/// whose counts disagree.
fn read_sets<'g>(
    gltf: &'g Gltf,
    ps: &PrimitiveSets,
    limits: &Limits,
    notes: &mut Vec<Note>,
) -> Result<ReadSets<'g>, FixError> {
    let mut joints = Vec::new();
    let mut weights = Vec::new();
    let mut storages = Vec::new();
    for s in &ps.sets {
        let (Some(j), Some(w)) = (s.joints, s.weights) else {
            return Err(FixError::Unfixable {
                pointer: ps.pointer(),
                message: format!(
                    "set {} has JOINTS_{0} or WEIGHTS_{0} but not both; dashvertex fix does not guess the other",
                    s.n
                ),
            });
        };
        let jp = ps.attribute_pointer(&format!("JOINTS_{}", s.n));
        let wp = ps.attribute_pointer(&format!("WEIGHTS_{}", s.n));
        let jd = read(gltf, &jp, j, limits)?;
        let wd = read(gltf, &wp, w, limits)?;
        let no_data = usize::try_from(w)
            .ok()
            .and_then(|i| gltf.root.accessors.get(i))
            .is_some_and(|a| a.buffer_view.is_none() && a.sparse.is_none());
        if no_data {
            return Err(FixError::Unfixable {
                pointer: wp,
                message: "the weights accessor has no data (neither a bufferView nor sparse \
                          values); dashvertex fix does not invent weights"
                    .into(),
            });
        }
        if jd.components != 4 || wd.components != 4 {
            return Err(FixError::Unfixable {
                pointer: if jd.components != 4 { jp } else { wp },
                message: "influence accessors must be VEC4; dashvertex fix does not reshape them"
                    .into(),
            });
        }
        if !matches!(jd.component_type, component::U8 | component::U16) || jd.normalized {
            notes.push(Note::JointsType {
                from: type_name(&jd),
                to: "UNSIGNED_BYTE or UNSIGNED_SHORT".into(),
            });
        }
        let storage = weights_storage(&wd, wp, notes)?;
        if (misaligned(gltf, j) || misaligned(gltf, w)) && !notes.contains(&Note::Alignment) {
            notes.push(Note::Alignment);
        }
        storages.push(storage);
        joints.push((jp, jd));
        weights.push(wd);
    }
    let count = joints.first().map_or(0, |j| j.1.count);
    if let Some((p, _)) = joints.iter().find(|j| j.1.count != count) {
        return Err(FixError::Unfixable {
            pointer: p.clone(),
            message: "the sets have different counts; dashvertex fix does not guess which is right"
                .into(),
        });
    }
    if weights.iter().any(|w| w.count != count) {
        return Err(FixError::Unfixable {
            pointer: ps.pointer(),
            message:
                "JOINTS and WEIGHTS have different counts; dashvertex fix does not guess which is right"
                    .into(),
        });
    }
    Ok(ReadSets {
        joints,
        weights,
        storages,
        count,
    })
}

/// How weights of `wd`'s type are repaired and written: FLOAT stays FLOAT, UNSIGNED_BYTE
/// and UNSIGNED_SHORT become normalized unorms (noting the type change in `notes` where
/// the file's type was not legal). Other types are refused at `wp`.
fn weights_storage(
    wd: &AccessorData<'_>,
    wp: String,
    notes: &mut Vec<Note>,
) -> Result<Storage, FixError> {
    let (storage, to) = match (wd.component_type, wd.normalized) {
        (component::F32, false) => (Storage::Float, None),
        (component::F32, true) => (Storage::Float, Some("FLOAT")),
        (component::U8, n) => (
            Storage::Unorm(255),
            (!n).then_some("normalized UNSIGNED_BYTE"),
        ),
        (component::U16, n) => (
            Storage::Unorm(65535),
            (!n).then_some("normalized UNSIGNED_SHORT"),
        ),
        _ => {
            return Err(FixError::Unfixable {
                pointer: wp,
                message: format!(
                    "weights are {}; dashvertex fix converts only FLOAT and UNSIGNED_BYTE / UNSIGNED_SHORT weights",
                    type_name(wd)
                ),
            });
        }
    };
    if let Some(to) = to {
        notes.push(Note::WeightsType {
            from: type_name(wd),
            to: to.into(),
        });
    }
    Ok(storage)
}

/// The bone count joint indices must stay below and the root bone, from the primitive's
/// limiting skin `(skin, joint count)` (no bound and bone 0 without one).
fn skin_bounds(gltf: &Gltf, skin: Option<(usize, usize)>) -> (Option<u64>, u32) {
    match skin {
        Some((s, len)) => {
            let root = dashvertex_gltf::import::skeleton(gltf, s)
                .and_then(|sk| sk.root())
                .unwrap_or(0);
            (Some(len as u64), root)
        }
        None => (None, 0),
    }
}

/// The primitive's positions, read only when the policy needs them (`--zero-sum
/// nearest`); refused when it needs them and the primitive has no POSITION.
fn read_positions<'g>(
    gltf: &'g Gltf,
    ps: &PrimitiveSets,
    policy: &Policy,
    limits: &Limits,
) -> Result<Option<AccessorData<'g>>, FixError> {
    if !part::needs_positions(policy) {
        return Ok(None);
    }
    let Some(i) = ps
        .attributes
        .iter()
        .find(|a| a.0 == "POSITION")
        .and_then(|a| a.1)
    else {
        return Err(FixError::Unfixable {
            pointer: ps.pointer(),
            message: "the `nearest` zero-sum policy needs positions, and the primitive has no \
                      POSITION (the `root` policy binds empty vertices to the root bone)"
                .into(),
        });
    };
    read(gltf, &ps.attribute_pointer("POSITION"), i, limits).map(Some)
}

/// One primitive: read, repaired, and (when anything changed) its sets to write.
fn fix_primitive(
    gltf: &Gltf,
    ps: &PrimitiveSets,
    skin: Option<(usize, usize)>,
    policy: &Policy,
    limits: &Limits,
    listed: Option<usize>,
) -> Result<(Part, Option<Written>), FixError> {
    let label = format!("mesh {} primitive {}", ps.mesh, ps.primitive);
    let mut notes = Vec::new();
    let ReadSets {
        joints,
        weights,
        storages,
        count,
    } = read_sets(gltf, ps, limits, &mut notes)?;
    // Mixed storages are valid and read as FLOAT values (as the validator reads them); a
    // primitive rewritten for another reason is written FLOAT in every set.
    let mixed = storages.windows(2).any(|w| w.first() != w.get(1));
    let storage = if mixed {
        Storage::Float
    } else {
        storages.first().copied().unwrap_or(Storage::Float)
    };
    let (bones, root) = skin_bounds(gltf, skin);
    let ctx = PartContext {
        policy,
        bones,
        root,
        skinned: true,
        listed,
    };
    let sets = joints.len();
    let slots = Slots {
        joints: &joints,
        weights: &weights,
        storages: &storages,
        storage,
    };
    // A part nothing is wrong with (the common case: a valid export) is told by a
    // parallel pass over small chunks; only a part that changes is held whole.
    let fill = |first: usize, j: &mut [u32], w: &mut [f64]| slots.fill(first, j, w).is_ok();
    let untouched = notes.is_empty() && part::untouched(count, sets, storage, &fill, &ctx);
    // Otherwise filled and repaired chunk by chunk, the part held only at the width the
    // repair can leave used.
    let filled = if untouched {
        None
    } else {
        let fill = |first: usize, j: &mut [u32], w: &mut [f64]| slots.fill(first, j, w);
        Some(part::fill_and_repair(count, sets, storage, &fill, &ctx)?)
    };
    let positions = read_positions(gltf, ps, policy, limits)?;
    let position = |v: usize| dashvertex_gltf::import::position_at(positions.as_ref(), v);
    let Some(filled) = filled else {
        let report = crate::report::PartReport {
            vertices: count as u64,
            ..Default::default()
        };
        return Ok((
            Part {
                label,
                pointer: Some(ps.pointer()),
                notes,
                report,
            },
            None,
        ));
    };
    let (inf, report) = filled.finish(&position, &ctx).map_err(|r| {
        FixError::of_part(&label, r, &|slot| {
            Some(ps.attribute_pointer(&format!("WEIGHTS_{}", slot.map_or(0, |s| s.0))))
        })
    })?;
    let changed = !notes.is_empty() || report.changed();
    note_written_types(&mut notes, changed && mixed, &inf);
    let written = changed.then(|| to_written(&inf));
    Ok((
        Part {
            label,
            pointer: Some(ps.pointer()),
            notes,
            report,
        },
        written,
    ))
}

/// Completes `notes` with the types the rewrite uses: FLOAT for weights `mixed` across
/// sets, and for joints the exporter's choice (UNSIGNED_BYTE when every joint of `inf` is
/// below 256, else UNSIGNED_SHORT).
fn note_written_types(notes: &mut Vec<Note>, mixed: bool, inf: &Influences) {
    if mixed {
        notes.push(Note::WeightsType {
            from: "mixed across sets".into(),
            to: "FLOAT".into(),
        });
    }
    let written_joints = if inf.joints.iter().all(|&j| j < 256) {
        "UNSIGNED_BYTE"
    } else {
        "UNSIGNED_SHORT"
    };
    for n in notes {
        if let Note::JointsType { to, .. } = n {
            *to = written_joints.into();
        }
    }
}

/// A primitive's influence accessors, read into [`Influences`]'s layout.
struct Slots<'a, 'g> {
    /// Each set's joints accessor, with its JSON Pointer.
    joints: &'a [(String, AccessorData<'g>)],
    /// Each set's weights accessor.
    weights: &'a [AccessorData<'g>],
    /// Each set's own weight storage.
    storages: &'a [Storage],
    /// The storage the part is repaired in (FLOAT when the sets' storages differ).
    storage: Storage,
}

impl Slots<'_, '_> {
    /// Writes the slots of the vertices from `first` on (as many as `joints` holds) into
    /// `joints` and `weights`; refuses a joint that is not a whole number in 0 ..= 65535.
    fn fill(&self, first: usize, joints: &mut [u32], weights: &mut [f64]) -> Result<(), FixError> {
        let width = self.joints.len() * SLOTS;
        if width == 0 {
            return Ok(());
        }
        let rows = joints
            .chunks_exact_mut(width)
            .zip(weights.chunks_exact_mut(width));
        for (k, (vj, vw)) in rows.enumerate() {
            let v = first + k;
            let sets = self.joints.iter().zip(self.weights);
            let slots = vj.chunks_exact_mut(SLOTS).zip(vw.chunks_exact_mut(SLOTS));
            for (s, (((jp, jd), wd), (sj, sw))) in sets.zip(slots).enumerate() {
                let from = self.storages.get(s).copied().unwrap_or(Storage::Float);
                // The usual storage (integer joints, float weights, no sparse data) is
                // decoded from the bytes in place: the values get4 gives, without the
                // widening and the whole-number test integers always pass.
                if let Some(js) = jd.stored_u32x4(v).filter(|_| !jd.normalized) {
                    sj.copy_from_slice(&js);
                    if from == Storage::Float
                        && let Some(ws) = wd.f32x4(v).filter(|_| !wd.normalized)
                    {
                        for (out, w) in sw.iter_mut().zip(ws) {
                            *out = f64::from(w);
                        }
                        continue;
                    }
                } else {
                    joints_of(jp, jd, v, s, sj)?;
                }
                for (x, out) in wd.get4(v).into_iter().zip(sw) {
                    *out = match (from, self.storage) {
                        (Storage::Float, _) => f64::from(to_f32(x)),
                        (Storage::Unorm(max), Storage::Float) => {
                            f64::from(to_f32(x / f64::from(max)))
                        }
                        (Storage::Unorm(_), Storage::Unorm(_)) => x,
                    };
                }
            }
        }
        Ok(())
    }
}

/// Vertex `v`'s joints of set `s` through [`AccessorData::get4`]; refuses a joint that is
/// not a whole number in 0 ..= 65535.
fn joints_of(
    jp: &str,
    jd: &AccessorData<'_>,
    v: usize,
    s: usize,
    sj: &mut [u32],
) -> Result<(), FixError> {
    for (k, (x, out)) in jd.get4(v).into_iter().zip(sj).enumerate() {
        // A whole number in range is the one the saturating cast gives back (NaN and
        // fractions are not); no call to `trunc`.
        let j = to_u32(x);
        if !(x <= 65535.0 && f64::from(j) == x) {
            return Err(FixError::Unfixable {
                pointer: jp.to_owned(),
                message: format!(
                    "vertex {v} set {s} slot {k}: joint {x} is not a whole number in 0 ..= 65535; dashvertex fix does not guess the joint"
                ),
            });
        }
        *out = j;
    }
    Ok(())
}

fn misaligned(gltf: &Gltf, accessor: u64) -> bool {
    let Some(a) = usize::try_from(accessor)
        .ok()
        .and_then(|i| gltf.root.accessors.get(i))
    else {
        return false;
    };
    let view = a
        .buffer_view
        .and_then(|v| usize::try_from(v).ok())
        .and_then(|v| gltf.root.buffer_views.get(v));
    // The rule the validator checks (GLTF_ACCESSOR_ALIGNMENT): the accessor's offset and
    // the view's stride; a view's own offset only needs the component size.
    a.byte_offset % 4 != 0 || view.is_some_and(|v| v.byte_stride.is_some_and(|s| s % 4 != 0))
}

#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "saturating: the callers keep the result only for a whole number in 0 ..= 65535"
)]
fn to_u32(x: f64) -> u32 {
    x as u32
}

/// The repaired sets in the exporter's layout.
fn to_written(inf: &Influences) -> Written {
    let n = inf.vertices();
    let width = inf.sets * SLOTS;
    let quad = |v: &[f64], v0: usize| -> [f64; 4] {
        std::array::from_fn(|k| v.get(v0 + k).copied().unwrap_or(0.0))
    };
    let joints = (0..inf.sets)
        .map(|s| {
            (0..n)
                .map(|v| {
                    std::array::from_fn(|k| {
                        inf.joints
                            .get(v * width + s * SLOTS + k)
                            .copied()
                            .unwrap_or(0)
                    })
                })
                .collect()
        })
        .collect();
    let weights = match inf.storage {
        Storage::Float => Weights::F32(
            (0..inf.sets)
                .map(|s| {
                    (0..n)
                        .map(|v| quad(&inf.weights, v * width + s * SLOTS).map(to_f32))
                        .collect()
                })
                .collect(),
        ),
        Storage::Unorm(255) => Weights::Unorm8(
            (0..inf.sets)
                .map(|s| {
                    (0..n)
                        .map(|v| {
                            quad(&inf.weights, v * width + s * SLOTS)
                                .map(|x| u8::try_from(to_u32(x)).unwrap_or(u8::MAX))
                        })
                        .collect()
                })
                .collect(),
        ),
        Storage::Unorm(_) => Weights::Unorm16(
            (0..inf.sets)
                .map(|s| {
                    (0..n)
                        .map(|v| {
                            quad(&inf.weights, v * width + s * SLOTS)
                                .map(|x| u16::try_from(to_u32(x)).unwrap_or(u16::MAX))
                        })
                        .collect()
                })
                .collect(),
        ),
    };
    Written { joints, weights }
}
