//! What `inspect` shows of glTF/GLB: the skins and their joint order, and per skinned primitive
//! its sets, how many influences its vertices have and how their weights sum.

use std::fmt::Write;

use dashvertex_core::{InfluenceSet, Limits};
use dashvertex_gltf::Gltf;
use dashvertex_gltf::import::{self, PrimitiveView, WeightStorage};

use crate::error::AppError;

/// Joints listed per skin before the rest are counted.
const JOINTS_LISTED: usize = 64;

/// The file's errors shown before the rest are counted (`dash-validate` lists them all).
const ERRORS_LISTED: usize = 5;

/// Describes a loaded glTF file as text.
pub(super) fn inspect(
    name: &str,
    bytes: u64,
    gltf: &Gltf,
    records: usize,
    limits: &Limits,
) -> Result<String, AppError> {
    let mut out = String::new();
    let container = match gltf.container {
        dashvertex_gltf::Container::Glb => "GLB (binary glTF 2.0)",
        dashvertex_gltf::Container::Gltf => "glTF 2.0 (JSON)",
    };
    let _ = writeln!(out, "file: {name} ({bytes} bytes)");
    let _ = writeln!(out, "format: {container}");
    if let Some(g) = gltf
        .value
        .pointer("/asset/generator")
        .and_then(|v| v.as_str())
    {
        let _ = writeln!(out, "generator: {}", dashvertex_core::text::short(g));
    }
    let count = |ptr: &str| {
        gltf.value
            .pointer(ptr)
            .and_then(|v| v.as_array())
            .map_or(0, Vec::len)
    };
    let _ = writeln!(
        out,
        "nodes: {}, meshes: {}, skins: {}, animations: {}",
        gltf.root.nodes.len(),
        gltf.root.meshes.len(),
        gltf.root.skins.len(),
        count("/animations")
    );
    let (errors, found) = dashvertex_validate::document_errors(gltf, limits, ERRORS_LISTED);
    if errors > 0 {
        let _ = writeln!(
            out,
            "errors: {errors} (`dash-validate {name}` lists them all; `dashvertex fix` repairs some); what can be read is shown below"
        );
        for d in &found {
            let _ = writeln!(
                out,
                "  {} at {}: {}",
                d.code.as_str(),
                d.location,
                d.message
            );
        }
    }
    for s in 0..gltf.root.skins.len() {
        skin(&mut out, gltf, s);
    }
    let prims = match import::primitives(gltf, limits) {
        Ok(p) => p,
        Err(e) if errors > 0 => {
            let _ = writeln!(out, "the influences cannot be read: {e}");
            return Ok(out);
        }
        Err(e) => {
            return Err(crate::error::input_cause(std::path::Path::new(name), e));
        }
    };
    if prims.is_empty() {
        let _ = writeln!(
            out,
            "no primitive has influences (JOINTS_n/WEIGHTS_n) or per-bone weight attributes"
        );
    }
    for p in &prims {
        primitive(&mut out, p, records);
    }
    Ok(out)
}

/// A skin: its joints in order, with their nodes, parents and rest translation.
fn skin(out: &mut String, gltf: &Gltf, s: usize) {
    let Some(skin) = gltf.root.skins.get(s) else {
        return;
    };
    let label = skin.name.as_deref().map_or(String::new(), |n| {
        format!(" {}", dashvertex_core::text::short(n))
    });
    let _ = writeln!(
        out,
        "skin {s}{label}: {} joint(s), inverse bind matrices: {}{}",
        skin.joints.len(),
        skin.inverse_bind_matrices
            .map_or("none (identity)".to_owned(), |a| format!("accessor {a}")),
        skin.skeleton
            .map_or(String::new(), |n| format!(", skeleton node {n}"))
    );
    let skeleton = import::skeleton(gltf, s);
    let _ = writeln!(
        out,
        "  joint order (index: node, name, parent joint, the node's rest transform):"
    );
    for (j, node) in skin.joints.iter().enumerate().take(JOINTS_LISTED) {
        let bone = skeleton.as_ref().and_then(|k| k.bones.get(j));
        let name = bone.map_or_else(|| format!("node{node}"), |b| b.name.clone());
        let parent = bone
            .and_then(|b| b.parent)
            .map_or("root".to_owned(), |p| format!("parent {p}"));
        // The node's own transform as the file holds it.
        let n = usize::try_from(*node)
            .ok()
            .and_then(|n| gltf.root.nodes.get(n));
        let pose = if gltf
            .value
            .pointer(&format!("/nodes/{node}/matrix"))
            .is_some()
        {
            "matrix".to_owned()
        } else {
            let t = n.and_then(|n| n.translation).unwrap_or([0.0; 3]);
            format!("translation ({} {} {})", t[0], t[1], t[2])
        };
        let _ = writeln!(
            out,
            "    {j}: node {node}, {}, {parent}, {pose}",
            dashvertex_core::text::short(&name)
        );
    }
    if skin.joints.len() > JOINTS_LISTED {
        let _ = writeln!(
            out,
            "    … {} more joint(s)",
            skin.joints.len() - JOINTS_LISTED
        );
    }
}

/// A skinned primitive: sets, storage, influence histogram, weight sums, first vertices.
fn primitive(out: &mut String, p: &PrimitiveView<'_>, records: usize) {
    let n = p.len();
    let storage = match p.storage {
        WeightStorage::Float => "FLOAT",
        WeightStorage::Unorm8 => "normalized UNSIGNED_BYTE",
        WeightStorage::Unorm16 => "normalized UNSIGNED_SHORT",
    };
    let skin = p.skin.map_or("no skin".to_owned(), |s| format!("skin {s}"));
    let _ = writeln!(
        out,
        "mesh {} primitive {}: {n} vertices, {skin}, {} influence set(s){}",
        p.mesh,
        p.primitive,
        p.sets.len(),
        if p.sets.is_empty() {
            String::new()
        } else {
            format!(" (weights {storage})")
        }
    );
    if !p.bone_attributes.is_empty() {
        let matched = p
            .bone_attributes
            .iter()
            .filter(|b| b.joint.is_some())
            .count();
        let _ = writeln!(
            out,
            "  per-bone weight attributes: {} ({matched} matched to a skin joint); `dashvertex reduce` turns them into influences",
            p.bone_attributes.len()
        );
    }
    if !p.unmatched_attributes.is_empty() {
        let _ = writeln!(
            out,
            "  `_` attributes matching no bone: {}",
            p.unmatched_attributes.len()
        );
    }
    if p.sets.is_empty() {
        return;
    }
    // histogram[k]: vertices with k non-zero influences.
    let mut histogram = vec![0u64; p.sets.len() * 4 + 1];
    let (mut lowest, mut highest) = (f32::INFINITY, f32::NEG_INFINITY);
    let mut off_rule = 0u64;
    let mut first_off = None;
    let mut sets: Vec<InfluenceSet> = Vec::with_capacity(p.sets.len());
    for v in 0..n {
        sets.clear();
        sets.extend(p.sets.iter().map(|s| s.get(v)));
        let k = sets
            .iter()
            .flat_map(|s| s.weights)
            .filter(|w| *w != 0.0)
            .count();
        if let Some(h) = histogram.get_mut(k) {
            *h += 1;
        }
        let check = dashvertex_core::weights::check_float_sets(&sets);
        lowest = lowest.min(check.sum);
        highest = highest.max(check.sum);
        if !check.passes() || check.sum.is_nan() {
            off_rule += 1;
            first_off.get_or_insert(v);
        }
    }
    let bars: Vec<String> = histogram
        .iter()
        .enumerate()
        .filter(|(_, c)| **c > 0)
        .map(|(k, c)| format!("{k}: {c}"))
        .collect();
    let _ = writeln!(
        out,
        "  influences per vertex (count: vertices): {}",
        bars.join(", ")
    );
    if n > 0 {
        let _ = writeln!(
            out,
            "  weight sums: min {lowest}, max {highest}; {off_rule} vertex(es) off the glTF rule{}",
            first_off.map_or(String::new(), |v| format!(" (first: vertex {v})"))
        );
    }
    for v in 0..n.min(records) {
        let pos = p.position(v);
        let pairs: Vec<String> = p
            .sets
            .iter()
            .flat_map(|s| {
                let set = s.get(v);
                set.joints.into_iter().zip(set.weights)
            })
            .filter(|(_, w)| *w != 0.0)
            .map(|(j, w)| format!("{j}:{w}"))
            .collect();
        let _ = writeln!(
            out,
            "  vertex {v}: position ({} {} {}), influences [{}]",
            pos[0],
            pos[1],
            pos[2],
            pairs.join(" ")
        );
    }
}
