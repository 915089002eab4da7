//! The canonical writer (`spec/dashvertex.md` §10.2): binrw records in a fixed layout.

use std::io::Cursor;

use dashvertex_core::{Document, Mesh};

use crate::binrw_io::{BinBone, BinCompactVertex, BinHeader, BinRow, BinSet, BinVertex, put};
use crate::format::{
    DMX_ROWS, MAGIC, MINOR_EXTENDED, MINOR_PLAIN, ROW, SKEL, TABLE_START, TEX, Tag, VERSION_MAJOR,
    VERT, VSET, tag_name,
};
use crate::model::{BinaryFile, ForeignSection, parent_to_raw};
use crate::name::encode_name;

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
pub enum WriteError {
    /// DMX offsets and lengths are 32-bit.
    #[error("the file would be {0} bytes; DMX offsets and lengths are 32-bit (at most 4 GiB)")]
    TooLarge(u64),
    /// A bone name does not fit the 32-byte field.
    #[error("bone {bone} name {name:?} cannot be written: {why}")]
    BoneName {
        /// Bone number.
        bone: usize,
        /// The name.
        name: String,
        /// Why.
        why: &'static str,
    },
    /// Raw record files hold one set and no skeleton.
    #[error(
        "raw 48-byte records hold one influence set per vertex and no skeleton; this file has {sets} set(s){}",
        if *skeleton { " and a skeleton" } else { "" }
    )]
    RawCannotHold {
        /// Set count.
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
        "{0} non-zero bytes of the source lie outside every section and would be lost (pass drop_unreferenced / --drop-unreferenced to write anyway)"
    )]
    Unreferenced(u64),
    /// A TEX section would move.
    #[error(
        "the {tag} section holds absolute file offsets and would move from 0x{from:X} to 0x{to:X}"
    )]
    TexRelocation {
        /// Tag name.
        tag: String,
        /// Original offset.
        from: u64,
        /// New offset.
        to: u64,
    },
    /// Serialization failed (writing to memory; not expected).
    #[error("write failed: {0}")]
    Io(String),
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

/// Writes a document as a new container.
pub fn encode_document(document: &Document, opts: &WriteOptions) -> Result<Vec<u8>, WriteError> {
    encode(&BinaryFile::new(document.clone()), opts)
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
    let minor = if compact || extra > 0 {
        MINOR_EXTENDED
    } else {
        MINOR_PLAIN
    };
    let io = |e: binrw::Error| WriteError::Io(e.to_string());
    let mut out = Cursor::new(Vec::with_capacity(total as usize));
    put(
        &mut out,
        &BinHeader {
            magic: MAGIC,
            major: VERSION_MAJOR,
            minor,
            skinned: u32::from(mesh.is_skinned()),
        },
    )
    .map_err(io)?;
    for p in &plan {
        put(
            &mut out,
            &BinRow {
                tag: p.tag,
                count: p.count,
                offset: p.offset as u32,
                length: p.length as u32,
            },
        )
        .map_err(io)?;
    }
    for p in plan.iter().filter(|p| p.length > 0) {
        let here = out.position();
        out.get_mut().resize(p.offset as usize, 0);
        out.set_position(p.offset.max(here));
        match p.content {
            Content::Vertices => write_vertices(&mut out, mesh, compact).map_err(io)?,
            Content::Sets => write_sets(&mut out, mesh).map_err(io)?,
            Content::Bones => write_bones(&mut out, bones)?,
            Content::Foreign(f) => {
                std::io::Write::write_all(&mut out, &f.bytes)
                    .map_err(|e| WriteError::Io(e.to_string()))?;
            }
            Content::Empty => {}
        }
    }
    Ok(out.into_inner())
}

fn write_vertices(
    out: &mut Cursor<Vec<u8>>,
    mesh: &Mesh,
    compact: bool,
) -> Result<(), binrw::Error> {
    for (i, v) in mesh.vertices().iter().enumerate() {
        if compact {
            put(
                out,
                &BinCompactVertex {
                    index: i as u32,
                    position: v.position,
                },
            )?;
        } else {
            put(
                out,
                &BinVertex {
                    index: i as u32,
                    position: v.position,
                    skin_index: v.skin.joints,
                    skin_weight: v.skin.weights,
                },
            )?;
        }
    }
    Ok(())
}

fn write_sets(out: &mut Cursor<Vec<u8>>, mesh: &Mesh) -> Result<(), binrw::Error> {
    for set in mesh.extra_sets().iter().flatten() {
        put(
            out,
            &BinSet {
                skin_index: set.joints,
                skin_weight: set.weights,
            },
        )?;
    }
    Ok(())
}

fn write_bones(
    out: &mut Cursor<Vec<u8>>,
    bones: &[dashvertex_core::Bone],
) -> Result<(), WriteError> {
    for (i, b) in bones.iter().enumerate() {
        let name = encode_name(&b.name).map_err(|why| WriteError::BoneName {
            bone: i,
            name: b.name.clone(),
            why,
        })?;
        put(
            out,
            &BinBone {
                name,
                index: i as u32,
                parent: parent_to_raw(i, b.parent),
                position: b.position,
                rotation: b.rotation,
                scale: b.scale,
            },
        )
        .map_err(|e| WriteError::Io(e.to_string()))?;
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
    let mut out = Cursor::new(Vec::with_capacity(mesh.len() * 48));
    write_vertices(&mut out, mesh, false).map_err(|e| WriteError::Io(e.to_string()))?;
    Ok(out.into_inner())
}
