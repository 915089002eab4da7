//! How vertex and index data sit in their buffer views, from the JSON alone:
//! - `GLTF_ATTRIBUTE_ALIGNMENT`: a vertex attribute's accessor starts on a 4-byte boundary
//!   of its view (JOINTS and WEIGHTS are checked with the influences,
//!   `GLTF_ACCESSOR_ALIGNMENT`);
//! - `GLTF_BYTE_STRIDE` (official `MESH_PRIMITIVE_ACCESSOR_WITHOUT_BYTESTRIDE`): a view
//!   that two or more vertex attribute accessors read has a `byteStride`;
//! - `GLTF_BUFFER_VIEW_TARGET`: a view holds vertex data (attributes, morph targets) or
//!   indices, not both, and not the other kind than its `target` declares.
//!
//! Uses are visited in document order (meshes, primitives, then each primitive's
//! attributes, indices and morph targets), so the use reported is the later one, as the
//! official validator reports it. One map entry per buffer view used: linear.

use std::collections::HashMap;

use dashvertex_json::pointer::push_token;
use serde_json::Value;

use super::{accessor, array, members, push_as};
use crate::codes::Code;
use crate::inputs::gltf::Doc;
use crate::sink::Sink;
use dashvertex_json::Members;

/// ARRAY_BUFFER: a view of vertex attributes.
const ARRAY_BUFFER: u64 = 34962;
/// ELEMENT_ARRAY_BUFFER: a view of vertex indices.
const ELEMENT_ARRAY_BUFFER: u64 = 34963;

/// What a buffer view holds, by its declared target or its first use.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Usage {
    Vertex,
    Index,
}

impl Usage {
    fn name(self) -> &'static str {
        match self {
            Usage::Vertex => "vertex attributes",
            Usage::Index => "indices",
        }
    }
}

/// Per buffer view: its usage so far, and the first vertex attribute accessor read from it.
#[derive(Default)]
struct ViewState {
    usage: Option<Usage>,
    first_attribute: Option<u64>,
}

/// Runs the checks of the module comment.
pub(crate) fn check_all(root: &Value, doc: &Doc, sink: &mut Sink) {
    let views = array(root, "bufferViews");
    let mut state: HashMap<u64, ViewState> = HashMap::new();
    let mut visit = |ptr: &str, a: u64, usage: Usage, sink: &mut Sink| {
        let Some(view) = accessor(root, a)
            .and_then(|acc| acc.member("bufferView"))
            .and_then(Value::as_u64)
        else {
            return;
        };
        let Some(view_json) = usize::try_from(view).ok().and_then(|v| views.get(v)) else {
            return;
        };
        let st = state.entry(view).or_insert_with(|| ViewState {
            usage: match view_json.member("target").and_then(Value::as_u64) {
                Some(ARRAY_BUFFER) => Some(Usage::Vertex),
                Some(ELEMENT_ARRAY_BUFFER) => Some(Usage::Index),
                _ => None,
            },
            first_attribute: None,
        });
        match st.usage {
            Some(u) if u != usage => {
                doc.push(sink, Code::GLTF_BUFFER_VIEW_TARGET, ptr, || {
                    format!(
                        "accessor {a} reads {} from buffer view {view}, which holds {}",
                        usage.name(),
                        u.name()
                    )
                });
                return;
            }
            Some(_) => {}
            None => st.usage = Some(usage),
        }
        if usage == Usage::Vertex && view_json.member("byteStride").is_none() {
            match st.first_attribute {
                Some(first) if first != a => push_as(
                    doc,
                    sink,
                    Code::GLTF_BYTE_STRIDE,
                    "MESH_PRIMITIVE_ACCESSOR_WITHOUT_BYTESTRIDE",
                    ptr,
                    || {
                        format!(
                            "accessors {first} and {a} both read vertex attributes from buffer view {view}, which has no byteStride"
                        )
                    },
                ),
                Some(_) => {}
                None => st.first_attribute = Some(a),
            }
        }
    };
    for (m, mesh) in array(root, "meshes").iter().enumerate() {
        for (p, prim) in members(mesh, "primitives").iter().enumerate() {
            let base = format!("/meshes/{m}/primitives/{p}");
            for (name, v) in prim
                .member("attributes")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                let Some(a) = v.as_u64() else { continue };
                let mut ptr = format!("{base}/attributes");
                push_token(&mut ptr, name);
                unaligned(root, &ptr, name, a, doc, sink);
                visit(&ptr, a, Usage::Vertex, sink);
            }
            if let Some(a) = prim.member("indices").and_then(Value::as_u64) {
                visit(&format!("{base}/indices"), a, Usage::Index, sink);
            }
            for (t, target) in members(prim, "targets").iter().enumerate() {
                for (name, v) in target.as_object().into_iter().flatten() {
                    let Some(a) = v.as_u64() else { continue };
                    let mut ptr = format!("{base}/targets/{t}");
                    push_token(&mut ptr, name);
                    visit(&ptr, a, Usage::Vertex, sink);
                }
            }
        }
    }
}

/// `GLTF_ATTRIBUTE_ALIGNMENT` for a vertex attribute other than JOINTS/WEIGHTS whose
/// accessor's `byteOffset` in its view is not a multiple of 4.
fn unaligned(root: &Value, ptr: &str, name: &str, a: u64, doc: &Doc, sink: &mut Sink) {
    if name.starts_with("JOINTS_") || name.starts_with("WEIGHTS_") {
        return;
    }
    let Some(acc) = accessor(root, a).filter(|acc| acc.member("bufferView").is_some()) else {
        return;
    };
    let offset = acc
        .member("byteOffset")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    if offset % 4 != 0 {
        doc.push(sink, Code::GLTF_ATTRIBUTE_ALIGNMENT, ptr, || {
            format!(
                "{name}: accessor {a} starts at byteOffset {offset} of its buffer view, not on a 4-byte boundary"
            )
        });
    }
}
