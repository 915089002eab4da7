//! The three bitstreams of meshopt compression (`EXT_meshopt_compression`,
//! `KHR_meshopt_compression`, Appendix A): attributes (v0 and v1), triangles and indices.
//!
//! Every decoder checks, before it allocates anything, that the stream is at least as long
//! as the shortest stream that could hold `count` elements ([`min_vertex_len`],
//! [`min_triangle_len`], [`min_index_len`]), so the output is at most 64 (attributes v0),
//! 1024 (attributes v1) or 12 (indices) times the stream's bytes; every read is checked,
//! every arithmetic on decoded values wraps, and the bytes left after the last element must
//! be exactly the stream's tail.

use super::DecodeError;

/// Elements decoded in groups of this many.
const GROUP: usize = 16;

/// A cursor over a stream that never reads past its end.
struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn new(data: &'a [u8]) -> Self {
        Reader { data, at: 0 }
    }

    fn byte(&mut self) -> Result<u8, DecodeError> {
        let b = self
            .data
            .get(self.at)
            .copied()
            .ok_or(DecodeError::Truncated)?;
        self.at += 1;
        Ok(b)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        let end = self.at.checked_add(n).ok_or(DecodeError::Truncated)?;
        let s = self.data.get(self.at..end).ok_or(DecodeError::Truncated)?;
        self.at = end;
        Ok(s)
    }

    fn left(&self) -> usize {
        self.data.len().saturating_sub(self.at)
    }

    /// An unsigned LEB128 value of one to five bytes (a fifth byte's high bit ends it
    /// as well, as the reference decoder reads it), bits past 32 dropped.
    fn vbyte(&mut self) -> Result<u32, DecodeError> {
        let lead = self.byte()?;
        if lead < 128 {
            return Ok(u32::from(lead));
        }
        let mut v = u32::from(lead & 127);
        let mut shift = 7u32;
        for _ in 0..4 {
            let g = self.byte()?;
            v |= u32::from(g & 127).wrapping_shl(shift);
            shift += 7;
            if g < 128 {
                break;
            }
        }
        Ok(v)
    }
}

/// The elements one attribute block holds at most for elements of `stride` bytes.
pub fn block_elements(stride: usize) -> usize {
    ((8192 / stride.max(1)) & !(GROUP - 1)).min(256)
}

/// The tail of an attribute stream: `(tail, padded tail)` bytes for `stride` and
/// `version`.
fn vertex_tail(stride: usize, version: u8) -> (usize, usize) {
    let tail = if version == 0 {
        stride
    } else {
        stride + stride / 4
    };
    (tail, tail.max(if version == 0 { 32 } else { 24 }))
}

/// The shortest attribute stream that can hold `count` elements of `stride` bytes: the
/// header byte, per block the fewest bytes a block can take (v0: one header byte per four
/// groups per byte of the element; v1: the control bytes alone), and the padded tail.
/// `None` when it does not fit a usize (no stream is that long).
pub fn min_vertex_len(count: usize, stride: usize, version: u8) -> Option<usize> {
    let block = block_elements(stride);
    if block == 0 {
        return None;
    }
    let full = count / block;
    let rest = count % block;
    let per_block = |k: usize| -> Option<usize> {
        if version == 0 {
            stride.checked_mul(k.div_ceil(GROUP).div_ceil(4))
        } else {
            Some(stride / 4)
        }
    };
    let mut n = full.checked_mul(per_block(block)?)?;
    if rest > 0 {
        n = n.checked_add(per_block(rest)?)?;
    }
    n.checked_add(1)?
        .checked_add(vertex_tail(stride, version).1)
}

/// The shortest triangle stream for `count` indices: header, one code per triangle, the
/// 16-byte table.
pub fn min_triangle_len(count: usize) -> Option<usize> {
    (count / 3).checked_add(17)
}

/// The shortest index stream for `count` indices: header, a byte per index, the 4-byte
/// tail.
pub fn min_index_len(count: usize) -> Option<usize> {
    count.checked_add(5)
}

/// Checks an attribute stream's element size, header and length for `count` elements
/// of `stride` bytes, before anything is allocated; gives its version.
pub fn check_vertices(
    data: &[u8],
    count: usize,
    stride: usize,
    v1: bool,
) -> Result<u8, DecodeError> {
    if stride == 0 || stride > 256 || !stride.is_multiple_of(4) {
        return Err(DecodeError::Stride(stride));
    }
    let header = *data.first().ok_or(DecodeError::Truncated)?;
    let version = header & 0x0F;
    if header & 0xF0 != 0xA0 || version > u8::from(v1) {
        return Err(DecodeError::Header(header));
    }
    let need = min_vertex_len(count, stride, version).ok_or(DecodeError::Truncated)?;
    if data.len() < need {
        return Err(DecodeError::Short {
            have: data.len(),
            need,
        });
    }
    Ok(version)
}

/// Decodes an attribute stream of `out.len() / stride` elements of `stride` bytes (a
/// multiple of 4, 4 to 256) into `out`. `v1` allows the version 1 format
/// (`KHR_meshopt_compression` only).
pub fn decode_vertices(
    data: &[u8],
    stride: usize,
    v1: bool,
    out: &mut [u8],
) -> Result<(), DecodeError> {
    let count = out.len() / stride.max(1);
    let version = check_vertices(data, count, stride, v1)?;
    if count * stride != out.len() {
        return Err(DecodeError::Output(out.len()));
    }
    let (tail, tail_pad) = vertex_tail(stride, version);
    // The length check covered the header and the padded tail.
    let body_end = data.len() - tail_pad;
    let tail_bytes = data
        .get(data.len() - tail..)
        .ok_or(DecodeError::Truncated)?;
    let (baseline, channels) = tail_bytes.split_at(stride.min(tail_bytes.len()));
    let mut modes = [0u8; 64];
    for (m, &c) in modes.iter_mut().zip(channels) {
        let low = c & 0x0F;
        if low > 2 || (low < 2 && c >> 4 != 0) {
            return Err(DecodeError::Channel(c));
        }
        *m = c;
    }
    let mut last = [0u8; 256];
    for (l, &b) in last.iter_mut().zip(baseline) {
        *l = b;
    }
    let mut r = Reader::new(data.get(1..body_end).ok_or(DecodeError::Truncated)?);
    let block = block_elements(stride);
    let mut lanes = [[0u8; 256]; 4];
    for dst in out.chunks_mut(block * stride) {
        let k = dst.len() / stride;
        decode_block(
            &mut r, dst, k, stride, version, &modes, &mut last, &mut lanes,
        )?;
    }
    if r.left() != 0 {
        return Err(DecodeError::Trailing(r.left()));
    }
    Ok(())
}

/// One attribute block of `k` elements into `dst` (`k × stride` bytes).
#[allow(clippy::too_many_arguments)]
fn decode_block(
    r: &mut Reader<'_>,
    dst: &mut [u8],
    k: usize,
    stride: usize,
    version: u8,
    modes: &[u8; 64],
    last: &mut [u8; 256],
    lanes: &mut [[u8; 256]; 4],
) -> Result<(), DecodeError> {
    let ka = k.next_multiple_of(GROUP);
    let control = if version == 0 {
        &[][..]
    } else {
        r.take(stride / 4)?
    };
    for c in 0..stride / 4 {
        let ctl = control.get(c).copied().unwrap_or(0);
        for (j, lane) in lanes.iter_mut().enumerate() {
            let ctrl = (ctl >> (2 * j)) & 3;
            match ctrl {
                3 => {
                    let lit = r.take(k)?;
                    for (d, s) in lane.iter_mut().zip(lit) {
                        *d = *s;
                    }
                }
                2 => lane.fill(0),
                _ => decode_bytes(r, lane.get_mut(..ka).unwrap_or_default(), version, ctrl)?,
            }
        }
        let mode = modes.get(c).copied().unwrap_or(0);
        let base = 4 * c;
        let [l0, l1, l2, l3] = &*lanes;
        match mode & 0x0F {
            0 => {
                // Each byte of the channel follows its own lane; the four chains are
                // independent, so they advance together.
                let Some(l) = last.get_mut(base..base + 4) else {
                    continue;
                };
                let mut p = [0u8; 4];
                p.copy_from_slice(l);
                let deltas = l0.iter().zip(l1).zip(l2).zip(l3).take(k);
                for (e, (((a, b), c), d)) in dst.chunks_exact_mut(stride).zip(deltas) {
                    p[0] = p[0].wrapping_add(unzigzag8(*a));
                    p[1] = p[1].wrapping_add(unzigzag8(*b));
                    p[2] = p[2].wrapping_add(unzigzag8(*c));
                    p[3] = p[3].wrapping_add(unzigzag8(*d));
                    if let Some(o) = e.get_mut(base..base + 4) {
                        o.copy_from_slice(&p);
                    }
                }
                l.copy_from_slice(&p);
            }
            1 => {
                let lp = last.get(base..base + 4).unwrap_or_default();
                let mut p = [
                    u16::from_le_bytes([
                        lp.first().copied().unwrap_or(0),
                        lp.get(1).copied().unwrap_or(0),
                    ]),
                    u16::from_le_bytes([
                        lp.get(2).copied().unwrap_or(0),
                        lp.get(3).copied().unwrap_or(0),
                    ]),
                ];
                for (i, e) in dst.chunks_exact_mut(stride).take(k).enumerate() {
                    let d0 = u16::from_le_bytes([
                        l0.get(i).copied().unwrap_or(0),
                        l1.get(i).copied().unwrap_or(0),
                    ]);
                    let d1 = u16::from_le_bytes([
                        l2.get(i).copied().unwrap_or(0),
                        l3.get(i).copied().unwrap_or(0),
                    ]);
                    p[0] = p[0].wrapping_add(unzigzag16(d0));
                    p[1] = p[1].wrapping_add(unzigzag16(d1));
                    if let Some(o) = e.get_mut(base..base + 4) {
                        let [a, b] = p[0].to_le_bytes();
                        let [c2, d] = p[1].to_le_bytes();
                        o.copy_from_slice(&[a, b, c2, d]);
                    }
                }
                if let Some(l) = last.get_mut(base..base + 4) {
                    let [a, b] = p[0].to_le_bytes();
                    let [c2, d] = p[1].to_le_bytes();
                    l.copy_from_slice(&[a, b, c2, d]);
                }
            }
            _ => {
                // Mode 2 (checked when the tail was read): XOR deltas, rotated.
                let rot = (32 - u32::from(mode >> 4)) & 31;
                let lp = last.get(base..base + 4).unwrap_or_default();
                let mut p = u32::from_le_bytes([
                    lp.first().copied().unwrap_or(0),
                    lp.get(1).copied().unwrap_or(0),
                    lp.get(2).copied().unwrap_or(0),
                    lp.get(3).copied().unwrap_or(0),
                ]);
                for (i, e) in dst.chunks_exact_mut(stride).take(k).enumerate() {
                    let d = u32::from_le_bytes([
                        l0.get(i).copied().unwrap_or(0),
                        l1.get(i).copied().unwrap_or(0),
                        l2.get(i).copied().unwrap_or(0),
                        l3.get(i).copied().unwrap_or(0),
                    ]);
                    p ^= d.rotate_left(rot);
                    if let Some(o) = e.get_mut(base..base + 4) {
                        o.copy_from_slice(&p.to_le_bytes());
                    }
                }
                if let Some(l) = last.get_mut(base..base + 4) {
                    l.copy_from_slice(&p.to_le_bytes());
                }
            }
        }
    }
    Ok(())
}

/// The deltas of one byte of the element over a block's groups (`out`: a multiple of 16).
fn decode_bytes(
    r: &mut Reader<'_>,
    out: &mut [u8],
    version: u8,
    ctrl: u8,
) -> Result<(), DecodeError> {
    let groups = out.len() / GROUP;
    let header = r.take(groups.div_ceil(4))?;
    for (g, o) in out.chunks_exact_mut(GROUP).enumerate() {
        let h = header.get(g / 4).copied().unwrap_or(0);
        let mode = (h >> (2 * (g % 4))) & 3;
        let bits = if version == 0 {
            [0u8, 2, 4, 8].get(usize::from(mode)).copied()
        } else {
            [0u8, 1, 2, 4, 8].get(usize::from(mode + ctrl)).copied()
        }
        .unwrap_or(8);
        decode_group(r, o, bits)?;
    }
    Ok(())
}

/// One group of 16 deltas of `bits` bits each (0, 1, 2, 4 or 8).
fn decode_group(r: &mut Reader<'_>, out: &mut [u8], bits: u8) -> Result<(), DecodeError> {
    match bits {
        0 => out.fill(0),
        8 => out.copy_from_slice(r.take(GROUP)?),
        1 => {
            let codes = r.take(2)?;
            for (o8, &byte) in out.chunks_exact_mut(8).zip(codes) {
                for (j, o) in o8.iter_mut().enumerate() {
                    let code = (byte >> j) & 1;
                    *o = if code == 1 { r.byte()? } else { 0 };
                }
            }
        }
        2 => {
            let codes = r.take(4)?;
            for (o4, &byte) in out.chunks_exact_mut(4).zip(codes) {
                for (j, o) in o4.iter_mut().enumerate() {
                    let code = (byte >> (6 - 2 * j)) & 3;
                    *o = if code == 3 { r.byte()? } else { code };
                }
            }
        }
        _ => {
            let codes = r.take(8)?;
            for (o2, &byte) in out.chunks_exact_mut(2).zip(codes) {
                for (j, o) in o2.iter_mut().enumerate() {
                    let code = (byte >> (4 - 4 * j)) & 15;
                    *o = if code == 15 { r.byte()? } else { code };
                }
            }
        }
    }
    Ok(())
}

fn unzigzag8(v: u8) -> u8 {
    (v >> 1) ^ (v & 1).wrapping_neg()
}

fn unzigzag16(v: u16) -> u16 {
    (v >> 1) ^ (v & 1).wrapping_neg()
}

fn unzigzag32(v: u32) -> u32 {
    (v >> 1) ^ (v & 1).wrapping_neg()
}

/// Where decoded indices go: `stride` (2 or 4) little-endian bytes each, a 16-bit one
/// wrapping.
struct Indices<'o> {
    out: std::slice::ChunksExactMut<'o, u8>,
}

impl Indices<'_> {
    fn push(&mut self, v: u32) {
        if let Some(d) = self.out.next() {
            let b = v.to_le_bytes();
            for (d, s) in d.iter_mut().zip(b) {
                *d = s;
            }
        }
    }
}

fn index_stride(stride: usize) -> Result<(), DecodeError> {
    if stride == 2 || stride == 4 {
        Ok(())
    } else {
        Err(DecodeError::Stride(stride))
    }
}

/// Checks a triangle stream's index size, count, length and header before anything is
/// allocated; gives its version.
pub fn check_triangles(data: &[u8], count: usize, stride: usize) -> Result<u8, DecodeError> {
    index_stride(stride)?;
    if !count.is_multiple_of(3) {
        return Err(DecodeError::Count(count));
    }
    let need = min_triangle_len(count).ok_or(DecodeError::Truncated)?;
    if data.len() < need {
        return Err(DecodeError::Short {
            have: data.len(),
            need,
        });
    }
    let header = data.first().copied().unwrap_or(0);
    let version = header & 0x0F;
    if header & 0xF0 != 0xE0 || version > 1 {
        return Err(DecodeError::Header(header));
    }
    Ok(version)
}

/// Decodes a triangle stream of `out.len() / stride` indices (a multiple of 3) of
/// `stride` bytes (2 or 4) into `out`.
pub fn decode_triangles(data: &[u8], stride: usize, out: &mut [u8]) -> Result<(), DecodeError> {
    let count = out.len() / stride.max(1);
    let version = check_triangles(data, count, stride)?;
    if count * stride != out.len() {
        return Err(DecodeError::Output(out.len()));
    }
    let n = count / 3;
    let aux_at = data.len() - 16;
    let codes = data.get(1..1 + n).ok_or(DecodeError::Truncated)?;
    let codeaux = data.get(aux_at..).ok_or(DecodeError::Truncated)?;
    let mut r = Reader::new(data.get(1 + n..aux_at).ok_or(DecodeError::Truncated)?);
    let fecmax: u8 = if version >= 1 { 13 } else { 15 };
    let mut state = Triangles::new();
    let mut out = Indices {
        out: out.chunks_exact_mut(stride),
    };
    for &code in codes {
        let triangle = if code < 0xF0 {
            state.edge(code, fecmax, &mut r)?
        } else if code < 0xFE {
            state.fresh_vertices(code, codeaux)
        } else {
            state.explicit(code, &mut r)?
        };
        for v in triangle {
            out.push(v);
        }
    }
    if r.left() != 0 {
        return Err(DecodeError::Trailing(r.left()));
    }
    Ok(())
}

/// A triangle stream decoder's state: the edge and vertex FIFOs (16 entries each, with
/// their write positions), the next vertex never seen, and the last index coded
/// explicitly.
struct Triangles {
    /// Recent edges.
    ef: [[u32; 2]; 16],
    /// Edges pushed so far.
    eo: usize,
    /// Recent vertices.
    vf: [u32; 16],
    /// Vertices pushed so far.
    vo: usize,
    /// The next new vertex.
    next: u32,
    /// The last explicitly coded index.
    last: u32,
}

impl Triangles {
    /// The state before the first triangle.
    fn new() -> Triangles {
        Triangles {
            ef: [[u32::MAX; 2]; 16],
            eo: 0,
            vf: [u32::MAX; 16],
            vo: 0,
            next: 0,
            last: 0,
        }
    }

    /// The vertex FIFO's entry at position `i` (modulo 16).
    fn vertex_at(&self, i: usize) -> u32 {
        self.vf.get(i & 15).copied().unwrap_or(u32::MAX)
    }

    /// A new vertex: the next one never seen.
    fn fresh(&mut self) -> u32 {
        let x = self.next;
        self.next = self.next.wrapping_add(1);
        x
    }

    /// An explicitly coded index: a zigzag varint delta from the last one.
    fn coded(&mut self, r: &mut Reader<'_>) -> Result<u32, DecodeError> {
        let v = r.vbyte()?;
        self.last = self.last.wrapping_add(unzigzag32(v));
        Ok(self.last)
    }

    /// New vertex `feb` / `fec` of a triangle: fresh when 0, else the vertex that many
    /// places back in the FIFO.
    fn fresh_or_recent(&mut self, back: usize) -> u32 {
        if back == 0 {
            self.fresh()
        } else {
            self.vertex_at(self.vo.wrapping_sub(back))
        }
    }

    /// Pushes the triangle `(a, b, c)`'s three edges, as the encoder keeps them.
    fn push_edges(&mut self, a: u32, b: u32, c: u32) {
        push_e(&mut self.ef, &mut self.eo, b, a);
        push_e(&mut self.ef, &mut self.eo, c, b);
        push_e(&mut self.ef, &mut self.eo, a, c);
    }

    /// A code below 0xF0: a recent edge (the high nibble back in the edge FIFO) and a
    /// third vertex that is new, recent, next to the last one, or coded.
    fn edge(&mut self, code: u8, fecmax: u8, r: &mut Reader<'_>) -> Result<[u32; 3], DecodeError> {
        let fe = usize::from(code >> 4);
        let [a, b] = self
            .ef
            .get(self.eo.wrapping_sub(1 + fe) & 15)
            .copied()
            .unwrap_or([u32::MAX; 2]);
        let fec = code & 15;
        let c;
        if fec < fecmax {
            if fec == 0 {
                c = self.fresh();
                push_v(&mut self.vf, &mut self.vo, c);
            } else {
                c = self.vertex_at(self.vo.wrapping_sub(1 + usize::from(fec)));
            }
        } else {
            c = match fec {
                13 => self.last.wrapping_sub(1),
                14 => self.last.wrapping_add(1),
                _ => self.coded(r)?,
            };
            self.last = c;
            push_v(&mut self.vf, &mut self.vo, c);
        }
        push_e(&mut self.ef, &mut self.eo, c, b);
        push_e(&mut self.ef, &mut self.eo, a, c);
        Ok([a, b, c])
    }

    /// A code from 0xF0 to 0xFD: a new first vertex, the other two new or recent as the
    /// code's entry of `codeaux` says.
    fn fresh_vertices(&mut self, code: u8, codeaux: &[u8]) -> [u32; 3] {
        let aux = codeaux.get(usize::from(code & 15)).copied().unwrap_or(0);
        let (feb, fec) = (usize::from(aux >> 4), usize::from(aux & 15));
        let a = self.fresh();
        let b = self.fresh_or_recent(feb);
        let c = self.fresh_or_recent(fec);
        push_v(&mut self.vf, &mut self.vo, a);
        if feb == 0 {
            push_v(&mut self.vf, &mut self.vo, b);
        }
        if fec == 0 {
            push_v(&mut self.vf, &mut self.vo, c);
        }
        self.push_edges(a, b, c);
        [a, b, c]
    }

    /// Code 0xFE or 0xFF: an aux byte from the stream (0 restarts the new vertices),
    /// the first vertex new (0xFE) or coded (0xFF), the other two new, recent or coded
    /// (15).
    fn explicit(&mut self, code: u8, r: &mut Reader<'_>) -> Result<[u32; 3], DecodeError> {
        let aux = r.byte()?;
        let (feb, fec) = (usize::from(aux >> 4), usize::from(aux & 15));
        if aux == 0 {
            self.next = 0;
        }
        let mut a = 0;
        if code == 0xFE {
            a = self.fresh();
        }
        let mut b = self.fresh_or_recent(feb);
        let mut c = self.fresh_or_recent(fec);
        if code == 0xFF {
            a = self.coded(r)?;
        }
        if feb == 15 {
            b = self.coded(r)?;
        }
        if fec == 15 {
            c = self.coded(r)?;
        }
        push_v(&mut self.vf, &mut self.vo, a);
        if feb == 0 || feb == 15 {
            push_v(&mut self.vf, &mut self.vo, b);
        }
        if fec == 0 || fec == 15 {
            push_v(&mut self.vf, &mut self.vo, c);
        }
        self.push_edges(a, b, c);
        Ok([a, b, c])
    }
}

fn push_v(vf: &mut [u32; 16], vo: &mut usize, v: u32) {
    if let Some(s) = vf.get_mut(*vo & 15) {
        *s = v;
    }
    *vo = vo.wrapping_add(1);
}

fn push_e(ef: &mut [[u32; 2]; 16], eo: &mut usize, a: u32, b: u32) {
    if let Some(s) = ef.get_mut(*eo & 15) {
        *s = [a, b];
    }
    *eo = eo.wrapping_add(1);
}

/// Checks an index stream's index size, length and header before anything is
/// allocated.
pub fn check_indices(data: &[u8], count: usize, stride: usize) -> Result<(), DecodeError> {
    index_stride(stride)?;
    let need = min_index_len(count).ok_or(DecodeError::Truncated)?;
    if data.len() < need {
        return Err(DecodeError::Short {
            have: data.len(),
            need,
        });
    }
    let header = data.first().copied().unwrap_or(0);
    if header & 0xF0 != 0xD0 || header & 0x0F > 1 {
        return Err(DecodeError::Header(header));
    }
    Ok(())
}

/// Decodes an index stream of `out.len() / stride` indices of `stride` bytes (2 or 4)
/// into `out`.
pub fn decode_indices(data: &[u8], stride: usize, out: &mut [u8]) -> Result<(), DecodeError> {
    let count = out.len() / stride.max(1);
    check_indices(data, count, stride)?;
    if count * stride != out.len() {
        return Err(DecodeError::Output(out.len()));
    }
    let mut r = Reader::new(data.get(1..data.len() - 4).ok_or(DecodeError::Truncated)?);
    let mut last = [0u32; 2];
    let mut out = Indices {
        out: out.chunks_exact_mut(stride),
    };
    for _ in 0..count {
        let v = r.vbyte()?;
        let slot = last
            .get_mut(usize::from(v & 1 != 0))
            .ok_or(DecodeError::Truncated)?;
        *slot = slot.wrapping_add(unzigzag32(v >> 1));
        out.push(*slot);
    }
    if r.left() != 0 {
        return Err(DecodeError::Trailing(r.left()));
    }
    Ok(())
}
