//! DashVertex documents (JSON, DMX, raw records): the mesh is one part, bone indices
//! range over the skeleton (or a bone count the caller knows), and bone 0 is the root
//! (`spec/dashvertex.md` §7).

use dashvertex_core::{Document, InfluenceSet, SLOTS};

use crate::error::FixError;
use crate::part::{self, PartContext};
use crate::policy::{Policy, SkinnedFlag};
use crate::report::{Note, Part};
use crate::vertex::{Storage, to_f32};

/// The label of a DashVertex document's one part.
pub const MESH: &str = "mesh";

/// Repairs a document's influences in place. `bones` is the bone count indices must stay
/// below when the document has no skeleton (a skeleton's length wins when it has one).
pub fn fix_document(
    doc: &mut Document,
    bones: Option<u64>,
    policy: &Policy,
) -> Result<Part, FixError> {
    let mut notes = Vec::new();
    apply_skinned_flag(doc, policy, &mut notes)?;
    let mesh = &doc.mesh;
    let sets = mesh.set_count();
    let n = mesh.len();
    let bones = doc.skeleton.as_ref().map(|s| s.len() as u64).or(bones);
    let root = doc
        .skeleton
        .as_ref()
        .and_then(dashvertex_core::Skeleton::root)
        .unwrap_or(0);
    let ctx = PartContext {
        policy,
        bones,
        root,
        skinned: mesh.is_skinned(),
        listed: None,
    };
    if !ctx.skinned {
        // An unskinned mesh is left alone (its influence data, if the flag kept any,
        // is not repaired).
        return Ok(Part {
            label: MESH.into(),
            pointer: None,
            notes,
            report: crate::report::PartReport {
                vertices: n as u64,
                ..Default::default()
            },
        });
    }
    let width = sets * SLOTS;
    let fill = |first: usize, j: &mut [u32], w: &mut [f64]| -> Result<(), FixError> {
        let rows = j.chunks_exact_mut(width).zip(w.chunks_exact_mut(width));
        for (v, (vj, vw)) in (first..).zip(rows) {
            let slots = vj.chunks_exact_mut(SLOTS).zip(vw.chunks_exact_mut(SLOTS));
            for (set, (sj, sw)) in mesh.sets_of(v).zip(slots) {
                sj.copy_from_slice(&set.joints);
                for (o, &x) in sw.iter_mut().zip(&set.weights) {
                    *o = f64::from(x);
                }
            }
        }
        Ok(())
    };
    let positions = |v: usize| mesh.vertices().get(v).map_or([0.0; 3], |x| x.position);
    let (inf, report) = part::fill_and_repair(n, sets, Storage::Float, &fill, &ctx)?
        .finish(&positions, &ctx)
        .map_err(|r| FixError::of_part(MESH, r, &|_| None))?;
    if report.changed() || !notes.is_empty() {
        write_back(doc, &inf);
    }
    Ok(Part {
        label: MESH.into(),
        pointer: None,
        notes,
        report,
    })
}

/// Applies `policy`'s answer to a mesh marked unskinned that holds influence data:
/// refuses it (naming the first vertex with data), marks the mesh skinned, or drops the
/// data, noting the change in `notes`. A mesh whose flag and data agree is left alone.
fn apply_skinned_flag(
    doc: &mut Document,
    policy: &Policy,
    notes: &mut Vec<Note>,
) -> Result<(), FixError> {
    if doc.mesh.is_skinned() || !doc.mesh.has_skin_bits() {
        return Ok(());
    }
    match policy.skinned_flag {
        SkinnedFlag::Error => {
            let v = (0..doc.mesh.len())
                .find(|&v| doc.mesh.sets_of(v).any(|s| !s.bit_eq(&InfluenceSet::ZERO)))
                .unwrap_or(0);
            return Err(FixError::Refused {
                part: MESH.into(),
                vertices: 1,
                vertex: v as u64,
                slot: None,
                pointer: None,
                message: "the mesh is marked unskinned but holds influence data \
                          (--skinned-flag set marks it skinned, --skinned-flag clear \
                          drops the data)"
                    .into(),
            });
        }
        SkinnedFlag::Set => {
            doc.mesh.set_skinned(true);
            notes.push(Note::SkinnedFlag { set: true });
        }
        SkinnedFlag::Clear => {
            for v in doc.mesh.vertices_mut() {
                v.skin = InfluenceSet::ZERO;
            }
            for set in doc.mesh.extra_sets_mut() {
                set.fill(InfluenceSet::ZERO);
            }
            notes.push(Note::SkinnedFlag { set: false });
        }
    }
    Ok(())
}

/// Writes the repaired influences `inf` back into the document's mesh: the first set into
/// each vertex, the rest into its extra sets (dropping sets the repair removed).
fn write_back(doc: &mut Document, inf: &part::Influences) {
    let width = inf.sets * SLOTS;
    let set_at = |v: usize, s: usize| -> InfluenceSet {
        let at = v * width + s * SLOTS;
        let mut out = InfluenceSet::ZERO;
        for k in 0..SLOTS {
            if let (Some(j), Some(w), Some(oj), Some(ow)) = (
                inf.joints.get(at + k),
                inf.weights.get(at + k),
                out.joints.get_mut(k),
                out.weights.get_mut(k),
            ) {
                *oj = *j;
                *ow = to_f32(*w);
            }
        }
        out
    };
    for (v, vertex) in doc.mesh.vertices_mut().iter_mut().enumerate() {
        vertex.skin = set_at(v, 0);
    }
    doc.mesh.truncate_sets(inf.sets);
    for (i, set) in doc.mesh.extra_sets_mut().enumerate() {
        for (v, x) in set.iter_mut().enumerate() {
            *x = set_at(v, i + 1);
        }
    }
}
