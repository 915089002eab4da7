//! What `inspect` shows of a DashVertex file: header, sections, counts and the first
//! records.

use std::fmt::Write;

use dashvertex_binary::format::{BONE_SIZE, SET_SIZE, tag_name};
use dashvertex_binary::{VertexRecords, View};
use dashvertex_core::{InfluenceSet, Limits};

use crate::error::AppError;
use crate::formats::{self, Format};
use crate::input::Context;

/// A bone's name, parent and rest pose: its local transform as stored, and where it
/// stands in model space (`at`), so that a skeleton whose bones all sit at the origin
/// shows.
fn bone_text(b: &dashvertex_core::Bone, at: Option<&[f32; 3]>) -> String {
    let [px, py, pz] = b.position;
    let [rx, ry, rz, rw] = b.rotation;
    let [sx, sy, sz] = b.scale;
    let mut s = format!(
        "{:?} parent {} position ({px} {py} {pz}) rotation ({rx} {ry} {rz} {rw}) scale ({sx} {sy} {sz})",
        b.name,
        b.parent.map_or("none".to_owned(), |p| p.to_string())
    );
    if let Some([x, y, z]) = at {
        s.push_str(&format!(" at ({x} {y} {z})"));
    }
    s
}

fn set_text(s: &InfluenceSet) -> String {
    format!(
        "bones [{} {} {} {}] weights [{} {} {} {}]",
        s.joints[0],
        s.joints[1],
        s.joints[2],
        s.joints[3],
        s.weights[0],
        s.weights[1],
        s.weights[2],
        s.weights[3]
    )
}

/// Describes `bytes` (named `name`) as text.
pub(super) fn inspect(
    name: &str,
    bytes: &[u8],
    format: Format,
    records: usize,
    ctx: &Context,
) -> Result<String, AppError> {
    let limits = &ctx.limits;
    let mut out = String::new();
    let _ = writeln!(out, "file: {name} ({} bytes)", bytes.len());
    match format {
        Format::Dmx => inspect_container(&mut out, name, bytes, records, limits)?,
        _ => {
            // JSON or raw; any other format is refused by the load, naming it.
            let loaded = formats::load(name, bytes, format, limits, ctx)?;
            let doc = loaded.document();
            match &loaded {
                formats::Loaded::Json(f) => {
                    let _ = writeln!(out, "format: JSON ({:?} form)", f.form);
                    if !f.foreign.is_empty() {
                        let names: Vec<&str> = f.foreign.iter().map(|(k, _)| k.as_str()).collect();
                        let _ = writeln!(
                            out,
                            "members not modelled (kept verbatim): {}",
                            names.join(", ")
                        );
                    }
                }
                formats::Loaded::Binary(_) => {
                    let _ = writeln!(out, "format: raw 48-byte vertex records");
                }
            }
            let mesh = &doc.mesh;
            let _ = writeln!(
                out,
                "vertices: {}, influence sets: {}, skinned: {}, bones: {}",
                mesh.len(),
                mesh.set_count(),
                if mesh.is_skinned() { "yes" } else { "no" },
                doc.skeleton.as_ref().map_or(0, |s| s.len())
            );
            for (v, vertex) in mesh.vertices().iter().enumerate().take(records) {
                let p = vertex.position;
                let at = if format == Format::Raw {
                    format!(" @0x{:X}", v * 48)
                } else {
                    String::new()
                };
                let _ = writeln!(
                    out,
                    "  vertex {v}{at}: position ({} {} {})",
                    p[0], p[1], p[2]
                );
                if mesh.is_skinned() || mesh.has_skin_data() {
                    for (s, set) in mesh.sets_of(v).enumerate() {
                        let _ = writeln!(out, "    set {s}: {}", set_text(set));
                    }
                }
            }
            if let Some(sk) = &doc.skeleton {
                let at = sk.model_positions();
                for (i, b) in sk.bones.iter().enumerate().take(records) {
                    let _ = writeln!(out, "  bone {i}: {}", bone_text(b, at.get(i)));
                }
            }
        }
    }
    Ok(out)
}

fn inspect_container(
    out: &mut String,
    name: &str,
    bytes: &[u8],
    records: usize,
    limits: &Limits,
) -> Result<(), AppError> {
    let input = |message: String| AppError::Input {
        file: name.to_owned(),
        message,
        source: None,
    };
    let h = dashvertex_binary::header_fields(bytes)
        .map_err(|e| input(format!("offset 0x{:X}: {}", e.offset, e.kind)))?;
    let _ = writeln!(
        out,
        "header: magic {:?} version {}.{} isSkinned {}",
        String::from_utf8_lossy(&h.magic),
        h.major,
        h.minor,
        h.skinned
    );
    let view = View::parse(bytes, limits)
        .map_err(|e| input(format!("offset 0x{:X}: {}", e.offset, e.kind)))?;
    let layout = view.layout();
    let _ = writeln!(out, "sections (table ends at 0x{:X}):", layout.table_end);
    for r in &layout.rows {
        let _ = writeln!(
            out,
            "  row 0x{:02X} {:<4} count {:>8}  offset 0x{:08X}  length {:>10}",
            r.at,
            tag_name(&r.tag),
            r.count,
            r.offset,
            r.length
        );
    }
    let file = view
        .to_file()
        .map_err(|e| input(format!("offset 0x{:X}: {}", e.offset, e.kind)))?;
    let mesh = &file.document.mesh;
    let _ = writeln!(
        out,
        "vertices: {} ({}-byte records), influence sets: {}, bones: {}",
        mesh.len(),
        layout.vertex_layout.stride(),
        mesh.set_count(),
        file.document.skeleton.as_ref().map_or(0, |s| s.len())
    );
    let vert_at = layout.vert().map_or(0, |r| r.offset);
    let vset_at = layout.vset().map_or(0, |r| r.offset);
    let stride = layout.vertex_layout.stride();
    let index_of = |v: usize| match view.vertices() {
        VertexRecords::Full(r) => r.get(v).map(|x| x.index.get()),
        VertexRecords::Compact(r) => r.get(v).map(|x| x.index.get()),
    };
    for (v, vertex) in mesh.vertices().iter().enumerate().take(records) {
        let p = vertex.position;
        let _ = writeln!(
            out,
            "  vertex {v} @0x{:X}: index {} position ({} {} {})",
            vert_at + v as u64 * stride,
            index_of(v).unwrap_or(0),
            p[0],
            p[1],
            p[2]
        );
        if layout.vertex_layout == dashvertex_binary::VertexLayout::Full {
            for (s, set) in mesh.sets_of(v).enumerate() {
                let at = if s == 0 {
                    String::new()
                } else {
                    format!(
                        " @0x{:X}",
                        vset_at + ((s - 1) * mesh.len() + v) as u64 * SET_SIZE
                    )
                };
                let _ = writeln!(out, "    set {s}{at}: {}", set_text(set));
            }
        }
    }
    if let Some(sk) = &file.document.skeleton {
        let skel_at = layout.skel().map_or(0, |r| r.offset);
        let at = sk.model_positions();
        for (i, b) in sk.bones.iter().enumerate().take(records) {
            let _ = writeln!(
                out,
                "  bone {i} @0x{:X}: {}",
                skel_at + i as u64 * BONE_SIZE,
                bone_text(b, at.get(i))
            );
        }
    }
    for f in file
        .foreign
        .iter()
        .filter(|f| f.count > 0 || !f.bytes.is_empty())
    {
        let _ = writeln!(
            out,
            "section {} not modelled by dash: count {}, {} bytes (kept byte for byte)",
            f.name(),
            f.count,
            f.bytes.len()
        );
    }
    if file.unreferenced > 0 {
        let _ = writeln!(
            out,
            "warning: {} non-zero bytes lie outside every section: {:?}",
            file.unreferenced,
            layout.gaps()
        );
    }
    Ok(())
}
