//! The FBX reader on the Blender-made fixtures and the hand-written ASCII vectors: the
//! skin checks, the DashVertex document, the GLB, the limits, and damaged bytes.

// Tests may unwrap and index.
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation
)]

use dashvertex_core::Limits;
use dashvertex_fbx::{Check, CheckOptions, Scene, check, load, to_document, to_glb};
use dashvertex_testkit::repo;

fn read(path: &str) -> Vec<u8> {
    std::fs::read(repo().join(path)).unwrap()
}

fn scene(path: &str) -> Scene {
    load(&read(path), &Limits::default()).unwrap()
}

fn findings(s: &Scene) -> Vec<(Check, String, Option<u64>)> {
    let mut out = Vec::new();
    check(s, &CheckOptions::default(), &mut |c, at, message| {
        assert!(!message().is_empty());
        out.push((c, at.object(), at.vertex));
    });
    out
}

#[test]
fn blender_faults_are_found_at_their_control_points() {
    // spec: FB3
    let got = findings(&scene("fixtures/fbx/faults.fbx"));
    let body = "Geometry::Body".to_string();
    assert_eq!(
        got,
        vec![
            (Check::WeightSum, body.clone(), Some(0)),
            (Check::WeightSum, body.clone(), Some(1)),
            (Check::Influences, body.clone(), Some(4)),
            (Check::Influences, body.clone(), Some(5)),
            (Check::Unweighted, body.clone(), Some(8)),
            (Check::Unweighted, body, Some(9)),
        ]
    );
    assert!(findings(&scene("fixtures/fbx/clean.fbx")).is_empty());
    let none = findings(&scene("fixtures/fbx/static.fbx"));
    assert_eq!(none.len(), 1);
    assert_eq!(none[0].0, Check::NoSkin);
}

#[test]
fn every_influence_reaches_the_dashvertex_document() {
    // spec: FB5
    let s = scene("fixtures/fbx/faults.fbx");
    let d = to_document(&s).unwrap();
    let mesh = &d.document.mesh;
    let skeleton = d.document.skeleton.as_ref().unwrap();
    assert_eq!(mesh.len(), 24);
    // Control point 5 has ten influences of 0.1: three sets, raw weights.
    assert_eq!(mesh.set_count(), 3);
    let row: Vec<(u32, f32)> = (0..3)
        .flat_map(|k| mesh.set(5, k).unwrap().pairs().collect::<Vec<_>>())
        .filter(|p| p.1 > 0.0)
        .collect();
    assert_eq!(row.len(), 10);
    assert!(row.iter().all(|p| (p.1 - 0.1).abs() < 1e-7));
    // Control point 0 keeps its raw 0.5 + 0.2 (not normalized), on the named bones.
    let p0: Vec<(String, f32)> = mesh.vertices()[0]
        .skin
        .pairs()
        .filter(|p| p.1 > 0.0)
        .map(|(b, w)| (skeleton.bones[b as usize].name.clone(), w))
        .collect();
    assert_eq!(p0, vec![("Bone00".into(), 0.5), ("Bone01".into(), 0.2)]);
    // Unweighted control points stay without influence; one root, parents first.
    assert!(mesh.vertices()[8].skin.is_zero());
    assert_eq!(skeleton.root(), Some(0));
    for (i, b) in skeleton.bones.iter().enumerate() {
        assert!(b.parent.is_none_or(|p| (p as usize) < i));
    }
}

#[test]
fn the_glb_is_read_by_dash_with_a_skin_and_an_animation() {
    // spec: FB4
    for f in [
        "fixtures/fbx/faults.fbx",
        "fixtures/fbx/clean.fbx",
        "spec/vectors/fbx/ascii-clean.fbx",
    ] {
        let c = to_glb(&scene(f)).unwrap();
        assert!(c.notes[0].contains("converted to metres and +Y up"), "{f}");
        let g = dashvertex_gltf::load_owned(c.glb, &dashvertex_gltf::NoFiles, &Limits::default())
            .unwrap();
        assert_eq!(g.root.skins.len(), 1, "{f}");
        let animated = f.starts_with("fixtures");
        assert_eq!(
            g.value["animations"].as_array().map_or(0, Vec::len),
            usize::from(animated),
            "{f}"
        );
    }
    let c = to_glb(&scene("fixtures/fbx/faults.fbx")).unwrap();
    assert!(
        c.notes
            .iter()
            .any(|n| n.starts_with("2 vertex(es) whose weights did not sum to 1"))
    );
    assert!(
        c.notes
            .iter()
            .any(|n| n.starts_with("2 vertex(es) no cluster weights"))
    );
}

#[test]
fn limits_refuse_before_the_scene_is_used() {
    // spec: FB2
    let bytes = read("fixtures/fbx/faults.fbx");
    for limits in [
        Limits {
            max_vertices: 10,
            ..Limits::default()
        },
        Limits {
            max_bones: 3,
            ..Limits::default()
        },
        Limits {
            max_sets: 2,
            ..Limits::default()
        },
        Limits {
            max_input_bytes: 100,
            ..Limits::default()
        },
    ] {
        let e = load(&bytes, &limits).unwrap_err();
        assert!(e.is_limit(), "{limits:?}: {e}");
    }
}

#[test]
fn damaged_bytes_are_refused_without_a_panic() {
    // Every 61st prefix and a byte flipped every 37 bytes of a binary and an ASCII file:
    // each loads or is refused, and whatever loads converts or is refused.
    for f in [
        "fixtures/fbx/clean.fbx",
        "spec/vectors/fbx/cluster-duplicate.fbx",
    ] {
        let bytes = read(f);
        let mut cases: Vec<Vec<u8>> = (0..bytes.len())
            .step_by(61)
            .map(|n| bytes[..n].to_vec())
            .collect();
        for at in (0..bytes.len()).step_by(37) {
            let mut b = bytes.clone();
            b[at] ^= 0xA5;
            cases.push(b);
        }
        for b in cases {
            if let Ok(s) = load(&b, &Limits::default()) {
                check(&s, &CheckOptions::default(), &mut |_, _, m| drop(m()));
                let _ = to_glb(&s);
                let _ = to_document(&s);
            }
        }
    }
    let e = load(&read("spec/vectors/fbx/truncated.fbx"), &Limits::default()).unwrap_err();
    assert!(!e.is_limit() && e.to_string().contains("Truncated"), "{e}");
}

#[test]
fn a_non_finite_rest_transform_is_refused_by_name() {
    // Found by the fbx_load fuzz target: a node scale of NaN was written as JSON null.
    let s = scene("fuzz/regressions/fbx_load/nan-node-scale.fbx");
    match to_glb(&s) {
        Err(e) => assert!(e.to_string().contains("cannot hold"), "{e}"),
        Ok(c) => {
            dashvertex_gltf::load_owned(c.glb, &dashvertex_gltf::NoFiles, &Limits::default())
                .unwrap();
        }
    }
}

#[test]
fn an_embedded_base_colour_image_is_written_byte_for_byte() {
    // spec: FB7
    let bytes = read("fixtures/fbx/textured.fbx");
    // The PNG as the FBX holds it, found by its signature and its IEND chunk.
    let start = bytes
        .windows(8)
        .position(|w| w == b"\x89PNG\r\n\x1a\n")
        .unwrap();
    let end = start
        + bytes[start..]
            .windows(4)
            .position(|w| w == b"IEND")
            .unwrap()
        + 8;
    let png = &bytes[start..end];
    let c = to_glb(&load(&bytes, &Limits::default()).unwrap()).unwrap();
    assert!(
        c.notes
            .iter()
            .any(|n| n.starts_with("1 base-colour texture(s) converted")),
        "{:?}",
        c.notes
    );
    let g =
        dashvertex_gltf::load_owned(c.glb, &dashvertex_gltf::NoFiles, &Limits::default()).unwrap();
    let image = &g.value["images"][0];
    assert_eq!(image["mimeType"], "image/png");
    let view = &g.value["bufferViews"][image["bufferView"].as_u64().unwrap() as usize];
    let (at, len) = (
        view["byteOffset"].as_u64().unwrap_or(0) as usize,
        view["byteLength"].as_u64().unwrap() as usize,
    );
    let bin = g.buffers().next().unwrap().unwrap();
    assert_eq!(&bin[at..at + len], png);
    let material = &g.value["materials"][0]["pbrMetallicRoughness"];
    assert_eq!(material["baseColorTexture"]["index"], 0);
    assert_eq!(
        material["baseColorFactor"],
        serde_json::json!([1.0, 1.0, 1.0, 1.0])
    );
    assert_eq!(g.value["textures"][0]["source"], 0);
    assert!(g.value["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_0"].is_u64());
    // The same texture naming an image file beside the FBX: left out, and said.
    let c = to_glb(&scene("fixtures/fbx/textured-external.fbx")).unwrap();
    assert!(
        c.notes.iter().any(|n| n
            == "1 texture(s) not converted (an image file beside the FBX, not embedded in it): their materials keep their base colour"),
        "{:?}",
        c.notes
    );
    // A file without textures says nothing of them.
    let c = to_glb(&scene("fixtures/fbx/clean.fbx")).unwrap();
    assert!(
        !c.notes.iter().any(|n| n.contains("texture")),
        "{:?}",
        c.notes
    );
}
