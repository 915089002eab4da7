//! Attribute names and types (`GLTF_ATTRIBUTE`): a primitive's attributes and its morph
//! targets' are POSITION, NORMAL, TANGENT, TEXCOORD_n, COLOR_n, JOINTS_n, WEIGHTS_n (n
//! without leading zeros) or application-specific names starting with `_`; TEXCOORD and
//! COLOR sets start at 0 without gaps; no vertex attribute is UNSIGNED_INT. JOINTS and
//! WEIGHTS names and sets are checked with the influences (`GLTF_SET_CONTINUITY`).

use std::collections::BTreeMap;

use dashvertex_gltf::document::component;
use dashvertex_json::pointer::push_token;
use serde_json::Value;

use super::{accessor as accessor_json, array, members, push_as};
use crate::codes::Code;
use crate::inputs::gltf::Doc;
use crate::sink::Sink;
use dashvertex_json::Members;

/// `Some((semantic, set))` for a valid name (`set` for indexed semantics), `None` for an
/// invalid one.
fn parse(name: &str) -> Option<(&str, Option<u32>)> {
    if name.starts_with('_') || matches!(name, "POSITION" | "NORMAL" | "TANGENT") {
        return Some((name, None));
    }
    let (semantic, n) = name.split_once('_')?;
    if !matches!(semantic, "TEXCOORD" | "COLOR" | "JOINTS" | "WEIGHTS") {
        return None;
    }
    let digits_ok =
        !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && (n == "0" || !n.starts_with('0'));
    if !digits_ok {
        return None;
    }
    n.parse().ok().map(|k| (semantic, Some(k)))
}

fn influence(name: &str) -> bool {
    name.starts_with("JOINTS_") || name.starts_with("WEIGHTS_")
}

/// Runs the checks of the module comment.
pub(crate) fn check_all(root: &Value, doc: &Doc, sink: &mut Sink) {
    for (m, mesh) in array(root, "meshes").iter().enumerate() {
        for (p, prim) in members(mesh, "primitives").iter().enumerate() {
            let base = format!("/meshes/{m}/primitives/{p}");
            let mut sets: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
            if let Some(attrs) = prim.member("attributes").and_then(Value::as_object) {
                for (name, v) in attrs.iter().filter(|(n, _)| !influence(n)) {
                    let mut ptr = format!("{base}/attributes");
                    push_token(&mut ptr, name);
                    match parse(name) {
                        None => {
                            push_as(
                                doc,
                                sink,
                                Code::GLTF_ATTRIBUTE,
                                "MESH_PRIMITIVE_INVALID_ATTRIBUTE",
                                &ptr,
                                || {
                                    format!(
                                        "{name:?} is not a glTF attribute name (application names start with _)"
                                    )
                                },
                            );
                            continue;
                        }
                        Some((semantic, Some(k))) => sets.entry(semantic).or_default().push(k),
                        Some(_) => {}
                    }
                    let u32_typed = v
                        .as_u64()
                        .and_then(|i| accessor_json(root, i))
                        .and_then(|a| a.member("componentType"))
                        .and_then(Value::as_u64)
                        == Some(u64::from(component::U32));
                    if u32_typed {
                        push_as(
                            doc,
                            sink,
                            Code::GLTF_ATTRIBUTE,
                            "MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_UNSIGNED_INT",
                            &ptr,
                            || format!("{name} is UNSIGNED_INT, which no vertex attribute may be"),
                        );
                    }
                }
            }
            for (semantic, mut ks) in sets {
                ks.sort_unstable();
                if ks
                    .iter()
                    .enumerate()
                    .any(|(i, &k)| i as u64 != u64::from(k))
                {
                    push_as(
                        doc,
                        sink,
                        Code::GLTF_ATTRIBUTE,
                        "MESH_PRIMITIVE_INDEXED_SEMANTIC_CONTINUITY",
                        &format!("{base}/attributes"),
                        || format!("{semantic}_n sets do not run 0, 1, … without gaps"),
                    );
                }
            }
            for (t, target) in members(prim, "targets").iter().enumerate() {
                for name in target.as_object().into_iter().flatten().map(|(n, _)| n) {
                    if parse(name).is_none() {
                        let mut ptr = format!("{base}/targets/{t}");
                        push_token(&mut ptr, name);
                        push_as(
                            doc,
                            sink,
                            Code::GLTF_ATTRIBUTE,
                            "MESH_PRIMITIVE_INVALID_ATTRIBUTE",
                            &ptr,
                            || {
                                format!(
                                    "{name:?} is not a glTF attribute name (application names start with _)"
                                )
                            },
                        );
                    }
                }
            }
        }
    }
}
