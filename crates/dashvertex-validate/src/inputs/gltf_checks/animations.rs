//! Animations, which dash's loss report and retargeting read:
//!
//! - `GLTF_ANIMATION_SAMPLER`: a sampler's accessors do not have the form the glTF
//!   specification gives them (input SCALAR FLOAT with `min` and `max`, at least two
//!   keyframes for CUBICSPLINE; no `byteStride` on either; an output of the type and count
//!   its channel's path needs).
//! - `GLTF_ANIMATION_TARGET`: a channel targets the TRS of a node with a `matrix`, the
//!   morph weights of a node without morph targets, or the same node and path as another
//!   channel of the animation.
//! - `GLTF_ANIMATION_INPUT`: a keyframe time is negative or not above the one before.
//! - `GLTF_ANIMATION_ROTATION`: a rotation keyframe is not a unit quaternion.
//!
//! Each sampler's input is read once; a rotation output once per channel using it.

use std::collections::BTreeMap;

use dashvertex_gltf::Gltf;
use dashvertex_gltf::accessor;
use dashvertex_gltf::document::component;
use serde_json::Value;

use super::{accessor as accessor_json, array, members, push_as, strided};
use crate::codes::Code;
use crate::inputs::gltf::Doc;
use crate::options::Options;
use crate::sink::Sink;
use dashvertex_json::Members;

/// `(type, componentType, normalized)` of an accessor object.
fn format_of(a: &Value) -> (&str, u64, bool) {
    (
        a.member("type").and_then(Value::as_str).unwrap_or(""),
        a.member("componentType")
            .and_then(Value::as_u64)
            .unwrap_or(0),
        a.member("normalized")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    )
}

fn count_of(a: &Value) -> u64 {
    a.member("count").and_then(Value::as_u64).unwrap_or(0)
}

/// Whether an output accessor's format suits the channel path.
fn output_format_ok(path: &str, (kind, ctype, normalized): (&str, u64, bool)) -> bool {
    let float = ctype == u64::from(component::F32);
    let unorm = normalized
        && [component::I8, component::U8, component::I16, component::U16]
            .iter()
            .any(|&t| u64::from(t) == ctype);
    match path {
        "translation" | "scale" => kind == "VEC3" && float,
        "rotation" => kind == "VEC4" && (float || unorm),
        "weights" => kind == "SCALAR" && (float || unorm),
        _ => true, // an unknown path is the schema's finding, not a format one
    }
}

/// Morph targets of the first primitive of node `n`'s mesh (0 without a mesh).
fn morph_targets(root: &Value, node: &Value) -> usize {
    node.member("mesh")
        .and_then(Value::as_u64)
        .and_then(|m| array(root, "meshes").get(usize::try_from(m).ok()?))
        .and_then(|mesh| members(mesh, "primitives").first())
        .map_or(0, |p| members(p, "targets").len())
}

/// A component decoded as the channel reads it (normalized integers to [-1, 1]).
fn unit_value(ctype: u32, normalized: bool, raw: f64) -> f64 {
    if !normalized {
        return raw;
    }
    match ctype {
        component::I8 => (raw / 127.0).max(-1.0),
        component::U8 => raw / 255.0,
        component::I16 => (raw / 32767.0).max(-1.0),
        component::U16 => raw / 65535.0,
        _ => raw,
    }
}

/// Runs the checks of the module comment over every animation.
pub(crate) fn check_all(gltf: &Gltf, doc: &Doc, opts: &Options, sink: &mut Sink) {
    let root = &gltf.value;
    let nodes = array(root, "nodes");
    for (a, anim) in array(root, "animations").iter().enumerate() {
        let samplers = members(anim, "samplers");
        for (s, sampler) in samplers.iter().enumerate() {
            sampler_checks(gltf, doc, opts, sink, a, s, sampler);
        }
        let mut targets: BTreeMap<(u64, &str), usize> = BTreeMap::new();
        for (c, channel) in members(anim, "channels").iter().enumerate() {
            let target_ptr = || format!("/animations/{a}/channels/{c}/target");
            let target = channel.member("target");
            let path = target
                .and_then(|t| t.member("path"))
                .and_then(Value::as_str)
                .unwrap_or("");
            let node_index = target
                .and_then(|t| t.member("node"))
                .and_then(Value::as_u64);
            let node = node_index.and_then(|n| nodes.get(usize::try_from(n).ok()?));
            if let Some(node) = node {
                let trs = matches!(path, "translation" | "rotation" | "scale");
                if trs && node.member("matrix").is_some() {
                    push_as(
                        doc,
                        sink,
                        Code::GLTF_ANIMATION_TARGET,
                        "ANIMATION_CHANNEL_TARGET_NODE_MATRIX",
                        &target_ptr(),
                        || format!("channel {c} animates the {path} of a node with a matrix"),
                    );
                }
                if path == "weights" && morph_targets(root, node) == 0 {
                    push_as(
                        doc,
                        sink,
                        Code::GLTF_ANIMATION_TARGET,
                        "ANIMATION_CHANNEL_TARGET_NODE_WEIGHTS_NO_MORPHS",
                        &target_ptr(),
                        || {
                            format!(
                                "channel {c} animates morph weights of a node whose mesh has no morph targets"
                            )
                        },
                    );
                }
            }
            if let Some(n) = node_index
                && !path.is_empty()
            {
                match targets.get(&(n, path)) {
                    Some(&first) => push_as(
                        doc,
                        sink,
                        Code::GLTF_ANIMATION_TARGET,
                        "ANIMATION_DUPLICATE_TARGETS",
                        &format!("/animations/{a}/channels/{first}/target"),
                        || format!("channels {first} and {c} both animate the {path} of node {n}"),
                    ),
                    None => {
                        targets.insert((n, path), c);
                    }
                }
            }
            let Some(sampler) = channel
                .member("sampler")
                .and_then(Value::as_u64)
                .and_then(|s| samplers.get(usize::try_from(s).ok()?))
            else {
                continue;
            };
            channel_output(gltf, doc, opts, sink, (a, c), sampler, path, node);
        }
    }
}

/// The checks of one sampler's own accessors, and its keyframe times.
fn sampler_checks(
    gltf: &Gltf,
    doc: &Doc,
    opts: &Options,
    sink: &mut Sink,
    a: usize,
    s: usize,
    sampler: &Value,
) {
    let root = &gltf.value;
    let base = || format!("/animations/{a}/samplers/{s}");
    if let Some(other) = sampler
        .member("interpolation")
        .and_then(Value::as_str)
        .filter(|i| !matches!(*i, "LINEAR" | "STEP" | "CUBICSPLINE"))
    {
        push_as(
            doc,
            sink,
            Code::GLTF_VALUE_NOT_IN_LIST,
            "VALUE_NOT_IN_LIST",
            &format!("{}/interpolation", base()),
            || {
                format!(
                    "sampler {s} has interpolation {}; it is LINEAR, STEP or CUBICSPLINE",
                    dashvertex_core::text::short(other)
                )
            },
        );
    }
    let cubic = sampler.member("interpolation").and_then(Value::as_str) == Some("CUBICSPLINE");
    packed_checks(root, doc, sink, sampler, &base());
    let ptr = || format!("{}/input", base());
    let Some(index) = sampler.member("input").and_then(Value::as_u64) else {
        return;
    };
    let Some(input) = accessor_json(root, index) else {
        return;
    };
    let (kind, ctype, normalized) = format_of(input);
    if kind != "SCALAR" || ctype != u64::from(component::F32) || normalized {
        push_as(
            doc,
            sink,
            Code::GLTF_ANIMATION_SAMPLER,
            "ANIMATION_SAMPLER_INPUT_ACCESSOR_INVALID_FORMAT",
            &ptr(),
            || {
                format!(
                    "the input accessor is {kind} {}; keyframe times are SCALAR FLOAT",
                    component::name(u32::try_from(ctype).unwrap_or(0))
                )
            },
        );
        return;
    }
    if input.member("min").is_none() || input.member("max").is_none() {
        push_as(
            doc,
            sink,
            Code::GLTF_ANIMATION_SAMPLER,
            "ANIMATION_SAMPLER_INPUT_ACCESSOR_WITHOUT_BOUNDS",
            &ptr(),
            || "the input accessor has no min and max; keyframe times need both".to_owned(),
        );
    }
    if cubic && count_of(input) < 2 {
        push_as(
            doc,
            sink,
            Code::GLTF_ANIMATION_SAMPLER,
            "ANIMATION_SAMPLER_INPUT_ACCESSOR_TOO_FEW_ELEMENTS",
            &ptr(),
            || {
                format!(
                    "a CUBICSPLINE sampler has {} keyframe(s); it needs at least 2",
                    count_of(input)
                )
            },
        );
    }
    keyframe_checks(gltf, doc, opts, sink, (index, input), &ptr());
}

/// Reports the `sampler`'s (at `base`) input and output accessors whose buffer view has
/// a byteStride: animation data are tightly packed.
fn packed_checks(root: &Value, doc: &Doc, sink: &mut Sink, sampler: &Value, base: &str) {
    for part in ["input", "output"] {
        let Some(acc) = sampler
            .get(part)
            .and_then(Value::as_u64)
            .and_then(|i| accessor_json(root, i))
        else {
            continue;
        };
        if strided(root, acc) {
            push_as(
                doc,
                sink,
                Code::GLTF_ANIMATION_SAMPLER,
                "ANIMATION_SAMPLER_ACCESSOR_WITH_BYTESTRIDE",
                &format!("{base}/{part}"),
                || {
                    format!(
                        "the {part} accessor's buffer view has a byteStride; animation data are tightly packed"
                    )
                },
            );
        }
    }
}

/// Reports the keyframe times of input accessor `(index, input)` (at `pointer`) that
/// start before 0 or do not increase, read once where they lie; an accessor without a
/// buffer view has nothing to walk (the loop never follows a declared count alone).
fn keyframe_checks(
    gltf: &Gltf,
    doc: &Doc,
    opts: &Options,
    sink: &mut Sink,
    (index, input): (u64, &Value),
    pointer: &str,
) {
    // Keyframe times: read once, where they lie. Without a buffer view there is nothing
    // to walk (the loop never follows a declared count alone).
    if input.member("bufferView").is_none() {
        return;
    }
    let Ok(times) = accessor::read(gltf, index, &opts.limits) else {
        return;
    };
    let mut previous = None;
    for k in 0..times.count {
        let t = times.get(k, 0);
        if k == 0 && t < 0.0 {
            push_as(
                doc,
                sink,
                Code::GLTF_ANIMATION_INPUT,
                "ACCESSOR_ANIMATION_INPUT_NEGATIVE",
                pointer,
                || format!("keyframe 0 is at time {t}, before 0"),
            );
        }
        if let Some(p) = previous
            && t <= p
        {
            push_as(
                doc,
                sink,
                Code::GLTF_ANIMATION_INPUT,
                "ACCESSOR_ANIMATION_INPUT_NON_INCREASING",
                pointer,
                || {
                    format!(
                        "keyframe {k} is at time {t}, not after keyframe {}'s {p}",
                        k - 1
                    )
                },
            );
        }
        previous = Some(t);
    }
}

/// The output accessor as channel `(a, c)` with `path` uses it: format, count, and unit
/// quaternions for rotations.
#[allow(clippy::too_many_arguments)]
fn channel_output(
    gltf: &Gltf,
    doc: &Doc,
    opts: &Options,
    sink: &mut Sink,
    (a, c): (usize, usize),
    sampler: &Value,
    path: &str,
    node: Option<&Value>,
) {
    let root = &gltf.value;
    let ptr = || format!("/animations/{a}/channels/{c}/sampler");
    let Some(out_index) = sampler.member("output").and_then(Value::as_u64) else {
        return;
    };
    let Some(output) = accessor_json(root, out_index) else {
        return;
    };
    let format = format_of(output);
    if !output_format_ok(path, format) {
        push_as(
            doc,
            sink,
            Code::GLTF_ANIMATION_SAMPLER,
            "ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_FORMAT",
            &ptr(),
            || {
                format!(
                    "the output accessor is {} {}{} , which path {path} cannot use",
                    format.0,
                    if format.2 { "normalized " } else { "" },
                    component::name(u32::try_from(format.1).unwrap_or(0))
                )
            },
        );
        return;
    }
    let cubic = sampler.member("interpolation").and_then(Value::as_str) == Some("CUBICSPLINE");
    let input = sampler
        .member("input")
        .and_then(Value::as_u64)
        .and_then(|i| accessor_json(root, i));
    if let Some(input) = input {
        let per_key = match (path, node) {
            ("weights", Some(n)) => morph_targets(root, n) as u64,
            _ => 1,
        };
        let want = count_of(input)
            .saturating_mul(if cubic { 3 } else { 1 })
            .saturating_mul(per_key);
        let have = count_of(output);
        if per_key > 0 && have != want {
            push_as(
                doc,
                sink,
                Code::GLTF_ANIMATION_SAMPLER,
                "ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_COUNT",
                &ptr(),
                || {
                    format!(
                        "the output accessor has {have} elements; {want} are needed for {} keyframe(s)",
                        count_of(input)
                    )
                },
            );
            return;
        }
    }
    if path != "rotation" || output.member("bufferView").is_none() {
        return;
    }
    let Ok(data) = accessor::read(gltf, out_index, &opts.limits) else {
        return;
    };
    for k in 0..data.count {
        // A cubic spline stores in-tangent, value, out-tangent: only values are rotations.
        if cubic && k % 3 != 1 {
            continue;
        }
        let q = data
            .get4(k)
            .map(|x| unit_value(data.component_type, data.normalized, x));
        let len = q.iter().map(|x| x * x).sum::<f64>().sqrt();
        if (len - 1.0).abs() > super::nodes::UNIT_TOLERANCE {
            push_as(
                doc,
                sink,
                Code::GLTF_ANIMATION_ROTATION,
                "ACCESSOR_ANIMATION_SAMPLER_OUTPUT_NON_NORMALIZED_QUATERNION",
                &ptr(),
                || {
                    format!(
                        "rotation keyframe {} has length {len}, not 1",
                        if cubic { k / 3 } else { k }
                    )
                },
            );
        }
    }
}
