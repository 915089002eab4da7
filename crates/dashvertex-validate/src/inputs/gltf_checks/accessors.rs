//! Accessor layout (`GLTF_ACCESSOR_FORMAT`, `GLTF_DEPENDENCY`): `normalized` only on
//! (unsigned) byte and short components; `byteOffset` a multiple of the component size, in
//! the view and in the buffer (view offset added); matrices of 1- and 2-byte components
//! starting on 4-byte boundaries; and no `byteOffset` without a `bufferView`.

use dashvertex_gltf::document::component;
use serde_json::Value;

use super::{array, push_as};
use crate::codes::Code;
use crate::inputs::gltf::Doc;
use crate::sink::Sink;

/// Runs the checks of the module comment over every accessor.
pub(crate) fn check_all(root: &Value, doc: &Doc, sink: &mut Sink) {
    let views = array(root, "bufferViews");
    for (i, a) in array(root, "accessors").iter().enumerate() {
        let base = format!("/accessors/{i}");
        let ctype = a
            .get("componentType")
            .and_then(Value::as_u64)
            .and_then(|c| u32::try_from(c).ok())
            .unwrap_or(0);
        if a.get("normalized").and_then(Value::as_bool) == Some(true)
            && matches!(ctype, component::F32 | component::U32)
        {
            push_as(
                doc,
                sink,
                Code::GLTF_ACCESSOR_FORMAT,
                "ACCESSOR_NORMALIZED_INVALID",
                &format!("{base}/normalized"),
                || {
                    format!(
                        "accessor {i}: {} components cannot be normalized",
                        component::name(ctype)
                    )
                },
            );
        }
        let offset = a.get("byteOffset").and_then(Value::as_u64);
        let Some(view) = a.get("bufferView").and_then(Value::as_u64) else {
            if offset.is_some() {
                push_as(
                    doc,
                    sink,
                    Code::GLTF_DEPENDENCY,
                    "UNSATISFIED_DEPENDENCY",
                    &format!("{base}/byteOffset"),
                    || format!("accessor {i} has a byteOffset but no bufferView"),
                );
            }
            continue;
        };
        let Some(size) = component::size(ctype) else {
            continue;
        };
        let offset = offset.unwrap_or(0);
        let kind = a.get("type").and_then(Value::as_str).unwrap_or("");
        if kind.starts_with("MAT") && size < 4 && offset % 4 != 0 {
            push_as(
                doc,
                sink,
                Code::GLTF_ACCESSOR_FORMAT,
                "ACCESSOR_MATRIX_ALIGNMENT",
                &format!("{base}/byteOffset"),
                || {
                    format!(
                        "accessor {i}: matrix columns start on 4-byte boundaries; byteOffset {offset} is not one"
                    )
                },
            );
            continue;
        }
        if offset % size != 0 {
            push_as(
                doc,
                sink,
                Code::GLTF_ACCESSOR_FORMAT,
                "ACCESSOR_OFFSET_ALIGNMENT",
                &format!("{base}/byteOffset"),
                || {
                    format!(
                        "accessor {i}: byteOffset {offset} is not a multiple of the {size}-byte component"
                    )
                },
            );
        }
        let view_offset = usize::try_from(view)
            .ok()
            .and_then(|v| views.get(v))
            .and_then(|v| v.get("byteOffset"))
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let total = view_offset.saturating_add(offset);
        if total % size != 0 {
            push_as(
                doc,
                sink,
                Code::GLTF_ACCESSOR_FORMAT,
                "ACCESSOR_TOTAL_OFFSET_ALIGNMENT",
                &base,
                || {
                    format!(
                        "accessor {i}: starts at byte {total} of its buffer, not a multiple of the {size}-byte component"
                    )
                },
            );
        }
    }
}
