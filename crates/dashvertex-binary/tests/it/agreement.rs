//! The three decoders agree on valid, truncated and corrupted input, and the streaming
//! decoder gives the same result for any chunking.

use crate::common::{Outcome, decode_all};
use dashvertex_binary::{BinaryFile, Expect, ForeignSection, WriteOptions};
use dashvertex_core::{Bone, Document, InfluenceSet, Limits, Mesh, Skeleton, Vertex};
use proptest::prelude::*;

fn f32_any() -> impl Strategy<Value = f32> {
    prop_oneof![
        any::<u32>().prop_map(f32::from_bits),
        (0u32..100).prop_map(|n| n as f32 / 100.0)
    ]
}

fn set() -> impl Strategy<Value = InfluenceSet> {
    (
        any::<[u32; 4]>(),
        [f32_any(), f32_any(), f32_any(), f32_any()],
    )
        .prop_map(|(joints, weights)| InfluenceSet { joints, weights })
}

fn file() -> impl Strategy<Value = BinaryFile> {
    (
        any::<bool>(),
        0usize..6,
        1usize..4,
        0usize..4,
        any::<bool>(),
        proptest::collection::vec(
            (
                any::<[u8; 4]>(),
                proptest::collection::vec(any::<u8>(), 0..40),
            ),
            0..3,
        ),
    )
        .prop_flat_map(|(skinned, n, sets, bones, compact, foreign)| {
            let sets = if skinned && n > 0 { sets } else { 1 };
            (
                proptest::collection::vec(([f32_any(), f32_any(), f32_any()], set()), n),
                proptest::collection::vec(proptest::collection::vec(set(), n), sets - 1),
                proptest::collection::vec(
                    (
                        "[a-z]{1,8}",
                        any::<u32>(),
                        [f32_any(), f32_any(), f32_any()],
                    ),
                    bones,
                ),
                Just((skinned, compact, foreign)),
            )
        })
        .prop_map(|(verts, extra, bones, (skinned, compact, foreign))| {
            let vertices: Vec<Vertex> = verts
                .into_iter()
                .map(|(position, skin)| Vertex {
                    position,
                    skin: if skinned { skin } else { InfluenceSet::ZERO },
                })
                .collect();
            let mesh = Mesh::from_parts(skinned, vertices, extra).unwrap();
            let skeleton = (!bones.is_empty()).then(|| Skeleton {
                bones: bones
                    .into_iter()
                    .enumerate()
                    .map(|(i, (name, p, pos))| {
                        let parent = if i == 0 { None } else { Some(p % i as u32) };
                        Bone {
                            position: pos,
                            ..Bone::new(name, parent)
                        }
                    })
                    .collect(),
            });
            let mut f = BinaryFile::new(Document { mesh, skeleton });
            f.foreign = foreign
                .into_iter()
                .filter(|(t, _)| {
                    t.iter().any(|&b| b != 0)
                        && ![*b"VERT", *b"VSET", *b"SKEL", *b"TEX\0"].contains(t)
                })
                .fold(Vec::new(), |mut acc: Vec<ForeignSection>, (tag, bytes)| {
                    if !acc.iter().any(|f| f.tag == tag) {
                        acc.push(ForeignSection {
                            tag,
                            count: bytes.len() as u32,
                            bytes,
                            source_offset: None,
                        });
                    }
                    acc
                });
            f.vertex_layout = if compact && !skinned {
                dashvertex_binary::VertexLayout::Compact
            } else {
                dashvertex_binary::VertexLayout::Full
            };
            f
        })
}

fn encode(f: &BinaryFile) -> Vec<u8> {
    let opts = WriteOptions {
        compact_unskinned: f.vertex_layout == dashvertex_binary::VertexLayout::Compact,
        drop_unreferenced: false,
    };
    dashvertex_binary::encode(f, &opts).unwrap()
}

/// Damage to apply to a valid file.
#[derive(Clone, Debug)]
enum Damage {
    Truncate(usize),
    SetU32 { at: usize, value: u32 },
    Flip { at: usize, bit: u8 },
    Append(Vec<u8>),
}

fn damage() -> impl Strategy<Value = Damage> {
    let interesting = prop_oneof![
        Just(0u32),
        Just(1),
        Just(2),
        Just(3),
        Just(16),
        Just(48),
        Just(0x70),
        Just(0x80),
        Just(u32::MAX),
        Just(4_000_000_000),
        any::<u32>(),
        Just(u32::from_le_bytes(*b"VERT")),
        Just(u32::from_le_bytes(*b"VSET")),
        Just(u32::from_le_bytes(*b"SKEL")),
    ];
    prop_oneof![
        any::<usize>().prop_map(Damage::Truncate),
        (any::<usize>(), interesting).prop_map(|(at, value)| Damage::SetU32 { at, value }),
        (any::<usize>(), 0u8..8).prop_map(|(at, bit)| Damage::Flip { at, bit }),
        proptest::collection::vec(any::<u8>(), 1..40).prop_map(Damage::Append),
    ]
}

fn apply(bytes: &mut Vec<u8>, d: &Damage) {
    let len = bytes.len();
    match d {
        Damage::Truncate(n) => bytes.truncate(n % (len + 1)),
        Damage::SetU32 { at, value } => {
            if len >= 4 {
                // Mostly header cells: aim at the table three times out of four.
                let limit = if at % 4 != 0 {
                    len.min(16 + 16 * 8)
                } else {
                    len
                };
                let at = (at / 4 % (limit / 4).max(1)) * 4;
                if at + 4 <= len {
                    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
                }
            }
        }
        Damage::Flip { at, bit } => {
            if len > 0 {
                bytes[at % len] ^= 1 << bit;
            }
        }
        Damage::Append(extra) => bytes.extend_from_slice(extra),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, failure_persistence: None, ..ProptestConfig::default() })]

    /// binrw, nom (any chunking) and zerocopy return the same file or the same error
    /// offset for valid, truncated and corrupted bytes.
    #[test]
    fn decoders_agree_on_damaged_input(f in file(), damages in proptest::collection::vec(damage(), 0..3), chunk in 1usize..70) {
        // spec: B9
        let mut bytes = encode(&f);
        for d in &damages {
            apply(&mut bytes, d);
        }
        for expect in [Expect::Detect, Expect::Container, Expect::Raw] {
            decode_all(&bytes, expect, &Limits::default(), &[1, chunk]);
        }
        let small = Limits { max_vertices: 3, max_bones: 2, max_sets: 2, ..Limits::default() };
        decode_all(&bytes, Expect::Detect, &small, &[chunk]);
    }

    /// The streaming decoder gives the same file or the same error however its input is
    /// split: pieces of uneven sizes, empty pieces included, cut anywhere (as a network
    /// or a pipe delivers them).
    #[test]
    fn the_streaming_decoder_ignores_where_its_input_is_split(
        f in file(),
        damages in proptest::collection::vec(damage(), 0..2),
        cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..12),
    ) {
        let mut bytes = encode(&f);
        for d in &damages {
            apply(&mut bytes, d);
        }
        let mut at: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
        at.sort_unstable();
        for expect in [Expect::Detect, Expect::Container] {
            let whole = Outcome::from(dashvertex_binary::decode_chunked(&bytes, bytes.len().max(1), expect, &Limits::default()));
            let mut d = dashvertex_binary::StreamDecoder::new(expect, &Limits::default())
                .with_len(bytes.len() as u64);
            let mut from = 0;
            let mut fed = Ok(());
            for &to in at.iter().chain(std::iter::once(&bytes.len())) {
                fed = fed.and_then(|()| d.feed(&bytes[from..to]));
                from = to;
            }
            let split = Outcome::from(fed.and_then(|()| d.finish()));
            prop_assert!(split.same(&whole), "cuts at {:?}: {:?} vs {:?}", at, split, whole);
        }
    }

    /// Every decoder reads back exactly what the writer wrote, and re-writing gives the
    /// same bytes.
    #[test]
    fn roundtrip_is_bit_exact_and_deterministic(f in file()) {
        // spec: N2 B5 B7 T2
        let bytes = encode(&f);
        match decode_all(&bytes, Expect::Container, &Limits::default(), &[1, 5]) {
            Outcome::Ok(back) => {
                prop_assert!(back.document.bit_eq(&f.document));
                prop_assert_eq!(&back.foreign.iter().filter(|x| !x.bytes.is_empty() || x.count > 0).map(|x| (x.tag, x.count, x.bytes.clone())).collect::<Vec<_>>(),
                    &f.foreign.iter().filter(|x| !x.bytes.is_empty() || x.count > 0).map(|x| (x.tag, x.count, x.bytes.clone())).collect::<Vec<_>>());
                prop_assert_eq!(encode(&back), bytes);
            }
            Outcome::Err(e) => prop_assert!(false, "{e}"),
        }
    }
}
