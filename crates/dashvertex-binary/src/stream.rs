//! The streaming decoder: nom parsers over bytes that arrive in chunks of any size.
//!
//! Feed chunks with [`StreamDecoder::feed`] and call [`StreamDecoder::finish`] at the end
//! of the input. The result is the same as decoding the whole input at once, whatever
//! the chunk sizes; errors carry the same byte offsets. Memory holds the decoded data
//! plus at most one partial record.

use dashvertex_core::{Bone, InfluenceSet, Limits, Vertex};
use nom::bytes::streaming::take;
use nom::number::streaming::{le_f32, le_u32};
use nom::{IResult, Parser};

use crate::error::{BinaryError, ErrorKind};
use crate::format::{BONE_SIZE, MAGIC, ROW, SKEL, VERT, VSET};
use crate::model::{self, BinaryFile, FileKind, ForeignSection};
use crate::name::decode_name;
use crate::table::{HeaderFields, Row, RowFields, TableBuilder, VertexLayout};
use crate::view::{detect, raw_check};

/// What the decoder expects the input to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Decide from the first bytes and the length (§10.1).
    Detect,
    /// A container, without detection: the input is read from header row 0 on, so input
    /// without the `DMX\0` magic fails with [`ErrorKind::BadMagic`] (or
    /// [`ErrorKind::TooShort`] below 16 bytes).
    Container,
    /// Raw 48-byte records.
    Raw,
}

type Res<'a, T> = IResult<&'a [u8], T>;

fn arr4_u32(i: &[u8]) -> Res<'_, [u32; 4]> {
    (le_u32, le_u32, le_u32, le_u32)
        .map(|(a, b, c, d)| [a, b, c, d])
        .parse(i)
}

fn arr4_f32(i: &[u8]) -> Res<'_, [f32; 4]> {
    (le_f32, le_f32, le_f32, le_f32)
        .map(|(a, b, c, d)| [a, b, c, d])
        .parse(i)
}

fn vec3(i: &[u8]) -> Res<'_, [f32; 3]> {
    (le_f32, le_f32, le_f32).map(|(a, b, c)| [a, b, c]).parse(i)
}

fn tag(i: &[u8]) -> Res<'_, [u8; 4]> {
    take(4usize)
        .map(|t: &[u8]| {
            let mut a = [0u8; 4];
            for (d, s) in a.iter_mut().zip(t) {
                *d = *s;
            }
            a
        })
        .parse(i)
}

fn header(i: &[u8]) -> Res<'_, HeaderFields> {
    (tag, le_u32, le_u32, le_u32)
        .map(|(magic, major, minor, skinned)| HeaderFields {
            magic,
            major,
            minor,
            skinned,
        })
        .parse(i)
}

fn row(i: &[u8]) -> Res<'_, RowFields> {
    (tag, le_u32, le_u32, le_u32)
        .map(|(tag, count, offset, length)| RowFields {
            tag,
            count,
            offset,
            length,
        })
        .parse(i)
}

fn vertex(i: &[u8]) -> Res<'_, Vertex> {
    (le_u32, vec3, arr4_u32, arr4_f32)
        .map(|(_, position, joints, weights)| Vertex {
            position,
            skin: InfluenceSet { joints, weights },
        })
        .parse(i)
}

fn compact_vertex(i: &[u8]) -> Res<'_, Vertex> {
    (le_u32, vec3).map(|(_, p)| Vertex::at(p)).parse(i)
}

fn set(i: &[u8]) -> Res<'_, InfluenceSet> {
    (arr4_u32, arr4_f32)
        .map(|(joints, weights)| InfluenceSet { joints, weights })
        .parse(i)
}

/// A bone record's fields: name bytes, parentIndex, transform.
type BoneFields = ([u8; 32], u32, ([f32; 3], [f32; 4], [f32; 3]));

fn bone(i: &[u8]) -> Res<'_, BoneFields> {
    (take(32usize), le_u32, le_u32, vec3, arr4_f32, vec3)
        .map(|(name, _, parent, p, r, s): (&[u8], _, _, _, _, _)| {
            let mut n = [0u8; 32];
            for (d, x) in n.iter_mut().zip(name) {
                *d = *x;
            }
            (n, parent, (p, r, s))
        })
        .parse(i)
}

/// Decoded section content.
#[derive(Default)]
struct Content {
    vertices: Vec<Vertex>,
    sets: Vec<InfluenceSet>,
    bones: Vec<Bone>,
    foreign: Vec<(Row, Vec<u8>)>,
    name_error: Option<BinaryError>,
    unreferenced: u64,
}

enum State {
    Detect,
    Header,
    Table(TableBuilder),
    Body {
        table: TableBuilder,
        /// Present sections in file order.
        sections: Vec<Row>,
        /// Index of the section at or after the current position.
        next: usize,
        /// The table failed phase C: skip content until the end.
        skip: bool,
    },
    Raw,
    Failed(BinaryError),
}

/// Incremental decoder (see the module documentation).
pub struct StreamDecoder {
    limits: Limits,
    expect: Expect,
    state: State,
    /// Bytes received but not consumed; `buf[0]` is at absolute offset `pos`.
    buf: Vec<u8>,
    pos: u64,
    first: Vec<u8>,
    content: Content,
    /// The input's total length, when known in advance.
    len: Option<u64>,
}

impl StreamDecoder {
    /// A decoder for input of the given kind.
    pub fn new(expect: Expect, limits: &Limits) -> Self {
        StreamDecoder {
            limits: *limits,
            expect,
            state: match expect {
                Expect::Detect => State::Detect,
                Expect::Container => State::Header,
                Expect::Raw => State::Raw,
            },
            buf: Vec::new(),
            pos: 0,
            first: Vec::new(),
            content: Content::default(),
            len: None,
        }
    }

    /// Tells the decoder the input's total length in advance. A section beyond the end
    /// is then reported at its own row, as the in-memory readers do (spec §10.3); without
    /// it, that check waits for [`StreamDecoder::finish`].
    #[must_use]
    pub fn with_len(mut self, len: u64) -> Self {
        self.len = Some(len);
        self
    }

    /// Adds the next chunk. An error is returned as soon as it is certain; later calls
    /// then return the same error.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), BinaryError> {
        if self.first.len() < 4 {
            let need = 4 - self.first.len();
            self.first
                .extend_from_slice(chunk.get(..need.min(chunk.len())).unwrap_or_default());
        }
        self.buf.extend_from_slice(chunk);
        let step = self.advance();
        if let Err(e) = &step {
            self.state = State::Failed(e.clone());
        }
        step
    }

    fn consume(&mut self, n: usize) {
        self.buf.drain(..n.min(self.buf.len()));
        self.pos += n as u64;
    }

    fn advance(&mut self) -> Result<(), BinaryError> {
        loop {
            match std::mem::replace(&mut self.state, State::Raw) {
                State::Failed(e) => {
                    self.state = State::Failed(e.clone());
                    return Err(e);
                }
                State::Detect => {
                    if self.first.len() < 4 {
                        self.state = State::Detect;
                        return Ok(());
                    }
                    if self.first == MAGIC {
                        self.state = State::Header;
                    } else if self.first == [0; 4] {
                        self.state = State::Raw;
                    } else {
                        return Err(BinaryError::new(0, ErrorKind::NotDashVertex));
                    }
                }
                State::Header => match header(&self.buf) {
                    Ok((_, h)) => {
                        let mut t = TableBuilder::start(h, &self.limits)?;
                        if let Some(len) = self.len {
                            t = t.with_file_len(len);
                        }
                        self.consume(ROW as usize);
                        self.state = State::Table(t);
                    }
                    Err(_) => {
                        self.state = State::Header;
                        return Ok(());
                    }
                },
                State::Table(mut t) => {
                    if t.next_row_at().is_none() {
                        t.check_end()?;
                        self.state = self.body(t);
                        continue;
                    }
                    match row(&self.buf) {
                        Ok((_, r)) => {
                            t.push(r)?;
                            self.consume(ROW as usize);
                            self.state = State::Table(t);
                        }
                        Err(_) => {
                            self.state = State::Table(t);
                            return Ok(());
                        }
                    }
                }
                State::Raw => {
                    let mut used = 0usize;
                    while let Ok((rest, v)) = vertex(self.buf.get(used..).unwrap_or_default()) {
                        used = self.buf.len() - rest.len();
                        if (self.content.vertices.len() as u64) < self.limits.max_vertices {
                            self.content.vertices.push(v);
                        }
                    }
                    self.consume(used);
                    self.state = State::Raw;
                    return Ok(());
                }
                State::Body {
                    table,
                    sections,
                    next,
                    skip,
                } => {
                    let (next, done) = self.body_step(&table, &sections, next, skip);
                    self.state = State::Body {
                        table,
                        sections,
                        next,
                        skip,
                    };
                    if done {
                        return Ok(());
                    }
                }
            }
        }
    }

    fn body(&mut self, table: TableBuilder) -> State {
        let skip = table.check_cross().is_err();
        let mut sections: Vec<Row> = table
            .rows()
            .iter()
            .filter(|r| r.present())
            .copied()
            .collect();
        sections.sort_by_key(|r| r.offset);
        for r in table.rows() {
            if ![VERT, VSET, SKEL].contains(&r.tag) {
                self.content.foreign.push((*r, Vec::new()));
            }
        }
        State::Body {
            table,
            sections,
            next: 0,
            skip,
        }
    }

    /// Consumes what it can; returns the section index and whether more input is needed.
    fn body_step(
        &mut self,
        table: &TableBuilder,
        sections: &[Row],
        mut next: usize,
        skip: bool,
    ) -> (usize, bool) {
        loop {
            if self.buf.is_empty() {
                return (next, true);
            }
            let sec = sections.get(next).copied();
            if skip || sec.is_none_or(|s| self.pos < s.offset) {
                // A gap (or everything, after a phase C failure).
                let upto = match (skip, sec) {
                    (false, Some(s)) => ((s.offset - self.pos) as usize).min(self.buf.len()),
                    _ => self.buf.len(),
                };
                self.content.unreferenced += self
                    .buf
                    .get(..upto)
                    .unwrap_or_default()
                    .iter()
                    .filter(|&&b| b != 0)
                    .count() as u64;
                self.consume(upto);
                continue;
            }
            let Some(s) = sec else {
                return (next, true);
            };
            let left = (s.end() - self.pos) as usize;
            let avail = left.min(self.buf.len());
            let window = self.buf.get(..avail).unwrap_or_default();
            let used = match s.tag {
                VERT | VSET | SKEL => records(
                    &mut self.content,
                    table.vertex_layout(),
                    &s,
                    self.pos,
                    window,
                ),
                _ => {
                    if let Some((_, bytes)) = self
                        .content
                        .foreign
                        .iter_mut()
                        .find(|(r, _)| r.tag == s.tag)
                    {
                        bytes.extend_from_slice(window);
                    }
                    avail
                }
            };
            self.consume(used);
            if self.pos >= s.end() {
                next += 1;
            } else if used < avail || used == 0 {
                return (next, true);
            }
        }
    }

    /// Ends the input and returns the decoded file or the first error.
    pub fn finish(mut self) -> Result<BinaryFile, BinaryError> {
        let total = self.pos + self.buf.len() as u64;
        match std::mem::replace(&mut self.state, State::Raw) {
            State::Failed(e) => Err(e),
            State::Detect => match detect(&self.first, total)? {
                FileKind::Container => Err(BinaryError::new(total, ErrorKind::TooShort)),
                FileKind::Raw => self.raw(total),
            },
            State::Header => Err(BinaryError::new(total, ErrorKind::TooShort)),
            State::Table(t) => {
                let layout = t.finish(total)?;
                // No present section: nothing after the table.
                self.build(
                    layout.minor,
                    layout.skinned,
                    layout.vertex_layout,
                    layout.rows,
                )
            }
            State::Body { table, .. } => {
                let layout = table.finish(total)?;
                if let Some(e) = self.content.name_error.take() {
                    return Err(e);
                }
                self.build(
                    layout.minor,
                    layout.skinned,
                    layout.vertex_layout,
                    layout.rows,
                )
            }
            State::Raw => {
                if self.expect == Expect::Detect {
                    detect(&self.first, total)?;
                }
                self.raw(total)
            }
        }
    }

    fn raw(self, total: u64) -> Result<BinaryFile, BinaryError> {
        raw_check(total, &self.limits)?;
        Ok(model::raw_file(self.content.vertices))
    }

    fn build(
        self,
        minor: u32,
        skinned: bool,
        vertex_layout: VertexLayout,
        rows: Vec<Row>,
    ) -> Result<BinaryFile, BinaryError> {
        let c = self.content;
        let mut foreign_rows = c.foreign;
        if foreign_rows.is_empty() {
            for r in rows.iter().filter(|r| ![VERT, VSET, SKEL].contains(&r.tag)) {
                foreign_rows.push((*r, Vec::new()));
            }
        }
        let foreign = foreign_rows
            .into_iter()
            .map(|(r, bytes)| ForeignSection {
                tag: r.tag,
                count: r.count,
                bytes,
                source_offset: r.present().then_some(r.offset),
            })
            .collect();
        let bones = (!c.bones.is_empty()).then_some(c.bones);
        Ok(BinaryFile {
            kind: FileKind::Container,
            minor,
            vertex_layout,
            document: model::document(skinned, c.vertices, c.sets, bones),
            foreign,
            unreferenced: c.unreferenced,
        })
    }
}

/// Parses whole records from `window`; returns the bytes used.
fn records(content: &mut Content, layout: VertexLayout, s: &Row, pos: u64, window: &[u8]) -> usize {
    let mut input = window;
    loop {
        let at = pos + (window.len() - input.len()) as u64;
        let parsed = match s.tag {
            VERT if layout == VertexLayout::Compact => compact_vertex(input).map(|(r, v)| {
                content.vertices.push(v);
                r
            }),
            VERT => vertex(input).map(|(r, v)| {
                content.vertices.push(v);
                r
            }),
            VSET => set(input).map(|(r, v)| {
                content.sets.push(v);
                r
            }),
            _ => bone(input).map(|(r, (name, parent, tr))| {
                let i = content.bones.len();
                let index = ((at - s.offset) / BONE_SIZE) as u32;
                let name = match decode_name(&name, index, at) {
                    Ok(n) => n,
                    Err(e) => {
                        content.name_error.get_or_insert(e);
                        String::new()
                    }
                };
                content.bones.push(model::bone(i, name, parent, tr));
                r
            }),
        };
        match parsed {
            Ok(rest) => input = rest,
            Err(_) => return window.len() - input.len(),
        }
    }
}
/// Decodes a whole input by feeding it in chunks of `chunk` bytes (for tests and tools).
pub fn decode_chunked(
    bytes: &[u8],
    chunk: usize,
    expect: Expect,
    limits: &Limits,
) -> Result<BinaryFile, BinaryError> {
    let mut d = StreamDecoder::new(expect, limits).with_len(bytes.len() as u64);
    for c in bytes.chunks(chunk.max(1)) {
        d.feed(c)?;
    }
    d.finish()
}
