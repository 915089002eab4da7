//! Hostile input files for CLI-level property tests: a seed file from the repository
//! (DashVertex JSON and DMX, raw records, weights documents, glTF with its buffers, GLB,
//! binary and ASCII FBX; FBX also with lying array counts, [`crate::fbx`])
//! or a generated Blender-shaped GLB whose NORMAL, TEXCOORD and index views are long
//! enough to be carried unread by a sparse read (spec/security.md \[V2\]), damaged by a
//! few mutations, or plain random bytes.

use proptest::prelude::*;

use crate::repo;

/// Seed files, relative to the repository root. A `.gltf` seed's external buffers are
/// copied beside it (see [`HostileFile::companions`]).
pub const SEEDS: &[&str] = &[
    "examples/rig.json",
    "examples/rig.dmx",
    "examples/arm.weights.json",
    "spec/vectors/binary/valid-raw.raw",
    "spec/vectors/binary/valid-multiset.dmx",
    "spec/vectors/json/document-multiset.json",
    "spec/vectors/gltf/valid-minimal.gltf",
    "spec/vectors/gltf/multiset-valid.glb",
    "spec/vectors/gltf/weights-unorm8-valid.gltf",
    "fixtures/blender/rig24_all.glb",
    "fixtures/blender/rig_per_bone_attributes_no_nodes.gltf",
    "fixtures/blender/rig_per_bone_attributes.gltf",
    "fixtures/corpus/gltf/blenderio/03_skinned_cylinder/03_skinned_cylinder.gltf",
    "fixtures/fbx/clean.fbx",
    "spec/vectors/fbx/ascii-clean.fbx",
];

/// One way to damage a file.
#[derive(Clone, Debug)]
pub enum Mutation {
    /// Set the byte at this position (modulo the length) to a value.
    Set(usize, u8),
    /// Cut the file to this length (modulo the length + 1).
    Truncate(usize),
    /// Insert bytes at a position.
    Insert(usize, Vec<u8>),
    /// Write a 32-bit little-endian number at a position (DMX counts and offsets).
    Number(usize, u32),
    /// Replace a decimal number in a text file (the n-th one) with another text.
    Token(usize, String),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        3 => (any::<usize>(), any::<u8>()).prop_map(|(p, b)| Mutation::Set(p, b)),
        1 => any::<usize>().prop_map(Mutation::Truncate),
        1 => (any::<usize>(), proptest::collection::vec(any::<u8>(), 1..8))
            .prop_map(|(p, b)| Mutation::Insert(p, b)),
        2 => (any::<usize>(), prop_oneof![
            Just(0u32), Just(1), Just(u32::MAX), Just(0x7FFF_FFFF), Just(0x10000), any::<u32>()
        ]).prop_map(|(p, n)| Mutation::Number(p, n)),
        3 => (any::<usize>(), prop_oneof![
            Just("4294967295".to_owned()), Just("-1".to_owned()), Just("1e39".to_owned()),
            Just("134217728".to_owned()), Just("0".to_owned()), Just("2.5".to_owned()),
            Just("null".to_owned()), Just("[]".to_owned()), Just("\"x\"".to_owned()),
            Just("99".to_owned()),
        ]).prop_map(|(n, t)| Mutation::Token(n, t)),
    ]
}

/// Applies `m` to `bytes`.
pub fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    let n = bytes.len();
    match m {
        Mutation::Set(p, b) if n > 0 => {
            if let Some(x) = bytes.get_mut(p % n) {
                *x = *b;
            }
        }
        Mutation::Truncate(p) => bytes.truncate(p % (n + 1)),
        Mutation::Insert(p, b) => {
            let at = p % (n + 1);
            bytes.splice(at..at, b.iter().copied());
        }
        Mutation::Number(p, v) if n >= 4 => {
            // Aligned to 4, as DMX fields are.
            let at = (p % (n - 3)) & !3;
            if let Some(s) = bytes.get_mut(at..at + 4) {
                s.copy_from_slice(&v.to_le_bytes());
            }
        }
        Mutation::Token(k, t) => {
            let spans = number_spans(bytes);
            if !spans.is_empty()
                && let Some(&(a, b)) = spans.get(k % spans.len())
            {
                bytes.splice(a..b, t.bytes());
            }
        }
        _ => {}
    }
}

/// Byte ranges of the decimal numbers in a text.
fn number_spans(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes.get(i).is_some_and(u8::is_ascii_digit) {
            let start = i;
            while bytes
                .get(i)
                .is_some_and(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'-'))
            {
                i += 1;
            }
            out.push((start, i));
        } else {
            i += 1;
        }
    }
    out
}

/// A generated input file.
#[derive(Clone, Debug)]
pub struct HostileFile {
    /// The seed it came from, or `None` for random bytes.
    pub seed: Option<&'static str>,
    /// File name to write it under (the seed's name, or `random.<ext>`).
    pub name: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

impl HostileFile {
    /// Files a `.gltf` seed references (its `.bin` buffers), to copy beside it unchanged.
    pub fn companions(&self) -> Vec<(String, Vec<u8>)> {
        let Some(seed) = self.seed.filter(|s| s.ends_with(".gltf")) else {
            return Vec::new();
        };
        let path = repo().join(seed);
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let mut out = Vec::new();
        for part in text.split("\"uri\"").skip(1) {
            let Some(uri) = part.split('"').nth(1) else {
                continue;
            };
            if uri.starts_with("data:") || uri.contains('/') {
                continue;
            }
            if let (Some(dir), false) = (path.parent(), out.iter().any(|(n, _)| n == uri))
                && let Ok(b) = std::fs::read(dir.join(uri))
            {
                out.push((uri.to_owned(), b));
            }
        }
        out
    }
}

/// The generated seed: a Blender-shaped GLB of 9,000 vertices, whose NORMAL (108 KB),
/// TEXCOORD_0 (72 KB) and index (81 KB) views each exceed the sparse read's 64 KiB.
pub fn carried_seed() -> &'static [u8] {
    static SEED: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    SEED.get_or_init(|| {
        crate::shaped::ShapedGlb {
            vertices: 9000,
            joints: 48,
            keyframes: 0,
            blender: true,
        }
        .build()
        .map(|(b, _)| b)
        .unwrap_or_default()
    })
}

/// A seed with one to four mutations (most cases), up to 2 KiB of random bytes under
/// a name with any of the extensions the commands recognise, or a glTF file whose
/// declared counts, ranges and floats lie ([`crate::declared`]).
pub fn hostile() -> impl Strategy<Value = HostileFile> {
    let seeded = (
        proptest::sample::select(SEEDS),
        proptest::collection::vec(mutation(), 1..5),
    )
        .prop_map(|(seed, muts)| {
            let mut bytes = std::fs::read(repo().join(seed)).unwrap_or_default();
            for m in &muts {
                apply(&mut bytes, m);
            }
            let name = seed.rsplit('/').next().unwrap_or(seed).to_owned();
            HostileFile {
                seed: Some(seed),
                name,
                bytes,
            }
        });
    let random = (
        proptest::sample::select(&["json", "dmx", "raw", "gltf", "glb", "bin", "fbx"][..]),
        proptest::collection::vec(any::<u8>(), 0..2048),
    )
        .prop_map(|(ext, bytes)| HostileFile {
            seed: None,
            name: format!("random.{ext}"),
            bytes,
        });
    // Mutations of the generated GLB: in its JSON (views that overlap, lie or move) or
    // anywhere in its data.
    let carried = proptest::collection::vec(mutation(), 1..4).prop_map(|muts| {
        let mut bytes = carried_seed().to_vec();
        for m in &muts {
            apply(&mut bytes, m);
        }
        HostileFile {
            seed: None,
            name: "carried.glb".into(),
            bytes,
        }
    });
    prop_oneof![
        5 => seeded,
        1 => random,
        2 => crate::declared::declared(),
        1 => carried,
        1 => crate::fbx::lying_counts(),
    ]
}
