//! The tool author's calls on the files of the repository and on GLB files built in
//! memory: one model from every format, document validation, list reduction, and bone
//! indices kept by a manifest across two files.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::path::PathBuf;

use dashvertex::reduce::{BoneRef, Config, InfluenceLists, Manifest, Quantize};
use dashvertex::validate::{Code, Options, Profile, Severity};
use dashvertex::{Bone, Document, Format, InfluenceSet, Mesh, Skeleton, Vertex};

fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
}

#[test]
fn one_model_from_dashvertex_json_and_dmx() {
    let json = dashvertex::open(repo("examples/rig.json")).unwrap();
    let dmx = dashvertex::open(repo("examples/rig.dmx")).unwrap();
    assert_eq!((json.format, dmx.format), (Format::Json, Format::Dmx));
    let (a, b) = (&json.primitives[0], &dmx.primitives[0]);
    assert_eq!(a.len(), b.len());
    assert_eq!(a.bones().len(), 3);
    for v in 0..a.len() {
        assert_eq!(a.influences(v), b.influences(v), "vertex {v}");
    }
    assert_eq!(a.bone_name(2), Some("head"));
    assert_eq!(a.bone_name(3), None);
}

#[test]
fn every_primitive_and_set_of_a_glb() {
    let glb = dashvertex_testkit::gltf::SkinnedGlb {
        vertices: 10,
        primitives: 2,
        sets: 2,
        joints: 6,
        ..Default::default()
    }
    .build();
    let model = dashvertex::read(&glb, "rig.glb").unwrap();
    assert_eq!(model.format, Format::Glb);
    assert_eq!(model.primitives.len(), 2);
    let p = &model.primitives[1];
    assert_eq!(p.name, "mesh 0 primitive 1");
    assert_eq!(p.bones().len(), 6);
    // Two sets: up to eight influences, summing to 1 as the builder writes them.
    assert_eq!(p.document.mesh.set_count(), 2);
    let all = p.influences(3);
    assert!(!all.is_empty() && all.len() <= 8, "{all:?}");
    let sum: f32 = all.iter().map(|(_, w)| w).sum();
    assert!((sum - 1.0).abs() < 1e-5, "{sum}");
}

#[test]
fn bytes_no_format_holds_are_refused_by_name() {
    let e = dashvertex::read(b"\x00\x01hello", "notes.bin").unwrap_err();
    assert!(e.to_string().starts_with("notes.bin: "), "{e}");
    // A JSON file that is neither DashVertex nor glTF.
    let e = dashvertex::read(br#"{"name": "x"}"#, "x.gltf").unwrap_err();
    assert!(e.to_string().contains("x.gltf"), "{e}");
}

#[test]
fn a_document_validates_with_located_diagnostics() {
    let skin = InfluenceSet::from_pairs(&[(0, 0.5), (5, 0.25)]).unwrap();
    let mesh = Mesh::skinned(vec![
        Vertex::at([0.0; 3]),
        Vertex {
            position: [1.0; 3],
            skin,
        },
    ]);
    let skeleton = Some(Skeleton {
        bones: vec![Bone::new("root", None), Bone::new("arm", Some(0))],
    });
    let doc = Document { mesh, skeleton };
    let report = dashvertex::validate(&doc, &Options::new().with_profile(Profile::Gltf));
    assert!(!report.valid);
    let range = report
        .diagnostics
        .iter()
        .find(|d| d.code == Code::BONE_INDEX_RANGE)
        .unwrap();
    assert_eq!(range.location.vertex, Some(1));
    assert_eq!(range.location.offset, None, "no file, no byte offset");
    assert_eq!(range.severity, Severity::Error);
    assert!(
        range
            .to_string()
            .starts_with("error[BONE_INDEX_RANGE] vertex 1"),
        "{range}"
    );
}

#[test]
fn lists_reduce_to_exact_unorm8_sums_and_keep_every_pair() {
    let bones: Vec<BoneRef> = (0..6)
        .map(|i| BoneRef {
            name: format!("b{i}"),
            parent: None,
        })
        .collect();
    let mut lists = InfluenceLists::new(bones);
    for v in 0..50u32 {
        // Six influences of uneven weight, some bone twice: nothing is dropped on input.
        lists.vertex(
            (0..6)
                .map(|k| (k, 1.0 + ((v * 7 + k * 3) % 11) as f32))
                .chain([(0, 0.5)]),
        );
    }
    let cfg = Config::default()
        .with_max_influences(4)
        .with_quantize(Quantize::Unorm8);
    let out = dashvertex::reduce::reduce_lists(lists, &cfg).unwrap();
    let ints = out.integers.unwrap();
    assert_eq!(ints.len(), 50);
    for q in ints {
        assert_eq!(q.iter().sum::<u32>(), 255, "{q:?}");
        assert!(q.iter().all(|&x| x > 0), "four kept: {q:?}");
    }
    let mut bad = InfluenceLists::new(vec![BoneRef {
        name: "a".into(),
        parent: None,
    }]);
    bad.vertex([(0, 1.0)]).vertex([(0, 0.5), (1, 0.5)]);
    let e = dashvertex::reduce::reduce_lists(bad, &cfg).unwrap_err();
    assert!(
        e.to_string().contains("vertex 1, entry 1: bone index 1"),
        "{e}"
    );
}

#[test]
fn a_manifest_keeps_bone_indices_across_files() {
    let doc = |names: [&str; 3]| {
        let skin = InfluenceSet::from_pairs(&[(0, 0.2), (1, 0.3), (2, 0.5)]).unwrap();
        Document {
            mesh: Mesh::skinned(vec![Vertex {
                position: [0.0; 3],
                skin,
            }]),
            skeleton: Some(Skeleton {
                bones: vec![
                    Bone::new(names[0], None),
                    Bone::new(names[1], Some(0)),
                    Bone::new(names[2], Some(0)),
                ],
            }),
        }
    };
    let mut manifest = Manifest::new();
    let first = dashvertex::reduce::index_document(
        &doc(["root", "arm", "leg"]),
        &mut manifest,
        &Config::default(),
    )
    .unwrap();
    // The second file lists its children the other way round and has a new bone.
    let second = dashvertex::reduce::index_document(
        &doc(["root", "leg", "tail"]),
        &mut manifest,
        &Config::default(),
    )
    .unwrap();
    let index = |d: &Document, name: &str| {
        d.skeleton
            .as_ref()
            .unwrap()
            .bones
            .iter()
            .position(|b| b.name == name)
            .unwrap()
    };
    assert_eq!(index(&first, "leg"), index(&second, "leg"));
    assert_eq!(manifest.len(), 4);
    // Bone `leg` carries 0.3 in the second file, whatever index the file gave it.
    let skin = second.mesh.vertices()[0].skin;
    let leg = u32::try_from(index(&second, "leg")).unwrap();
    let w = skin.pairs().find(|&(j, _)| j == leg).map(|(_, w)| w);
    assert_eq!(w, Some(0.3));
    // Written as DMX and read back, the model is the same.
    let bytes = dashvertex::write(&second, Format::Dmx).unwrap();
    let back = dashvertex::read(&bytes, "out.dmx").unwrap();
    assert!(back.primitives[0].document.bit_eq(&second));
    // A manifest written is read back (version 1, not the 0 `Default` once gave).
    assert_eq!(Manifest::from_json(&manifest.to_json()).unwrap(), manifest);
    // Without bone names there is nothing to index.
    let mut unnamed = doc(["a", "b", "c"]);
    unnamed.skeleton = None;
    assert!(
        dashvertex::reduce::index_document(&unnamed, &mut manifest, &Config::default()).is_err()
    );
}
