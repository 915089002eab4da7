//! `GLTF_COLOR_RANGE` (official `ACCESSOR_NON_CLAMPED`): a FLOAT `COLOR_n` accessor holds a
//! component below 0 or above 1. Normalized integer colors cannot leave the range, so only
//! FLOAT accessors are read: each once, at the first attribute that uses it, and reported
//! once with the first value out of range and how many there are (one accessor, one cause).
//! A NaN is neither below 0 nor above 1: it is not this rule's.

use dashvertex_gltf::document::component;
use dashvertex_gltf::{Gltf, accessor};
use dashvertex_json::pointer::push_token;
use serde_json::Value;

use super::{array, members};
use crate::codes::Code;
use crate::diagnostic::Location;
use crate::inputs::gltf::Doc;
use crate::options::Options;
use crate::sink::Sink;
use dashvertex_json::Members;

/// Runs the check of the module comment over every primitive's COLOR_n attributes.
pub(crate) fn check_all(gltf: &Gltf, doc: &Doc, opts: &Options, sink: &mut Sink) {
    let mut seen = std::collections::HashSet::new();
    for (m, mesh) in array(&gltf.value, "meshes").iter().enumerate() {
        for (p, prim) in members(mesh, "primitives").iter().enumerate() {
            let attrs = prim.member("attributes").and_then(Value::as_object);
            for (name, v) in attrs.into_iter().flatten() {
                let Some(index) = v.as_u64().filter(|_| name.starts_with("COLOR_")) else {
                    continue;
                };
                let is_float = usize::try_from(index)
                    .ok()
                    .and_then(|i| gltf.root.accessors.get(i))
                    .is_some_and(|a| a.component_type == component::F32);
                if !is_float || opts.carried(index) || !seen.insert(index) {
                    continue;
                }
                // An unreadable color is left to the checks of its cause (its buffer,
                // view, extent or reference, the budget): dash reads colors for this rule
                // only, so the failed read adds nothing to them.
                let Ok(data) = accessor::read(gltf, index, &opts.limits) else {
                    continue;
                };
                let out = |x: f64| !x.is_nan() && !(0.0..=1.0).contains(&x);
                let mut first = None;
                let mut count = 0usize;
                for i in 0..data.count {
                    for c in 0..data.components {
                        let x = data.get(i, c);
                        if out(x) {
                            count += 1;
                            first.get_or_insert((i, c, x));
                        }
                    }
                }
                let Some((i, c, x)) = first else { continue };
                let mut ptr = format!("/meshes/{m}/primitives/{p}/attributes");
                push_token(&mut ptr, name);
                sink.report(
                    Code::GLTF_COLOR_RANGE,
                    || Location {
                        offset: data.offset_of(i, c),
                        ..doc.at(&ptr)
                    },
                    || {
                        format!(
                            "{name}: accessor {index} element {i} component {c} is {x}, outside 0…1 ({count} component(s) out of range in all)"
                        )
                    },
                );
            }
        }
    }
}
