//! Decoding errors, each with the byte offset `spec/dashvertex.md` §10.3 assigns to it.

use std::fmt;

use dashvertex_core::LimitError;

use crate::format::{Tag, tag_name};

/// What went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file is shorter than the 16-byte first header row.
    TooShort,
    /// The first four bytes are not `DMX\0`.
    BadMagic(Tag),
    /// `versionMajor` is not 2.
    UnsupportedVersion(u32),
    /// `isSkinned` is neither 0 nor 1.
    BadSkinnedFlag(u32),
    /// The file ends inside the section table.
    TruncatedTable,
    /// A row with a zero tag has non-zero cells.
    ZeroTagRow,
    /// A tag appears twice.
    DuplicateTag(Tag),
    /// A configured limit was exceeded.
    Limit(LimitError),
    /// A section starts inside the section table.
    SectionInTable(Tag),
    /// The first section starts in the middle of a row.
    TableMidRow(Tag),
    /// `length` is not `count × stride`.
    StrideMismatch {
        /// Tag of the row whose `length` does not fit its `count`.
        tag: Tag,
        /// The row's `count` cell (row bytes 0x04–0x07).
        count: u32,
        /// The row's `length` cell in bytes: row bytes 0x0C–0x0F, which is where
        /// the error's offset points.
        length: u32,
        /// The record size(s) it may have.
        stride: &'static str,
    },
    /// A section extends beyond the end of the file.
    OutOfBounds {
        /// Tag of the row whose section runs past the end (reported at its `offset` cell).
        tag: Tag,
        /// One past its last byte.
        end: u64,
        /// The file length.
        file_len: u64,
    },
    /// There is no VERT row.
    MissingVert,
    /// Two sections overlap.
    Overlap {
        /// The later row's section.
        tag: Tag,
        /// The earlier row's section it overlaps.
        other: Tag,
    },
    /// The VSET count is not a multiple of the vertex count.
    SetCount {
        /// The VSET row's `count` cell: the number of 32-byte records, which must be
        /// `(n − 1) × vertices` for `n` sets (rule B5).
        count: u32,
        /// The VERT row's `count` cell; when it is 0, any VSET record at all
        /// is this error.
        vertices: u32,
    },
    /// VSET present together with 16-byte VERT records.
    SetsWithCompactVertices,
    /// A bone name field has no NUL byte.
    NameNotTerminated {
        /// Position of the bone's record in the SKEL section, counted from 0 (the stored
        /// `index` is not used).
        bone: u32,
    },
    /// A bone name is not UTF-8.
    NameNotUtf8 {
        /// Position of the bone's record in the SKEL section, counted from 0 (the stored
        /// `index` is not used).
        bone: u32,
    },
    /// Bytes after a bone name's terminator are not zero.
    NameTrailingBytes {
        /// Position of the bone's record in the SKEL section, counted from 0 (the stored
        /// `index` is not used).
        bone: u32,
    },
    /// A raw record file whose length is not a multiple of 48.
    RawTruncated {
        /// The file length.
        len: u64,
    },
    /// Neither a container (no `DMX\0` magic) nor a raw record array.
    NotDashVertex,
}

/// A decoding error at a byte offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BinaryError {
    /// Byte offset from the start of the file (§10.3).
    pub offset: u64,
    /// What went wrong.
    pub kind: ErrorKind,
}

impl BinaryError {
    /// An error of `kind` at `offset`.
    #[cold]
    pub fn new(offset: u64, kind: ErrorKind) -> Self {
        BinaryError { offset, kind }
    }

    /// A stable lower-case name for the kind (used in reports and vectors).
    pub fn code(&self) -> &'static str {
        match self.kind {
            ErrorKind::TooShort => "too-short",
            ErrorKind::BadMagic(_) => "bad-magic",
            ErrorKind::UnsupportedVersion(_) => "unsupported-version",
            ErrorKind::BadSkinnedFlag(_) => "bad-skinned-flag",
            ErrorKind::TruncatedTable => "truncated-table",
            ErrorKind::ZeroTagRow => "zero-tag-row",
            ErrorKind::DuplicateTag(_) => "duplicate-tag",
            ErrorKind::Limit(_) => "limit",
            ErrorKind::SectionInTable(_) => "section-in-table",
            ErrorKind::TableMidRow(_) => "table-mid-row",
            ErrorKind::StrideMismatch { .. } => "stride-mismatch",
            ErrorKind::OutOfBounds { .. } => "out-of-bounds",
            ErrorKind::MissingVert => "missing-vert",
            ErrorKind::Overlap { .. } => "overlap",
            ErrorKind::SetCount { .. } => "set-count",
            ErrorKind::SetsWithCompactVertices => "sets-with-compact-vertices",
            ErrorKind::NameNotTerminated { .. } => "name-not-terminated",
            ErrorKind::NameNotUtf8 { .. } => "name-not-utf8",
            ErrorKind::NameTrailingBytes { .. } => "name-trailing-bytes",
            ErrorKind::RawTruncated { .. } => "raw-truncated",
            ErrorKind::NotDashVertex => "not-dashvertex",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::TooShort => f.write_str("file too short for the 16-byte header row"),
            ErrorKind::BadMagic(m) => write!(f, "magic is {:02X?}, expected \"DMX\\0\"", m),
            ErrorKind::UnsupportedVersion(v) => {
                write!(f, "unsupported versionMajor {v} (only 2 is supported)")
            }
            ErrorKind::BadSkinnedFlag(v) => write!(f, "isSkinned is {v}; it must be 0 or 1"),
            ErrorKind::TruncatedTable => f.write_str("file ends inside the section table"),
            ErrorKind::ZeroTagRow => f.write_str("row with a zero tag has non-zero cells"),
            ErrorKind::DuplicateTag(t) => write!(f, "section {} appears twice", tag_name(t)),
            ErrorKind::Limit(e) => write!(f, "{e}"),
            ErrorKind::SectionInTable(t) => {
                write!(f, "section {} starts inside the section table", tag_name(t))
            }
            ErrorKind::TableMidRow(t) => write!(
                f,
                "section {} starts in the middle of a header row",
                tag_name(t)
            ),
            ErrorKind::StrideMismatch {
                tag,
                count,
                length,
                stride,
            } => write!(
                f,
                "section {}: length {length} is not count {count} × {stride} bytes",
                tag_name(tag)
            ),
            ErrorKind::OutOfBounds { tag, end, file_len } => write!(
                f,
                "section {} ends at byte {end}, beyond the end of the file ({file_len} bytes)",
                tag_name(tag)
            ),
            ErrorKind::MissingVert => f.write_str("no VERT section row"),
            ErrorKind::Overlap { tag, other } => write!(
                f,
                "section {} overlaps section {}",
                tag_name(tag),
                tag_name(other)
            ),
            ErrorKind::SetCount { count, vertices } => write!(
                f,
                "VSET count {count} is not a multiple of the vertex count {vertices}"
            ),
            ErrorKind::SetsWithCompactVertices => {
                f.write_str("VSET present with 16-byte (unskinned) vertex records")
            }
            ErrorKind::NameNotTerminated { bone } => {
                write!(f, "bone {bone}: name is not NUL-terminated within 32 bytes")
            }
            ErrorKind::NameNotUtf8 { bone } => write!(f, "bone {bone}: name is not UTF-8"),
            ErrorKind::NameTrailingBytes { bone } => write!(
                f,
                "bone {bone}: non-zero bytes after the name's NUL terminator"
            ),
            ErrorKind::RawTruncated { len } => write!(
                f,
                "raw vertex file of {len} bytes is not a whole number of 48-byte records"
            ),
            ErrorKind::NotDashVertex => f.write_str(
                "not a DashVertex file: no DMX\\0 magic, and not raw 48-byte records starting at index 0",
            ),
        }
    }
}

impl fmt::Display for BinaryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at offset 0x{:X})", self.kind, self.offset)
    }
}

impl std::error::Error for BinaryError {
    /// The limit that was exceeded, for [`ErrorKind::Limit`]; the other kinds are found in
    /// the bytes themselves and have no underlying cause.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::Limit(e) => Some(e),
            _ => None,
        }
    }
}
