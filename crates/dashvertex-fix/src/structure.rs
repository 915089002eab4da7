//! Structural faults real exporters leave, repaired exactly (spec/fix.md §4, "structure"):
//!
//! - **skeleton**: a skin's `skeleton` that is not a common root of its joints
//!   (`GLTF_SKIN_SKELETON`, FBX2glTF and Sketchfab exports) becomes the joints' nearest
//!   common root; nothing else of the skin changes;
//! - **animation stride**: an animation sampler's input or output accessor in a buffer
//!   view with a `byteStride` (`ANIMATION_SAMPLER_ACCESSOR_WITH_BYTESTRIDE`) is copied
//!   tightly packed, values bit for bit;
//! - **keyframe order**: keyframe times that do not strictly increase
//!   (`ACCESSOR_ANIMATION_INPUT_NON_INCREASING`) are put in order, keyframes kept with
//!   their values (every output element of a keyframe, three for CUBICSPLINE), and a
//!   keyframe at the time of an earlier one dropped: the first at each time stays.
//!
//! Each repair is listed ([`Note`]). What cannot be repaired exactly (a time that is NaN
//! or negative, an output count that is no multiple of the keyframes) is left as it was,
//! and the output check carries it as the input had it.

use dashvertex_core::Limits;
use dashvertex_gltf::Gltf;
use dashvertex_gltf::accessor;
use dashvertex_gltf::export::Editor;
use dashvertex_gltf::skinning;
use serde_json::{Value, json};

use crate::error::FixError;
use crate::report::Note;

/// One change to make.
enum Change {
    Skeleton { skin: usize, to: u64 },
    Accessor { pointer: String, rows: Vec<u32> },
}

/// Works out the structural repairs of `gltf` and makes them in `editor` (created when
/// there is none and something changes); returns what was done, in document order.
pub(crate) fn repair<'g>(
    gltf: &'g Gltf,
    limits: &Limits,
    editor: &mut Option<Editor<'g>>,
) -> Result<Vec<Note>, FixError> {
    let mut notes = Vec::new();
    let mut changes = Vec::new();
    skeletons(gltf, &mut notes, &mut changes);
    matrices(gltf, &mut notes, &mut changes);
    animations(gltf, limits, &mut notes, &mut changes);
    if changes.is_empty() {
        return Ok(notes);
    }
    let ed = match editor {
        Some(ed) => ed,
        None => editor.insert(Editor::new(gltf)?),
    };
    // An accessor several samplers share is copied once for each order of its rows.
    let mut copies: std::collections::HashMap<(u64, Vec<u32>), usize> =
        std::collections::HashMap::new();
    for change in changes {
        match change {
            Change::Skeleton { skin, to } => {
                if let Some(s) = ed
                    .json_mut()
                    .pointer_mut(&format!("/skins/{skin}"))
                    .and_then(Value::as_object_mut)
                {
                    s.insert("skeleton".into(), json!(to));
                }
            }
            Change::Accessor { pointer, rows } => {
                let Some(old) = ed.json_mut().pointer(&pointer).and_then(Value::as_u64) else {
                    continue;
                };
                // Already rewritten by another repair (inverse bind matrices snapped):
                // that accessor is new and tightly packed.
                if gltf.value.pointer(&pointer).and_then(Value::as_u64) != Some(old) {
                    continue;
                }
                let new = match copies.get(&(old, rows.clone())) {
                    Some(&new) => new,
                    None => {
                        let new = ed.gather(old, &rows, false)?;
                        copies.insert((old, rows), new);
                        new
                    }
                };
                ed.mark_replaced(old);
                if let Some(slot) = ed.json_mut().pointer_mut(&pointer) {
                    *slot = json!(new);
                }
            }
        }
    }
    Ok(notes)
}

/// Skins whose `skeleton` is not a common root of their joints.
fn skeletons(gltf: &Gltf, notes: &mut Vec<Note>, changes: &mut Vec<Change>) {
    let root = &gltf.root;
    let parents = skinning::parents(root);
    let nodes = root.nodes.len() as u64;
    for (s, skin) in root.skins.iter().enumerate() {
        let Some(k) = skin.skeleton.filter(|k| *k < nodes) else {
            continue;
        };
        if skin.joints.iter().any(|&j| j >= nodes) {
            continue;
        }
        let common = skinning::common_ancestors(&parents, &skin.joints);
        match common.first() {
            Some(&to) if !common.contains(&k) => {
                notes.push(Note::Skeleton {
                    skin: s as u64,
                    from: k,
                    to,
                });
                changes.push(Change::Skeleton { skin: s, to });
            }
            _ => {}
        }
    }
}

/// Skins whose inverse bind matrices lie in a strided buffer view (MAT4 FLOAT, read
/// all the same): copied tightly packed.
fn matrices(gltf: &Gltf, notes: &mut Vec<Note>, changes: &mut Vec<Change>) {
    for (s, skin) in gltf.root.skins.iter().enumerate() {
        let Some(ibm) = skin.inverse_bind_matrices else {
            continue;
        };
        let Some(count) = usize::try_from(ibm)
            .ok()
            .and_then(|i| gltf.root.accessors.get(i))
            .filter(|a| a.kind == "MAT4")
            .map(|a| a.count)
        else {
            continue;
        };
        if gltf.view_stride(ibm).is_some() {
            notes.push(Note::IbmStride { skin: s as u64 });
            changes.push(Change::Accessor {
                pointer: format!("/skins/{s}/inverseBindMatrices"),
                rows: (0..count)
                    .map(|r| u32::try_from(r).unwrap_or(u32::MAX))
                    .collect(),
            });
        }
    }
}

/// Animation samplers: strided accessors and keyframes out of order.
fn animations(gltf: &Gltf, limits: &Limits, notes: &mut Vec<Note>, changes: &mut Vec<Change>) {
    // An accessor shared by several samplers is noted once; every reference is repaired.
    let mut noted = std::collections::HashSet::new();
    for (a, anim) in list(gltf.value.get("animations")).iter().enumerate() {
        for (s, sampler) in list(anim.get("samplers")).iter().enumerate() {
            let base = format!("/animations/{a}/samplers/{s}");
            let (Some(input), Some(output)) = (
                sampler.get("input").and_then(Value::as_u64),
                sampler.get("output").and_then(Value::as_u64),
            ) else {
                continue;
            };
            let (Ok(times), Ok(values)) = (
                accessor::read(gltf, input, limits),
                accessor::read(gltf, output, limits),
            ) else {
                continue;
            };
            let keys = times.count;
            let per_key = if keys == 0 || values.count % keys != 0 {
                None
            } else {
                Some(values.count / keys)
            };
            let order = per_key.and_then(|_| keyframe_order(&times));
            if let (Some(kept), Some(per)) = (&order, per_key) {
                if noted.insert((input, 0)) {
                    notes.push(Note::Keyframes {
                        sampler: base.clone(),
                        keyframes: keys as u64,
                        merged: (keys - kept.len()) as u64,
                    });
                }
                let out_rows: Vec<u32> = kept
                    .iter()
                    .flat_map(|&k| {
                        let k = k as usize;
                        (k * per..(k + 1) * per).map(|r| u32::try_from(r).unwrap_or(u32::MAX))
                    })
                    .collect();
                changes.push(Change::Accessor {
                    pointer: format!("{base}/input"),
                    rows: kept.clone(),
                });
                changes.push(Change::Accessor {
                    pointer: format!("{base}/output"),
                    rows: out_rows,
                });
                continue;
            }
            for (part, index, data) in [("input", input, &times), ("output", output, &values)] {
                if gltf.view_stride(index).is_some() {
                    if noted.insert((index, 1)) {
                        notes.push(Note::AnimationStride {
                            accessor: format!("{base}/{part}"),
                        });
                    }
                    let rows = (0..data.count)
                        .map(|r| u32::try_from(r).unwrap_or(u32::MAX))
                        .collect();
                    changes.push(Change::Accessor {
                        pointer: format!("{base}/{part}"),
                        rows,
                    });
                }
            }
        }
    }
}

/// The keyframes to keep, in time order, when `times` does not strictly increase (the
/// first keyframe at each time stays); `None` when it does, or when a time is NaN,
/// infinite or negative (no order to restore exactly).
fn keyframe_order(times: &accessor::AccessorData<'_>) -> Option<Vec<u32>> {
    let t: Vec<f64> = (0..times.count).map(|k| times.get(k, 0)).collect();
    if t.iter().any(|x| !x.is_finite() || *x < 0.0) {
        return None;
    }
    if t.windows(2).all(|w| matches!(w, [a, b] if a < b)) {
        return None;
    }
    let mut idx: Vec<u32> = (0..t.len())
        .map(|k| u32::try_from(k).unwrap_or(u32::MAX))
        .collect();
    // Stable: of keyframes at one time, the first in the file stays.
    idx.sort_by(|&a, &b| {
        let (x, y) = (
            t.get(a as usize).copied().unwrap_or(0.0),
            t.get(b as usize).copied().unwrap_or(0.0),
        );
        x.total_cmp(&y)
    });
    idx.dedup_by(|b, a| t.get(*a as usize) == t.get(*b as usize));
    Some(idx)
}

/// The elements of an array member (none when it is absent or not an array).
fn list(v: Option<&Value>) -> &[Value] {
    v.and_then(Value::as_array).map_or(&[][..], Vec::as_slice)
}
