//! Binary input (DMX container or raw records), streamed: the header is read first, then
//! the records in chunks, so memory does not grow with the file.

use std::io::{Read, Seek};

use dashvertex_binary::format::{BONE_SIZE, SET_SIZE, bone, set, vertex};
use dashvertex_binary::records::{RawBone, RawCompactVertex, RawSet, RawVertex};
use dashvertex_binary::{BinaryError, ErrorKind, Layout, VertexLayout, read_at};
use dashvertex_core::{Bone, InfluenceSet, Skeleton};
use zerocopy::FromBytes;

use crate::codes::Code;
use crate::diagnostic::{Diagnostic, Location};
use crate::influences::{Checker, Encoding, Field, Locate, MeshStats, Profile, Scratch};
use crate::options::Options;
use crate::sink::Sink;
use crate::skeleton::{self, BoneField};
use dashvertex_formats::Format;

/// Vertices read per chunk.
const CHUNK: u64 = 16 * 1024;

/// A count of at most [`CHUNK`] vertices (or their bytes, at most 48 each) as a usize,
/// which it always fits.
fn in_chunk(n: u64) -> usize {
    usize::try_from(n).unwrap_or(0)
}

/// Byte offsets of record fields.
struct BinaryLocate {
    vert: u64,
    stride: u64,
    vset: u64,
    vertices: u64,
}

impl Locate for BinaryLocate {
    fn slot(&self, v: u64, s: usize, k: usize, field: Field) -> Location {
        let k4 = 4 * k as u64;
        let offset = if s == 0 {
            self.vert
                + v * self.stride
                + k4
                + match field {
                    Field::Bone => vertex::SKIN_INDEX,
                    Field::Weight => vertex::SKIN_WEIGHT,
                }
        } else {
            self.vset
                + ((s as u64 - 1) * self.vertices + v) * SET_SIZE
                + k4
                + match field {
                    Field::Bone => set::SKIN_INDEX,
                    Field::Weight => set::SKIN_WEIGHT,
                }
        };
        Location {
            vertex: Some(v),
            set: u32::try_from(s).ok(),
            slot: u32::try_from(k).ok(),
            offset: Some(offset),
            ..Location::default()
        }
    }

    fn weights(&self, v: u64) -> Location {
        Location {
            vertex: Some(v),
            offset: Some(self.vert + v * self.stride + vertex::SKIN_WEIGHT),
            ..Location::default()
        }
    }

    fn position(&self, v: u64) -> Location {
        Location {
            vertex: Some(v),
            offset: Some(self.vert + v * self.stride + vertex::POSITION),
            ..Location::default()
        }
    }
}

fn at(offset: u64) -> Location {
    Location {
        offset: Some(offset),
        ..Location::default()
    }
}

fn structure(e: &BinaryError, sink: &mut Sink) {
    let code = if matches!(e.kind, ErrorKind::Limit(_)) {
        Code::LIMIT_EXCEEDED
    } else {
        Code::BINARY_STRUCTURE
    };
    sink.push(code, || {
        Diagnostic::new(code, format!("[{}] {}", e.code(), e.kind), at(e.offset))
    });
}

fn io(e: &std::io::Error, sink: &mut Sink) {
    sink.report(Code::IO_ERROR, Location::default, || e.to_string());
}

/// Validates a binary file of `len` bytes read through `r`. Returns the profile used.
pub fn validate<R: Read + Seek>(
    r: &mut R,
    len: u64,
    format: Format,
    opts: &Options,
    sink: &mut Sink,
) -> Profile {
    let profile = opts.profile.unwrap_or(Profile::Dash);
    if format == Format::Raw {
        raw(r, len, profile, opts, sink);
        return profile;
    }
    let layout = match dashvertex_binary::read_layout(r, len, &opts.limits) {
        Ok(l) => l,
        Err(e) => {
            structure(&e, sink);
            return profile;
        }
    };
    let skeleton = match bones(r, &layout, sink) {
        Ok(s) => s,
        Err(e) => {
            io(&e, sink);
            return profile;
        }
    };
    let bone_count = opts
        .bones
        .or_else(|| skeleton.as_ref().map(|s| s.len() as u64));
    if let Err(e) = vertices(r, &layout, profile, bone_count, opts, sink) {
        io(&e, sink);
        return profile;
    }
    if let Err(e) = gaps(r, &layout, sink) {
        io(&e, sink);
    }
    profile
}

/// Reads and checks the SKEL section; name errors are reported and a lossy name kept.
fn bones<R: Read + Seek>(
    r: &mut R,
    layout: &Layout,
    sink: &mut Sink,
) -> std::io::Result<Option<Skeleton>> {
    let Some(row) = layout.skel().filter(|r| r.count > 0) else {
        return Ok(None);
    };
    let len = usize::try_from(row.length).map_err(std::io::Error::other)?;
    let mut buf = vec![0u8; len];
    read_at(r, row.offset, &mut buf)?;
    let records = <[RawBone]>::ref_from_bytes(&buf).unwrap_or_default();
    let mut out = Vec::with_capacity(records.len());
    let mut bad_names = Vec::new();
    for (i, b) in records.iter().enumerate() {
        let rec = row.offset + i as u64 * BONE_SIZE;
        let name = match dashvertex_binary::decode_name(
            &b.name,
            u32::try_from(i).unwrap_or(u32::MAX),
            rec,
        ) {
            Ok(n) => n,
            Err(e) => {
                structure(&e, sink);
                bad_names.push(i);
                String::from_utf8_lossy(b.name.split(|&c| c == 0).next().unwrap_or_default())
                    .into_owned()
            }
        };
        if u32::try_from(i).ok() != Some(b.index.get()) {
            sink.report(
                Code::BONE_RECORD_INDEX,
                || Location {
                    bone: Some(i as u64),
                    ..at(rec + bone::INDEX)
                },
                || format!("bone {i}: record index is {}", b.index.get()),
            );
        }
        let (position, rotation, scale) = b.transform();
        out.push(Bone {
            name,
            parent: dashvertex_binary::parent_from_raw(i, b.parent.get()),
            position,
            rotation,
            scale,
        });
    }
    let sk = Skeleton { bones: out };
    skeleton::check(
        &sk,
        &|i, field| Location {
            bone: Some(i as u64),
            ..at(row.offset
                + i as u64 * BONE_SIZE
                + match field {
                    BoneField::Name => bone::NAME,
                    BoneField::Parent => bone::PARENT,
                    BoneField::Transform => bone::POSITION,
                })
        },
        &|i| bad_names.contains(&i),
        sink,
    );
    Ok(Some(sk))
}

fn vertex_index(v: u64, index: u32, loc: &BinaryLocate, sink: &mut Sink) {
    sink.report(
        Code::VERTEX_INDEX,
        || Location {
            vertex: Some(v),
            offset: Some(loc.vert + v * loc.stride + vertex::INDEX),
            ..Location::default()
        },
        || format!("vertex {v}: record index is {index}"),
    );
}

#[allow(clippy::too_many_arguments)]
/// What the checks of one mesh carry from chunk to chunk.
#[derive(Default)]
struct Tally {
    stats: MeshStats,
    scratch: Scratch,
    sets: Vec<InfluenceSet>,
}

/// The rules and the locations a mesh's chunks are checked with.
struct Rules<'a> {
    checker: &'a Checker,
    loc: &'a BinaryLocate,
}

/// Checks `count` vertices from vertex `first`: their records through `index_at`, their
/// `nsets` influence sets through `set_of`.
fn check_chunk(
    rules: &Rules<'_>,
    first: u64,
    (count, nsets): (usize, usize),
    index_at: &dyn Fn(usize) -> Option<(u32, [f32; 3])>,
    set_of: &dyn Fn(usize, usize) -> InfluenceSet,
    sink: &mut Sink,
    tally: &mut Tally,
) {
    let Rules { checker, loc } = *rules;
    let Tally {
        stats,
        scratch,
        sets,
    } = tally;
    for i in 0..count {
        let v = first + i as u64;
        let Some((index, position)) = index_at(i) else {
            continue;
        };
        if u64::from(index) != v {
            vertex_index(v, index, loc, sink);
        }
        checker.position(v, position, loc, sink);
        sets.clear();
        sets.extend((0..nsets).map(|s| set_of(i, s)));
        if checker.skinned {
            checker.vertex(v, sets, None, loc, sink, stats, scratch);
        } else {
            // Unskinned: only the data that contradicts the toggle matters.
            for set in sets.iter() {
                if !set.is_zero() {
                    stats.first_with_data.get_or_insert(v);
                }
            }
        }
    }
}

/// The rules a DMX file's vertices are checked with (float weights, bone indices below
/// `bones`), having reported when a skinned mesh's bone indices cannot be range-checked
/// (no skeleton).
fn checker(
    layout: &Layout,
    profile: Profile,
    bones: Option<u64>,
    opts: &Options,
    sink: &mut Sink,
) -> Checker {
    let checker = Checker {
        profile,
        bones,
        removed: opts.removed_bones.as_slice().into(),
        foreign: Default::default(),
        names: Default::default(),
        skinned: layout.skinned,
        encoding: Encoding::Float,
        target: opts.target,
    };
    let has_vertices = layout.vert().is_some_and(|v| v.count > 0);
    if layout.skinned && bones.is_none() && has_vertices {
        sink.report(
            Code::BONE_RANGE_UNCHECKED,
            || at(0),
            || "bone indices were not range-checked: the file has no skeleton",
        );
    }
    checker
}

/// The whole-mesh rules over the `n` vertices' `stats`: sets never used, the skinned
/// flag against the data (located at the header's flag), each extra set located at its
/// VSET block.
fn check_mesh(checker: &Checker, layout: &Layout, stats: &MeshStats, n: u64, sink: &mut Sink) {
    let vset = layout.vset().map_or(0, |r| r.offset);
    let vset_row = layout.vset().map_or(0, |r| r.at);
    checker.mesh(
        stats,
        layout.set_count(),
        Some((layout.skinned, at(12))),
        &|s| Location {
            set: u32::try_from(s).ok(),
            ..at(if vset_row > 0 {
                vset + (s as u64 - 1) * n * SET_SIZE
            } else {
                0
            })
        },
        sink,
    );
}

fn vertices<R: Read + Seek>(
    r: &mut R,
    layout: &Layout,
    profile: Profile,
    bones: Option<u64>,
    opts: &Options,
    sink: &mut Sink,
) -> std::io::Result<()> {
    let Some(vert) = layout.vert() else {
        return Ok(());
    };
    let n = u64::from(vert.count);
    if let (Some(skel), Some(b)) = (layout.skel(), bones.filter(|_| opts.bones.is_none())) {
        crate::influences::target_joints(
            opts.target,
            usize::try_from(b).unwrap_or(usize::MAX),
            &|| at(skel.offset),
            "the skeleton",
            sink,
        );
    }
    let nsets = layout.set_count();
    let stride = layout.vertex_layout.stride();
    let vset = layout.vset().map_or(0, |r| r.offset);
    let loc = BinaryLocate {
        vert: vert.offset,
        stride,
        vset,
        vertices: n,
    };
    let checker = checker(layout, profile, bones, opts, sink);
    let rules = Rules {
        checker: &checker,
        loc: &loc,
    };
    let mut tally = Tally::default();
    let mut vbuf = Vec::new();
    let mut sbufs: Vec<Vec<u8>> = vec![Vec::new(); nsets.saturating_sub(1)];
    let mut first = 0u64;
    while first < n {
        let count = CHUNK.min(n - first);
        vbuf.resize(in_chunk(count * stride), 0);
        read_at(r, vert.offset + first * stride, &mut vbuf)?;
        for (s, buf) in sbufs.iter_mut().enumerate() {
            buf.resize(in_chunk(count * SET_SIZE), 0);
            read_at(r, vset + (s as u64 * n + first) * SET_SIZE, buf)?;
        }
        let extra: Vec<&[RawSet]> = sbufs
            .iter()
            .map(|b| <[RawSet]>::ref_from_bytes(b).unwrap_or_default())
            .collect();
        let set_of = |i: usize, s: usize| -> InfluenceSet {
            extra
                .get(s.wrapping_sub(1))
                .and_then(|x| x.get(i))
                .map_or(InfluenceSet::ZERO, RawSet::set)
        };
        match layout.vertex_layout {
            VertexLayout::Full if nsets == 1 && checker.skinned => {
                // The common case, without per-vertex indirection.
                let recs = <[RawVertex]>::ref_from_bytes(&vbuf).unwrap_or_default();
                for (i, rec) in recs.iter().enumerate() {
                    let v = first + i as u64;
                    if u64::from(rec.index.get()) != v {
                        vertex_index(v, rec.index.get(), &loc, sink);
                    }
                    checker.position(v, rec.position(), &loc, sink);
                    let Tally { stats, scratch, .. } = &mut tally;
                    checker.vertex_single(v, &rec.set(), &loc, sink, stats, scratch);
                }
            }
            VertexLayout::Full => {
                let recs = <[RawVertex]>::ref_from_bytes(&vbuf).unwrap_or_default();
                check_chunk(
                    &rules,
                    first,
                    (in_chunk(count), nsets),
                    &|i| recs.get(i).map(|r| (r.index.get(), r.position())),
                    &|i, s| {
                        if s == 0 {
                            recs.get(i).map_or(InfluenceSet::ZERO, RawVertex::set)
                        } else {
                            set_of(i, s)
                        }
                    },
                    sink,
                    &mut tally,
                );
            }
            VertexLayout::Compact => {
                let recs = <[RawCompactVertex]>::ref_from_bytes(&vbuf).unwrap_or_default();
                check_chunk(
                    &rules,
                    first,
                    (in_chunk(count), 1),
                    &|i| recs.get(i).map(|r| (r.index.get(), r.vertex().position)),
                    &|_, _| InfluenceSet::ZERO,
                    sink,
                    &mut tally,
                );
            }
        }
        first += count;
        if let Some(p) = &opts.progress {
            p(vert.offset + first * stride);
        }
    }
    check_mesh(&checker, layout, &tally.stats, n, sink);
    Ok(())
}

/// Reports non-zero bytes outside every section.
fn gaps<R: Read + Seek>(r: &mut R, layout: &Layout, sink: &mut Sink) -> std::io::Result<()> {
    let mut total = 0u64;
    let mut first = None;
    let mut buf = vec![0u8; 64 * 1024];
    for (start, end) in layout.gaps() {
        let mut pos = start;
        while pos < end {
            let n = usize::try_from(end - pos).map_or(buf.len(), |n| n.min(buf.len()));
            let chunk = buf.get_mut(..n).unwrap_or_default();
            read_at(r, pos, chunk)?;
            if let Some(i) = chunk.iter().position(|&b| b != 0) {
                first.get_or_insert(pos + i as u64);
            }
            total += chunk.iter().filter(|&&b| b != 0).count() as u64;
            pos += n as u64;
        }
    }
    if let Some(offset) = first {
        sink.report(
            Code::UNREFERENCED_BYTES,
            || at(offset),
            || format!("{total} non-zero byte(s) lie outside every section"),
        );
    }
    Ok(())
}

/// Raw 48-byte records.
fn raw<R: Read + Seek>(r: &mut R, len: u64, profile: Profile, opts: &Options, sink: &mut Sink) {
    if let Err(e) = dashvertex_binary::raw_check(len, &opts.limits) {
        structure(&e, sink);
        return;
    }
    let n = len / 48;
    let loc = BinaryLocate {
        vert: 0,
        stride: 48,
        vset: 0,
        vertices: n,
    };
    // Raw files have no toggle: they are skinned when any record carries skin data, which
    // the first pass finds out.
    let mut checker = Checker {
        profile,
        bones: opts.bones,
        removed: opts.removed_bones.as_slice().into(),
        foreign: Default::default(),
        names: Default::default(),
        skinned: true,
        encoding: Encoding::Float,
        target: opts.target,
    };
    let mut buf = Vec::new();
    let mut any = false;
    for pass in 0..2 {
        let rules = Rules {
            checker: &checker,
            loc: &loc,
        };
        let mut tally = Tally::default();
        let mut first = 0u64;
        while first < n {
            let count = CHUNK.min(n - first);
            buf.resize(in_chunk(count * 48), 0);
            if let Err(e) = read_at(r, first * 48, &mut buf) {
                io(&e, sink);
                return;
            }
            let recs = <[RawVertex]>::ref_from_bytes(&buf).unwrap_or_default();
            if pass == 0 {
                any |= recs.iter().any(|x| !x.set().is_zero());
            } else {
                check_chunk(
                    &rules,
                    first,
                    (in_chunk(count), 1),
                    &|i| recs.get(i).map(|r| (r.index.get(), r.position())),
                    &|i, _| recs.get(i).map_or(InfluenceSet::ZERO, RawVertex::set),
                    sink,
                    &mut tally,
                );
            }
            first += count;
        }
        if pass == 0 {
            checker.skinned = any;
            if any && opts.bones.is_none() {
                sink.report(
                    Code::BONE_RANGE_UNCHECKED,
                    || at(0),
                    || "bone indices were not range-checked: raw records carry no skeleton",
                );
            }
        }
    }
}
