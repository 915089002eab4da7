//! glTF files whose declared numbers lie (issue 22, spec/security.md \[L2\] \[L3\]): the
//! minimal valid vector with accessor counts, sparse counts, buffer view offsets, lengths
//! and strides replaced by numbers the file cannot back (up to 2^64 − 1), buffer views
//! dropped from accessors (legal glTF: zeros), primitives repeated so one accessor is read
//! many times, extra views no accessor uses, and NaN or infinities in POSITION and in an
//! animation's keyframes. A command must answer each within its time and memory bound.

use proptest::prelude::*;
use serde_json::{Value, json};

use crate::hostile::HostileFile;
use crate::repo;

/// The seed every declared-number case starts from.
pub const SEED: &str = "spec/vectors/gltf/valid-minimal.gltf";

/// Numbers a hostile file declares: just past the element budget's floor, millions,
/// 32- and 64-bit boundaries, the 1.5e9 and 3.5e9.
const NUMBERS: &[u64] = &[
    0,
    1,
    (1 << 20) + 1,
    5_000_000,
    100_000_000,
    1_500_000_000,
    3_500_000_000,
    1 << 32,
    1 << 63,
    u64::MAX - 7,
    u64::MAX,
];

/// One lie.
#[derive(Clone, Debug)]
pub enum Lie {
    /// Accessor `a`'s count (modulo the accessors).
    Count(usize, u64),
    /// Accessor `a` loses its buffer view.
    NoView(usize),
    /// Accessor `a` gets a one-entry sparse block, declaring `n` entries.
    Sparse(usize, u64),
    /// Buffer view `v`'s byteOffset.
    ViewOffset(usize, u64),
    /// Buffer view `v`'s byteLength.
    ViewLength(usize, u64),
    /// Buffer view `v`'s byteStride.
    ViewStride(usize, u64),
    /// A buffer view no accessor uses, with this offset and length.
    ExtraView(u64, u64),
    /// The mesh's primitive repeated this many times (its accessors read that often).
    Repeat(usize),
    /// POSITION element `k` (modulo 9 components) becomes this value.
    Position(usize, f32),
    /// An animation whose output (or, with `true`, input) holds this value.
    Animation(bool, f32),
}

fn number() -> impl Strategy<Value = u64> {
    prop_oneof![
        3 => proptest::sample::select(NUMBERS),
        1 => any::<u64>(),
    ]
}

fn float() -> impl Strategy<Value = f32> {
    proptest::sample::select(&[f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1e30][..])
}

fn lie() -> impl Strategy<Value = Lie> {
    prop_oneof![
        3 => (0usize..4, number()).prop_map(|(a, n)| Lie::Count(a, n)),
        2 => (0usize..4).prop_map(Lie::NoView),
        2 => (0usize..4, number()).prop_map(|(a, n)| Lie::Sparse(a, n)),
        2 => (0usize..4, number()).prop_map(|(v, n)| Lie::ViewOffset(v, n)),
        2 => (0usize..4, number()).prop_map(|(v, n)| Lie::ViewLength(v, n)),
        1 => (0usize..4, number()).prop_map(|(v, n)| Lie::ViewStride(v, n)),
        2 => (number(), number()).prop_map(|(o, n)| Lie::ExtraView(o, n)),
        1 => (2usize..2000).prop_map(Lie::Repeat),
        1 => (0usize..9, float()).prop_map(|(k, x)| Lie::Position(k, x)),
        1 => (any::<bool>(), float()).prop_map(|(i, x)| Lie::Animation(i, x)),
    ]
}

/// Embeds `bytes` as the document's buffer 0 again.
fn rebuffer(doc: &mut Value, bytes: &[u8]) {
    doc["buffers"][0]["byteLength"] = json!(bytes.len());
    doc["buffers"][0]["uri"] = json!(format!(
        "data:application/octet-stream;base64,{}",
        base64(bytes)
    ));
}

/// Standard base64 (the testkit has no base64 dependency; these buffers are small).
fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let n = c
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= c.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn unbase64(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let digits: Vec<u8> = s.bytes().filter_map(val).collect();
    let mut out = Vec::new();
    for c in digits.chunks(4) {
        let n = c
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &d)| n | u32::from(d) << (18 - 6 * i));
        for i in 0..c.len().saturating_sub(1) {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    out
}

/// Applies `lie` to the document (whose buffer 0 holds `bin`).
pub fn apply(doc: &mut Value, bin: &mut Vec<u8>, lie: &Lie) {
    let n_acc = doc["accessors"].as_array().map_or(1, Vec::len).max(1);
    let n_views = doc["bufferViews"].as_array().map_or(1, Vec::len).max(1);
    match *lie {
        Lie::Count(a, n) => doc["accessors"][a % n_acc]["count"] = json!(n),
        Lie::NoView(a) => {
            if let Some(o) = doc["accessors"][a % n_acc].as_object_mut() {
                o.remove("bufferView");
            }
        }
        Lie::Sparse(a, n) => {
            while !bin.len().is_multiple_of(4) {
                bin.push(0);
            }
            let at = bin.len();
            bin.extend_from_slice(&0u32.to_le_bytes());
            bin.extend_from_slice(&[0; 64]);
            let views = doc["bufferViews"].as_array_mut();
            if let Some(views) = views {
                views.push(json!({"buffer": 0, "byteOffset": at, "byteLength": 4}));
                views.push(json!({"buffer": 0, "byteOffset": at + 4, "byteLength": 64}));
                let k = views.len();
                doc["accessors"][a % n_acc]["sparse"] = json!({
                    "count": n,
                    "indices": {"bufferView": k - 2, "componentType": 5125},
                    "values": {"bufferView": k - 1},
                });
            }
        }
        Lie::ViewOffset(v, n) => doc["bufferViews"][v % n_views]["byteOffset"] = json!(n),
        Lie::ViewLength(v, n) => doc["bufferViews"][v % n_views]["byteLength"] = json!(n),
        Lie::ViewStride(v, n) => doc["bufferViews"][v % n_views]["byteStride"] = json!(n),
        Lie::ExtraView(o, n) => {
            if let Some(views) = doc["bufferViews"].as_array_mut() {
                views.push(json!({"buffer": 0, "byteOffset": o, "byteLength": n}));
            }
        }
        Lie::Repeat(k) => {
            let p = doc["meshes"][0]["primitives"][0].clone();
            doc["meshes"][0]["primitives"] = Value::Array(vec![p; k]);
        }
        Lie::Position(k, x) => {
            // POSITION is the first view, at byte 0: 3 vertices × 3 floats.
            let at = (k % 9) * 4;
            if let Some(s) = bin.get_mut(at..at + 4) {
                s.copy_from_slice(&x.to_le_bytes());
            }
        }
        Lie::Animation(input, x) => {
            while !bin.len().is_multiple_of(4) {
                bin.push(0);
            }
            let at = bin.len();
            let (times, values) = if input {
                ([0.0f32, x], [0.0f32, 0.0, 0.0, 0.0, 1.0, 0.0])
            } else {
                ([0.0f32, 1.0], [0.0f32, 0.0, 0.0, x, 1.0, 0.0])
            };
            for f in times.iter().chain(&values) {
                bin.extend_from_slice(&f.to_le_bytes());
            }
            if let (Some(views), Some(accs)) = (
                doc["bufferViews"].as_array().map(Vec::len),
                doc["accessors"].as_array().map(Vec::len),
            ) {
                doc["bufferViews"]
                    .as_array_mut()
                    .into_iter()
                    .for_each(|vs| {
                        vs.push(json!({"buffer": 0, "byteOffset": at, "byteLength": 8}));
                        vs.push(json!({"buffer": 0, "byteOffset": at + 8, "byteLength": 24}));
                    });
                doc["accessors"].as_array_mut().into_iter().for_each(|a| {
                    a.push(
                        json!({"bufferView": views, "componentType": 5126, "count": 2,
                        "type": "SCALAR", "min": [0.0], "max": [1.0]}),
                    );
                    a.push(
                        json!({"bufferView": views + 1, "componentType": 5126, "count": 2,
                        "type": "VEC3"}),
                    );
                });
                doc["animations"] = json!([{
                    "samplers": [{"input": accs, "output": accs + 1}],
                    "channels": [{"sampler": 0, "target": {"node": 2, "path": "translation"}}],
                }]);
            }
        }
    }
}

/// The minimal valid glTF with one to three lies, as `valid-minimal.gltf` (a `.glb` name
/// is not needed: the readers are the same past the container).
pub fn declared() -> impl Strategy<Value = HostileFile> {
    proptest::collection::vec(lie(), 1..4).prop_map(|lies| {
        let text = std::fs::read_to_string(repo().join(SEED)).unwrap_or_default();
        let mut doc: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        let uri = doc["buffers"][0]["uri"].as_str().unwrap_or_default();
        let mut bin = unbase64(uri.split_once(',').map_or("", |x| x.1));
        for l in &lies {
            apply(&mut doc, &mut bin, l);
        }
        rebuffer(&mut doc, &bin);
        HostileFile {
            seed: Some(SEED),
            name: "declared.gltf".into(),
            bytes: serde_json::to_vec(&doc).unwrap_or_default(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips() {
        for n in 0..10u8 {
            let b: Vec<u8> = (0..n).map(|i| i.wrapping_mul(37)).collect();
            assert_eq!(unbase64(&base64(&b)), b);
        }
        assert_eq!(base64(b"Man"), "TWFu");
        assert_eq!(base64(b"M"), "TQ==");
    }
}
