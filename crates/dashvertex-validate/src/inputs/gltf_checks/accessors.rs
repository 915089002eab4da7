//! Accessor layout (`GLTF_ACCESSOR_FORMAT`, `GLTF_DEPENDENCY`): `normalized` only on
//! (unsigned) byte and short components; `byteOffset` a multiple of the component size, in
//! the view and in the buffer (view offset added); matrices of 1- and 2-byte components
//! starting on 4-byte boundaries; no `byteOffset` without a `bufferView`; and the
//! elements inside their buffer view (`GLTF_ACCESSOR_TOO_LONG`).

use dashvertex_gltf::document::component;
use serde_json::Value;

use super::{array, push_as};
use crate::codes::Code;
use crate::inputs::gltf::Doc;
use crate::sink::Sink;
use dashvertex_json::Members;

/// Runs the checks of the module comment over every accessor.
pub(crate) fn check_all(root: &Value, doc: &Doc, sink: &mut Sink) {
    let views = array(root, "bufferViews");
    for (i, a) in array(root, "accessors").iter().enumerate() {
        let base = format!("/accessors/{i}");
        let ctype = a
            .member("componentType")
            .and_then(Value::as_u64)
            .and_then(|c| u32::try_from(c).ok())
            .unwrap_or(0);
        if a.member("normalized").and_then(Value::as_bool) == Some(true)
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
        let offset = a.member("byteOffset").and_then(Value::as_u64);
        let Some(view) = a.member("bufferView").and_then(Value::as_u64) else {
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
        let view_obj = usize::try_from(view).ok().and_then(|v| views.get(v));
        too_long(view_obj, a, ctype, offset, i, doc, sink);
        let kind = a.member("type").and_then(Value::as_str).unwrap_or("");
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
        let view_offset = view_obj
            .and_then(|v| v.member("byteOffset"))
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

/// `GLTF_ACCESSOR_TOO_LONG`: the accessor's elements from its `byteOffset` run past the
/// end of its buffer view. The span is `count − 1` strides (the view's `byteStride`, else
/// the element with its matrix-column padding) plus the last element without the padding
/// after its last column. Reported at the `byteOffset` when the accessor starts past the
/// view, else at the accessor. Nothing is read: the sizes come from the JSON. A view whose
/// `byteStride` is itself reported is skipped.
fn too_long(
    view: Option<&Value>,
    a: &Value,
    ctype: u32,
    offset: u64,
    i: usize,
    doc: &Doc,
    sink: &mut Sink,
) {
    let count = a.member("count").and_then(Value::as_u64).unwrap_or(0);
    let kind = a.member("type").and_then(Value::as_str).unwrap_or("");
    let (Some(view), Some((elem, column, rows)), Some(n)) = (
        view,
        dashvertex_gltf::document::element_layout(ctype, kind),
        dashvertex_gltf::document::components(kind),
    ) else {
        return;
    };
    let Some(length) = view.member("byteLength").and_then(Value::as_u64) else {
        return;
    };
    if count == 0 || rows == 0 {
        return;
    }
    let size = component::size(ctype).unwrap_or(0);
    let last = column.saturating_mul(n / rows - 1) + rows * size;
    let stride = match view.member("byteStride").map(Value::as_u64) {
        None => elem,
        // A stride out of its range, or on a view of indices, is the cause reported
        // (GLTF_BYTE_STRIDE); the extent it gives is not a second finding.
        Some(Some(s))
            if dashvertex_gltf::document::byte_stride_valid(s)
                && view.member("target").and_then(Value::as_u64) != Some(34963) =>
        {
            s
        }
        Some(_) => return,
    };
    let span = stride.saturating_mul(count - 1).saturating_add(last);
    if offset.saturating_add(span) <= length {
        return;
    }
    let base = format!("/accessors/{i}");
    let ptr = if offset >= length {
        format!("{base}/byteOffset")
    } else {
        base
    };
    doc.push(sink, Code::GLTF_ACCESSOR_TOO_LONG, &ptr, || {
        format!(
            "accessor {i}: {count} elements from byte {offset} take {span} bytes, past the end of its buffer view ({length} bytes)"
        )
    });
}
