//! The byte layout, pinned with hand-built bytes.

use dashvertex_binary::{WriteOptions, encode_document};
use dashvertex_core::{Bone, Document, InfluenceSet, Limits, Mesh, Skeleton, Vertex};

fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes(b[o..o + 4].try_into().unwrap())
}

fn f32_at(b: &[u8], o: usize) -> f32 {
    f32::from_le_bytes(b[o..o + 4].try_into().unwrap())
}

#[test]
fn the_48_byte_record_has_the_seed_offsets() {
    // spec: N1 B8 I1
    // index 0x00, x y z 0x04 0x08 0x0C, skinIndex[4] 0x10, skinWeight[4] 0x20.
    let record: [u8; 48] = [
        0x07, 0, 0, 0, // index 7
        0x00, 0x00, 0x80, 0x3F, // x = 1.0
        0x00, 0x00, 0x00, 0x40, // y = 2.0
        0x00, 0x00, 0x40, 0x40, // z = 3.0
        0x01, 0, 0, 0, 0x02, 0, 0, 0, 0x03, 0, 0, 0, 0x04, 0, 0, 0, // skinIndex 1 2 3 4
        0x00, 0x00, 0x00, 0x3F, // 0.5
        0x00, 0x00, 0x80, 0x3E, // 0.25
        0x00, 0x00, 0x00, 0x3E, // 0.125
        0x00, 0x00, 0x00, 0x3E, // 0.125
    ];
    let file =
        dashvertex_binary::decode_raw(&[&[0u8; 48][..], &record[..]].concat(), &Limits::default())
            .unwrap();
    let v = file.document.mesh.vertices()[1];
    assert_eq!(v.position, [1.0, 2.0, 3.0]);
    assert_eq!(v.skin.joints, [1, 2, 3, 4]);
    assert_eq!(v.skin.weights, [0.5, 0.25, 0.125, 0.125]);
    // And the writer puts each field back at its offset.
    let raw = dashvertex_binary::encode_raw(&file.document).unwrap();
    assert_eq!(&raw[52..96], &record[4..]);
    assert_eq!(
        u32_at(&raw, 48),
        1,
        "the writer writes the position as index"
    );
    assert_eq!(
        std::mem::offset_of!(dashvertex_binary::records::RawVertex, skin_weight),
        0x20
    );
    assert_eq!(
        std::mem::offset_of!(dashvertex_binary::records::RawBone, scale),
        0x44
    );
}

fn example() -> Document {
    let v = |pos: [f32; 3], pairs: &[(u32, f32)]| Vertex {
        position: pos,
        skin: InfluenceSet::from_pairs(pairs).unwrap(),
    };
    let mut spine = Bone::new("spine", Some(0));
    spine.position = [0.0, 1.0, 0.0];
    let mut head = Bone::new("head", Some(1));
    head.position = [0.0, 1.0, 0.0];
    Document {
        mesh: Mesh::skinned(vec![
            v([0.0, 0.0, 0.0], &[(0, 0.5), (1, 0.5)]),
            v([0.0, 1.0, 0.0], &[(1, 0.25), (2, 0.75)]),
            v([0.0, 2.0, 0.0], &[(2, 1.0)]),
        ]),
        skeleton: Some(Skeleton {
            bones: vec![Bone::new("root", None), spine, head],
        }),
    }
}

#[test]
fn the_writer_matches_an_independent_writer_byte_for_byte() {
    // spec: B2 B3 B6 X1
    // spec/vectors/binary/valid-skinned.dmx is built by Python's struct module.
    let expected =
        std::fs::read(crate::common::repo().join("spec/vectors/binary/valid-skinned.dmx")).unwrap();
    let bytes = encode_document(&example(), &WriteOptions::default()).unwrap();
    assert_eq!(bytes, expected);
}

#[test]
fn a_written_file_reads_back_by_hand() {
    // spec: B1 B2 B3 N1
    let b = encode_document(&example(), &WriteOptions::default()).unwrap();
    // Header row 0: "DMX\0", 2, 0, isSkinned 1.
    assert_eq!(&b[0..4], b"DMX\0");
    assert_eq!((u32_at(&b, 4), u32_at(&b, 8), u32_at(&b, 12)), (2, 0, 1));
    // Rows TEX MAT VERT FACE SKEL ANIM at 0x10.. 0x60; sections start at 0x70.
    let tags: Vec<&[u8]> = (0..6).map(|r| &b[16 + 16 * r..20 + 16 * r]).collect();
    assert_eq!(
        tags,
        vec![&b"TEX\0"[..], b"MAT\0", b"VERT", b"FACE", b"SKEL", b"ANIM"]
    );
    let (count, offset, length) = (u32_at(&b, 0x34), u32_at(&b, 0x38), u32_at(&b, 0x3C));
    assert_eq!((count, offset, length), (3, 0x70, 144));
    // Vertex 1 by hand: index, y, skinIndex[1], skinWeight[1].
    let v1 = offset as usize + 48;
    assert_eq!(u32_at(&b, v1), 1);
    assert_eq!(f32_at(&b, v1 + 8), 1.0);
    assert_eq!(u32_at(&b, v1 + 0x14), 2);
    assert_eq!(f32_at(&b, v1 + 0x24), 0.75);
    // SKEL: bone 2 "head", index 2, parent 1, position.y at 0x2C.
    let (scount, soff) = (u32_at(&b, 0x54), u32_at(&b, 0x58) as usize);
    assert_eq!(scount, 3);
    assert_eq!(soff, 0x70 + 144);
    let b2 = soff + 160;
    assert_eq!(&b[b2..b2 + 5], b"head\0");
    assert_eq!((u32_at(&b, b2 + 0x20), u32_at(&b, b2 + 0x24)), (2, 1));
    assert_eq!(f32_at(&b, b2 + 0x2C), 1.0);
    assert_eq!(f32_at(&b, b2 + 0x40), 1.0, "rotation.w");
    // Root bone: parentIndex written as 0 (DMX default).
    assert_eq!(u32_at(&b, soff + 0x24), 0);
    assert_eq!(b.len(), soff + 240);
}
