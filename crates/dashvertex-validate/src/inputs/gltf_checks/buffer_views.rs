//! Where a `byteStride` may be, and sparse counts (`GLTF_BYTE_STRIDE`,
//! `GLTF_ACCESSOR_SPARSE`): a stride on a view of indices
//! (target ELEMENT_ARRAY_BUFFER) or of sparse indices or values, which are tightly packed,
//! and a sparse accessor substituting more elements than the accessor has. The stride's
//! own range, its length against the view and its fit with the accessors' elements are
//! checked with the structure.

use serde_json::Value;

use super::{array, push_as, view_strided};
use crate::codes::Code;
use crate::inputs::gltf::Doc;
use crate::sink::Sink;
use dashvertex_json::Members;

/// ELEMENT_ARRAY_BUFFER: a view of vertex indices.
const ELEMENT_ARRAY_BUFFER: u64 = 34963;

/// Runs the checks of the module comment.
pub(crate) fn check_all(root: &Value, doc: &Doc, sink: &mut Sink) {
    for (i, v) in array(root, "bufferViews").iter().enumerate() {
        // A stride out of its range is reported once, with the structure.
        if v.member("byteStride")
            .and_then(Value::as_u64)
            .filter(|&s| dashvertex_gltf::document::byte_stride_valid(s))
            .is_none()
        {
            continue;
        }
        let ptr = format!("/bufferViews/{i}/byteStride");
        // A stride longer than its view is reported with the structure (inputs/gltf.rs).
        if v.member("target").and_then(Value::as_u64) == Some(ELEMENT_ARRAY_BUFFER) {
            push_as(
                doc,
                sink,
                Code::GLTF_BYTE_STRIDE,
                "BUFFER_VIEW_INVALID_BYTE_STRIDE",
                &ptr,
                || {
                    format!(
                        "buffer view {i} holds indices (target 34963), which have no byteStride"
                    )
                },
            );
        }
    }
    for (i, a) in array(root, "accessors").iter().enumerate() {
        let Some(sparse) = a.member("sparse") else {
            continue;
        };
        let count = a.member("count").and_then(Value::as_u64).unwrap_or(0);
        if let Some(n) = sparse
            .member("count")
            .and_then(Value::as_u64)
            .filter(|&n| n > count)
        {
            push_as(
                doc,
                sink,
                Code::GLTF_ACCESSOR_SPARSE,
                "ACCESSOR_SPARSE_COUNT_OUT_OF_RANGE",
                &format!("/accessors/{i}/sparse/count"),
                || format!("accessor {i}: sparse substitutes {n} elements of {count}"),
            );
        }
        for part in ["indices", "values"] {
            let view = sparse.get(part).and_then(|p| p.member("bufferView"));
            if view.is_some_and(|v| view_strided(root, v)) {
                push_as(
                    doc,
                    sink,
                    Code::GLTF_BYTE_STRIDE,
                    "BUFFER_VIEW_INVALID_BYTE_STRIDE",
                    &format!("/accessors/{i}/sparse/{part}/bufferView"),
                    || {
                        format!(
                            "accessor {i}: the view of its sparse {part} has a byteStride; sparse data are tightly packed"
                        )
                    },
                );
            }
        }
    }
}
