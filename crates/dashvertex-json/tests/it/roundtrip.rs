//! Property tests: JSON output reads back bit-exactly and deterministically.

use dashvertex_core::{Bone, Document, InfluenceSet, Limits, Mesh, Skeleton, Vertex};
use dashvertex_json::{Form, JsonFile};
use proptest::prelude::*;

fn finite() -> impl Strategy<Value = f32> {
    prop_oneof![
        any::<u32>()
            .prop_map(f32::from_bits)
            .prop_filter("finite", |v| v.is_finite()),
        Just(0.0f32),
        Just(-0.0f32),
        Just(1.0f32),
        Just(f32::MAX),
        Just(f32::from_bits(1)),
        (0u32..=1000).prop_map(|n| n as f32 / 1000.0),
    ]
}

fn set() -> impl Strategy<Value = InfluenceSet> {
    (any::<[u32; 4]>(), [finite(), finite(), finite(), finite()])
        .prop_map(|(joints, weights)| InfluenceSet { joints, weights })
}

fn mesh() -> impl Strategy<Value = Mesh> {
    (any::<bool>(), 0usize..12, 1usize..4).prop_flat_map(|(skinned, n, sets)| {
        // JSON has no way to say that a mesh without vertices is skinned (spec §6).
        let skinned = skinned && n > 0;
        let sets = if skinned { sets } else { 1 };
        (
            proptest::collection::vec(([finite(), finite(), finite()], set()), n),
            proptest::collection::vec(proptest::collection::vec(set(), n), sets - 1),
        )
            .prop_map(move |(verts, extra)| {
                let vertices = verts
                    .into_iter()
                    .map(|(position, skin)| Vertex {
                        position,
                        skin: if skinned { skin } else { InfluenceSet::ZERO },
                    })
                    .collect();
                Mesh::from_parts(skinned, vertices, extra).unwrap()
            })
    })
}

fn skeleton() -> impl Strategy<Value = Option<Skeleton>> {
    proptest::option::of(
        proptest::collection::vec(
            (
                "[a-zA-Z_.\u{e9}\u{4e2d}\"\\\\/ ]{0,12}",
                proptest::option::of(0u32..8),
                [finite(), finite(), finite()],
                [finite(), finite(), finite(), finite()],
            ),
            0..6,
        )
        .prop_map(|bones| Skeleton {
            bones: bones
                .into_iter()
                .map(|(name, parent, position, rotation)| Bone {
                    position,
                    rotation,
                    ..Bone::new(name, parent)
                })
                .collect(),
        }),
    )
}

fn document() -> impl Strategy<Value = Document> {
    (mesh(), skeleton()).prop_map(|(mesh, skeleton)| Document { mesh, skeleton })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    /// Every finite value, every set and every bone survive JSON bit for bit.
    #[test]
    fn roundtrip_is_bit_exact(doc in document()) {
        // spec: N2 N5 J10 T1 I5
        let text = dashvertex_json::encode_document(&doc).unwrap();
        let back = dashvertex_json::decode(&text, &Limits::default()).unwrap();
        prop_assert!(back.document.bit_eq(&doc), "{text}");
        // Deterministic and idempotent text.
        prop_assert_eq!(dashvertex_json::encode_document(&doc).unwrap(), text.clone());
        prop_assert_eq!(dashvertex_json::encode(&back).unwrap(), text);
    }

    /// The array and single-vertex forms round-trip too.
    #[test]
    fn roundtrip_array_and_vertex_forms(mesh in mesh()) {
        for form in [Form::Array, Form::Vertex] {
            let file = JsonFile { form, document: Document { mesh: mesh.clone(), skeleton: None }, foreign: Vec::new(), order: Vec::new() };
            let text = dashvertex_json::encode(&file).unwrap();
            let back = dashvertex_json::decode(&text, &Limits::default()).unwrap();
            prop_assert!(back.document.mesh.bit_eq(&mesh), "{text}");
            let expected = if mesh.len() == 1 && form == Form::Vertex { Form::Vertex } else { Form::Array };
            prop_assert_eq!(back.form, expected);
        }
    }
}

#[test]
fn writes_the_shortest_exact_decimal_for_every_exponent() {
    // spec: N5
    for e in 0..=254u32 {
        for m in [0u32, 1, 0x3F_FFFF, 0x40_0000, 0x7F_FFFF, 0x12_3456] {
            let v = f32::from_bits((e << 23) | m);
            let doc = Document {
                mesh: Mesh::unskinned(vec![Vertex::at([v, -v, v / 3.0])]),
                skeleton: None,
            };
            let text = dashvertex_json::encode_document(&doc).unwrap();
            let back = dashvertex_json::decode(&text, &Limits::default()).unwrap();
            assert!(back.document.bit_eq(&doc), "{v:e}: {text}");
        }
    }
}
