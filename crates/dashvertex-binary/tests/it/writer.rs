//! Writer behaviour: pass-through, refusals that protect data, canonical layout.

use dashvertex_binary::{WriteError, WriteOptions};
use dashvertex_core::{Bone, Document, InfluenceSet, Limits, Mesh, Skeleton, Vertex};

fn vector(name: &str) -> Vec<u8> {
    std::fs::read(crate::common::repo().join("spec/vectors/binary").join(name)).unwrap()
}

#[test]
fn unmodelled_sections_pass_through_byte_for_byte() {
    // spec: B7
    let bytes = vector("valid-foreign-sections.dmx");
    let file = dashvertex_binary::decode(&bytes, &Limits::default()).unwrap();
    let names: Vec<String> = file.foreign.iter().map(|f| f.name()).collect();
    assert_eq!(names, ["TEX", "MAT", "FACE", "ANIM", "XTRA"]);
    let out = dashvertex_binary::encode(&file, &WriteOptions::default()).unwrap();
    assert_eq!(out, bytes, "a canonical file is rewritten identically");
}

#[test]
fn wrong_indices_are_read_by_position_and_repaired_on_write() {
    // spec: X1
    let bytes = vector("valid-index-mismatch.dmx");
    let file = dashvertex_binary::decode(&bytes, &Limits::default()).unwrap();
    assert_eq!(file.document.mesh.vertices()[1].position, [1.0, 1.0, 1.0]);
    let out = dashvertex_binary::encode(&file, &WriteOptions::default()).unwrap();
    let view = dashvertex_binary::View::parse(&out, &Limits::default()).unwrap();
    let dashvertex_binary::VertexRecords::Full(records) = view.vertices() else {
        panic!("48-byte layout expected");
    };
    let indices: Vec<u32> = records.iter().map(|r| r.index.get()).collect();
    assert_eq!(indices, [0, 1]);
}

fn tex_file(tex_offset_shift: bool) -> Vec<u8> {
    let base = vector("valid-foreign-sections.dmx");
    let mut file = dashvertex_binary::decode(&base, &Limits::default()).unwrap();
    let tex = file.foreign.iter_mut().find(|f| f.name() == "TEX").unwrap();
    tex.count = 1;
    tex.bytes = vec![7u8; 64];
    let mut out = dashvertex_binary::encode(&file, &WriteOptions::default()).unwrap();
    if tex_offset_shift {
        // Move TEX by 16 bytes: pad the file and point the TEX row further out.
        let off = u32::from_le_bytes(out[0x18..0x1C].try_into().unwrap());
        let len = out.len() as u32;
        out.extend_from_slice(&[0u8; 16]);
        out.extend_from_slice(&[7u8; 64]);
        out[0x18..0x1C].copy_from_slice(&(len + 16).to_le_bytes());
        assert!(off < len);
        // The old TEX bytes are now outside every section: zero them.
        for b in &mut out[off as usize..off as usize + 64] {
            *b = 0;
        }
    }
    out
}

#[test]
fn a_texture_section_is_never_moved() {
    // spec: B7
    let in_place = tex_file(false);
    let f = dashvertex_binary::decode(&in_place, &Limits::default()).unwrap();
    assert_eq!(
        dashvertex_binary::encode(&f, &WriteOptions::default()).unwrap(),
        in_place
    );
    let moved = tex_file(true);
    let f = dashvertex_binary::decode(&moved, &Limits::default()).unwrap();
    let err = dashvertex_binary::encode(&f, &WriteOptions::default()).unwrap_err();
    assert!(matches!(err, WriteError::TexRelocation { .. }), "{err}");
}

#[test]
fn bytes_outside_sections_are_not_dropped_silently() {
    // spec: B7
    let mut bytes = vector("valid-skinned.dmx");
    bytes.extend_from_slice(b"trailing data");
    let f = dashvertex_binary::decode(&bytes, &Limits::default()).unwrap();
    assert_eq!(f.unreferenced, 13);
    assert_eq!(
        dashvertex_binary::encode(&f, &WriteOptions::default()).unwrap_err(),
        WriteError::Unreferenced(13)
    );
    let opts = WriteOptions {
        drop_unreferenced: true,
        ..WriteOptions::default()
    };
    assert_eq!(
        dashvertex_binary::encode(&f, &opts).unwrap(),
        vector("valid-skinned.dmx")
    );
}

#[test]
fn unskinned_meshes_can_use_the_16_byte_layout() {
    // spec: T2
    let mesh = Mesh::unskinned(
        (0..1000)
            .map(|i| Vertex::at([i as f32, 0.0, 1.0]))
            .collect(),
    );
    let doc = Document {
        mesh,
        skeleton: None,
    };
    let full = dashvertex_binary::encode_document(&doc, &WriteOptions::default()).unwrap();
    let compact = dashvertex_binary::encode_document(
        &doc,
        &WriteOptions {
            compact_unskinned: true,
            ..WriteOptions::default()
        },
    )
    .unwrap();
    // 1000 × 48 + header versus 1000 × 16 + header.
    assert_eq!(full.len(), 112 + 48_000);
    assert_eq!(compact.len(), 112 + 16_000);
    assert_eq!(
        u32::from_le_bytes(compact[8..12].try_into().unwrap()),
        1,
        "minor 1"
    );
    for bytes in [&full, &compact] {
        let back = dashvertex_binary::decode(bytes, &Limits::default()).unwrap();
        assert!(back.document.bit_eq(&doc));
    }
    // Skin data is never dropped by the compact layout.
    let mut v = Vertex::at([0.0; 3]);
    v.skin = InfluenceSet::from_pairs(&[(1, 1.0)]).unwrap();
    let doc = Document {
        mesh: Mesh::unskinned(vec![v]),
        skeleton: None,
    };
    let opts = WriteOptions {
        compact_unskinned: true,
        ..WriteOptions::default()
    };
    assert_eq!(
        dashvertex_binary::encode_document(&doc, &opts).unwrap_err(),
        WriteError::CompactWithSkin { vertex: 0 }
    );
}

#[test]
fn raw_files_refuse_what_they_cannot_hold() {
    // spec: B8
    let mut mesh = Mesh::skinned(vec![Vertex::default(); 2]);
    mesh.push_set(vec![InfluenceSet::ZERO; 2]).unwrap();
    let doc = Document {
        mesh,
        skeleton: None,
    };
    assert_eq!(
        dashvertex_binary::encode_raw(&doc).unwrap_err(),
        WriteError::RawCannotHold {
            sets: 2,
            skeleton: false
        }
    );
    let doc = Document {
        mesh: Mesh::skinned(vec![Vertex::default()]),
        skeleton: Some(Skeleton {
            bones: vec![Bone::new("root", None)],
        }),
    };
    assert!(dashvertex_binary::encode_raw(&doc).is_err());
}

#[test]
fn bone_names_that_do_not_fit_are_refused() {
    // spec: S1 B6
    let doc = Document {
        mesh: Mesh::skinned(vec![Vertex::default()]),
        skeleton: Some(Skeleton {
            bones: vec![Bone::new("a-very-long-bone-name-over-31-bytes", None)],
        }),
    };
    let err = dashvertex_binary::encode_document(&doc, &WriteOptions::default()).unwrap_err();
    assert!(matches!(err, WriteError::BoneName { bone: 0, .. }), "{err}");
}

#[test]
fn a_huge_claimed_count_is_refused_before_any_allocation() {
    // spec: B9
    let bytes = vector("invalid-4-billion-vertices.dmx");
    assert!(bytes.len() < 128);
    let unlimited = Limits::UNLIMITED;
    let err = dashvertex_binary::decode_container(&bytes, &unlimited).unwrap_err();
    assert_eq!(err.code(), "stride-mismatch");
    let bytes = vector("invalid-vertices-beyond-eof.dmx");
    let err = dashvertex_binary::decode_container(&bytes, &unlimited).unwrap_err();
    assert_eq!(err.code(), "out-of-bounds");
}
