//! The binrw reference decoder (feature `reference`): the records declared again with
//! binrw's attributes, read field by field through a [`std::io::Cursor`], independently
//! of the zero-copy view, so that the two can be checked against each other; only the
//! table rules ([`crate::table`]) and the name rule are shared.

use std::io::Cursor;

use binrw::{BinRead, binread};
use dashvertex_core::{InfluenceSet, Limits, Vertex};

use crate::error::{BinaryError, ErrorKind};
use crate::format::{BONE_SIZE, ROW};
use crate::model::{self, BinaryFile, FileKind, ForeignSection};
use crate::name::decode_name;
use crate::table::{HeaderFields, Layout, Row, RowFields, TableBuilder, VertexLayout};

/// Header row 0.
#[binread]
#[br(little)]
#[derive(Clone, Copy, Debug)]
pub struct BinHeader {
    /// Bytes 0x00–0x03: the magic, `DMX\0` in a container (checked by the table rules,
    /// not when reading).
    pub magic: [u8; 4],
    /// Bytes 0x04–0x07: `versionMajor`; only 2 is accepted.
    pub major: u32,
    /// Bytes 0x08–0x0B: `versionMinor`; any value is accepted.
    pub minor: u32,
    /// Bytes 0x0C–0x0F: `isSkinned`; only 0 and 1 are accepted.
    pub skinned: u32,
}

/// A section row.
#[binread]
#[br(little)]
#[derive(Clone, Copy, Debug)]
pub struct BinRow {
    /// Row bytes 0x00–0x03: the section tag; four zero bytes in an empty slot.
    pub tag: [u8; 4],
    /// Row bytes 0x04–0x07: the number of records in the section.
    pub count: u32,
    /// Row bytes 0x08–0x0B: where the section starts, in bytes from the start of the file.
    pub offset: u32,
    /// Row bytes 0x0C–0x0F: the section's length in bytes; 0 means the section is absent.
    pub length: u32,
}

/// The 48-byte VERT record.
#[binread]
#[br(little)]
#[derive(Clone, Copy, Debug)]
pub struct BinVertex {
    /// Bytes 0x00–0x03: `index`, read but not used (readers go by position, §9).
    pub index: u32,
    /// Bytes 0x04–0x0F: `x`, `y`, `z`.
    pub position: [f32; 3],
    /// Bytes 0x10–0x1F: `skinIndex[0..4]`, the bone indices of set 0.
    pub skin_index: [u32; 4],
    /// Bytes 0x20–0x2F: `skinWeight[0..4]`, the weights of set 0; slot `k` goes with
    /// `skin_index[k]`.
    pub skin_weight: [f32; 4],
}

/// The 16-byte VERT record.
#[binread]
#[br(little)]
#[derive(Clone, Copy, Debug)]
pub struct BinCompactVertex {
    /// Bytes 0x00–0x03: `index`, read but not used (readers go by position, §9).
    pub index: u32,
    /// Bytes 0x04–0x0F: `x`, `y`, `z`.
    pub position: [f32; 3],
}

/// The 32-byte VSET record.
#[binread]
#[br(little)]
#[derive(Clone, Copy, Debug)]
pub struct BinSet {
    /// Bytes 0x00–0x0F: `skinIndex[0..4]`, the bone indices of this set.
    pub skin_index: [u32; 4],
    /// Bytes 0x10–0x1F: `skinWeight[0..4]`, the weights of this set; slot `k` goes with
    /// `skin_index[k]`.
    pub skin_weight: [f32; 4],
}

/// The 80-byte SKEL record.
#[binread]
#[br(little)]
#[derive(Clone, Copy, Debug)]
pub struct BinBone {
    /// Bytes 0x00–0x1F: `name`, UTF-8, NUL-terminated and zero-filled (rule B6;
    /// [`decode_name`] checks it).
    pub name: [u8; 32],
    /// Bytes 0x20–0x23: `index`, read but not used (readers go by position, §9).
    pub index: u32,
    /// Bytes 0x24–0x27: `parentIndex`, the parent's bone index; `0xFFFFFFFF` for no
    /// parent, or 0 for bone 0 (§10.6, [`parent_from_raw`](crate::parent_from_raw)).
    pub parent: u32,
    /// Bytes 0x28–0x33: `position`, the local translation x, y, z.
    pub position: [f32; 3],
    /// Bytes 0x34–0x43: `rotation`, the local rotation quaternion x, y, z, w.
    pub rotation: [f32; 4],
    /// Bytes 0x44–0x4F: `scale`, the local scale x, y, z.
    pub scale: [f32; 3],
}

fn io_error(c: &Cursor<&[u8]>) -> BinaryError {
    // The table checks guarantee every read is in bounds; this is unreachable in practice.
    BinaryError::new(c.position(), ErrorKind::TooShort)
}

fn read<T>(c: &mut Cursor<&[u8]>) -> Result<T, BinaryError>
where
    T: BinRead + binrw::meta::ReadEndian,
    for<'a> T::Args<'a>: Default,
{
    T::read(c).map_err(|_| io_error(c))
}

fn read_layout(bytes: &[u8], limits: &Limits) -> Result<Layout, BinaryError> {
    let len = bytes.len() as u64;
    if len < ROW {
        return Err(BinaryError::new(len, ErrorKind::TooShort));
    }
    let mut c = Cursor::new(bytes);
    let h: BinHeader = read(&mut c)?;
    let mut table = TableBuilder::start(
        HeaderFields {
            magic: h.magic,
            major: h.major,
            minor: h.minor,
            skinned: h.skinned,
        },
        limits,
    )?
    .with_file_len(len);
    while let Some(at) = table.next_row_at() {
        if at + ROW > len {
            break;
        }
        c.set_position(at);
        let r: BinRow = read(&mut c)?;
        table.push(RowFields {
            tag: r.tag,
            count: r.count,
            offset: r.offset,
            length: r.length,
        })?;
    }
    table.finish(len)
}

fn records<T>(c: &mut Cursor<&[u8]>, row: Option<&Row>) -> Result<Vec<T>, BinaryError>
where
    T: BinRead + binrw::meta::ReadEndian,
    for<'a> T::Args<'a>: Default,
{
    let Some(row) = row else {
        return Ok(Vec::new());
    };
    c.set_position(row.offset);
    (0..row.count).map(|_| read(c)).collect()
}

fn set(s: &BinSet) -> InfluenceSet {
    InfluenceSet {
        joints: s.skin_index,
        weights: s.skin_weight,
    }
}

/// Decodes a container with binrw.
pub fn decode_container(bytes: &[u8], limits: &Limits) -> Result<BinaryFile, BinaryError> {
    let layout = read_layout(bytes, limits)?;
    let mut c = Cursor::new(bytes);
    let vertices: Vec<Vertex> = match layout.vertex_layout {
        VertexLayout::Full => records::<BinVertex>(&mut c, layout.vert())?
            .iter()
            .map(|v| Vertex {
                position: v.position,
                skin: InfluenceSet {
                    joints: v.skin_index,
                    weights: v.skin_weight,
                },
            })
            .collect(),
        VertexLayout::Compact => records::<BinCompactVertex>(&mut c, layout.vert())?
            .iter()
            .map(|v| Vertex::at(v.position))
            .collect(),
    };
    let sets: Vec<InfluenceSet> = records::<BinSet>(&mut c, layout.vset())?
        .iter()
        .map(set)
        .collect();
    let raw_bones: Vec<BinBone> = records(&mut c, layout.skel())?;
    let skel_at = layout.skel().map_or(0, |r| r.offset);
    let skeleton = if raw_bones.is_empty() {
        None
    } else {
        let mut bones = Vec::with_capacity(raw_bones.len());
        for (i, b) in raw_bones.iter().enumerate() {
            let name = decode_name(&b.name, i as u32, skel_at + i as u64 * BONE_SIZE)?;
            bones.push(model::bone(
                i,
                name,
                b.parent,
                (b.position, b.rotation, b.scale),
            ));
        }
        Some(bones)
    };
    let mut foreign = Vec::new();
    for r in layout.foreign_rows() {
        c.set_position(r.offset);
        let mut buf = vec![0u8; if r.present() { r.length as usize } else { 0 }];
        std::io::Read::read_exact(&mut c, &mut buf).map_err(|_| io_error(&c))?;
        foreign.push(ForeignSection {
            tag: r.tag,
            count: r.count,
            bytes: buf,
            source_offset: r.present().then_some(r.offset),
        });
    }
    let mut unreferenced = 0u64;
    for (s, e) in layout.gaps() {
        c.set_position(s);
        let mut buf = vec![0u8; (e - s) as usize];
        std::io::Read::read_exact(&mut c, &mut buf).map_err(|_| io_error(&c))?;
        unreferenced += buf.iter().filter(|&&b| b != 0).count() as u64;
    }
    Ok(BinaryFile {
        kind: FileKind::Container,
        minor: layout.minor,
        vertex_layout: layout.vertex_layout,
        document: model::document(layout.skinned, vertices, sets, skeleton),
        foreign,
        unreferenced,
    })
}

/// Decodes bare 48-byte records with binrw.
pub fn decode_raw(bytes: &[u8], limits: &Limits) -> Result<BinaryFile, BinaryError> {
    crate::view::raw_check(bytes.len() as u64, limits)?;
    let mut c = Cursor::new(bytes);
    let n = bytes.len() as u64 / 48;
    let vertices: Vec<Vertex> = (0..n)
        .map(|_| {
            read::<BinVertex>(&mut c).map(|v| Vertex {
                position: v.position,
                skin: InfluenceSet {
                    joints: v.skin_index,
                    weights: v.skin_weight,
                },
            })
        })
        .collect::<Result<_, _>>()?;
    Ok(model::raw_file(vertices))
}

/// Decodes a file of either kind with binrw (detection as [`crate::detect`]).
pub fn decode(bytes: &[u8], limits: &Limits) -> Result<BinaryFile, BinaryError> {
    match crate::view::detect(bytes, bytes.len() as u64)? {
        FileKind::Container => decode_container(bytes, limits),
        FileKind::Raw => decode_raw(bytes, limits),
    }
}
