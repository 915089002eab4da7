//! The zero-copy decoder: records viewed in place with zerocopy, then copied out in bulk.
//!
//! This is the fast path ([`crate::decode`]); the binrw and nom decoders exist to
//! cross-check it.

use dashvertex_core::{Limits, Vertex};
use zerocopy::FromBytes;

use crate::error::{BinaryError, ErrorKind};
use crate::format::{MAGIC, ROW, VERTEX_SIZE};
use crate::model::{self, BinaryFile, FileKind, ForeignSection};
use crate::name::decode_name;
use crate::records::{RawBone, RawCompactVertex, RawHeader, RawRow, RawSet, RawVertex};
use crate::table::{HeaderFields, Layout, Row, RowFields, TableBuilder, VertexLayout};

/// The VERT records of a file, in whichever layout it uses.
#[derive(Clone, Copy, Debug)]
pub enum VertexRecords<'a> {
    /// 48-byte records.
    Full(&'a [RawVertex]),
    /// 16-byte records.
    Compact(&'a [RawCompactVertex]),
}

impl VertexRecords<'_> {
    /// Number of records.
    pub fn len(&self) -> usize {
        match self {
            VertexRecords::Full(r) => r.len(),
            VertexRecords::Compact(r) => r.len(),
        }
    }

    /// True when there is no record.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The model vertices.
    pub fn to_vertices(&self) -> Vec<Vertex> {
        let mut out = Vec::with_capacity(self.len());
        self.extend_vertices(&mut out);
        out
    }

    /// Appends the model vertices to `out` (reuse one buffer to decode many files without
    /// fresh allocations).
    pub fn extend_vertices(&self, out: &mut Vec<Vertex>) {
        match self {
            VertexRecords::Full(r) => out.extend(r.iter().map(RawVertex::vertex)),
            VertexRecords::Compact(r) => out.extend(r.iter().map(RawCompactVertex::vertex)),
        }
    }
}

/// Parses header row 0 from the first 16 bytes.
pub fn header_fields(bytes: &[u8]) -> Result<HeaderFields, BinaryError> {
    let (h, _) = RawHeader::ref_from_prefix(bytes)
        .map_err(|_| BinaryError::new(bytes.len() as u64, ErrorKind::TooShort))?;
    Ok(HeaderFields {
        magic: h.magic,
        major: h.major.get(),
        minor: h.minor.get(),
        skinned: h.skinned.get(),
    })
}

/// Parses a section row from 16 bytes.
pub fn row_fields(bytes: &[u8]) -> Option<RowFields> {
    let (r, _) = RawRow::ref_from_prefix(bytes).ok()?;
    Some(RowFields {
        tag: r.tag,
        count: r.count.get(),
        offset: r.offset.get(),
        length: r.length.get(),
    })
}

/// Reads and checks the section table of a container.
pub fn layout(bytes: &[u8], limits: &Limits) -> Result<Layout, BinaryError> {
    let mut table =
        TableBuilder::start(header_fields(bytes)?, limits)?.with_file_len(bytes.len() as u64);
    while let Some(at) = table.next_row_at() {
        let Some(r) = usize::try_from(at)
            .ok()
            .and_then(|a| bytes.get(a..a + size_of::<crate::records::RawRow>()))
            .and_then(row_fields)
        else {
            break;
        };
        table.push(r)?;
    }
    table.finish(bytes.len() as u64)
}

/// Reads and checks the section table of a container of `len` bytes from a reader,
/// without reading any section (for streaming over files larger than memory).
pub fn read_layout<R: std::io::Read + std::io::Seek>(
    r: &mut R,
    len: u64,
    limits: &Limits,
) -> Result<Layout, BinaryError> {
    let mut head = [0u8; size_of::<crate::records::RawRow>()];
    if len < ROW || read_at(r, 0, &mut head).is_err() {
        return Err(BinaryError::new(len.min(ROW), ErrorKind::TooShort));
    }
    let mut table = TableBuilder::start(header_fields(&head)?, limits)?.with_file_len(len);
    while let Some(at) = table.next_row_at() {
        if at + ROW > len || read_at(r, at, &mut head).is_err() {
            break;
        }
        if let Some(fields) = row_fields(&head) {
            table.push(fields)?;
        }
    }
    table.finish(len)
}

/// Reads exactly `buf.len()` bytes at `offset`.
pub fn read_at<R: std::io::Read + std::io::Seek>(
    r: &mut R,
    offset: u64,
    buf: &mut [u8],
) -> std::io::Result<()> {
    r.seek(std::io::SeekFrom::Start(offset))?;
    r.read_exact(buf)
}

/// A container viewed in place.
#[derive(Clone, Debug)]
pub struct View<'a> {
    bytes: &'a [u8],
    layout: Layout,
}

/// `bytes[start..end]`, or empty when out of range.
pub(crate) fn range(bytes: &[u8], start: u64, end: u64) -> &[u8] {
    let (Ok(s), Ok(e)) = (usize::try_from(start), usize::try_from(end)) else {
        return &[];
    };
    bytes.get(s..e).unwrap_or_default()
}

fn slice<'a>(bytes: &'a [u8], row: Option<&Row>) -> &'a [u8] {
    row.map_or(&[], |r| range(bytes, r.offset, r.end()))
}

impl<'a> View<'a> {
    /// Checks the header and table of a container.
    pub fn parse(bytes: &'a [u8], limits: &Limits) -> Result<Self, BinaryError> {
        Ok(View {
            layout: layout(bytes, limits)?,
            bytes,
        })
    }

    /// The checked table.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The bytes of a section.
    pub fn section(&self, row: &Row) -> &'a [u8] {
        slice(self.bytes, Some(row))
    }

    /// The VERT records.
    pub fn vertices(&self) -> VertexRecords<'a> {
        let b = slice(self.bytes, self.layout.vert());
        match self.layout.vertex_layout {
            VertexLayout::Full => {
                VertexRecords::Full(<[RawVertex]>::ref_from_bytes(b).unwrap_or_default())
            }
            VertexLayout::Compact => {
                VertexRecords::Compact(<[RawCompactVertex]>::ref_from_bytes(b).unwrap_or_default())
            }
        }
    }

    /// The VSET records (sets 1.., set-major).
    pub fn sets(&self) -> &'a [RawSet] {
        <[RawSet]>::ref_from_bytes(slice(self.bytes, self.layout.vset())).unwrap_or_default()
    }

    /// The SKEL records.
    pub fn bones(&self) -> &'a [RawBone] {
        <[RawBone]>::ref_from_bytes(slice(self.bytes, self.layout.skel())).unwrap_or_default()
    }

    /// Copies everything out (phase D checks the bone names).
    pub fn to_file(&self) -> Result<BinaryFile, BinaryError> {
        let skel_offset = self.layout.skel().map_or(0, |r| r.offset);
        let bones = self.bones();
        let skeleton = if bones.is_empty() {
            None
        } else {
            let mut out = Vec::with_capacity(bones.len());
            for (i, b) in bones.iter().enumerate() {
                let at = skel_offset + i as u64 * std::mem::size_of::<RawBone>() as u64;
                let name = decode_name(&b.name, u32::try_from(i).unwrap_or(u32::MAX), at)?;
                out.push(model::bone(i, name, b.parent.get(), b.transform()));
            }
            Some(out)
        };
        let foreign = self
            .layout
            .foreign_rows()
            .map(|r| ForeignSection {
                tag: r.tag,
                count: r.count,
                bytes: self.section(r).to_vec(),
                source_offset: r.present().then_some(r.offset),
            })
            .collect();
        let unreferenced = self
            .layout
            .gaps()
            .iter()
            .map(|&(s, e)| range(self.bytes, s, e).iter().filter(|&&b| b != 0).count() as u64)
            .sum();
        Ok(BinaryFile {
            kind: FileKind::Container,
            minor: self.layout.minor,
            vertex_layout: self.layout.vertex_layout,
            document: model::document(
                self.layout.skinned,
                self.vertices().to_vertices(),
                self.sets().iter().map(RawSet::set).collect(),
                skeleton,
            ),
            foreign,
            unreferenced,
        })
    }
}

/// Decides what the bytes are from their first (up to) four bytes and total length
/// (`spec/dashvertex.md` §10.1).
pub fn detect(first: &[u8], len: u64) -> Result<FileKind, BinaryError> {
    let n = first.len().min(4);
    let head = first.get(..n).unwrap_or_default();
    if n > 0 && MAGIC.starts_with(head) && (n == 4 || len < 4) {
        return Ok(FileKind::Container);
    }
    let raw_ok = len.is_multiple_of(VERTEX_SIZE) && (len == 0 || head == [0, 0, 0, 0]);
    if raw_ok {
        Ok(FileKind::Raw)
    } else {
        Err(BinaryError::new(0, ErrorKind::NotDashVertex))
    }
}

/// Checks a raw record file's length and count.
pub fn raw_check(len: u64, limits: &Limits) -> Result<(), BinaryError> {
    if !len.is_multiple_of(VERTEX_SIZE) {
        return Err(BinaryError::new(
            len - len % VERTEX_SIZE,
            ErrorKind::RawTruncated { len },
        ));
    }
    limits.check_vertices(len / VERTEX_SIZE).map_err(|e| {
        BinaryError::new(
            limits.max_vertices.saturating_mul(VERTEX_SIZE),
            ErrorKind::Limit(e),
        )
    })
}

/// Decodes bare 48-byte records.
pub fn decode_raw(bytes: &[u8], limits: &Limits) -> Result<BinaryFile, BinaryError> {
    raw_check(bytes.len() as u64, limits)?;
    let records = <[RawVertex]>::ref_from_bytes(bytes).unwrap_or_default();
    let vertices: Vec<Vertex> = records.iter().map(RawVertex::vertex).collect();
    Ok(model::raw_file(vertices))
}
