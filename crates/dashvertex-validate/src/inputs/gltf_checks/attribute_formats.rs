//! The accessor formats glTF 2.0 gives each vertex attribute semantic other than POSITION,
//! JOINTS_n and WEIGHTS_n (those have codes of their own), in a primitive and in its morph
//! targets (`GLTF_ATTRIBUTE_FORMAT`, the official `MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT`),
//! with the wider integer formats `KHR_mesh_quantization` allows when the file uses it; a
//! morph target's POSITION too (the base POSITION is `GLTF_POSITION`'s). A morph target
//! holds displacements: its TANGENT is VEC3, not the base's VEC4.

use dashvertex_gltf::document::component::{F32, I8, I16, U8, U16, name};
use serde_json::Value;

use super::{accessor as accessor_json, array, members, push_as};
use crate::codes::Code;
use crate::inputs::gltf::Doc;
use crate::sink::Sink;
use dashvertex_json::Members;

/// One allowed format: type, component type, normalized.
type Format = (&'static str, u32, bool);

const FLOAT3: &[Format] = &[("VEC3", F32, false)];
const FLOAT4: &[Format] = &[("VEC4", F32, false)];
const TEXCOORD: &[Format] = &[
    ("VEC2", F32, false),
    ("VEC2", U8, true),
    ("VEC2", U16, true),
];
const COLOR: &[Format] = &[
    ("VEC3", F32, false),
    ("VEC3", U8, true),
    ("VEC3", U16, true),
    ("VEC4", F32, false),
    ("VEC4", U8, true),
    ("VEC4", U16, true),
];
const TARGET_TEXCOORD: &[Format] = &[
    ("VEC2", F32, false),
    ("VEC2", I8, true),
    ("VEC2", U8, true),
    ("VEC2", I16, true),
    ("VEC2", U16, true),
];
const TARGET_COLOR: &[Format] = &[
    ("VEC3", F32, false),
    ("VEC3", I8, true),
    ("VEC3", U8, true),
    ("VEC3", I16, true),
    ("VEC3", U16, true),
    ("VEC4", F32, false),
    ("VEC4", I8, true),
    ("VEC4", U8, true),
    ("VEC4", I16, true),
    ("VEC4", U16, true),
];
// KHR_mesh_quantization's additions.
const Q_POSITION: &[Format] = &[
    ("VEC3", I8, false),
    ("VEC3", I8, true),
    ("VEC3", U8, false),
    ("VEC3", U8, true),
    ("VEC3", I16, false),
    ("VEC3", I16, true),
    ("VEC3", U16, false),
    ("VEC3", U16, true),
];
const Q_TARGET_POSITION: &[Format] = &[
    ("VEC3", I8, false),
    ("VEC3", I8, true),
    ("VEC3", I16, false),
    ("VEC3", I16, true),
];
const Q_NORMAL: &[Format] = &[("VEC3", I8, true), ("VEC3", I16, true)];
const Q_TANGENT: &[Format] = &[("VEC4", I8, true), ("VEC4", I16, true)];
const Q_TEXCOORD: &[Format] = &[
    ("VEC2", I8, false),
    ("VEC2", I8, true),
    ("VEC2", U8, false),
    ("VEC2", I16, false),
    ("VEC2", I16, true),
    ("VEC2", U16, false),
];

/// The formats semantic `name` may have (`target`: in a morph target), or `None` for a
/// semantic this check leaves to others.
fn allowed(name: &str, target: bool, quantized: bool) -> Option<Vec<Format>> {
    // TEXCOORD_n and COLOR_n with n written without leading zeros; other spellings are
    // GLTF_ATTRIBUTE's (an invalid name), and have no format of their own.
    let family = match name.split_once('_') {
        Some((f @ ("TEXCOORD" | "COLOR"), n))
            if !n.is_empty()
                && n.bytes().all(|b| b.is_ascii_digit())
                && (n == "0" || !n.starts_with('0')) =>
        {
            f
        }
        Some(_) => return None,
        None => name,
    };
    let (base, q): (&[Format], &[Format]) = match (family, target) {
        ("POSITION", true) => (FLOAT3, Q_TARGET_POSITION),
        ("NORMAL", _) => (FLOAT3, Q_NORMAL),
        ("TANGENT", false) => (FLOAT4, Q_TANGENT),
        ("TANGENT", true) => (FLOAT3, Q_NORMAL),
        ("TEXCOORD", false) => (TEXCOORD, Q_TEXCOORD),
        ("TEXCOORD", true) => (TARGET_TEXCOORD, Q_TEXCOORD),
        ("COLOR", false) => (COLOR, &[]),
        ("COLOR", true) => (TARGET_COLOR, &[]),
        ("POSITION", false) if quantized => (&[], Q_POSITION),
        _ => return None,
    };
    let mut out = base.to_vec();
    if quantized {
        out.extend_from_slice(q);
    }
    Some(out)
}

fn describe((kind, ctype, normalized): Format) -> String {
    format!(
        "{kind} {}{}",
        name(ctype),
        if normalized { " normalized" } else { "" }
    )
}

/// Runs the check of the module comment over every primitive and morph target.
pub(crate) fn check_all(root: &Value, doc: &Doc, sink: &mut Sink) {
    let quantized = super::uses(root, "KHR_mesh_quantization");
    for (m, mesh) in array(root, "meshes").iter().enumerate() {
        for (p, prim) in members(mesh, "primitives").iter().enumerate() {
            let base = format!("/meshes/{m}/primitives/{p}");
            let sets = std::iter::once((
                format!("{base}/attributes"),
                prim.member("attributes"),
                false,
            ))
            .chain(
                members(prim, "targets")
                    .iter()
                    .enumerate()
                    .map(|(t, target)| (format!("{base}/targets/{t}"), Some(target), true)),
            );
            for (at, attrs, target) in sets {
                let Some(attrs) = attrs.and_then(Value::as_object) else {
                    continue;
                };
                for (semantic, v) in attrs {
                    // The base POSITION is GLTF_POSITION's, unless quantization widens it.
                    if semantic == "POSITION" && !target && !quantized {
                        continue;
                    }
                    let Some(formats) = allowed(semantic, target, quantized) else {
                        continue;
                    };
                    let Some(a) = v.as_u64().and_then(|i| accessor_json(root, i)) else {
                        continue;
                    };
                    let Some(ctype) = a
                        .member("componentType")
                        .and_then(Value::as_u64)
                        .and_then(|c| u32::try_from(c).ok())
                    else {
                        continue;
                    };
                    let Some(kind) = a.member("type").and_then(Value::as_str) else {
                        continue;
                    };
                    let normalized = a.member("normalized").and_then(Value::as_bool) == Some(true);
                    if formats
                        .iter()
                        .any(|&(k, c, n)| k == kind && c == ctype && n == normalized)
                    {
                        continue;
                    }
                    let mut ptr = at.clone();
                    dashvertex_json::pointer::push_token(&mut ptr, semantic);
                    push_as(
                        doc,
                        sink,
                        Code::GLTF_ATTRIBUTE_FORMAT,
                        "MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT",
                        &ptr,
                        || {
                            let list: Vec<String> = formats.iter().map(|&f| describe(f)).collect();
                            format!(
                                "{}{semantic} is {}; it must be {}",
                                if target { "the morph target's " } else { "" },
                                describe((kind_name(kind), ctype, normalized)),
                                list.join(", ")
                            )
                        },
                    );
                }
            }
        }
    }
}

/// `kind` as a static string for [`describe`] (an unknown one as `?`).
fn kind_name(kind: &str) -> &'static str {
    ["SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4"]
        .into_iter()
        .find(|k| *k == kind)
        .unwrap_or("?")
}
