//! References held outside the core schema follow the rewrite (`spec/split.md` [SP13]):
//! VRM 0.x and 1.0 binds and first-person annotations name every part; extensions at the
//! root or on a split mesh, skin or primitive that the split does not know are refused by
//! name; the known ones are carried; the output budget counts the copies. Built on
//! `spec/vectors/split/strip.gltf`-like GLBs: points that each use joint 0 and one joint of
//! their own, so that under two joints a part every point is a mesh, node and skin of its
//! own.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use dashvertex_core::Limits;
use dashvertex_gltf::export::BufferFiles;
use dashvertex_gltf::{Container, Gltf};
use dashvertex_split::{Options, SplitError, split_gltf};
use serde_json::{Value, json};

/// A GLB of `points` points (mode 0) with POSITION, point k at (k, 0, 0) using joints 0
/// and k + 1, one morph target moving every other point (+z), drawn by node 0 with a
/// skin of `points + 1` joints (nodes 2..); node 1 is the joints' root. `tweak` edits
/// the JSON before it is framed.
fn points(points: usize, tweak: impl FnOnce(&mut Value)) -> Gltf {
    let joints = points + 1;
    let mut bin = Vec::new();
    for k in 0..points {
        for x in [k as f32, 0.0, 0.0] {
            bin.extend_from_slice(&x.to_le_bytes());
        }
    }
    for k in 0..points {
        let dz = if k % 2 == 0 { 0.5f32 } else { 0.0 };
        for x in [0.0f32, 0.0, dz] {
            bin.extend_from_slice(&x.to_le_bytes());
        }
    }
    let joint_bytes = bin.len();
    for k in 0..points {
        bin.extend_from_slice(&[0, u8::try_from(k + 1).unwrap(), 0, 0]);
    }
    for _ in 0..points {
        bin.extend_from_slice(&[128, 127, 0, 0]);
    }
    let mut nodes = vec![json!({"name": "body", "mesh": 0, "skin": 0})];
    nodes.push(json!({"name": "root", "children": (2..=joints).collect::<Vec<_>>()}));
    for j in 1..joints {
        nodes.push(json!({ "name": format!("j{j}") }));
    }
    let n = points as f32 - 1.0;
    let mut doc = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": nodes,
        "meshes": [{"name": "body", "weights": [0.0], "primitives": [{
            "attributes": {"POSITION": 0, "JOINTS_0": 2, "WEIGHTS_0": 3},
            "targets": [{"POSITION": 1}],
            "mode": 0,
        }]}],
        "skins": [{"joints": (1..=joints).collect::<Vec<_>>()}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "type": "VEC3", "count": points,
             "min": [0.0, 0.0, 0.0], "max": [n, 0.0, 0.0]},
            {"bufferView": 1, "componentType": 5126, "type": "VEC3", "count": points,
             "min": [0.0, 0.0, 0.0], "max": [0.0, 0.0, 0.5]},
            {"bufferView": 2, "componentType": 5121, "type": "VEC4", "count": points},
            {"bufferView": 3, "componentType": 5121, "normalized": true, "type": "VEC4", "count": points},
        ],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 12 * points},
            {"buffer": 0, "byteOffset": 12 * points, "byteLength": 12 * points},
            {"buffer": 0, "byteOffset": joint_bytes, "byteLength": 4 * points},
            {"buffer": 0, "byteOffset": joint_bytes + 4 * points, "byteLength": 4 * points},
        ],
        "buffers": [{"byteLength": bin.len()}],
    });
    tweak(&mut doc);
    let glb = dashvertex_gltf::glb::build(&serde_json::to_vec(&doc).unwrap(), Some(&bin)).unwrap();
    dashvertex_gltf::load(&glb, &dashvertex_gltf::NoFiles, &Limits::default()).unwrap()
}

/// Adds extension `name` at the root with `value`, listed in `extensionsUsed`.
fn root_extension(doc: &mut Value, name: &str, value: Value) {
    doc.as_object_mut()
        .unwrap()
        .entry("extensions")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .unwrap()
        .insert(name.into(), value);
    doc.as_object_mut()
        .unwrap()
        .entry("extensionsUsed")
        .or_insert_with(|| json!([]))
        .as_array_mut()
        .unwrap()
        .push(json!(name));
}

fn split(g: &Gltf, o: &Options) -> Result<(Value, dashvertex_split::Report), SplitError> {
    let s = split_gltf(g, o, &[], &Limits::default())?;
    let w = s
        .editor
        .expect("something to split")
        .finish_files(Container::Gltf, &BufferFiles::Embed)
        .unwrap();
    Ok((serde_json::from_slice(&w.main).unwrap(), s.report))
}

fn field(v: &Value, key: &str) -> Vec<u64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|e| e[key].as_u64().unwrap())
        .collect()
}

// spec: SP13
#[test]
fn vrm0_binds_and_annotations_name_every_mesh_holding_a_part() {
    let g = points(3, |doc| {
        root_extension(
            doc,
            "VRM",
            json!({
                "humanoid": {"humanBones": [{"bone": "hips", "node": 1}]},
                "firstPerson": {"firstPersonBone": 2, "meshAnnotations": [
                    {"mesh": 0, "firstPersonFlag": "Auto"},
                    {"mesh": 7, "firstPersonFlag": "Both"},
                ]},
                "blendShapeMaster": {"blendShapeGroups": [
                    {"name": "Up", "binds": [{"mesh": 0, "index": 0, "weight": 100}]},
                    {"name": "None", "binds": []},
                ]},
            }),
        );
    });
    let (doc, _) = split(&g, &Options::new(2)).unwrap();
    // Three parts: mesh 0 and meshes 1 and 2 appended; nodes appended only.
    assert_eq!(doc["meshes"].as_array().unwrap().len(), 3);
    let vrm = &doc["extensions"]["VRM"];
    let binds = &vrm["blendShapeMaster"]["blendShapeGroups"][0]["binds"];
    assert_eq!(field(binds, "mesh"), [0, 1, 2]);
    assert_eq!(field(binds, "index"), [0, 0, 0]);
    assert_eq!(field(binds, "weight"), [100, 100, 100]);
    assert_eq!(
        vrm["blendShapeMaster"]["blendShapeGroups"][1]["binds"],
        json!([])
    );
    let ann = &vrm["firstPerson"]["meshAnnotations"];
    // The annotation of a mesh that does not exist is left alone.
    assert_eq!(field(ann, "mesh"), [0, 1, 2, 7]);
    assert_eq!(ann[2]["firstPersonFlag"], "Auto");
    assert_eq!(ann[3]["firstPersonFlag"], "Both");
    // Nodes are never renumbered: the node indices stay.
    assert_eq!(vrm["humanoid"]["humanBones"][0]["node"], 1);
    assert_eq!(vrm["firstPerson"]["firstPersonBone"], 2);
    assert_eq!(doc["nodes"][1]["name"], "root");
    assert_eq!(doc["nodes"][2]["name"], "j1");
    // Every part keeps the morph target (the points it moves are in parts 0 and 2).
    for m in doc["meshes"].as_array().unwrap() {
        assert_eq!(m["primitives"][0]["targets"].as_array().unwrap().len(), 1);
        assert_eq!(m["weights"], json!([0.0]));
    }
}

// spec: SP13
#[test]
fn vrm1_binds_and_annotations_name_every_node_drawing_a_part() {
    let g = points(3, |doc| {
        root_extension(
            doc,
            "VRMC_vrm",
            json!({
                "humanoid": {"humanBones": {"hips": {"node": 1}}},
                "firstPerson": {"meshAnnotations": [{"node": 0, "type": "auto"}]},
                "lookAt": {"type": "bone", "offsetFromHeadBone": [0, 0.06, 0]},
                "expressions": {
                    "preset": {"happy": {"morphTargetBinds": [{"node": 0, "index": 0, "weight": 1.0}]},
                               "blink": {}},
                    "custom": {"a/b~c": {"morphTargetBinds": [{"node": 0, "index": 0, "weight": 0.5}]}},
                },
            }),
        );
        root_extension(
            doc,
            "VRMC_springBone",
            json!({"springs": [{"joints": [{"node": 2}, {"node": 3}]}]}),
        );
    });
    let (doc, report) = split(&g, &Options::new(2)).unwrap();
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    // The skin's joints are nodes 1..=4; the two nodes added beside node 0 are 5 and 6.
    let nodes = doc["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 7);
    assert_eq!(nodes[5]["mesh"], 1);
    assert_eq!(nodes[6]["mesh"], 2);
    let vrm = &doc["extensions"]["VRMC_vrm"];
    let happy = &vrm["expressions"]["preset"]["happy"]["morphTargetBinds"];
    assert_eq!(field(happy, "node"), [0, 5, 6]);
    assert_eq!(field(happy, "index"), [0, 0, 0]);
    let custom = &vrm["expressions"]["custom"]["a/b~c"]["morphTargetBinds"];
    assert_eq!(field(custom, "node"), [0, 5, 6]);
    assert_eq!(custom[1]["weight"], 0.5);
    assert_eq!(vrm["expressions"]["preset"]["blink"], json!({}));
    assert_eq!(
        field(&vrm["firstPerson"]["meshAnnotations"], "node"),
        [0, 5, 6]
    );
    assert_eq!(vrm["humanoid"]["humanBones"]["hips"]["node"], 1);
    assert_eq!(
        vrm["lookAt"],
        json!({"type": "bone", "offsetFromHeadBone": [0, 0.06, 0]})
    );
    // Spring bones name joint nodes, which keep their indices: carried as they were.
    assert_eq!(
        doc["extensions"]["VRMC_springBone"],
        json!({"springs": [{"joints": [{"node": 2}, {"node": 3}]}]})
    );
}

// spec: SP13
#[test]
fn a_mesh_also_drawn_whole_keeps_its_binds_and_gains_the_parts() {
    // Node 0 (split) and a node without a skin both draw mesh 0: mesh 0 stays whole for
    // the unskinned node, and the split node draws three new meshes.
    let g = points(3, |doc| {
        let n = doc["nodes"].as_array().unwrap().len();
        doc["nodes"]
            .as_array_mut()
            .unwrap()
            .push(json!({"name": "still", "mesh": 0}));
        doc["scenes"][0]["nodes"]
            .as_array_mut()
            .unwrap()
            .push(json!(n));
        root_extension(
            doc,
            "VRM",
            json!({"blendShapeMaster": {"blendShapeGroups": [
                {"name": "Up", "binds": [{"mesh": 0, "index": 0, "weight": 100}]}]}}),
        );
    });
    let (doc, _) = split(&g, &Options::new(2)).unwrap();
    assert_eq!(doc["meshes"].as_array().unwrap().len(), 4);
    let binds = &doc["extensions"]["VRM"]["blendShapeMaster"]["blendShapeGroups"][0]["binds"];
    assert_eq!(field(binds, "mesh"), [0, 1, 2, 3]);
    assert_eq!(doc["nodes"][0]["mesh"], 1);
}

/// A JSON Pointer and the edit that puts an extension there.
type Case = (&'static str, fn(&mut Value));

// spec: SP13
#[test]
fn an_unknown_extension_at_the_root_or_on_a_split_mesh_skin_or_primitive_is_refused() {
    let cases: [Case; 4] = [
        ("/extensions/EXT_example", |d| {
            root_extension(d, "EXT_example", json!({"mesh": 0}));
        }),
        ("/meshes/0/extensions/EXT_example", |d| {
            d["meshes"][0]["extensions"] = json!({"EXT_example": {"node": 0}});
        }),
        ("/skins/0/extensions/EXT_example", |d| {
            d["skins"][0]["extensions"] = json!({"EXT_example": {"accessor": 1}});
        }),
        ("/meshes/0/primitives/0/extensions/EXT_example", |d| {
            d["meshes"][0]["primitives"][0]["extensions"] = json!({"EXT_example": {"a": 1}});
        }),
    ];
    for (pointer, tweak) in cases {
        let g = points(3, tweak);
        let e = split_gltf(&g, &Options::new(2), &[], &Limits::default())
            .err()
            .expect("refused");
        let SplitError::UnknownExtension {
            extension,
            pointer: at,
        } = &e
        else {
            panic!("{pointer}: {e}")
        };
        assert_eq!((extension.as_str(), at.as_str()), ("EXT_example", pointer));
        assert!(e.to_string().starts_with(pointer), "{e}");
        // Allowed: carried unchanged, with a warning naming it.
        let allowed = Options {
            allow_unknown_extensions: true,
            ..Options::new(2)
        };
        let (doc, report) = split(&g, &allowed).unwrap();
        assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
        assert!(
            report.warnings[0].starts_with(pointer),
            "{:?}",
            report.warnings
        );
        assert!(doc.pointer(pointer).is_some(), "{pointer} carried");
    }
    // Nothing over the budget: nothing split, nothing refused.
    let g = points(3, |d| root_extension(d, "EXT_example", json!({})));
    let s = split_gltf(&g, &Options::new(4), &[], &Limits::default()).unwrap();
    assert!(s.editor.is_none());
}

// spec: SP13
#[test]
fn known_extensions_are_carried_with_what_they_name() {
    let g = points(3, |d| {
        root_extension(
            d,
            "KHR_materials_variants",
            json!({"variants": [{"name": "red"}]}),
        );
        root_extension(d, "KHR_xmp_json_ld", json!({"packets": [{}]}));
        d["materials"] = json!([{"name": "a"}, {"name": "b"}]);
        d["meshes"][0]["primitives"][0]["material"] = json!(0);
        d["meshes"][0]["primitives"][0]["extensions"] = json!({"KHR_materials_variants":
            {"mappings": [{"material": 1, "variants": [0]}]}});
        d["meshes"][0]["extensions"] = json!({"KHR_xmp_json_ld": {"packet": 0}});
        // Instances of node 0: the translations are accessor 1 (any VEC3 float accessor).
        d["nodes"][0]["extensions"] =
            json!({"EXT_mesh_gpu_instancing": {"attributes": {"TRANSLATION": 1}}});
        d["extensionsUsed"]
            .as_array_mut()
            .unwrap()
            .push(json!("EXT_mesh_gpu_instancing"));
    });
    let (doc, report) = split(&g, &Options::new(2)).unwrap();
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    let meshes = doc["meshes"].as_array().unwrap();
    assert_eq!(meshes.len(), 3);
    for m in meshes {
        // Variant mappings name materials: carried with every part's primitive.
        assert_eq!(
            m["primitives"][0]["extensions"]["KHR_materials_variants"]["mappings"][0]["material"],
            1
        );
        assert_eq!(m["extensions"]["KHR_xmp_json_ld"]["packet"], 0);
    }
    // GPU instancing is copied to every part's node, naming the same accessor, which the
    // writer did not renumber (the extension is not one it prunes under).
    let instanced: Vec<&Value> = doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n.pointer("/extensions/EXT_mesh_gpu_instancing/attributes/TRANSLATION"))
        .collect();
    assert_eq!(instanced, [&json!(1), &json!(1), &json!(1)]);
    assert_eq!(doc["accessors"][1]["count"], 3);
    assert_eq!(doc["accessors"][1]["max"], json!([0.0, 0.0, 0.5]));
}

// spec: SP13 SP12
#[test]
fn the_output_budget_counts_the_references_copied() {
    // 200 parts (199 meshes and nodes added); 1,000 binds naming mesh 0, each about 380
    // bytes as the document holds it, copied 199 times: about 72 MiB, past the 16 MiB
    // budget of a small file.
    let g = points(200, |doc| {
        let binds: Vec<Value> = (0..1000)
            .map(|_| json!({"mesh": 0, "index": 0, "weight": 100}))
            .collect();
        root_extension(
            doc,
            "VRM",
            json!({"blendShapeMaster": {"blendShapeGroups": [{"name": "Up", "binds": binds}]}}),
        );
    });
    let e = split_gltf(&g, &Options::new(2), &[], &Limits::default())
        .err()
        .expect("refused");
    let SplitError::OutputBudget { largest, .. } = &e else {
        panic!("{e}")
    };
    let largest = largest.as_ref().unwrap();
    assert_eq!(
        largest.what,
        "/extensions/VRM/blendShapeMaster/blendShapeGroups/0/binds"
    );
    assert_eq!(largest.copies, 199);
    // Without the binds the same split fits.
    let plain = points(200, |_| {});
    assert!(split(&plain, &Options::new(2)).is_ok());
}
