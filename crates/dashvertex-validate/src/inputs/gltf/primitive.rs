//! One skinned primitive: its JOINTS_n/WEIGHTS_n sets named without gaps and paired,
//! their accessors' formats, the attributes' counts, then every vertex through the
//! influence checker, in parallel chunks joined in vertex order.

use std::sync::OnceLock;

use dashvertex_core::InfluenceSet;
use dashvertex_gltf::Gltf;
use dashvertex_gltf::accessor::{self, AccessorData};
use dashvertex_gltf::document::component;
use dashvertex_gltf::import::SetView;
use dashvertex_gltf::skinning::{self, PrimitiveSets};

use super::skins::Barred;
use super::{Doc, bad_stride, reported_elsewhere};
use crate::codes::Code;
use crate::diagnostic::Location;
use crate::influences::{Checker, Encoding, Field, Locate, MeshStats, Profile, Scratch};
use crate::options::Options;
use crate::sink::Sink;

/// Vertices per parallel chunk: large enough that scheduling costs nothing, small
/// enough that two cores share a 100k-vertex mesh.
const VERTEX_CHUNK: usize = 1 << 15;

/// Per-vertex locations inside one primitive's influence accessors.
struct PrimLocate<'a> {
    doc: &'a Doc<'a>,
    joints: Vec<Site<'a>>,
    weights: Vec<Site<'a>>,
}

/// One influence accessor: its JSON Pointer, its data, and where the pointer's value
/// sits in the text, worked out once (every chunk of vertices keeps its own diagnostics,
/// all of them at one of these few pointers).
struct Site<'a> {
    pointer: String,
    data: &'a AccessorData<'a>,
    at: OnceLock<Location>,
}

impl<'a> Site<'a> {
    fn new(pointer: &str, data: &'a AccessorData<'a>) -> Self {
        Site {
            pointer: pointer.to_owned(),
            data,
            at: OnceLock::new(),
        }
    }
}

impl PrimLocate<'_> {
    /// The location of vertex `v`'s `slot` in `site` (the document root without one).
    fn at(&self, site: Option<&Site>, v: u64, slot: usize) -> Location {
        let base = match site {
            Some(s) => s.at.get_or_init(|| self.doc.at(&s.pointer)).clone(),
            None => self.doc.at(""),
        };
        Location {
            vertex: Some(v),
            offset: site.and_then(|s| s.data.offset_of(usize::try_from(v).ok()?, slot)),
            ..base
        }
    }
}

impl Locate for PrimLocate<'_> {
    fn slot(&self, v: u64, set: usize, slot: usize, field: Field) -> Location {
        let list = match field {
            Field::Bone => &self.joints,
            Field::Weight => &self.weights,
        };
        Location {
            set: u32::try_from(set).ok(),
            slot: u32::try_from(slot).ok(),
            ..self.at(list.get(set), v, slot)
        }
    }

    fn weights(&self, v: u64) -> Location {
        self.at(self.weights.first(), v, 0)
    }

    fn position(&self, v: u64) -> Location {
        self.weights(v)
    }
}

fn joints_format_ok(a: &AccessorData) -> bool {
    a.components == 4 && !a.normalized && matches!(a.component_type, component::U8 | component::U16)
}

/// The weight encoding, and whether the accessor's format is valid.
fn weights_format(a: &AccessorData) -> (Option<Encoding>, bool) {
    if a.components != 4 {
        return (None, false);
    }
    match (a.component_type, a.normalized) {
        (component::F32, false) => (Some(Encoding::Float), true),
        (component::F32, true) => (Some(Encoding::Float), false),
        // Read as normalized whatever the flag says, as the official validator does.
        (component::U8, n) => (Some(Encoding::Unorm8), n),
        (component::U16, n) => (Some(Encoding::Unorm16), n),
        _ => (None, false),
    }
}

/// Checks one skinned primitive, phase by phase; each phase runs only when the one
/// before found nothing that would make its findings repeat a root cause.
#[allow(clippy::too_many_arguments)]
pub(super) fn primitive(
    gltf: &Gltf,
    doc: &Doc,
    p: &PrimitiveSets,
    users: &[Vec<usize>],
    barred: &[Barred],
    profile: Profile,
    opts: &Options,
    sink: &mut Sink,
) {
    // Nothing is sized by the number of sets past the limit (reported with the
    // document's checks, by `set_limits`).
    if p.check_limit(&opts.limits).is_err() {
        return;
    }
    if !sets_well_formed(doc, p, sink) {
        return;
    }
    let Some(sets) = read_sets(gltf, doc, p, opts, sink) else {
        return;
    };
    if !counts_agree(gltf, doc, p, sink) {
        return;
    }
    vertices(gltf, doc, p, &sets, users, barred, profile, opts, sink);
}

/// `LIMIT_EXCEEDED` for each primitive that names more influence sets than
/// `--max-sets` allows (`Limits::max_sets`), at its `attributes`: one of the document's
/// checks, so that the jobs refuse such a file before they read its sets
/// (`dashvertex_validate::refusal`); [`primitive`] reads none of its sets.
pub(super) fn set_limits(doc: &Doc, prims: &[PrimitiveSets], opts: &Options, sink: &mut Sink) {
    for p in prims {
        if let Err(e) = p.check_limit(&opts.limits) {
            doc.push(sink, Code::LIMIT_EXCEEDED, &e.pointer, || {
                format!(
                    "mesh {} primitive {}: {}; its sets were not read",
                    p.mesh, p.primitive, e.limit
                )
            });
        }
    }
}

/// A primitive's sets, read: per set its JOINTS_n and WEIGHTS_n data with their
/// pointers, and the weights' encodings.
struct Sets<'a> {
    joints: Vec<(String, AccessorData<'a>)>,
    weights: Vec<(String, AccessorData<'a>)>,
    encodings: Vec<Encoding>,
}

/// Names and continuity: every attribute a valid JOINTS_n / WEIGHTS_n name, sets
/// numbered from 0 without gaps, each JOINTS_n with its WEIGHTS_n. False when the sets
/// cannot be read as sets.
fn sets_well_formed(doc: &Doc, p: &PrimitiveSets, sink: &mut Sink) -> bool {
    for name in &p.malformed {
        doc.push(
            sink,
            Code::GLTF_SET_CONTINUITY,
            &p.attribute_pointer(name),
            || format!("attribute {name} is not a valid JOINTS_n / WEIGHTS_n name"),
        );
    }
    let mut blocked = !p.malformed.is_empty();
    for (i, s) in p.sets.iter().enumerate() {
        if s.n as usize != i {
            blocked = true;
            let name = if s.joints.is_some() {
                "JOINTS"
            } else {
                "WEIGHTS"
            };
            doc.push(
                sink,
                Code::GLTF_SET_CONTINUITY,
                &p.attribute_pointer(&format!("{name}_{}", s.n)),
                || {
                    format!(
                        "{name}_{} follows set {}; sets must start at 0 without gaps",
                        s.n,
                        i.saturating_sub(1)
                    )
                },
            );
            break;
        }
    }
    for s in &p.sets {
        if s.joints.is_none() || s.weights.is_none() {
            blocked = true;
            let (have, miss) = if s.joints.is_some() {
                ("JOINTS", "WEIGHTS")
            } else {
                ("WEIGHTS", "JOINTS")
            };
            doc.push(
                sink,
                Code::GLTF_SET_MISMATCH,
                &format!("{}/attributes", p.pointer()),
                || format!("{have}_{} has no {miss}_{}", s.n, s.n),
            );
        }
    }
    !blocked
}

/// Reads every set's accessors and checks their formats (alignment, component types);
/// `None` when some set cannot be checked vertex by vertex, every set's problems
/// reported first.
fn read_sets<'a>(
    gltf: &'a Gltf,
    doc: &Doc,
    p: &PrimitiveSets,
    opts: &Options,
    sink: &mut Sink,
) -> Option<Sets<'a>> {
    let mut blocked = false;
    let mut joints = Vec::new();
    let mut weights = Vec::new();
    let mut encodings = Vec::new();
    for s in &p.sets {
        for (name, acc, is_joints) in [("JOINTS", s.joints, true), ("WEIGHTS", s.weights, false)] {
            let attr = format!("{name}_{}", s.n);
            let ptr = p.attribute_pointer(&attr);
            let Some(index) = acc else { continue };
            let data = match accessor::read(gltf, index, &opts.limits) {
                Ok(d) => d,
                Err(e) => {
                    blocked = true;
                    // An unavailable buffer was reported once, as GLTF_BUFFER (or a
                    // missing one as GLTF_REFERENCE), a bad stride as GLTF_BYTE_STRIDE.
                    if !reported_elsewhere(&e) && !bad_stride(gltf, index) {
                        doc.push(sink, Code::GLTF_ACCESSOR_DATA, &ptr, || {
                            format!("{attr}: {e}")
                        });
                    }
                    continue;
                }
            };
            let acc_meta = usize::try_from(index)
                .ok()
                .and_then(|i| gltf.root.accessors.get(i));
            if !is_joints && acc_meta.is_some_and(|a| a.buffer_view.is_none() && a.sparse.is_none())
            {
                // One root cause: every weight is zero, so every vertex would fail.
                blocked = true;
                doc.push(sink, Code::GLTF_ACCESSOR_NO_DATA, &ptr, || {
                    format!(
                        "{attr}: accessor {index} has neither bufferView nor sparse data, so all {} weights are zero",
                        data.count
                    )
                });
                continue;
            }
            let strided = acc_meta
                .and_then(|a| a.buffer_view)
                .and_then(|v| gltf.root.buffer_views.get(usize::try_from(v).ok()?))
                .and_then(|v| v.byte_stride);
            if acc_meta.is_some_and(|a| a.byte_offset % 4 != 0)
                || strided.is_some_and(|s| s % 4 != 0)
            {
                doc.push(sink, Code::GLTF_ACCESSOR_ALIGNMENT, &ptr, || {
                    format!(
                        "{attr}: accessor {index}'s byteOffset or byteStride is not a multiple of 4"
                    )
                });
            }
            if is_joints {
                if !joints_format_ok(&data) {
                    blocked = true;
                    let t = accessor_kind(gltf, index);
                    doc.push(sink, Code::GLTF_JOINTS_FORMAT, &ptr, || {
                        format!(
                            "{attr} is {t} {}{}; joints must be VEC4 UNSIGNED_BYTE or UNSIGNED_SHORT (data not checked)",
                            component::name(data.component_type),
                            if data.normalized { " normalized" } else { "" }
                        )
                    });
                }
                joints.push((ptr, data));
            } else {
                let (enc, ok) = weights_format(&data);
                if !ok {
                    let t = accessor_kind(gltf, index);
                    let code = Code::GLTF_WEIGHTS_FORMAT;
                    doc.push(sink, code, &ptr, || {
                        format!(
                            "{attr} is {t} {}{}; weights must be VEC4 FLOAT or normalized UNSIGNED_BYTE / UNSIGNED_SHORT",
                            component::name(data.component_type),
                            if data.normalized { " normalized" } else { "" }
                        )
                    });
                }
                match enc {
                    Some(e) => encodings.push(e),
                    None => blocked = true,
                }
                weights.push((ptr, data));
            }
        }
    }
    (!blocked).then_some(Sets {
        joints,
        weights,
        encodings,
    })
}

/// `GLTF_COUNT_MISMATCH`: every attribute of the primitive has the same count. False
/// (reported once) when one differs.
fn counts_agree(gltf: &Gltf, doc: &Doc, p: &PrimitiveSets, sink: &mut Sink) -> bool {
    let mut counts: Vec<(String, u64)> = Vec::new();
    for (name, acc) in &p.attributes {
        if let Some(a) = acc.and_then(|i| gltf.root.accessors.get(usize::try_from(i).ok()?)) {
            counts.push((name.clone(), a.count));
        }
    }
    if let Some((first_name, first)) = counts.first().cloned()
        && let Some((name, n)) = counts.iter().find(|(_, n)| *n != first)
    {
        doc.push(
            sink,
            Code::GLTF_COUNT_MISMATCH,
            &p.attribute_pointer(name),
            || {
                format!(
                    "{name} has {n} elements but {first_name} has {first}; influences not checked"
                )
            },
        );
        return false;
    }
    true
}

/// Every vertex through the influence checker, joint indices against the skin that
/// limits the mesh (`BONE_RANGE_UNCHECKED` when none does), then the mesh-level rules.
#[allow(clippy::too_many_arguments)]
fn vertices(
    gltf: &Gltf,
    doc: &Doc,
    p: &PrimitiveSets,
    sets: &Sets,
    users: &[Vec<usize>],
    barred: &[Barred],
    profile: Profile,
    opts: &Options,
    sink: &mut Sink,
) {
    let base = p.pointer();
    let Sets {
        joints,
        weights,
        encodings,
    } = sets;
    let encoding = encodings.first().copied().unwrap_or(Encoding::Float);
    // Which skin limits the joint range.
    let mesh_users = users.get(p.mesh).map(Vec::as_slice).unwrap_or_default();
    let limit = skinning::limiting_skin(&gltf.root, mesh_users);
    if limit.is_none() {
        doc.push(sink, Code::BONE_RANGE_UNCHECKED, &base, || {
            format!(
                "mesh {} is used by no node with a skin: joint indices were not range-checked (the other checks ran)",
                p.mesh
            )
        });
    }
    let count = joints.first().map_or(0, |(_, d)| d.count);
    let nsets = p.sets.len();
    let uniform = encodings.iter().all(|&e| e == encoding);
    let Barred {
        removed,
        foreign,
        names,
    } = limit
        .and_then(|(skin, _)| barred.get(skin))
        .cloned()
        .unwrap_or_default();
    let checker = Checker {
        profile,
        bones: limit.map(|(_, n)| n as u64),
        removed,
        foreign,
        names,
        skinned: true,
        encoding: if uniform { encoding } else { Encoding::Float },
        target: opts.target,
    };
    let loc = PrimLocate {
        doc,
        joints: joints.iter().map(|(p, d)| Site::new(p, d)).collect(),
        weights: weights.iter().map(|(p, d)| Site::new(p, d)).collect(),
    };
    // Vertices in chunks, checked in parallel, each into its own sink; the sinks are
    // appended in vertex order, so the report is the same at any thread count.
    let chunk_check = ChunkCheck {
        checker: &checker,
        loc: &loc,
        sets,
        blocks: float_blocks(sets, nsets),
        nsets,
        count,
    };
    let chunk_report = |chunk: usize| chunk_check.run(chunk, sink.fork());
    let chunks: Vec<(Sink, MeshStats)> = {
        use dashvertex_core::par::prelude::*;
        (0..count.div_ceil(VERTEX_CHUNK))
            .into_par_iter()
            .map(chunk_report)
            .collect()
    };
    let mut stats = MeshStats::default();
    for (s, st) in chunks {
        sink.append(s);
        stats.append(st);
    }
    checker.mesh(
        &stats,
        nsets,
        None,
        &|s| doc.at(&p.attribute_pointer(&format!("WEIGHTS_{s}"))),
        sink,
    );
}

/// FLOAT weights in every set (the usual export): views that read the sets a block of
/// vertices at a time, as the reducer reads them (the same values as
/// [`read_vertex`]); `None` when a set has other weights.
fn float_blocks<'a>(sets: &Sets<'a>, nsets: usize) -> Option<Vec<SetView<'a>>> {
    let Sets {
        joints,
        weights,
        encodings,
    } = sets;
    (encodings.len() == nsets
        && joints.len() == nsets
        && weights.len() == nsets
        && encodings.iter().all(|e| e.max().is_none()))
    .then(|| {
        joints
            .iter()
            .zip(weights)
            .map(|((_, j), (_, w))| SetView {
                joints: j.clone(),
                weights: w.clone(),
                scale: 1.0,
            })
            .collect()
    })
}

/// Vertex `v`'s influence sets read from the accessors of `sets` into `out`, and for
/// normalized integer weights their stored integers into `raw` (zeros for FLOAT).
fn read_vertex(sets: &Sets<'_>, v: usize, out: &mut [InfluenceSet], raw: &mut [[u32; 4]]) {
    for (s, (set, r)) in out.iter_mut().zip(raw.iter_mut()).enumerate() {
        let (Some((_, jd)), Some((_, wd)), Some(enc)) = (
            sets.joints.get(s),
            sets.weights.get(s),
            sets.encodings.get(s),
        ) else {
            continue;
        };
        let w = wd.get4(v);
        // Accessor values widened to f64: joints are u8/u16 integers (the format is
        // checked first), weights a float or a normalized integer's value.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let (to_u32, to_f32) = (|x: f64| x as u32, |x: f64| x as f32);
        set.joints = jd.get4(v).map(to_u32);
        match enc.max() {
            Some(m) => {
                set.weights = w.map(|x| to_f32(x / f64::from(m)));
                *r = w.map(to_u32);
            }
            None => {
                set.weights = w.map(to_f32);
                *r = [0; 4];
            }
        }
    }
}

/// The check of one chunk of a primitive's vertices (what each parallel task runs).
struct ChunkCheck<'a> {
    /// The per-vertex rules.
    checker: &'a Checker,
    /// Where a slot's diagnostics point.
    loc: &'a PrimLocate<'a>,
    /// The primitive's influence accessors.
    sets: &'a Sets<'a>,
    /// Block readers when every set's weights are FLOAT ([`float_blocks`]).
    blocks: Option<Vec<SetView<'a>>>,
    /// Influence sets per vertex.
    nsets: usize,
    /// Vertices of the primitive.
    count: usize,
}

impl ChunkCheck<'_> {
    /// Checks the vertices of chunk `chunk` into `sink` (a fork of the primitive's),
    /// returning it with the chunk's mesh statistics.
    fn run(&self, chunk: usize, mut sink: Sink) -> (Sink, MeshStats) {
        let mut stats = MeshStats::default();
        let mut scratch = Scratch::default();
        let mut sets = vec![InfluenceSet::ZERO; self.nsets];
        let first = chunk * VERTEX_CHUNK;
        let end = self.count.min((chunk + 1) * VERTEX_CHUNK);
        if let Some(views) = &self.blocks {
            // At most 256 vertices a block, and never more than the chunk has: the block
            // holds no more sets than the accessors do.
            let block_len = 256.min(end.saturating_sub(first)).max(1);
            let mut block = vec![InfluenceSet::ZERO; self.nsets * block_len];
            for start in (first..end).step_by(block_len) {
                let n = block_len.min(end - start);
                for (view, dst) in views.iter().zip(block.chunks_exact_mut(block_len)) {
                    view.get_block(start, dst.get_mut(..n).unwrap_or_default());
                }
                for i in 0..n {
                    for (set, src) in sets.iter_mut().zip(block.iter().skip(i).step_by(block_len)) {
                        *set = *src;
                    }
                    let v = (start + i) as u64;
                    let (loc, sink) = (self.loc, &mut sink);
                    self.checker
                        .vertex(v, &sets, None, loc, sink, &mut stats, &mut scratch);
                }
            }
            return (sink, stats);
        }
        let max = self.checker.encoding.max();
        let mut raw = vec![[0u32; 4]; self.nsets];
        for v in first..end {
            read_vertex(self.sets, v, &mut sets, &mut raw);
            let raw = max.map(|_| raw.as_slice());
            let (loc, sink) = (self.loc, &mut sink);
            self.checker
                .vertex(v as u64, &sets, raw, loc, sink, &mut stats, &mut scratch);
        }
        (sink, stats)
    }
}

/// The `type` of accessor `index` (empty when there is none).
fn accessor_kind(gltf: &Gltf, index: u64) -> String {
    gltf.root
        .accessors
        .get(usize::try_from(index).unwrap_or(usize::MAX))
        .map(|a| a.kind.clone())
        .unwrap_or_default()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use base64::Engine;
    use dashvertex_core::Limits;

    use crate::{Code, Options, validate_bytes};

    /// A skinned glTF of 9 vertices whose one primitive names `n` sets, `JOINTS_k` and
    /// `WEIGHTS_k` for each `k` a multiple of `step`, every one set 0's accessors.
    fn aliased(n: u32, step: u32) -> Vec<u8> {
        let mut bin = Vec::new();
        for v in 0..9u8 {
            for c in [f32::from(v), 0.0, 0.0] {
                bin.extend_from_slice(&c.to_le_bytes());
            }
        }
        bin.extend_from_slice(&[0u8; 36]);
        for _ in 0..9 {
            for w in [1.0f32, 0.0, 0.0, 0.0] {
                bin.extend_from_slice(&w.to_le_bytes());
            }
        }
        let sets: Vec<String> = (0..n)
            .map(|k| format!("\"JOINTS_{0}\":1,\"WEIGHTS_{0}\":2", k * step))
            .collect();
        let data = base64::engine::general_purpose::STANDARD.encode(&bin);
        format!(
            r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0,1]}}],
"nodes":[{{"mesh":0,"skin":0}},{{"name":"root"}}],"skins":[{{"joints":[1]}}],
"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,{}}}}}]}}],
"accessors":[
 {{"bufferView":0,"componentType":5126,"count":9,"type":"VEC3","min":[0,0,0],"max":[8,0,0]}},
 {{"bufferView":1,"componentType":5121,"count":9,"type":"VEC4"}},
 {{"bufferView":2,"componentType":5126,"count":9,"type":"VEC4"}}],
"bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":108}},
 {{"buffer":0,"byteOffset":108,"byteLength":36}},{{"buffer":0,"byteOffset":144,"byteLength":144}}],
"buffers":[{{"byteLength":288,"uri":"data:application/octet-stream;base64,{data}"}}]}}"#,
            sets.join(",")
        )
        .into_bytes()
    }

    fn limited(max_sets: u64) -> Options {
        Options {
            limits: Limits {
                max_sets,
                ..Limits::default()
            },
            ..Options::default()
        }
    }

    /// Issue: the sets' count sized the vertex blocks (8 KiB a set) before any limit
    /// applied, so 40,000 aliased sets aborted under 256 MiB. Now `--max-sets` refuses
    /// them first, located at the primitive's attributes, with or without gaps.
    #[test]
    fn sets_past_the_limit_are_refused_before_they_are_read() {
        for (n, step) in [(65, 1), (65, 7), (40_000, 1)] {
            let report = validate_bytes("many.gltf", &aliased(n, step), &Options::default());
            let limit: Vec<_> = report
                .diagnostics
                .iter()
                .filter(|d| d.code == Code::LIMIT_EXCEEDED)
                .collect();
            assert_eq!(
                limit.len(),
                1,
                "{n} sets, step {step}: {:?}",
                report.diagnostics
            );
            assert_eq!(
                limit[0].location.pointer.as_deref(),
                Some("/meshes/0/primitives/0/attributes")
            );
            assert!(
                limit[0]
                    .message
                    .contains(&format!("influence set count {n} exceeds the limit of 64")),
                "{}",
                limit[0].message
            );
            // No set was read: nothing about the sets' names, formats or weights.
            assert!(
                report
                    .diagnostics
                    .iter()
                    .all(|d| matches!(d.code, Code::LIMIT_EXCEEDED | Code::GLTF_ATTRIBUTE)),
                "{:?}",
                report.diagnostics
            );
        }
        // The jobs refuse the file with it, before they read its sets.
        let gltf = dashvertex_gltf::load(
            &aliased(65, 1),
            &dashvertex_gltf::NoFiles,
            &Limits::default(),
        )
        .unwrap();
        let refusal = crate::refusal(&gltf, &Limits::default()).unwrap();
        assert_eq!(refusal.first.code, Code::LIMIT_EXCEEDED);
    }

    #[test]
    fn sets_within_a_raised_limit_are_read() {
        let report = validate_bytes("many.gltf", &aliased(65, 1), &limited(65));
        assert!(
            report
                .diagnostics
                .iter()
                .all(|d| d.code != Code::LIMIT_EXCEEDED)
        );
        // Every set names set 0's joint: the sets were read, the last one too.
        assert!(
            report
                .diagnostics
                .iter()
                .any(|d| d.code == Code::BONE_DUPLICATE && d.location.set == Some(64)),
            "{:?}",
            report.diagnostics
        );
    }
}
