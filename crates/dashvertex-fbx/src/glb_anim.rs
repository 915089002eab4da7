//! Each animation stack as a glTF animation: ufbx bakes the stack's layers into
//! translation, rotation and scale keys per node (linear between keys), and a channel is
//! written for each one that moves its node from the rest pose.

use serde_json::{Value, json};

use crate::buffer::Buffer;
use crate::dash::narrow;
use crate::glb::unit_quat;
use crate::{FbxError, Scene};

/// Values closer than this to the rest pose count as the rest pose (a constant channel
/// there is left out).
const REST_TOLERANCE: f64 = 1e-6;

/// The animations of `scene`; a stack ufbx cannot bake within the limits is left out,
/// with a note.
pub(crate) fn animations(
    scene: &Scene,
    buf: &mut Buffer,
    notes: &mut Vec<String>,
) -> Result<Vec<Value>, FbxError> {
    let s = scene.ufbx();
    let mut out = Vec::new();
    for stack in &s.anim_stacks {
        let opts = ufbx::BakeOpts {
            temp_allocator: crate::scene::allocator(scene.input_len),
            result_allocator: crate::scene::allocator(scene.input_len),
            ..Default::default()
        };
        let baked = match ufbx::bake_anim(s, &stack.anim, opts) {
            Ok(b) => b,
            Err(e) => {
                notes.push(format!(
                    "animation stack {:?} not converted: ufbx could not bake it ({})",
                    stack.element.name.to_string(),
                    e.description
                ));
                continue;
            }
        };
        let shift = if baked.key_time_min < 0.0 {
            -baked.key_time_min
        } else {
            0.0
        };
        let mut samplers = Vec::new();
        let mut channels = Vec::new();
        let mut dropped = 0;
        for bn in &baked.nodes {
            let Some(node) = s.nodes.get(bn.typed_id as usize) else {
                continue;
            };
            let rest = node.local_transform;
            let tr = bn
                .translation_keys
                .iter()
                .map(|k| (k.time, [k.value.x, k.value.y, k.value.z]));
            let rest_t = [rest.translation.x, rest.translation.y, rest.translation.z];
            dropped += channel(
                buf,
                &mut samplers,
                &mut channels,
                bn.typed_id,
                "translation",
                tr,
                bn.constant_translation,
                &rest_t,
                shift,
            );
            let rot = bn
                .rotation_keys
                .iter()
                .map(|k| (k.time, unit_quat(k.value).map(f64::from)));
            let rest_r = unit_quat(rest.rotation).map(f64::from);
            dropped += channel(
                buf,
                &mut samplers,
                &mut channels,
                bn.typed_id,
                "rotation",
                rot,
                bn.constant_rotation,
                &rest_r,
                shift,
            );
            let sc = bn
                .scale_keys
                .iter()
                .map(|k| (k.time, [k.value.x, k.value.y, k.value.z]));
            let rest_s = [rest.scale.x, rest.scale.y, rest.scale.z];
            dropped += channel(
                buf,
                &mut samplers,
                &mut channels,
                bn.typed_id,
                "scale",
                sc,
                bn.constant_scale,
                &rest_s,
                shift,
            );
        }
        if dropped > 0 {
            notes.push(format!(
                "animation stack {:?}: {dropped} NaN or infinite key(s) left out",
                stack.element.name.to_string()
            ));
        }
        if channels.is_empty() {
            notes.push(format!(
                "animation stack {:?} moves no node: not written",
                stack.element.name.to_string()
            ));
            continue;
        }
        out.push(json!({ "name": stack.element.name.to_string(), "samplers": samplers, "channels": channels }));
    }
    Ok(out)
}

/// One channel of keys `(time, value)`: left out when constant at the rest pose; key
/// times shifted by `shift` (to start at or after 0) and kept strictly increasing in
/// binary32.
#[allow(
    clippy::too_many_arguments,
    reason = "one call site per path, all local state"
)]
fn channel<const N: usize>(
    buf: &mut Buffer,
    samplers: &mut Vec<Value>,
    channels: &mut Vec<Value>,
    node: u32,
    path: &str,
    keys: impl Iterator<Item = (f64, [f64; N])>,
    constant: bool,
    rest: &[f64; N],
    shift: f64,
) -> usize {
    let mut times: Vec<[f32; 1]> = Vec::new();
    let mut values: Vec<[f32; N]> = Vec::new();
    let mut dropped = 0;
    for (t, v) in keys {
        let t = narrow(t + shift);
        if !t.is_finite() || v.iter().any(|x| !narrow(*x).is_finite()) {
            dropped += 1;
            continue;
        }
        if times.last().is_some_and(|l| t <= l[0]) {
            continue;
        }
        times.push([t.max(0.0)]);
        values.push(v.map(narrow));
    }
    if times.is_empty() {
        return dropped;
    }
    if constant
        && values.iter().all(|v| {
            v.iter()
                .zip(rest)
                .all(|(a, b)| (f64::from(*a) - b).abs() <= REST_TOLERANCE)
        })
    {
        return dropped;
    }
    let input = buf.floats(&times, None, true);
    let output = buf.floats(&values, None, false);
    samplers.push(json!({ "input": input, "output": output, "interpolation": "LINEAR" }));
    channels
        .push(json!({ "sampler": samplers.len() - 1, "target": { "node": node, "path": path } }));
    dropped
}
