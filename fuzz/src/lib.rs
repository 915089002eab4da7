//! The logic of every fuzz target, as plain functions.
//!
//! Each `fuzz_targets/*.rs` binary is a one-line wrapper around a function here, and
//! `tests/smoke.rs` runs the same functions over the checked-in seed corpora on stable, so
//! `cargo test` exercises every target. A function panics exactly when it finds a bug.

mod fbx;

pub use fbx::fbx_load;

use std::sync::OnceLock;

use arbitrary::{Arbitrary, Unstructured};
use dashvertex_binary::{Expect, VertexLayout, WriteError, WriteOptions};
use dashvertex_core::{InfluenceSet, Limits};

/// Limits small enough to keep a fuzzer's memory bounded.
pub fn fuzz_limits() -> Limits {
    Limits {
        max_input_bytes: 1 << 20,
        max_vertices: 1 << 14,
        max_bones: 1 << 10,
        max_sets: 8,
    }
}

/// `json_decode`: decoding never panics; whatever decodes re-encodes, decodes to the same
/// bits, and re-encodes to the same text; errors are located.
pub fn json_decode(data: &[u8]) {
    let limits = fuzz_limits();
    match dashvertex_json::decode_bytes(data, &limits) {
        Ok(file) => {
            let text = match dashvertex_json::encode(&file) {
                Ok(t) => t,
                Err(e) => panic!("decoded JSON failed to encode: {e}"),
            };
            let again = match dashvertex_json::decode(&text, &limits) {
                Ok(f) => f,
                Err(e) => panic!("re-encoded JSON failed to decode: {e}\n{text}"),
            };
            assert!(
                again.document.bit_eq(&file.document),
                "round trip changed the document"
            );
            assert_eq!(
                dashvertex_json::encode(&again).ok(),
                Some(text),
                "output not stable"
            );
        }
        Err(e) => {
            assert!(e.line >= 1 && e.column >= 1, "unlocated error: {e:?}");
            assert!(!e.message.is_empty());
        }
    }
}

fn schema() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| {
        let schema = dashvertex_json::schema::dashvertex();
        let value = serde_json::to_value(&schema).unwrap_or_default();
        match jsonschema::draft202012::new(&value) {
            Ok(v) => v,
            Err(e) => panic!("the generated schema does not compile: {e}"),
        }
    })
}

/// `json_schema_agreement`: the JSON Schema and the decoder accept exactly the same
/// texts (resource limits aside).
pub fn json_schema_agreement(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let by_schema = match serde_json::from_str::<serde_json::Value>(text) {
        Ok(v) => dashvertex_json::find_duplicate_key(text).is_none() && schema().is_valid(&v),
        Err(_) => false,
    };
    match dashvertex_json::decode(text, &Limits::default()) {
        Err(e) if e.kind == dashvertex_json::ErrorKind::Limit => {}
        r => assert_eq!(
            by_schema,
            r.is_ok(),
            "schema says {by_schema}, decoder says {:?}",
            r.err()
        ),
    }
}

fn outcome(
    r: Result<dashvertex_binary::BinaryFile, dashvertex_binary::BinaryError>,
) -> Result<dashvertex_binary::BinaryFile, dashvertex_binary::BinaryError> {
    r
}

fn same(
    a: &Result<dashvertex_binary::BinaryFile, dashvertex_binary::BinaryError>,
    b: &Result<dashvertex_binary::BinaryFile, dashvertex_binary::BinaryError>,
) -> bool {
    match (a, b) {
        (Ok(x), Ok(y)) => x.bit_eq(y),
        (Err(x), Err(y)) => x == y,
        _ => false,
    }
}

/// `binary_decode`: the zero-copy, binrw and nom decoders return the same file or the
/// same error offset, and the nom decoder gives the same result for any chunking.
pub fn binary_decode(data: &[u8]) {
    let limits = fuzz_limits();
    let chunk = 1 + data
        .iter()
        .fold(0usize, |a, &b| a.wrapping_mul(31).wrapping_add(b as usize))
        % 97;
    for expect in [Expect::Detect, Expect::Container, Expect::Raw] {
        let view = outcome(match expect {
            Expect::Container => dashvertex_binary::decode_container(data, &limits),
            Expect::Raw => dashvertex_binary::decode_raw(data, &limits),
            Expect::Detect => dashvertex_binary::decode(data, &limits),
        });
        let binrw = match expect {
            Expect::Container => dashvertex_binary::binrw_io::decode_container(data, &limits),
            Expect::Raw => dashvertex_binary::binrw_io::decode_raw(data, &limits),
            Expect::Detect => dashvertex_binary::binrw_io::decode(data, &limits),
        };
        assert!(same(&view, &binrw), "zerocopy {view:?}\nbinrw {binrw:?}");
        // Whole, in pseudo-random chunks of 1 to 97 bytes, and (for inputs small enough
        // to keep the target fast) one byte at a time.
        let single = if data.len() <= 512 { 1 } else { chunk };
        for c in [data.len().max(1), chunk, single] {
            let nom = dashvertex_binary::decode_chunked(data, c, expect, &limits);
            assert!(
                same(&view, &nom),
                "zerocopy {view:?}\nnom ({c}-byte chunks) {nom:?}"
            );
        }
    }
}

/// `roundtrip`: whatever decodes (JSON or binary) encodes and decodes back to the same
/// content, and encodes to the same bytes again.
pub fn roundtrip(data: &[u8]) {
    json_decode(data);
    let limits = fuzz_limits();
    let Ok(file) = dashvertex_binary::decode(data, &limits) else {
        return;
    };
    let opts = WriteOptions {
        compact_unskinned: file.vertex_layout == VertexLayout::Compact,
        drop_unreferenced: true,
    };
    let bytes = match (file.kind, dashvertex_binary::encode(&file, &opts)) {
        (dashvertex_binary::FileKind::Raw, _) => {
            match dashvertex_binary::encode_raw(&file.document) {
                Ok(b) => b,
                Err(e) => panic!("a raw file failed to re-encode: {e}"),
            }
        }
        (_, Ok(b)) => b,
        // Refusals that protect data (a moved TEX section, names that do not fit) are
        // not bugs; anything else is.
        (_, Err(WriteError::TexRelocation { .. } | WriteError::BoneName { .. })) => return,
        (_, Err(e)) => panic!("a decoded file failed to re-encode: {e}"),
    };
    let back = match dashvertex_binary::decode(&bytes, &limits) {
        Ok(b) => b,
        Err(e) => panic!("re-encoded bytes failed to decode: {e}"),
    };
    assert!(
        back.document.bit_eq(&file.document),
        "binary round trip changed the document"
    );
    let again = if back.kind == dashvertex_binary::FileKind::Raw {
        dashvertex_binary::encode_raw(&back.document)
    } else {
        dashvertex_binary::encode(&back, &opts)
    };
    assert_eq!(again.ok(), Some(bytes), "binary output not stable");
    // Binary → JSON → binary, when JSON can hold it.
    if file.document.mesh.vertices().iter().all(|v| {
        v.position
            .iter()
            .chain(&v.skin.weights)
            .all(|x| x.is_finite())
    }) && file
        .document
        .mesh
        .extra_sets()
        .iter()
        .flatten()
        .all(|s| s.weights.iter().all(|w| w.is_finite()))
        && file.document.skeleton.as_ref().is_none_or(|s| {
            s.bones.iter().all(|b| {
                b.position
                    .iter()
                    .chain(&b.rotation)
                    .chain(&b.scale)
                    .all(|x| x.is_finite())
            })
        })
    {
        let text = match dashvertex_json::encode_document(&file.document) {
            Ok(t) => t,
            Err(e) => panic!("finite content failed to encode as JSON: {e}"),
        };
        let j = match dashvertex_json::decode(&text, &Limits::default()) {
            Ok(j) => j,
            Err(e) => panic!("JSON written from binary failed to decode: {e}"),
        };
        // JSON cannot say that an empty mesh is skinned, or hold an empty skeleton; an
        // unskinned mesh with skin data comes back skinned (spec §6).
        if !file.document.mesh.is_empty() {
            let mut expected = file.document.mesh.clone();
            expected.set_skinned(expected.is_skinned() || expected.has_skin_bits());
            // An unskinned mesh without skin data writes no skin members, so all-zero
            // extra sets (a VSET of zeros) come back as the one implied set (spec §6).
            if !expected.is_skinned() && !expected.extra_sets().is_empty() {
                match dashvertex_core::Mesh::from_parts(
                    false,
                    expected.vertices().to_vec(),
                    Vec::new(),
                ) {
                    Ok(m) => expected = m,
                    Err(e) => panic!("an unskinned mesh without extra sets: {e}"),
                }
            }
            assert!(
                j.document.mesh.bit_eq(&expected),
                "binary → JSON changed the mesh"
            );
        }
    }
}

/// `validate_any`: arbitrary bytes validated as every input format never panic, and
/// every diagnostic is located.
pub fn validate_any(data: &[u8]) {
    use dashvertex_validate::{Format, Options};
    let opts = |format: Option<Format>| {
        Options::new()
            .with_format(format)
            .with_limits(fuzz_limits())
            .with_max_diagnostics(50)
    };
    for format in [
        None,
        Some(Format::Json),
        Some(Format::Dmx),
        Some(Format::Raw),
        Some(Format::Gltf),
        Some(Format::Glb),
    ] {
        // A directory that does not exist: glTF buffers cannot name local files.
        let report = dashvertex_validate::validate_bytes(
            "/nonexistent-dash-fuzz/input",
            data,
            &opts(format),
        );
        for d in &report.diagnostics {
            assert!(!d.message.is_empty(), "empty message: {d:?}");
        }
        assert_eq!(report.valid, report.counts.errors == 0);
    }
}

/// Structured reducer input.
#[derive(Debug)]
struct ReduceCase {
    bones: Vec<dashvertex_reduce::manifest::BoneRef>,
    vertices: Vec<Vec<(u32, f32)>>,
    config: dashvertex_reduce::Config,
}

impl<'a> Arbitrary<'a> for ReduceCase {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let nb = u.int_in_range(1u32..=12)?;
        let mut bones = Vec::new();
        for i in 0..nb {
            let parent = if i == 0 {
                None
            } else {
                Some(u.int_in_range(0..=i - 1)?)
            };
            bones.push(dashvertex_reduce::manifest::BoneRef {
                name: format!("b{}", u.int_in_range(0u32..=99)? * 100 + i),
                parent: parent.map(|p| format!("#{p}")),
            });
        }
        // Parents by name (fixed up after the names are known).
        let names: Vec<String> = bones.iter().map(|b| b.name.clone()).collect();
        for b in &mut bones {
            if let Some(p) = b.parent.take() {
                b.parent = p
                    .strip_prefix('#')
                    .and_then(|i| i.parse::<usize>().ok())
                    .and_then(|i| names.get(i).cloned());
            }
        }
        let nv = u.int_in_range(0usize..=40)?;
        let mut vertices = Vec::with_capacity(nv);
        for _ in 0..nv {
            let nc = u.int_in_range(0usize..=20)?;
            let mut list = Vec::with_capacity(nc);
            for _ in 0..nc {
                let bone = u.int_in_range(0..=nb - 1)?;
                let w = match u.int_in_range(0u8..=9)? {
                    0 => 0.0,
                    1 => -f32::from(u.int_in_range(1u8..=100)?) / 100.0,
                    2 => 0.5,
                    3 => f32::from_bits(u.int_in_range(1u32..=0x007F_FFFF)?),
                    _ => f32::from(u.int_in_range(1u16..=1000)?) / 1000.0,
                };
                list.push((bone, w));
            }
            vertices.push(list);
        }
        let q = u.int_in_range(0u8..=2)?;
        let config = dashvertex_reduce::Config::default()
            .with_max_influences(u.int_in_range(1usize..=10)?)
            .with_quantize(
                [
                    dashvertex_reduce::Quantize::F32,
                    dashvertex_reduce::Quantize::Unorm16,
                    dashvertex_reduce::Quantize::Unorm8,
                ][q as usize],
            )
            .with_normalize(if q > 0 || u.arbitrary()? {
                dashvertex_reduce::Normalize::Unit
            } else {
                dashvertex_reduce::Normalize::None
            })
            .with_min_weight([0.0, 1e-4, 0.05][u.int_in_range(0usize..=2)?])
            .with_empty(dashvertex_reduce::Empty::Zero);
        Ok(ReduceCase {
            bones,
            vertices,
            config,
        })
    }
}

fn reduce_input(c: &ReduceCase) -> dashvertex_reduce::input::Input<'static> {
    let counts: Vec<u32> = c.vertices.iter().map(|v| v.len() as u32).collect();
    let mut cands = dashvertex_reduce::input::Candidates::with_counts(&counts);
    for (v, list) in c.vertices.iter().enumerate() {
        for (k, &(b, w)) in list.iter().enumerate() {
            assert!(cands.push(v, b, w, k as u32), "room for every pair");
        }
    }
    dashvertex_reduce::input::Input {
        bones: c.bones.clone(),
        positions: vec![[0.0; 3]; c.vertices.len()],
        data: dashvertex_reduce::input::Data::Lists(cands),
        origin: dashvertex_reduce::input::Origin::BoneWeights,
    }
}

/// `reduce`: arbitrary reducer input never panics; the result is deterministic,
/// ordered, normalized as asked, exactly summed when quantized, and idempotent.
pub fn reduce(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(case) = ReduceCase::arbitrary(&mut u) else {
        return;
    };
    let Ok(manifest) = dashvertex_reduce::manifest::Manifest::init(&case.bones) else {
        return;
    };
    let input = reduce_input(&case);
    let Ok(map) = dashvertex_reduce::index_map(&input, &manifest) else {
        return;
    };
    let root = dashvertex_reduce::root_index(&input, &manifest);
    let Ok(out) = dashvertex_reduce::reduce(&input, &map, root, &case.config) else {
        return;
    };
    assert_eq!(
        dashvertex_reduce::reduce(&input, &map, root, &case.config)
            .ok()
            .as_ref(),
        Some(&out),
        "not deterministic"
    );
    for (v, sets) in out.influences.chunks(out.sets.max(1)).enumerate() {
        let kept: Vec<(u32, f32)> = sets
            .iter()
            .flat_map(InfluenceSet::pairs)
            .filter(|p| p.1 != 0.0)
            .collect();
        for pair in kept.windows(2) {
            if let [a, b] = pair {
                assert!(
                    a.1 > b.1 || (a.1 == b.1 && a.0 < b.0),
                    "vertex {v}: not in order: {kept:?}"
                );
            }
        }
        assert!(kept.len() <= case.config.max_influences);
        if kept.is_empty() {
            continue;
        }
        if case.config.normalize == dashvertex_reduce::Normalize::Unit
            && case.config.quantize == dashvertex_reduce::Quantize::F32
        {
            assert!(
                dashvertex_core::weights::check_float_sets(sets).passes(),
                "vertex {v}: {sets:?}"
            );
        }
        if let (Some(max), Some(ints)) = (case.config.quantize.max(), &out.integers) {
            let total: u32 = ints
                .iter()
                .skip(v * out.sets)
                .take(out.sets)
                .flatten()
                .sum();
            assert_eq!(total, max, "vertex {v}");
        }
    }
    same_from_every_layout(&case, &input, &map, root, &out);
    output_validates(&input, &manifest, &out);
    // Idempotence.
    let again = ReduceCase {
        bones: manifest
            .bones
            .iter()
            .map(|e| dashvertex_reduce::manifest::BoneRef {
                name: e.name.clone(),
                parent: e.parent.clone(),
            })
            .collect(),
        vertices: out
            .influences
            .chunks(out.sets.max(1))
            .map(|v| {
                v.iter()
                    .flat_map(InfluenceSet::pairs)
                    .filter(|p| p.1 != 0.0)
                    .collect()
            })
            .collect(),
        config: case.config,
    };
    let input2 = reduce_input(&again);
    let map2 = dashvertex_reduce::index_map(&input2, &manifest).unwrap_or_default();
    if let Ok(twice) = dashvertex_reduce::reduce(&input2, &map2, root, &case.config) {
        assert_eq!(twice.influences, out.influences, "not idempotent");
    }
}

/// What `dashvertex reduce` would write for this result — the reduced mesh with the manifest's
/// skeleton, as DashVertex JSON and as a DMX container — has no error diagnostic from the
/// validator (spec/security.md §5: reduce never writes what `dash-validate` rejects).
fn output_validates(
    input: &dashvertex_reduce::input::Input,
    manifest: &dashvertex_reduce::manifest::Manifest,
    out: &dashvertex_reduce::Reduced,
) {
    let document = dashvertex_core::Document {
        mesh: out.to_mesh(&input.positions),
        skeleton: Some(dashvertex_reduce::manifest_skeleton(None, input, manifest)),
    };
    let json = dashvertex_json::encode_document(&document).map(String::into_bytes);
    let dmx = dashvertex_binary::encode(
        &dashvertex_binary::BinaryFile::new(document.clone()),
        &dashvertex_binary::WriteOptions::default(),
    );
    for (name, bytes, format) in [
        ("out.json", json.ok(), dashvertex_formats::Format::Json),
        ("out.dmx", dmx.ok(), dashvertex_formats::Format::Dmx),
    ] {
        let Some(bytes) = bytes else {
            panic!("{name}: the reduced document cannot be encoded");
        };
        let opts = dashvertex_validate::Options::new()
            .with_format(format)
            .with_limits(fuzz_limits())
            .with_max_diagnostics(100);
        let report = dashvertex_validate::validate_bytes(name, &bytes, &opts);
        let errors: Vec<_> = report
            .diagnostics
            .iter()
            .filter(|d| d.severity == dashvertex_validate::Severity::Error)
            .collect();
        assert!(
            errors.is_empty(),
            "{name}: reduce output fails validation: {errors:?}"
        );
    }
}

/// The same influences reduce to the same output whatever their layout and order: the
/// candidate lists reversed, the skeleton listed in reverse, packed as influence sets, and
/// as per-bone columns (repeated bones merged as the reducer merges them, negatives left
/// out). Each layout takes its own selection path in the reducer.
fn same_from_every_layout(
    case: &ReduceCase,
    input: &dashvertex_reduce::input::Input,
    map: &[u32],
    root: Option<u32>,
    out: &dashvertex_reduce::Reduced,
) {
    use dashvertex_reduce::input::{Data, Input};
    let run = |i: &Input, map: &[u32]| dashvertex_reduce::reduce(i, map, root, &case.config);
    let manifest = match dashvertex_reduce::manifest::Manifest::init(&case.bones) {
        Ok(m) => m,
        Err(e) => panic!("manifest: {e}"),
    };
    // Reversed candidates.
    let reversed = ReduceCase {
        bones: case.bones.clone(),
        vertices: case
            .vertices
            .iter()
            .map(|l| l.iter().rev().copied().collect())
            .collect(),
        config: case.config,
    };
    let r = run(&reduce_input(&reversed), map).ok();
    assert_eq!(
        r.as_ref().map(|r| &r.influences),
        Some(&out.influences),
        "candidate order matters"
    );
    // Reversed skeleton, candidates renumbered.
    let nb = case.bones.len() as u32;
    let flipped = ReduceCase {
        bones: case.bones.iter().rev().cloned().collect(),
        vertices: case
            .vertices
            .iter()
            .map(|l| l.iter().map(|&(b, w)| (nb - 1 - b, w)).collect())
            .collect(),
        config: case.config,
    };
    let flipped_input = reduce_input(&flipped);
    if let Ok(m) = dashvertex_reduce::manifest::Manifest::init(&flipped.bones) {
        assert_eq!(m.bones, manifest.bones, "bone order changed the manifest");
        let fmap = dashvertex_reduce::index_map(&flipped_input, &m).unwrap_or_default();
        let r = run(&flipped_input, &fmap).ok();
        assert_eq!(
            r.as_ref().map(|r| &r.influences),
            Some(&out.influences),
            "bone order matters"
        );
    }
    // Influence sets: four candidates per set.
    let n_sets = case
        .vertices
        .iter()
        .map(|l| l.len().div_ceil(4))
        .max()
        .unwrap_or(0);
    let mut sets = vec![vec![InfluenceSet::ZERO; case.vertices.len()]; n_sets];
    for (v, l) in case.vertices.iter().enumerate() {
        for (i, &(b, w)) in l.iter().enumerate() {
            if let Some(x) = sets.get_mut(i / 4).and_then(|s| s.get_mut(v)) {
                x.joints[i % 4] = b;
                x.weights[i % 4] = w;
            }
        }
    }
    let from_sets = Input {
        data: Data::Sets(sets),
        ..input.clone()
    };
    let r = run(&from_sets, map).ok();
    assert_eq!(r.as_ref(), Some(out), "sets and lists disagree");
    // Per-bone columns.
    let mut columns: Vec<(u32, Vec<f32>)> = (0..nb)
        .map(|b| (b, vec![0.0; case.vertices.len()]))
        .collect();
    for (v, l) in case.vertices.iter().enumerate() {
        for (b, col) in columns.iter_mut() {
            let mut ws: Vec<f32> = l
                .iter()
                .filter(|p| p.0 == *b && p.1 > 0.0)
                .map(|p| p.1)
                .collect();
            ws.sort_by(f32::total_cmp);
            if let Some(x) = col.get_mut(v) {
                *x = ws.iter().map(|&w| f64::from(w)).sum::<f64>() as f32;
            }
        }
    }
    let from_columns = Input {
        data: Data::Columns(columns),
        ..input.clone()
    };
    let r = run(&from_columns, map).ok();
    assert_eq!(
        r.as_ref().map(|r| (&r.influences, &r.integers)),
        Some((&out.influences, &out.integers)),
        "columns and lists disagree"
    );
}

/// `meshopt_decode`: the meshopt decoders (`dashvertex_gltf::meshopt`) on any stream.
///
/// The input is split: byte 0 picks the mode (`% 3`: attributes, triangles, indices) and
/// the filter (`/ 3 % 5`), byte 1 the element size (`% 8` of 2, 4, 8, 12, 16, 20, 64,
/// 256) and whether KHR-only formats are allowed (bit 7), bytes 2–3 the count (little
/// endian); the rest is the stream. Decoding never panics, is deterministic, gives
/// exactly `count × size` bytes when it succeeds and never more than the stream's length
/// allows (64 bytes per stream byte for v0 attributes, 1024 for v1, 12 for indices);
/// the same stream under every mode and a count 3 × 2^30 is refused without a panic.
pub fn meshopt_decode(data: &[u8]) {
    use dashvertex_gltf::meshopt::{Filter, Mode, decode};
    let (Some(&a), Some(&b), Some(&c0), Some(&c1)) =
        (data.first(), data.get(1), data.get(2), data.get(3))
    else {
        return;
    };
    let stream = data.get(4..).unwrap_or_default();
    let mode = [Mode::Attributes, Mode::Triangles, Mode::Indices][usize::from(a % 3)];
    let filter = [
        Filter::None,
        Filter::Octahedral,
        Filter::Quaternion,
        Filter::Exponential,
        Filter::Color,
    ][usize::from(a / 3 % 5)];
    let stride = [2usize, 4, 8, 12, 16, 20, 64, 256][usize::from(b % 8)];
    let khr = b & 0x80 != 0;
    let count = usize::from(u16::from_le_bytes([c0, c1]));
    let first = decode(stream, mode, filter, count, stride, khr);
    if let Ok(out) = &first {
        assert_eq!(out.len(), count * stride);
        let per_byte = match (mode, stream.first()) {
            (Mode::Attributes, Some(0xa1)) => 1024,
            (Mode::Attributes, _) => 64,
            _ => 12,
        };
        assert!(
            out.len() <= per_byte * stream.len(),
            "{} from {}",
            out.len(),
            stream.len()
        );
        // v1 and COLOR only where KHR formats are allowed
        assert!(
            khr || (stream.first() != Some(&0xa1) && filter != Filter::Color)
                || mode != Mode::Attributes
        );
    }
    assert_eq!(first, decode(stream, mode, filter, count, stride, khr));
    for m in [Mode::Attributes, Mode::Triangles, Mode::Indices] {
        let _ = decode(stream, m, Filter::None, count, stride, true);
        assert!(decode(stream, m, Filter::None, 3 << 30, 4, true).is_err());
    }
}
