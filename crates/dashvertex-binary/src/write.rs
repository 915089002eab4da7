//! The canonical writer (`spec/dashvertex.md` §10.2): the records of [`crate::records`]
//! (the layout the reader views in place), laid out in a fixed order.

use dashvertex_core::{Document, Mesh};
use zerocopy::IntoBytes;
use zerocopy::little_endian::{F32, U32};

use crate::format::{
    DMX_ROWS, MAGIC, MINOR_EXTENDED, MINOR_PLAIN, ROW, SKEL, TABLE_START, TEX, Tag, VERSION_MAJOR,
    VERT, VSET, tag_name,
};
use crate::model::{BinaryFile, ForeignSection, parent_to_raw};
use crate::name::encode_name;
use crate::records::{RawBone, RawCompactVertex, RawHeader, RawRow, RawSet, RawVertex};

/// How to write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriteOptions {
    /// Use the 16-byte VERT layout when the mesh is unskinned (§6).
    pub compact_unskinned: bool,
    /// Write even if non-zero bytes outside any section of the source would be lost.
    pub drop_unreferenced: bool,
}

/// Why a file cannot be written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// DMX offsets and lengths are 32-bit.
    #[error("the file would be {0} bytes; DMX offsets and lengths are 32-bit (at most 4 GiB)")]
    TooLarge(u64),
    /// A bone name does not fit the 32-byte field.
    #[error("bone {bone} name {name:?} cannot be written: {why}")]
    BoneName {
        /// Index of the bone in the skeleton.
        bone: usize,
        /// The name as the skeleton holds it.
        name: String,
        /// What is wrong: `"longer than 31 bytes"` (UTF-8 bytes, leaving room for the
        /// NUL terminator) or `"contains a NUL character"`.
        why: &'static str,
    },
    /// Raw record files hold one set and no skeleton.
    #[error(
        "raw 48-byte records hold one influence set per vertex and no skeleton; this file has {sets} set(s){}",
        if *skeleton { " and a skeleton" } else { "" }
    )]
    RawCannotHold {
        /// Number of influence sets per vertex in the mesh; raw records hold only set 0.
        sets: usize,
        /// Whether a skeleton would be lost.
        skeleton: bool,
    },
    /// The 16-byte layout would drop influence data.
    #[error("vertex {vertex} has influence data, which the 16-byte unskinned layout cannot hold")]
    CompactWithSkin {
        /// First vertex with data.
        vertex: usize,
    },
    /// Bytes outside every section would be lost.
    #[error(
        "{0} non-zero bytes of the source lie outside every section and would be lost (allow dropping unreferenced bytes to write anyway)"
    )]
    Unreferenced(u64),
    /// A TEX section would move.
    #[error(
        "the {tag} section holds absolute file offsets and would move from 0x{from:X} to 0x{to:X}"
    )]
    TexRelocation {
        /// The section's tag as text (`TEX`).
        tag: String,
        /// Offset at which the section starts in the file it was read from.
        from: u64,
        /// Offset the canonical layout would give it in the new file.
        to: u64,
    },
}

enum Content<'a> {
    Vertices,
    Sets,
    Bones,
    Foreign(&'a ForeignSection),
    Empty,
}

struct Planned<'a> {
    tag: Tag,
    count: u32,
    length: u64,
    content: Content<'a>,
    offset: u64,
}

fn align16(x: u64) -> u64 {
    x.div_ceil(16) * 16
}

fn count32(n: usize) -> Result<u32, WriteError> {
    u32::try_from(n).map_err(|_| WriteError::TooLarge(n as u64))
}

/// Writes a document as a new container: the model alone, which the container always
/// holds. A file loaded with content dash does not model (JSON members, foreign
/// sections) keeps it through [`encode`] or `dashvertex_formats::save`, which refuse to
/// drop it unless asked (`dashvertex_formats::save_dropping`).
pub fn encode_document(document: &Document, opts: &WriteOptions) -> Result<Vec<u8>, WriteError> {
    encode(&BinaryFile::new(document.clone()), opts)
}

/// The canonical layout of `file` (vertices 16 bytes each when `compact`): its rows in
/// order — the six DMX rows, VSET when there is more than one set, unknown sections in
/// their order — each section at the next 16-byte boundary, and the file's total size.
/// Refused past 4 GiB, or when a TEX section with content would move (it holds
/// absolute offsets).
fn layout(file: &BinaryFile, compact: bool) -> Result<(Vec<Planned<'_>>, u64), WriteError> {
    let mesh = &file.document.mesh;
    let vertex_size: u64 = if compact { 16 } else { 48 };
    let bones = file
        .document
        .skeleton
        .as_ref()
        .map_or(&[][..], |s| &s.bones[..]);
    let foreign_of = |t: Tag| file.foreign.iter().find(|f| f.tag == t);
    let mut plan: Vec<Planned> = Vec::new();
    for tag in DMX_ROWS {
        let (count, length, content) = match tag {
            VERT => (
                count32(mesh.len())?,
                mesh.len() as u64 * vertex_size,
                Content::Vertices,
            ),
            SKEL => (
                count32(bones.len())?,
                bones.len() as u64 * 80,
                Content::Bones,
            ),
            _ => match foreign_of(tag) {
                Some(f) => (f.count, f.bytes.len() as u64, Content::Foreign(f)),
                None => (0, 0, Content::Empty),
            },
        };
        plan.push(Planned {
            tag,
            count,
            length,
            content,
            offset: 0,
        });
    }
    let extra = mesh.set_count() - 1;
    if extra > 0 {
        plan.push(Planned {
            tag: VSET,
            count: count32(extra * mesh.len())?,
            length: (extra * mesh.len()) as u64 * 32,
            content: Content::Sets,
            offset: 0,
        });
    }
    for f in &file.foreign {
        if !DMX_ROWS.contains(&f.tag) && f.tag != VSET {
            plan.push(Planned {
                tag: f.tag,
                count: f.count,
                length: f.bytes.len() as u64,
                content: Content::Foreign(f),
                offset: 0,
            });
        }
    }
    let mut pos = TABLE_START + ROW * plan.len() as u64;
    for p in plan.iter_mut().filter(|p| p.length > 0) {
        p.offset = align16(pos);
        pos = p.offset + p.length;
    }
    let total = pos;
    if total > u64::from(u32::MAX) {
        return Err(WriteError::TooLarge(total));
    }
    for p in &plan {
        if let (TEX, Content::Foreign(f)) = (p.tag, &p.content)
            && f.count > 0
            && f.source_offset.is_some_and(|o| o != p.offset)
        {
            return Err(WriteError::TexRelocation {
                tag: tag_name(&TEX),
                from: f.source_offset.unwrap_or(0),
                to: p.offset,
            });
        }
    }
    Ok((plan, total))
}

/// Writes a file canonically: row 0, the six DMX rows, VSET when there is more than one
/// set, unknown sections in their order; sections 16-byte aligned in row order.
pub fn encode(file: &BinaryFile, opts: &WriteOptions) -> Result<Vec<u8>, WriteError> {
    if file.unreferenced > 0 && !opts.drop_unreferenced {
        return Err(WriteError::Unreferenced(file.unreferenced));
    }
    let mesh = &file.document.mesh;
    let compact = opts.compact_unskinned && !mesh.is_skinned() && !mesh.is_empty();
    if compact && let Some(v) = (0..mesh.len()).find(|&v| mesh.sets_of(v).any(|s| !s.is_zero())) {
        return Err(WriteError::CompactWithSkin { vertex: v });
    }
    let bones = file
        .document
        .skeleton
        .as_ref()
        .map_or(&[][..], |s| &s.bones[..]);
    let (plan, total) = layout(file, compact)?;
    let extra = mesh.set_count() - 1;
    let minor = if compact || extra > 0 {
        MINOR_EXTENDED
    } else {
        MINOR_PLAIN
    };
    let mut out = Vec::with_capacity(usize::try_from(total).unwrap_or(0));
    let header = RawHeader {
        magic: MAGIC,
        major: U32::new(VERSION_MAJOR),
        minor: U32::new(minor),
        skinned: U32::new(u32::from(mesh.is_skinned())),
    };
    out.extend_from_slice(header.as_bytes());
    for p in &plan {
        // Offsets and lengths fit: the total was checked against u32::MAX above.
        let row = RawRow {
            tag: p.tag,
            count: U32::new(p.count),
            offset: U32::new(u32::try_from(p.offset).unwrap_or(u32::MAX)),
            length: U32::new(u32::try_from(p.length).unwrap_or(u32::MAX)),
        };
        out.extend_from_slice(row.as_bytes());
    }
    for p in plan.iter().filter(|p| p.length > 0) {
        // Sections follow one another in row order: pad up to this one's offset.
        out.resize(
            usize::try_from(p.offset)
                .unwrap_or(usize::MAX)
                .max(out.len()),
            0,
        );
        match p.content {
            Content::Vertices => write_vertices(&mut out, mesh, compact),
            Content::Sets => write_sets(&mut out, mesh),
            Content::Bones => write_bones(&mut out, bones)?,
            Content::Foreign(f) => out.extend_from_slice(&f.bytes),
            Content::Empty => {}
        }
    }
    Ok(out)
}

fn u32s<const N: usize>(a: [u32; N]) -> [U32; N] {
    a.map(U32::new)
}

fn f32s<const N: usize>(a: [f32; N]) -> [F32; N] {
    a.map(F32::new)
}

/// The record index: a vertex count is a u32 (checked by `count32` before writing).
fn index32(i: usize) -> U32 {
    U32::new(u32::try_from(i).unwrap_or(u32::MAX))
}

fn write_vertices(out: &mut Vec<u8>, mesh: &Mesh, compact: bool) {
    for (i, v) in mesh.vertices().iter().enumerate() {
        if compact {
            let r = RawCompactVertex {
                index: index32(i),
                position: f32s(v.position),
            };
            out.extend_from_slice(r.as_bytes());
        } else {
            let r = RawVertex {
                index: index32(i),
                position: f32s(v.position),
                skin_index: u32s(v.skin.joints),
                skin_weight: f32s(v.skin.weights),
            };
            out.extend_from_slice(r.as_bytes());
        }
    }
}

fn write_sets(out: &mut Vec<u8>, mesh: &Mesh) {
    for set in mesh.extra_sets().iter().flatten() {
        let r = RawSet {
            skin_index: u32s(set.joints),
            skin_weight: f32s(set.weights),
        };
        out.extend_from_slice(r.as_bytes());
    }
}

fn write_bones(out: &mut Vec<u8>, bones: &[dashvertex_core::Bone]) -> Result<(), WriteError> {
    for (i, b) in bones.iter().enumerate() {
        let name = encode_name(&b.name).map_err(|why| WriteError::BoneName {
            bone: i,
            name: b.name.clone(),
            why,
        })?;
        let r = RawBone {
            name,
            index: index32(i),
            parent: U32::new(parent_to_raw(i, b.parent)),
            position: f32s(b.position),
            rotation: f32s(b.rotation),
            scale: f32s(b.scale),
        };
        out.extend_from_slice(r.as_bytes());
    }
    Ok(())
}

/// Writes bare 48-byte records (one set, no skeleton, no header).
pub fn encode_raw(document: &Document) -> Result<Vec<u8>, WriteError> {
    let mesh = &document.mesh;
    let has_bones = document.skeleton.as_ref().is_some_and(|s| !s.is_empty());
    if mesh.set_count() > 1 || has_bones {
        return Err(WriteError::RawCannotHold {
            sets: mesh.set_count(),
            skeleton: has_bones,
        });
    }
    let mut out = Vec::with_capacity(mesh.len() * 48);
    write_vertices(&mut out, mesh, false);
    Ok(out)
}
