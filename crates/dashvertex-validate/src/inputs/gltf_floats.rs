//! NaN and infinities in the glTF float accessors dash reads beyond the influences (the
//! official validator's `ACCESSOR_INVALID_FLOAT`): POSITION of every primitive with
//! influence sets, per vertex (`POSITION_NON_FINITE`), and every animation sampler's
//! input and output, once per accessor (`GLTF_ANIMATION_NON_FINITE`). Weights and inverse
//! bind matrices have their own checks. Each accessor is read once, its size bounded by the
//! element budget.

use dashvertex_gltf::accessor::{self, AccessorData};
use dashvertex_gltf::document::component;
use dashvertex_gltf::skinning::PrimitiveSets;
use dashvertex_gltf::{AccessorError, Gltf};
use serde_json::Value;
use std::collections::HashSet;

use crate::codes::Code;
use crate::diagnostic::Location;
use crate::inputs::gltf::{Doc, reported_elsewhere};
use crate::options::Options;
use crate::sink::Sink;
use dashvertex_json::Members;

/// The first non-finite component of `data` at or after element `from`: `(element,
/// component, value)`.
fn first_non_finite(data: &AccessorData<'_>, from: usize) -> Option<(usize, usize, f64)> {
    if data.components > 4 {
        return (from..data.count).find_map(|i| {
            (0..data.components).find_map(|c| {
                let x = data.get(i, c);
                (!x.is_finite()).then_some((i, c, x))
            })
        });
    }
    let n = data.components;
    let mut found = None;
    data.for_each4(from, |i, e| {
        found = e
            .iter()
            .take(n)
            .enumerate()
            .find_map(|(c, &x)| (!x.is_finite()).then_some((i, c, x)));
        found.is_none()
    });
    found
}

/// How many components of `data` from element `from` on are NaN or infinite.
fn non_finite_count(data: &AccessorData<'_>, from: usize) -> usize {
    let n = data.components;
    if n > 4 {
        return (from..data.count)
            .flat_map(|k| (0..n).map(move |c| (k, c)))
            .filter(|&(k, c)| !data.get(k, c).is_finite())
            .count();
    }
    let mut count = 0;
    data.for_each4(from, |_, v| {
        count += v.iter().take(n).filter(|x| !x.is_finite()).count();
        true
    });
    count
}

/// ` (N non-finite values in all)` when there is more than one.
fn in_all(count: usize) -> String {
    if count > 1 {
        format!(" ({count} non-finite values in all)")
    } else {
        String::new()
    }
}

/// An accessor that cannot be read, as `GLTF_ACCESSOR_DATA` at the place that reads it
/// (unless its cause is reported once elsewhere).
fn unreadable(doc: &Doc, sink: &mut Sink, pointer: &str, what: &str, e: &AccessorError) {
    if !reported_elsewhere(e) {
        doc.push(sink, Code::GLTF_ACCESSOR_DATA, pointer, || {
            format!("{what}: {e}")
        });
    }
}

/// `POSITION_NON_FINITE` for each vertex of a primitive with influence sets whose
/// POSITION (FLOAT) holds a NaN or an infinity; each accessor once, at the first primitive
/// that uses it.
pub(crate) fn positions(
    gltf: &Gltf,
    doc: &Doc,
    prims: &[PrimitiveSets],
    opts: &Options,
    sink: &mut Sink,
) -> HashSet<u64> {
    let mut seen = HashSet::new();
    for p in prims {
        let Some(index) = p
            .attributes
            .iter()
            .find_map(|(n, a)| (n == "POSITION").then_some(*a).flatten())
        else {
            continue;
        };
        let is_float = usize::try_from(index)
            .ok()
            .and_then(|i| gltf.root.accessors.get(i))
            .is_some_and(|a| a.component_type == component::F32);
        if !is_float || opts.carried(index) || !seen.insert(index) {
            continue;
        }
        let ptr = p.attribute_pointer("POSITION");
        let data = match accessor::read(gltf, index, &opts.limits) {
            Ok(d) => d,
            Err(e) => {
                unreadable(doc, sink, &ptr, "POSITION", &e);
                continue;
            }
        };
        let mut from = 0;
        while let Some((v, c, x)) = first_non_finite(&data, from) {
            sink.report(
                Code::POSITION_NON_FINITE,
                || Location {
                    vertex: Some(v as u64),
                    offset: data.offset_of(v, c),
                    ..doc.at(&ptr)
                },
                || format!("vertex {v}: position component {c} is {x}"),
            );
            from = v + 1;
        }
    }
    seen
}

/// `GLTF_ANIMATION_NON_FINITE` once for each FLOAT accessor an animation sampler reads
/// (its input times, its output values) that holds a NaN or an infinity, at the first
/// sampler that reads it, naming the first such value and how many there are.
pub(crate) fn animations(gltf: &Gltf, doc: &Doc, opts: &Options, sink: &mut Sink) -> HashSet<u64> {
    let mut seen = HashSet::new();
    let Some(list) = gltf.value.member("animations").and_then(Value::as_array) else {
        return seen;
    };
    for (a, anim) in list.iter().enumerate() {
        let samplers = anim.member("samplers").and_then(Value::as_array);
        for (s, sampler) in samplers.into_iter().flatten().enumerate() {
            for key in ["input", "output"] {
                let Some(index) = sampler.member(key).and_then(Value::as_u64) else {
                    continue;
                };
                let is_float = usize::try_from(index)
                    .ok()
                    .and_then(|i| gltf.root.accessors.get(i))
                    .is_some_and(|acc| acc.component_type == component::F32);
                if !is_float || !seen.insert(index) {
                    continue;
                }
                let ptr = format!("/animations/{a}/samplers/{s}/{key}");
                let what = format!("animation {a} sampler {s} {key}");
                let data = match accessor::read(gltf, index, &opts.limits) {
                    Ok(d) => d,
                    Err(e) => {
                        unreadable(doc, sink, &ptr, &what, &e);
                        continue;
                    }
                };
                let Some((i, c, x)) = first_non_finite(&data, 0) else {
                    continue;
                };
                let more = non_finite_count(&data, i);
                sink.report(
                    Code::GLTF_ANIMATION_NON_FINITE,
                    || Location {
                        offset: data.offset_of(i, c),
                        ..doc.at(&ptr)
                    },
                    || {
                        let rest = in_all(more);
                        format!("{what}: accessor {index} element {i} component {c} is {x}{rest}")
                    },
                );
            }
        }
    }
    seen
}

/// `GLTF_ACCESSOR_NON_FINITE` once for every other FLOAT accessor holding a NaN or an
/// infinity, at `/accessors/i`, naming the first such value and how many there are:
/// NORMAL, TEXCOORD_n, the POSITION of unskinned meshes, morph targets and accessors
/// nothing uses. `checked` are the accessors read by the checks above, the weights and the
/// inverse bind matrices, which report their own findings.
pub(crate) fn others(
    gltf: &Gltf,
    doc: &Doc,
    checked: &HashSet<u64>,
    opts: &Options,
    sink: &mut Sink,
) {
    let mut own: HashSet<u64> = gltf
        .root
        .skins
        .iter()
        .filter_map(|s| s.inverse_bind_matrices)
        .collect();
    for mesh in &gltf.root.meshes {
        for prim in &mesh.primitives {
            own.extend(
                prim.attributes
                    .iter()
                    .filter(|(name, _)| name.starts_with("WEIGHTS_"))
                    .filter_map(|(_, a)| a.as_u64()),
            );
        }
    }
    for (i, a) in gltf.root.accessors.iter().enumerate() {
        let index = i as u64;
        if a.component_type != component::F32
            || (a.buffer_view.is_none() && a.sparse.is_none())
            || checked.contains(&index)
            || own.contains(&index)
            || opts.carried(index)
        {
            continue;
        }
        // Unreadable accessors are reported where they are used.
        let Ok(data) = accessor::read(gltf, index, &opts.limits) else {
            continue;
        };
        let Some((e, c, x)) = first_non_finite(&data, 0) else {
            continue;
        };
        let more = non_finite_count(&data, e);
        let ptr = format!("/accessors/{i}");
        sink.report(
            Code::GLTF_ACCESSOR_NON_FINITE,
            || Location {
                offset: data.offset_of(e, c),
                ..doc.at(&ptr)
            },
            || {
                let rest = in_all(more);
                format!("accessor {i}: element {e} component {c} is {x}{rest}")
            },
        );
    }
}
