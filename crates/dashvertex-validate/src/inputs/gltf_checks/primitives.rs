//! Mesh primitives beyond their influences, which `dashvertex split` and the reducer read:
//!
//! - `GLTF_INDICES`: `indices` is not SCALAR UNSIGNED_BYTE / SHORT / INT, its view has a
//!   `byteStride`, or an index is the primitive-restart value (the type's largest) or not
//!   below the vertex count.
//! - `GLTF_POSITION`: POSITION (of the primitive or a morph target) is not VEC3 FLOAT, or
//!   has no `min` / `max`.
//! - `GLTF_COUNT_MISMATCH` for primitives without JOINTS / WEIGHTS (the influence checks
//!   compare the counts of the others).
//!
//! The indices accessor is read once; no other data are.

use dashvertex_gltf::Gltf;
use dashvertex_gltf::accessor;
use dashvertex_gltf::document::component;
use dashvertex_json::pointer::push_token;
use serde_json::Value;

use super::{accessor as accessor_json, array, members, push_as, strided};
use crate::codes::Code;
use crate::inputs::gltf::Doc;
use crate::options::Options;
use crate::sink::Sink;
use dashvertex_json::Members;

fn count_of(a: &Value) -> u64 {
    a.member("count").and_then(Value::as_u64).unwrap_or(0)
}

/// The accessor object an attribute value names.
fn named<'a>(root: &'a Value, v: &Value) -> Option<&'a Value> {
    accessor_json(root, v.as_u64()?)
}

/// Runs the checks of the module comment over every primitive.
pub(crate) fn check_all(gltf: &Gltf, doc: &Doc, opts: &Options, sink: &mut Sink) {
    let root = &gltf.value;
    let quantized = super::uses(root, "KHR_mesh_quantization");
    for (m, mesh) in array(root, "meshes").iter().enumerate() {
        for (p, prim) in members(mesh, "primitives").iter().enumerate() {
            let base = format!("/meshes/{m}/primitives/{p}");
            let attrs = prim.member("attributes").and_then(Value::as_object);
            let mut positions: Vec<(String, &Value)> = Vec::new();
            if let Some(a) = attrs
                .and_then(|a| a.member("POSITION"))
                .and_then(|v| named(root, v))
            {
                positions.push((format!("{base}/attributes/POSITION"), a));
            }
            for (t, target) in members(prim, "targets").iter().enumerate() {
                if let Some(a) = target.member("POSITION").and_then(|v| named(root, v)) {
                    positions.push((format!("{base}/targets/{t}/POSITION"), a));
                }
            }
            for (k, (ptr, a)) in positions.iter().enumerate() {
                let kind = a.member("type").and_then(Value::as_str).unwrap_or("");
                let ctype = a
                    .member("componentType")
                    .and_then(Value::as_u64)
                    .unwrap_or(0);
                let normalized = a.member("normalized").and_then(Value::as_bool) == Some(true);
                // Morph target positions are displacements: only the base is typed here.
                if k == 0
                    && ptr.contains("/attributes/")
                    && !quantized
                    && (kind != "VEC3" || ctype != u64::from(component::F32) || normalized)
                {
                    push_as(
                        doc,
                        sink,
                        Code::GLTF_POSITION,
                        "MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT",
                        ptr,
                        || {
                            format!(
                                "POSITION is {kind} {}; it must be VEC3 FLOAT",
                                component::name(u32::try_from(ctype).unwrap_or(0))
                            )
                        },
                    );
                } else if a.member("min").is_none() || a.member("max").is_none() {
                    push_as(
                        doc,
                        sink,
                        Code::GLTF_POSITION,
                        "MESH_PRIMITIVE_POSITION_ACCESSOR_WITHOUT_BOUNDS",
                        ptr,
                        || {
                            "the POSITION accessor has no min and max, which glTF requires"
                                .to_owned()
                        },
                    );
                }
            }
            let influence = attrs.is_some_and(|a| {
                a.keys()
                    .any(|n| n.starts_with("JOINTS_") || n.starts_with("WEIGHTS_"))
            });
            let mut first: Option<u64> = None;
            let mut vertices = None;
            for (name, v) in attrs.into_iter().flatten() {
                let Some(a) = named(root, v) else { continue };
                let n = count_of(a);
                if name == "POSITION" {
                    vertices = Some(n);
                }
                match first {
                    None => first = Some(n),
                    Some(f) if f != n && !influence => {
                        let mut ptr = format!("{base}/attributes");
                        push_token(&mut ptr, name);
                        push_as(
                            doc,
                            sink,
                            Code::GLTF_COUNT_MISMATCH,
                            "MESH_PRIMITIVE_UNEQUAL_ACCESSOR_COUNT",
                            &ptr,
                            || {
                                format!(
                                    "{name} has {n} elements, the primitive's first attribute {f}"
                                )
                            },
                        );
                        first = Some(f);
                    }
                    Some(_) => {}
                }
            }
            let vertices = vertices.or(first);
            if let Some(index) = prim.member("indices").and_then(Value::as_u64) {
                indices(
                    gltf,
                    doc,
                    opts,
                    sink,
                    &format!("{base}/indices"),
                    index,
                    vertices,
                );
            }
        }
    }
}

/// The indices accessor `index` of a primitive with `vertices` vertices.
fn indices(
    gltf: &Gltf,
    doc: &Doc,
    opts: &Options,
    sink: &mut Sink,
    ptr: &str,
    index: u64,
    vertices: Option<u64>,
) {
    let root = &gltf.value;
    let Some(a) = accessor_json(root, index) else {
        return;
    };
    let kind = a.member("type").and_then(Value::as_str).unwrap_or("");
    let ctype = a
        .member("componentType")
        .and_then(Value::as_u64)
        .and_then(|c| u32::try_from(c).ok())
        .unwrap_or(0);
    let normalized = a.member("normalized").and_then(Value::as_bool) == Some(true);
    let restart = match ctype {
        component::U8 => u64::from(u8::MAX),
        component::U16 => u64::from(u16::MAX),
        component::U32 => u64::from(u32::MAX),
        _ => 0,
    };
    if kind != "SCALAR" || restart == 0 || normalized {
        push_as(
            doc,
            sink,
            Code::GLTF_INDICES,
            "MESH_PRIMITIVE_INDICES_ACCESSOR_INVALID_FORMAT",
            ptr,
            || {
                format!(
                    "indices are {kind} {}; they must be SCALAR UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT",
                    component::name(ctype)
                )
            },
        );
        return;
    }
    // A view marked as indices (target 34963) with a stride was reported at the view.
    let marked = a
        .member("bufferView")
        .and_then(Value::as_u64)
        .and_then(|v| array(root, "bufferViews").get(usize::try_from(v).ok()?))
        .and_then(|v| v.member("target"))
        .and_then(Value::as_u64)
        == Some(34963);
    if strided(root, a) && !marked {
        push_as(
            doc,
            sink,
            Code::GLTF_INDICES,
            "MESH_PRIMITIVE_INDICES_ACCESSOR_WITH_BYTESTRIDE",
            ptr,
            || "the indices' buffer view has a byteStride; indices are tightly packed".to_owned(),
        );
    }
    // Without a buffer view there is nothing to walk (never a loop over a bare count);
    // carried indices were not changed by the job checking its output.
    if a.member("bufferView").is_none() || opts.carried(index) {
        return;
    }
    let Ok(data) = accessor::read(gltf, index, &opts.limits) else {
        return;
    };
    data.for_each4(0, |k, e| {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let v = e[0] as u64;
        if v == restart {
            push_as(
                doc,
                sink,
                Code::GLTF_INDICES,
                "ACCESSOR_INDEX_PRIMITIVE_RESTART",
                ptr,
                || {
                    format!(
                        "index {k} is {v}, the primitive-restart value, which glTF does not allow"
                    )
                },
            );
        } else if let Some(n) = vertices.filter(|&n| v >= n) {
            push_as(
                doc,
                sink,
                Code::GLTF_INDICES,
                "ACCESSOR_INDEX_OOB",
                ptr,
                || format!("index {k} is {v}; the primitive has {n} vertices"),
            );
        }
        true
    });
}
