//! The decoders against streams the meshoptimizer encoder wrote (and its decoder read
//! back), and hostile streams: random, mutated, truncated and extended ones never panic
//! and never give more bytes than the stream's length allows.

use super::stream::{min_index_len, min_triangle_len, min_vertex_len};
use super::*;

struct Case {
    mode: Mode,
    filter: Filter,
    count: usize,
    stride: usize,
    encoded: Vec<u8>,
    decoded: Vec<u8>,
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn cases() -> Vec<Case> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/compressed/meshopt-streams/streams.json"
    );
    let v: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| Case {
            mode: match c["mode"].as_str().unwrap() {
                "ATTRIBUTES" => Mode::Attributes,
                "TRIANGLES" => Mode::Triangles,
                _ => Mode::Indices,
            },
            filter: Filter::from_name(c["filter"].as_str().unwrap()).unwrap(),
            count: c["count"].as_u64().unwrap() as usize,
            stride: c["stride"].as_u64().unwrap() as usize,
            encoded: unhex(c["encoded"].as_str().unwrap()),
            decoded: unhex(c["decoded"].as_str().unwrap()),
        })
        .collect()
}

/// Most a decoded stream may hold for `len` bytes of stream (spec/security.md [L2]).
fn bound(mode: Mode, len: usize) -> usize {
    match mode {
        Mode::Attributes => 1024 * len,
        Mode::Triangles | Mode::Indices => 12 * len,
    }
}

#[test]
fn streams_of_the_reference_encoder_decode_as_its_decoder_does() {
    let cases = cases();
    assert!(cases.len() > 150);
    for (k, c) in cases.iter().enumerate() {
        let got = decode(&c.encoded, c.mode, c.filter, c.count, c.stride, true)
            .unwrap_or_else(|e| panic!("case {k} ({:?} {:?}): {e}", c.mode, c.filter));
        assert_eq!(got.len(), c.decoded.len(), "case {k}");
        match c.filter {
            Filter::None | Filter::Exponential => assert_eq!(got, c.decoded, "case {k}"),
            // The filters are specified to one unit in the last place.
            _ => {
                let wide = c.stride == 8;
                for (i, (a, b)) in got
                    .chunks(if wide { 2 } else { 1 })
                    .zip(c.decoded.chunks(if wide { 2 } else { 1 }))
                    .enumerate()
                {
                    let (x, y) = if wide {
                        (
                            i32::from(i16::from_le_bytes([a[0], a[1]])),
                            i32::from(i16::from_le_bytes([b[0], b[1]])),
                        )
                    } else if c.filter == Filter::Color {
                        (i32::from(a[0]), i32::from(b[0]))
                    } else {
                        (i32::from(a[0] as i8), i32::from(b[0] as i8))
                    };
                    let d = if c.filter == Filter::Color && wide {
                        // unsigned 16-bit components
                        ((x as u16) as i32 - (y as u16) as i32).abs()
                    } else {
                        (x - y).abs()
                    };
                    assert!(
                        d <= 1,
                        "case {k} ({:?}) component {i}: {x} vs {y}",
                        c.filter
                    );
                }
            }
        }
    }
}

#[test]
fn version_1_attributes_and_color_are_khr_only() {
    let cases = cases();
    let v1 = cases
        .iter()
        .find(|c| c.mode == Mode::Attributes && c.encoded[0] == 0xa1)
        .unwrap();
    assert_eq!(
        decode(
            &v1.encoded,
            v1.mode,
            Filter::None,
            v1.count,
            v1.stride,
            false
        ),
        Err(DecodeError::Header(0xa1))
    );
    let v0 = cases
        .iter()
        .find(|c| c.mode == Mode::Attributes && c.encoded[0] == 0xa0)
        .unwrap();
    assert!(
        decode(
            &v0.encoded,
            v0.mode,
            Filter::None,
            v0.count,
            v0.stride,
            false
        )
        .is_ok()
    );
    assert!(decode(&v0.encoded, v0.mode, Filter::Color, v0.count, 4, false).is_err());
}

#[test]
fn every_truncation_and_extension_of_a_stream_is_refused() {
    for c in cases().iter().step_by(7) {
        for cut in 0..c.encoded.len() {
            assert!(
                decode(&c.encoded[..cut], c.mode, c.filter, c.count, c.stride, true).is_err(),
                "{:?} cut at {cut}",
                c.mode
            );
        }
        let mut longer = c.encoded.clone();
        longer.insert(1, 0);
        assert!(decode(&longer, c.mode, c.filter, c.count, c.stride, true).is_err());
    }
}

#[test]
fn the_shortest_streams_bound_the_output() {
    // v0: one header byte per four groups per element byte → 64 output bytes per byte
    for stride in (4..=256).step_by(4) {
        for count in [0usize, 1, 16, 255, 256, 257, 10_000] {
            let n0 = min_vertex_len(count, stride, 0).unwrap();
            let n1 = min_vertex_len(count, stride, 1).unwrap();
            assert!(count * stride <= 64 * n0, "{count}×{stride}: {n0}");
            assert!(count * stride <= 1024 * n1, "{count}×{stride}: {n1}");
        }
    }
    assert_eq!(min_triangle_len(3), Some(18));
    assert_eq!(min_index_len(1), Some(6));
    assert_eq!(min_vertex_len(usize::MAX, 256, 0), None);
    // a huge declared count against a short stream: refused before any allocation
    let e = decode(
        &[0xa0; 40],
        Mode::Attributes,
        Filter::None,
        usize::MAX / 8,
        4,
        false,
    );
    assert!(matches!(
        e,
        Err(DecodeError::Short { .. }) | Err(DecodeError::Truncated)
    ));
    let e = decode(
        &[0xe1; 40],
        Mode::Triangles,
        Filter::None,
        3 << 40,
        4,
        false,
    );
    assert!(matches!(e, Err(DecodeError::Short { .. })));
    let e = decode(&[0xd1; 40], Mode::Indices, Filter::None, 1 << 40, 4, false);
    assert!(matches!(e, Err(DecodeError::Short { .. })));
}

/// A small deterministic generator (no dependency on a seed crate).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn check_bounded(data: &[u8], mode: Mode, filter: Filter, count: usize, stride: usize) {
    if let Ok(out) = decode(data, mode, filter, count, stride, true) {
        assert_eq!(out.len(), count * stride);
        assert!(
            out.len() <= bound(mode, data.len()),
            "{mode:?}: {} from {}",
            out.len(),
            data.len()
        );
    }
}

#[test]
fn random_and_mutated_streams_never_panic_nor_pass_the_bound() {
    let cases = cases();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let modes = [Mode::Attributes, Mode::Triangles, Mode::Indices];
    let filters = [
        Filter::None,
        Filter::Octahedral,
        Filter::Quaternion,
        Filter::Exponential,
        Filter::Color,
    ];
    for round in 0..6000 {
        let c = &cases[(rng.next() as usize) % cases.len()];
        let mut data = c.encoded.clone();
        // flip, overwrite, insert or drop a few bytes
        for _ in 0..1 + rng.next() % 4 {
            if data.is_empty() {
                break;
            }
            let at = (rng.next() as usize) % data.len();
            match rng.next() % 4 {
                0 => data[at] ^= 1 << (rng.next() % 8),
                1 => data[at] = rng.next() as u8,
                2 => data.insert(at, rng.next() as u8),
                _ => {
                    data.remove(at);
                }
            }
        }
        check_bounded(&data, c.mode, c.filter, c.count, c.stride);
        // the same bytes under another declared shape
        let mode = modes[(rng.next() % 3) as usize];
        let filter = filters[(rng.next() % 5) as usize];
        let stride = [2usize, 4, 8, 12, 16, 64, 256][(rng.next() % 7) as usize];
        let count = match round % 3 {
            0 => (rng.next() % 4096) as usize,
            1 => c.count,
            _ => (rng.next() >> 20) as usize,
        };
        check_bounded(&data, mode, filter, count, stride);
        // pure noise with a valid header
        let len = (rng.next() % 600) as usize;
        let mut noise: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        if let Some(h) = noise.first_mut() {
            *h = [0xa0, 0xa1, 0xe0, 0xe1, 0xd0, 0xd1][(rng.next() % 6) as usize];
        }
        check_bounded(&noise, mode, filter, (rng.next() % 2048) as usize, stride);
    }
}

#[test]
fn filters_survive_any_bytes() {
    let mut rng = Rng(7);
    for filter in [
        Filter::Octahedral,
        Filter::Quaternion,
        Filter::Exponential,
        Filter::Color,
    ] {
        for stride in [4, 8] {
            if !filter.allows(stride) {
                continue;
            }
            let mut data: Vec<u8> = (0..stride * 4096).map(|_| rng.next() as u8).collect();
            // zero scales: NaN becomes 0, never a panic
            data[..stride].fill(0);
            filter.apply(&mut data, stride);
        }
    }
    let mut e = (-128i32 << 24 | 5).to_le_bytes().to_vec();
    e.extend_from_slice(&(127i32 << 24 | 5).to_le_bytes());
    e.extend_from_slice(&((-3i32 << 24) | 0x00ff_fff0).to_le_bytes());
    Filter::Exponential.apply(&mut e, 4);
    assert_eq!(f32::from_le_bytes(e[..4].try_into().unwrap()), 0.0);
    assert!(f32::from_le_bytes(e[4..8].try_into().unwrap()) > 1e38);
    assert_eq!(f32::from_le_bytes(e[8..].try_into().unwrap()), -16.0 / 8.0);
}

#[test]
fn view_descriptions_are_checked_before_decoding() {
    let ok = serde_json::json!({"buffer": 0, "byteLength": 40, "byteStride": 8, "count": 10, "mode": "ATTRIBUTES"});
    assert!(Params::of(&ok, MESHOPT, 80, Some(8)).is_ok());
    assert!(Params::of(&ok, MESHOPT, 81, Some(8)).is_err());
    assert!(Params::of(&ok, MESHOPT, 80, Some(16)).is_err());
    for bad in [
        serde_json::json!({"buffer": 0, "byteLength": 4, "byteStride": 6, "count": 1, "mode": "ATTRIBUTES"}),
        serde_json::json!({"buffer": 0, "byteLength": 4, "byteStride": 260, "count": 1, "mode": "ATTRIBUTES"}),
        serde_json::json!({"buffer": 0, "byteLength": 4, "byteStride": 8, "count": 4, "mode": "TRIANGLES"}),
        serde_json::json!({"buffer": 0, "byteLength": 4, "byteStride": 2, "count": 4, "mode": "INDICES", "filter": "OCTAHEDRAL"}),
        serde_json::json!({"buffer": 0, "byteLength": 4, "byteStride": 4, "count": 1, "mode": "ATTRIBUTES", "filter": "COLOR"}),
        serde_json::json!({"buffer": 0, "byteLength": 4, "byteStride": 12, "count": 1, "mode": "ATTRIBUTES", "filter": "QUATERNION"}),
        serde_json::json!({"buffer": 0, "byteLength": 4, "byteStride": 4, "count": 1, "mode": "LINES"}),
        serde_json::json!({"buffer": 0, "byteStride": 4, "count": 1, "mode": "ATTRIBUTES"}),
        serde_json::json!({"buffer": -1, "byteLength": 4, "byteStride": 4, "count": 1, "mode": "ATTRIBUTES"}),
    ] {
        let stride = bad["byteStride"].as_u64().unwrap();
        let len = stride * bad["count"].as_u64().unwrap();
        assert!(Params::of(&bad, MESHOPT, len, None).is_err(), "{bad}");
    }
    let color = serde_json::json!({"buffer": 0, "byteLength": 4, "byteStride": 4, "count": 1, "mode": "ATTRIBUTES", "filter": "COLOR"});
    assert!(Params::of(&color, KHR_MESHOPT, 4, None).is_ok());
}
