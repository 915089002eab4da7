//! `GLTF_TEXCOORD_MISSING`: a primitive's material samples a texture through
//! `TEXCOORD_n` (a texture binding's `texCoord`, 0 when absent, or the `texCoord` of its
//! `KHR_texture_transform`) that the primitive does not have. A texture binding is an
//! object under a member whose name ends in `Texture`, with an `index`, anywhere in the
//! material (core bindings and those of material extensions alike). This is the one place
//! dash reads a material, and only for the attribute it names: the material itself is not
//! checked.
//!
//! Each material is walked once, with an explicit stack (no recursion on the document's
//! depth), into its list of bindings; each primitive then looks its own up.

use serde_json::Value;

use super::{array, members};
use crate::codes::Code;
use crate::inputs::gltf::Doc;
use crate::sink::Sink;
use dashvertex_json::Members;

/// One texture binding of a material: where it is, and the texture coordinate set it reads.
struct Binding {
    pointer: String,
    set: u64,
}

/// Every texture binding of `material` (at `/materials/{m}`), depth first.
fn bindings(m: usize, material: &Value) -> Vec<Binding> {
    let mut found = Vec::new();
    let mut stack: Vec<(String, &Value)> = vec![(format!("/materials/{m}"), material)];
    while let Some((ptr, v)) = stack.pop() {
        let Some(obj) = v.as_object() else { continue };
        for (key, child) in obj {
            if !child.is_object() {
                continue;
            }
            let mut at = ptr.clone();
            dashvertex_json::pointer::push_token(&mut at, key);
            if key.ends_with("Texture") && child.member("index").is_some() {
                let set = child
                    .pointer("/extensions/KHR_texture_transform/texCoord")
                    .or_else(|| child.member("texCoord"))
                    .and_then(Value::as_u64)
                    .unwrap_or(0);
                found.push(Binding { pointer: at, set });
            } else {
                stack.push((at, child));
            }
        }
    }
    found
}

/// Runs the check of the module comment over every primitive with a material.
pub(crate) fn check_all(root: &Value, doc: &Doc, sink: &mut Sink) {
    let materials = array(root, "materials");
    if materials.is_empty() {
        return;
    }
    let mut walked: Vec<Option<Vec<Binding>>> = Vec::new();
    walked.resize_with(materials.len(), || None);
    for (mi, mesh) in array(root, "meshes").iter().enumerate() {
        for (p, prim) in members(mesh, "primitives").iter().enumerate() {
            let Some(m) = prim
                .member("material")
                .and_then(Value::as_u64)
                .and_then(|m| usize::try_from(m).ok())
            else {
                continue;
            };
            let (Some(material), Some(slot)) = (materials.get(m), walked.get_mut(m)) else {
                continue;
            };
            let list = slot.get_or_insert_with(|| bindings(m, material));
            let attrs = prim.member("attributes").and_then(Value::as_object);
            let ptr = format!("/meshes/{mi}/primitives/{p}/material");
            for b in list.iter() {
                let name = format!("TEXCOORD_{}", b.set);
                if attrs.is_some_and(|a| a.contains_key(&name)) {
                    continue;
                }
                doc.push(sink, Code::GLTF_TEXCOORD_MISSING, &ptr, || {
                    format!(
                        "material {m} samples the texture of {} through {name}, which the primitive does not have",
                        b.pointer
                    )
                });
            }
        }
    }
}
