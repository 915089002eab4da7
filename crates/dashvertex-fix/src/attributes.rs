//! Vertex attributes whose values break a unit-length or range rule, repaired where the
//! repair is exact (spec/fix.md §4, "attributes"). The elements are the ones the validator
//! finds wrong, in the accessors it reads (FLOAT, not normalized, with a buffer view, used
//! by a primitive; morph targets hold differences and are not read):
//!
//! - **renormalized**: a `NORMAL`, or a `TANGENT`'s `xyz`, whose length is more than
//!   [`UNIT_TOLERANCE`] from 1 (`GLTF_ATTRIBUTE_NON_UNIT`) and finite and non-zero is
//!   divided by its length (in binary64, rounded once to binary32);
//! - **sign snapped**: a `TANGENT`'s `w` within [`SIGN_TOLERANCE`] of 1 or -1 but not equal
//!   to it (`GLTF_TANGENT_SIGN`) becomes that value;
//! - **clamped**: a FLOAT `COLOR_n` component below 0 or above 1 (`GLTF_COLOR_RANGE`)
//!   becomes 0 or 1.
//!
//! Every other element is left bit for bit. A zero-length vector has no direction to
//! restore, and a `w` farther from ±1 no handedness to read: both are left as they were
//! and listed, and the output carries the input's error for that attribute (spec/fix.md
//! \[F3\]). A NaN or infinity is not these rules' (`GLTF_ACCESSOR_NON_FINITE` refuses the
//! file first) and is left too. A repaired accessor is written once as a new FLOAT
//! accessor, and every attribute of the same kind that named it names the copy.

use std::collections::HashMap;

use dashvertex_core::Limits;
use dashvertex_gltf::Gltf;
use dashvertex_gltf::accessor::{self, AccessorData};
use dashvertex_gltf::document::component;
use dashvertex_gltf::export::Editor;
use serde_json::{Value, json};

use crate::error::FixError;
use crate::report::{AttributeChange, Note};

/// How far a unit vector's length may be from 1: the official validator's tolerance,
/// which `dash-validate` uses too (`GLTF_ATTRIBUTE_NON_UNIT`).
pub const UNIT_TOLERANCE: f64 = 0.00674;

/// How far a tangent's `w` may be from 1 or -1 and be read as that sign.
pub const SIGN_TOLERANCE: f64 = 1e-3;

/// Which rule an attribute is held to.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Rule {
    Normal,
    Tangent,
    Color,
}

impl Rule {
    /// The rule of attribute `name` and the accessor type it reads, if any.
    fn of(name: &str) -> Option<(Self, &'static str)> {
        match name {
            "NORMAL" => Some((Self::Normal, "VEC3")),
            "TANGENT" => Some((Self::Tangent, "VEC4")),
            _ if name.starts_with("COLOR_") => Some((Self::Color, "")),
            _ => None,
        }
    }
}

/// The repaired values of one accessor and what was done, by kind of change.
struct Repair {
    values: Vec<f32>,
    kind: String,
    changes: Vec<(AttributeChange, Counted)>,
}

/// How many elements one kind of change touched, and the first.
#[derive(Clone, Copy, Default)]
struct Counted {
    first: Option<usize>,
    count: u64,
}

impl Counted {
    fn add(&mut self, element: usize) {
        self.first.get_or_insert(element);
        self.count += 1;
    }
}

/// Works out the attribute repairs of `gltf` and makes them in `editor` (created when
/// there is none and something changes); returns what was done and what was left, in
/// document order.
pub(crate) fn repair<'g>(
    gltf: &'g Gltf,
    limits: &Limits,
    editor: &mut Option<Editor<'g>>,
) -> Result<Vec<Note>, FixError> {
    let mut notes = Vec::new();
    // (accessor, rule) → the new accessor, when its values changed.
    let mut done: HashMap<(u64, Rule), Option<usize>> = HashMap::new();
    for (m, mesh) in gltf.root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            for (name, v) in &prim.attributes {
                let (Some((rule, vec)), Some(index)) = (Rule::of(name), v.as_u64()) else {
                    continue;
                };
                let pointer = format!("/meshes/{m}/primitives/{p}/attributes/{name}");
                let new = match done.get(&(index, rule)) {
                    Some(&new) => new,
                    None => {
                        let new = match read(gltf, index, rule, vec, limits) {
                            Some(r) => write(r, index, &pointer, gltf, editor, &mut notes)?,
                            None => None,
                        };
                        done.insert((index, rule), new);
                        new
                    }
                };
                if let (Some(new), Some(ed)) = (new, editor.as_mut())
                    && let Some(slot) = ed.json_mut().pointer_mut(&pointer)
                {
                    *slot = json!(new);
                }
            }
        }
    }
    Ok(notes)
}

/// Lists what was done to accessor `index` (first named at `pointer`) and, when a value
/// changed, writes the copy; returns the copy's index.
fn write<'g>(
    r: Repair,
    index: u64,
    pointer: &str,
    gltf: &'g Gltf,
    editor: &mut Option<Editor<'g>>,
    notes: &mut Vec<Note>,
) -> Result<Option<usize>, FixError> {
    let mut changed = false;
    for (change, c) in r.changes {
        let Some(first) = c.first else { continue };
        changed |= change.repairs();
        notes.push(Note::Attribute {
            attribute: pointer.to_owned(),
            accessor: index,
            change,
            elements: c.count,
            first: first as u64,
        });
    }
    if !changed {
        return Ok(None);
    }
    let ed = match editor {
        Some(ed) => ed,
        None => editor.insert(Editor::new(gltf)?),
    };
    let declared = |k: &str| {
        gltf.value
            .pointer(&format!("/accessors/{index}/{k}"))
            .is_some_and(Value::is_array)
    };
    let new = ed.add_floats(&r.kind, &r.values, declared("min") && declared("max"))?;
    ed.mark_replaced(index);
    Ok(Some(new))
}

/// Accessor `index` read under `rule` with its repairs, or `None` when the validator does
/// not hold it to the rule (another format, no buffer view, unreadable).
fn read(gltf: &Gltf, index: u64, rule: Rule, vec: &str, limits: &Limits) -> Option<Repair> {
    let a = usize::try_from(index)
        .ok()
        .and_then(|i| gltf.root.accessors.get(i))?;
    if a.component_type != component::F32
        || a.normalized
        || a.buffer_view.is_none()
        || (!vec.is_empty() && a.kind != vec)
    {
        return None;
    }
    let data = accessor::read(gltf, index, limits).ok()?;
    Some(match rule {
        Rule::Color => clamp(&data, &a.kind),
        Rule::Normal | Rule::Tangent => unit(&data, &a.kind, rule == Rule::Tangent),
    })
}

/// Every element of `data` as binary32, component after component.
#[allow(
    clippy::cast_possible_truncation,
    reason = "a FLOAT accessor's components are binary32 values, exactly"
)]
fn values(data: &AccessorData<'_>) -> Vec<f32> {
    let mut out = Vec::with_capacity(data.count.saturating_mul(data.components));
    for i in 0..data.count {
        for c in 0..data.components {
            out.push(data.get(i, c) as f32);
        }
    }
    out
}

/// FLOAT colour components clamped to 0…1 (a NaN left).
fn clamp(data: &AccessorData<'_>, kind: &str) -> Repair {
    let mut values = values(data);
    let mut clamped = Counted::default();
    let comps = data.components.max(1);
    for (e, element) in values.chunks_exact_mut(comps).enumerate() {
        let mut any = false;
        for x in element {
            if *x < 0.0 {
                *x = 0.0;
                any = true;
            } else if *x > 1.0 {
                *x = 1.0;
                any = true;
            }
        }
        if any {
            clamped.add(e);
        }
    }
    Repair {
        values,
        kind: kind.to_owned(),
        changes: vec![(AttributeChange::Clamped, clamped)],
    }
}

/// Unit vectors renormalized and, for a tangent, `w` snapped (module comment).
#[allow(
    clippy::cast_possible_truncation,
    reason = "the renormalized component is rounded once to binary32, as written"
)]
fn unit(data: &AccessorData<'_>, kind: &str, tangent: bool) -> Repair {
    let mut values = values(data);
    let width = if tangent { 4 } else { 3 };
    let [mut renormalized, mut zero, mut snapped, mut far] = [Counted::default(); 4];
    for (e, element) in values.chunks_exact_mut(width).enumerate() {
        if element.iter().any(|x| !x.is_finite()) {
            continue;
        }
        let mut xyz = [0.0f64; 3];
        for (v, x) in xyz.iter_mut().zip(element.iter()) {
            *v = f64::from(*x);
        }
        let len = xyz.iter().map(|x| x * x).sum::<f64>().sqrt();
        if (len - 1.0).abs() > UNIT_TOLERANCE {
            if len > 0.0 {
                for (x, v) in element.iter_mut().zip(xyz) {
                    *x = (v / len) as f32;
                }
                renormalized.add(e);
            } else {
                zero.add(e);
            }
        }
        if let Some(w) = element.get_mut(3).filter(|_| tangent)
            && *w != 1.0
            && *w != -1.0
        {
            let sign = if *w < 0.0 { -1.0 } else { 1.0 };
            if (f64::from(*w) - f64::from(sign)).abs() <= SIGN_TOLERANCE {
                *w = sign;
                snapped.add(e);
            } else {
                far.add(e);
            }
        }
    }
    Repair {
        values,
        kind: kind.to_owned(),
        changes: vec![
            (AttributeChange::Renormalized, renormalized),
            (AttributeChange::ZeroLengthLeft, zero),
            (AttributeChange::SignSnapped, snapped),
            (AttributeChange::SignLeft, far),
        ],
    }
}
