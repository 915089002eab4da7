//! Decoding into arrays, format detection, refusals with the validator's codes, and
//! encoding back.

use dashvertex_core::{Bone, Document, InfluenceSet, Mesh, Skeleton, Vertex};
use dashvertex_formats::{Format, Loaded};
use dashvertex_wasm::model::{Decoded, Joints, decode};

use crate::example;

#[test]
fn json_and_dmx_of_the_rig_give_the_same_arrays() {
    let json = decode("rig.json", &example("rig.json"), None).unwrap();
    let dmx = decode("rig.dmx", &example("rig.dmx"), None).unwrap();
    assert_eq!(json.format(), Format::Json);
    assert_eq!(dmx.format(), Format::Dmx);
    for m in [&json, &dmx] {
        assert_eq!(m.vertex_count(), 8);
        assert_eq!(m.set_count(), 1);
        assert_eq!(m.bone_count(), 3);
        assert!(m.skinned());
        assert_eq!(m.positions().len(), 24);
        assert_eq!(&m.positions()[6..9], &[-0.5, 1.0, 0.0]);
        assert_eq!(m.joints(0).unwrap().get(16), Some(2));
        assert_eq!(m.weights(0).unwrap()[16..20], [0.5, 0.5, 0.0, 0.0]);
        assert_eq!(m.joints(1), None);
        let sk = m.skeleton();
        assert_eq!(sk.names, ["root", "spine", "head"]);
        assert_eq!(sk.parents, [-1, 0, 1]);
        assert_eq!(sk.positions[3..6], [0.0, 1.0, 0.0]);
        assert_eq!(sk.rotations[..4], [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(sk.scales.len(), 9);
    }
    assert_eq!(json.joints(0), dmx.joints(0));
    assert!(matches!(json.joints(0), Some(Joints::U16(_))));
}

/// A DMX file of `doc`.
fn dmx(doc: Document) -> Vec<u8> {
    let loaded = Loaded::Binary(dashvertex_binary::BinaryFile::new(doc));
    dashvertex_formats::save(&loaded, Format::Dmx, &Default::default()).unwrap()
}

#[test]
fn indices_past_16_bits_come_out_as_32_bit_in_every_set() {
    let bones: Vec<Bone> = (0..70_000u32)
        .map(|i| Bone::new(format!("b{i}"), i.checked_sub(1)))
        .collect();
    let skin = InfluenceSet::from_pairs(&[(69_999, 0.5), (1, 0.5)]).unwrap();
    let light = InfluenceSet::from_pairs(&[(2, 0.0)]).unwrap();
    let mesh = Mesh::from_parts(
        true,
        vec![Vertex {
            position: [1.0, 2.0, 3.0],
            skin,
        }],
        vec![vec![light]],
    )
    .unwrap();
    let doc = Document {
        mesh,
        skeleton: Some(Skeleton { bones }),
    };
    let m = decode("big.dmx", &dmx(doc), None).unwrap();
    assert!(!m.joints_fit_u16());
    assert_eq!(m.joints(0), Some(Joints::U32(vec![69_999, 1, 0, 0])));
    assert!(matches!(m.joints(1), Some(Joints::U32(_))));
}

#[test]
fn the_name_hints_and_the_bytes_decide() {
    // DMX bytes under a .json name are read as DMX, as dash-validate reads them.
    let m = decode("mislabelled.json", &example("rig.dmx"), None).unwrap();
    assert_eq!(m.format(), Format::Dmx);
    // No name: JSON text is told by its content.
    let m = decode("", &example("rig.json"), None).unwrap();
    assert_eq!(m.format(), Format::Json);
}

#[test]
fn refusals_carry_the_validators_code_and_location() {
    let e = decode("bad.json", b"[{\"x\": 1,,}]", None).unwrap_err();
    assert_eq!(e.code, "JSON_SYNTAX");
    assert_eq!(e.location.line, Some(1));
    assert!(e.location.column.is_some());
    let mut broken = example("rig.dmx");
    broken.truncate(100);
    let e = decode("bad.dmx", &broken, None).unwrap_err();
    assert_eq!(e.code, "BINARY_STRUCTURE");
    assert!(e.location.offset.is_some(), "{e:?}");
    let e = decode("x.gltf", br#"{"asset": {"version": "2.0"}}"#, None).unwrap_err();
    assert_eq!(e.code, "NOT_DASHVERTEX");
    let e = dashvertex_wasm::model::parse_format("obj").unwrap_err();
    assert_eq!(e.code, "OPTIONS_INVALID");
}

#[test]
fn encoding_writes_the_example_files_back_byte_for_byte() {
    let from_dmx = decode("rig.dmx", &example("rig.dmx"), None).unwrap();
    let from_json = decode("rig.json", &example("rig.json"), None).unwrap();
    let enc = |m: &Decoded, f| dashvertex_wasm::encode::encode(m, f).unwrap();
    assert_eq!(enc(&from_dmx, "dmx"), example("rig.dmx"));
    assert_eq!(enc(&from_json, "dmx"), example("rig.dmx"));
    let json = enc(&from_dmx, "json");
    let back = decode("back.json", &json, None).unwrap();
    assert!(back.document().bit_eq(from_dmx.document()));
    let e = dashvertex_wasm::encode::encode(&from_dmx, "gltf").unwrap_err();
    assert_eq!(e.code, "NOT_DASHVERTEX");
}

#[test]
fn raw_records_are_told_by_their_name_or_forced() {
    let rig = decode("rig.dmx", &example("rig.dmx"), None).unwrap();
    let raw = dashvertex_wasm::encode::encode(&rig, "raw");
    // Raw records cannot hold the skeleton: refused, not dropped.
    assert_eq!(raw.unwrap_err().code, "ENCODE_FAILED");
    let mut bare = rig.document().clone();
    bare.skeleton = None;
    let bytes = dashvertex_binary::encode_raw(&bare).unwrap();
    for m in [
        decode("mesh.raw", &bytes, None).unwrap(),
        decode("mesh.bin", &bytes, Some(Format::Raw)).unwrap(),
    ] {
        assert_eq!(m.format(), Format::Raw);
        assert_eq!(m.vertex_count(), 8);
        assert!(!m.has_skeleton());
        assert_eq!(m.skeleton(), Default::default());
        assert_eq!(m.joints(0), rig.joints(0));
        assert_eq!(m.weights(0), rig.weights(0));
    }
}
