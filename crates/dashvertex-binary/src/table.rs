//! The section table: the checks of `spec/dashvertex.md` §10.2–10.3 in their defined order.
//!
//! Every decoder parses header bytes its own way and feeds the values to a
//! `TableBuilder` (crate-private), one row at a time; the builder applies the phase A
//! checks as rows arrive and phases B and C in `TableBuilder::finish`, which returns the
//! [`Layout`]. Sharing the rules (not the parsing) is what makes the decoders agree on
//! which error a damaged file gets.

use std::collections::BTreeMap;

use dashvertex_core::Limits;

use crate::error::{BinaryError, ErrorKind};
use crate::format::{
    COMPACT_SIZE, MAGIC, ROW, SKEL, TABLE_START, Tag, VERSION_MAJOR, VERT, VERTEX_SIZE, VSET,
    stride,
};

/// The values of header row 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeaderFields {
    /// Bytes 0x00–0x03 as read, not yet checked; `DMX\0` in a container.
    pub magic: [u8; 4],
    /// `versionMajor` (bytes 0x04–0x07) as read; the table rules accept only 2.
    pub major: u32,
    /// `versionMinor` (bytes 0x08–0x0B) as read; any value is accepted.
    pub minor: u32,
    /// `isSkinned` (bytes 0x0C–0x0F) as read; the table rules accept only 0 and 1.
    pub skinned: u32,
}

/// The values of one section row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RowFields {
    pub tag: Tag,
    pub count: u32,
    pub offset: u32,
    pub length: u32,
}

/// A section row and where it sits in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    /// Offset of the row itself.
    pub at: u64,
    /// The four tag bytes, three-letter tags padded with a NUL (`TEX\0`); never all zero,
    /// since empty slots are not kept.
    pub tag: Tag,
    /// The `count` cell: the number of records. For VERT, SKEL and VSET the table rules
    /// have checked `length = count × stride`; for other tags it is kept as written.
    pub count: u32,
    /// Offset of the section.
    pub offset: u64,
    /// Length of the section in bytes.
    pub length: u64,
}

impl Row {
    /// True when the section has bytes.
    pub fn present(&self) -> bool {
        self.length > 0
    }

    /// One past the section's last byte.
    pub fn end(&self) -> u64 {
        self.offset + self.length
    }
}

/// Which VERT record the file uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VertexLayout {
    /// The 48-byte record.
    Full,
    /// The 16-byte unskinned record.
    Compact,
}

impl VertexLayout {
    /// Record size in bytes.
    pub fn stride(self) -> u64 {
        match self {
            VertexLayout::Full => VERTEX_SIZE,
            VertexLayout::Compact => COMPACT_SIZE,
        }
    }
}

/// A checked section table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// `versionMinor` from the header; any value is accepted (dash writes 0, or 1 when the
    /// file uses VSET or 16-byte VERT records).
    pub minor: u32,
    /// `isSkinned` from the header, which the table rules allow only as 0 or 1.
    pub skinned: bool,
    /// Every non-empty-slot row, in table order.
    pub rows: Vec<Row>,
    /// First byte after the table.
    pub table_end: u64,
    /// Length of the file in bytes; every present section ends at or before it.
    pub file_len: u64,
    /// VERT record layout.
    pub vertex_layout: VertexLayout,
    vert: usize,
    vset: Option<usize>,
    skel: Option<usize>,
}

impl Layout {
    /// The VERT row.
    pub fn vert(&self) -> Option<&Row> {
        self.rows.get(self.vert)
    }

    /// The VSET row, if any.
    pub fn vset(&self) -> Option<&Row> {
        self.vset.and_then(|i| self.rows.get(i))
    }

    /// The SKEL row, if any.
    pub fn skel(&self) -> Option<&Row> {
        self.skel.and_then(|i| self.rows.get(i))
    }

    /// Number of vertices.
    pub fn vertex_count(&self) -> u32 {
        self.vert().map_or(0, |r| r.count)
    }

    /// Number of influence sets per vertex.
    pub fn set_count(&self) -> usize {
        let v = self.vertex_count();
        let extra = self.vset().map_or(0, |r| r.count);
        1 + extra.checked_div(v).unwrap_or(0) as usize
    }

    /// Rows of sections dash does not model (everything but VERT, VSET, SKEL), in table
    /// order.
    pub fn foreign_rows(&self) -> impl Iterator<Item = &Row> {
        self.rows
            .iter()
            .filter(|r| ![VERT, VSET, SKEL].contains(&r.tag))
    }

    /// Byte ranges after the table that belong to no section, in file order.
    pub fn gaps(&self) -> Vec<(u64, u64)> {
        let mut present: Vec<&Row> = self.rows.iter().filter(|r| r.present()).collect();
        present.sort_by_key(|r| r.offset);
        let mut gaps = Vec::new();
        let mut pos = self.table_end;
        for r in present {
            if r.offset > pos {
                gaps.push((pos, r.offset));
            }
            pos = pos.max(r.end());
        }
        if self.file_len > pos {
            gaps.push((pos, self.file_len));
        }
        gaps
    }
}

/// Applies the table rules as rows arrive.
#[derive(Clone, Debug)]
pub(crate) struct TableBuilder {
    limits: Limits,
    minor: u32,
    skinned: bool,
    rows: Vec<Row>,
    next: u64,
    table_end: Option<u64>,
    /// Offset of the row whose section starts first.
    first_row: u64,
    layout: VertexLayout,
    /// The file's length, when the reader knows it before the table ends.
    file_len: Option<u64>,
}

fn err(offset: u64, kind: ErrorKind) -> BinaryError {
    BinaryError::new(offset, kind)
}

impl TableBuilder {
    /// Checks header row 0 (magic, version, isSkinned).
    pub fn start(h: HeaderFields, limits: &Limits) -> Result<Self, BinaryError> {
        if h.magic != MAGIC {
            return Err(err(0, ErrorKind::BadMagic(h.magic)));
        }
        if h.major != VERSION_MAJOR {
            return Err(err(4, ErrorKind::UnsupportedVersion(h.major)));
        }
        if h.skinned > 1 {
            return Err(err(12, ErrorKind::BadSkinnedFlag(h.skinned)));
        }
        Ok(TableBuilder {
            limits: *limits,
            minor: h.minor,
            skinned: h.skinned == 1,
            rows: Vec::new(),
            next: TABLE_START,
            table_end: None,
            first_row: 0,
            layout: VertexLayout::Full,
            file_len: None,
        })
    }

    /// Tells the builder the file's length, so that a row failing phase A after a row
    /// whose section lies beyond the end is blamed on that earlier row.
    #[must_use]
    pub fn with_file_len(mut self, len: u64) -> Self {
        self.file_len = Some(len);
        self
    }

    /// Offset of the next row to read, or `None` when the table is complete. While no
    /// section is known, rows continue to the end of the file.
    pub fn next_row_at(&self) -> Option<u64> {
        match self.table_end {
            Some(end) if self.next + ROW > end => None,
            _ => Some(self.next),
        }
    }

    /// Applies the phase A checks to the row at [`TableBuilder::next_row_at`].
    ///
    /// When the row fails them and the file's length is known, an earlier row whose
    /// section lies beyond the end of the file is reported instead: a wrong section
    /// offset makes the table run on into section data, and the bytes found there are
    /// only its symptom (spec §10.3).
    pub fn push(&mut self, r: RowFields) -> Result<(), BinaryError> {
        self.check_row(r)
            .map_err(|e| self.out_of_bounds().unwrap_or(e))
    }

    /// The first row read so far whose section ends beyond the known file length.
    fn out_of_bounds(&self) -> Option<BinaryError> {
        let file_len = self.file_len?;
        let r = self
            .rows
            .iter()
            .find(|r| r.present() && r.end() > file_len)?;
        Some(err(
            r.at + 8,
            ErrorKind::OutOfBounds {
                tag: r.tag,
                end: r.end(),
                file_len,
            },
        ))
    }

    fn check_row(&mut self, r: RowFields) -> Result<(), BinaryError> {
        let at = self.next;
        self.next += ROW;
        if r.tag == [0; 4] {
            if r.count != 0 || r.offset != 0 || r.length != 0 {
                return Err(err(at, ErrorKind::ZeroTagRow));
            }
            return Ok(());
        }
        if self.rows.iter().any(|x| x.tag == r.tag) {
            return Err(err(at, ErrorKind::DuplicateTag(r.tag)));
        }
        let count = u64::from(r.count);
        let limit = match r.tag {
            VERT => self.limits.check_vertices(count),
            SKEL => self.limits.check_bones(count),
            VSET => self
                .limits
                .check_vertices(count / self.limits.max_sets.saturating_sub(1).max(1)),
            _ => Ok(()),
        };
        limit.map_err(|e| err(at + 4, ErrorKind::Limit(e)))?;
        let (offset, length) = (u64::from(r.offset), u64::from(r.length));
        if length > 0 {
            if offset < at + ROW {
                return Err(err(at + 8, ErrorKind::SectionInTable(r.tag)));
            }
            if self.table_end.is_none_or(|e| offset < e) {
                self.table_end = Some(offset);
                self.first_row = at;
            }
        }
        let mismatch = |s: &'static str| {
            err(
                at + 12,
                ErrorKind::StrideMismatch {
                    tag: r.tag,
                    count: r.count,
                    length: r.length,
                    stride: s,
                },
            )
        };
        if r.tag == VERT {
            if length == count * VERTEX_SIZE {
                self.layout = VertexLayout::Full;
            } else if !self.skinned && length == count * COMPACT_SIZE {
                self.layout = VertexLayout::Compact;
            } else if self.skinned {
                return Err(mismatch("48"));
            } else {
                return Err(mismatch("48 (or 16 when unskinned)"));
            }
        } else if let Some(s) = stride(&r.tag)
            && length != count * s
        {
            return Err(mismatch(if s == 80 { "80" } else { "32" }));
        }
        self.rows.push(Row {
            at,
            tag: r.tag,
            count: r.count,
            offset,
            length,
        });
        Ok(())
    }

    /// The VERT layout the rows so far imply.
    #[cfg(feature = "reference")]
    pub fn vertex_layout(&self) -> VertexLayout {
        self.layout
    }

    /// The rows read so far (empty slots excluded), in table order.
    #[cfg(feature = "reference")]
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// Checks the end of a table whose rows have all been read: the first section must
    /// start on a row boundary. Call it once [`TableBuilder::next_row_at`] says `None`.
    pub fn check_end(&self) -> Result<(), BinaryError> {
        match self.table_end {
            Some(end) if self.next != end => {
                let tag = self
                    .rows
                    .iter()
                    .find(|r| r.at == self.first_row)
                    .map_or([0; 4], |r| r.tag);
                Err(err(self.first_row + 8, ErrorKind::TableMidRow(tag)))
            }
            _ => Ok(()),
        }
    }

    /// Checks that the table is complete in a file of `file_len` bytes.
    pub fn check_complete(&self, file_len: u64) -> Result<(), BinaryError> {
        let complete = match self.next_row_at() {
            None => return self.check_end(),
            Some(next) => self.table_end.is_none() && next == file_len,
        };
        if complete {
            Ok(())
        } else {
            Err(err(self.next, ErrorKind::TruncatedTable))
        }
    }

    /// Phase C: checks that need the whole table but not the file length.
    pub fn check_cross(&self) -> Result<(), BinaryError> {
        let Some(vert) = self.rows.iter().find(|r| r.tag == VERT) else {
            return Err(err(TABLE_START, ErrorKind::MissingVert));
        };
        let mut taken: BTreeMap<u64, (u64, Tag)> = BTreeMap::new();
        for r in self.rows.iter().filter(|r| r.present()) {
            if let Some((_, (end, tag))) = taken.range(..r.end()).next_back()
                && *end > r.offset
            {
                return Err(err(
                    r.at + 8,
                    ErrorKind::Overlap {
                        tag: r.tag,
                        other: *tag,
                    },
                ));
            }
            taken.insert(r.offset, (r.end(), r.tag));
        }
        if let Some(vset) = self.rows.iter().find(|r| r.tag == VSET && r.count > 0) {
            if self.layout == VertexLayout::Compact {
                return Err(err(vset.at + 4, ErrorKind::SetsWithCompactVertices));
            }
            if vert.count == 0 || vset.count % vert.count != 0 {
                return Err(err(
                    vset.at + 4,
                    ErrorKind::SetCount {
                        count: vset.count,
                        vertices: vert.count,
                    },
                ));
            }
            let sets = u64::from(vset.count / vert.count) + 1;
            self.limits
                .check_sets(sets)
                .map_err(|e| err(vset.at + 4, ErrorKind::Limit(e)))?;
        }
        Ok(())
    }

    /// Phase B: every section lies within a file of `file_len` bytes.
    pub fn check_bounds(&self, file_len: u64) -> Result<(), BinaryError> {
        for r in self.rows.iter().filter(|r| r.present()) {
            if r.end() > file_len {
                return Err(err(
                    r.at + 8,
                    ErrorKind::OutOfBounds {
                        tag: r.tag,
                        end: r.end(),
                        file_len,
                    },
                ));
            }
        }
        Ok(())
    }

    /// Completes the table for a file of `file_len` bytes: table completeness, then
    /// phase B, then phase C.
    pub fn finish(self, file_len: u64) -> Result<Layout, BinaryError> {
        self.check_complete(file_len)?;
        self.check_bounds(file_len)?;
        self.check_cross()?;
        let find = |t: Tag| self.rows.iter().position(|r| r.tag == t);
        let vert = find(VERT).unwrap_or(0);
        let vset = find(VSET);
        let skel = find(SKEL);
        Ok(Layout {
            minor: self.minor,
            skinned: self.skinned,
            table_end: self.table_end.unwrap_or(file_len),
            file_len,
            vertex_layout: self.layout,
            vert,
            vset,
            skel,
            rows: self.rows,
        })
    }
}
