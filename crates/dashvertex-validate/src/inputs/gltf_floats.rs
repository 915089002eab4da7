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

use crate::codes::Code;
use crate::diagnostic::Location;
use crate::inputs::gltf::{Doc, reported_elsewhere};
use crate::options::Options;
use crate::sink::Sink;

/// The first non-finite component of `data` at or after element `from`: `(element,
/// component, value)`.
fn first_non_finite(data: &AccessorData<'_>, from: usize) -> Option<(usize, usize, f64)> {
    let n = data.components;
    (from..data.count).find_map(|i| {
        if n <= 4 {
            // The usual VEC3: the row read at once, the components found in order.
            let r = data.get4(i);
            if r.iter().all(|x| x.is_finite()) {
                return None;
            }
            return r
                .iter()
                .take(n)
                .enumerate()
                .find_map(|(c, &x)| (!x.is_finite()).then_some((i, c, x)));
        }
        (0..n).find_map(|c| {
            let x = data.get(i, c);
            (!x.is_finite()).then_some((i, c, x))
        })
    })
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
) {
    let mut seen = std::collections::HashSet::new();
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
}

/// `GLTF_ANIMATION_NON_FINITE` once for each FLOAT accessor an animation sampler reads
/// (its input times, its output values) that holds a NaN or an infinity, at the first
/// sampler that reads it, naming the first such value and how many there are.
pub(crate) fn animations(gltf: &Gltf, doc: &Doc, opts: &Options, sink: &mut Sink) {
    let Some(list) = gltf.value.get("animations").and_then(Value::as_array) else {
        return;
    };
    let mut seen = std::collections::HashSet::new();
    for (a, anim) in list.iter().enumerate() {
        let samplers = anim.get("samplers").and_then(Value::as_array);
        for (s, sampler) in samplers.into_iter().flatten().enumerate() {
            for key in ["input", "output"] {
                let Some(index) = sampler.get(key).and_then(Value::as_u64) else {
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
                let more = (i..data.count)
                    .flat_map(|k| (0..data.components).map(move |c| (k, c)))
                    .filter(|&(k, c)| !data.get(k, c).is_finite())
                    .count();
                sink.report(
                    Code::GLTF_ANIMATION_NON_FINITE,
                    || Location {
                        offset: data.offset_of(i, c),
                        ..doc.at(&ptr)
                    },
                    || {
                        let rest = if more > 1 {
                            format!(" ({more} non-finite values in all)")
                        } else {
                            String::new()
                        };
                        format!("{what}: accessor {index} element {i} component {c} is {x}{rest}")
                    },
                );
            }
        }
    }
}
