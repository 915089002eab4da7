//! The part budget ([SP10]), the split nodes' extensions ([SP11]) and the output budget
//! ([SP12]) on small GLB files
//! built here: points that each use joint 0 and one joint of their own, so that under a
//! budget of two joints every point is a part of its own and every part a mesh, node and
//! skin of its own.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::cast_possible_truncation
)]

use dashvertex_core::Limits;
use dashvertex_gltf::export::BufferFiles;
use dashvertex_gltf::{Container, Gltf};
use dashvertex_split::budget::{self, OUTPUT_FLOOR, PER_VALUE, json_cost};
use dashvertex_split::{ExtensionRefusal, Options, SplitError, split_gltf};
use serde_json::{Value, json};

/// A GLB of `points` points (mode 0, no POSITION), point k using joints 0 and k + 1 (u8
/// joints, unorm8 weights 128 + 127), a skin of `points + 1` joints, drawn by node 0,
/// which has `extensions`.
fn points(points: usize, extensions: Value) -> Gltf {
    points_over(points, points, extensions)
}

/// [`points`] whose point k uses joints 0 and k % `spread` + 1.
fn points_over(points: usize, spread: usize, extensions: Value) -> Gltf {
    points_with(points, spread, extensions, |_| {})
}

/// [`points_over`], its JSON changed by `tweak` before it is framed.
fn points_with(
    points: usize,
    spread: usize,
    extensions: Value,
    tweak: impl FnOnce(&mut Value),
) -> Gltf {
    let joints = points + 1;
    let mut bin = Vec::new();
    for k in 0..points {
        bin.extend_from_slice(&[0, (k % spread + 1) as u8, 0, 0]);
    }
    for _ in 0..points {
        bin.extend_from_slice(&[128, 127, 0, 0]);
    }
    let mut nodes = vec![json!({"name": "body", "mesh": 0, "skin": 0, "extensions": extensions})];
    nodes.push(json!({"name": "root", "children": (2..=joints).collect::<Vec<_>>()}));
    for j in 1..joints {
        nodes.push(json!({ "name": format!("j{j}") }));
    }
    let used: Vec<String> = extensions
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    let doc = json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": used,
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": nodes,
        "meshes": [{"primitives": [{"attributes": {"JOINTS_0": 0, "WEIGHTS_0": 1}, "mode": 0}]}],
        "skins": [{"joints": (1..=joints).collect::<Vec<_>>()}],
        "accessors": [
            {"bufferView": 0, "componentType": 5121, "type": "VEC4", "count": points},
            {"bufferView": 1, "componentType": 5121, "normalized": true, "type": "VEC4", "count": points},
        ],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 4 * points},
            {"buffer": 0, "byteOffset": 4 * points, "byteLength": 4 * points},
        ],
        "buffers": [{"byteLength": bin.len()}],
    });
    let mut doc = doc;
    tweak(&mut doc);
    let glb = dashvertex_gltf::glb::build(&serde_json::to_vec(&doc).unwrap(), Some(&bin)).unwrap();
    dashvertex_gltf::load(&glb, &dashvertex_gltf::NoFiles, &Limits::default()).unwrap()
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

// spec: SP10
#[test]
fn more_parts_than_the_budget_is_refused_by_name_before_any_is_written() {
    let g = points(12, json!({}));
    // Under three joints a part the points pair up (joints 0, a, b): six parts, counted
    // as made (the lower bound, ⌈13 / 3⌉ = 5, is below it); within a budget of 6,
    // refused under 5.
    let ok = Options {
        max_parts: 6,
        ..Options::new(3)
    };
    let (_, report) = split(&g, &ok).unwrap();
    assert_eq!(report.primitives[0].parts.len(), 6);
    let tight = Options {
        max_parts: 5,
        ..Options::new(3)
    };
    let e = split_gltf(&g, &tight, &[], &Limits::default())
        .err()
        .expect("refused");
    let SplitError::TooManyParts {
        mesh,
        primitive,
        parts,
        at_least,
        max_parts,
        earlier,
        ..
    } = &e
    else {
        panic!("{e}")
    };
    assert_eq!(
        (*mesh, *primitive, *parts, *at_least, *max_parts, *earlier),
        (0, 0, 6, false, 5, 0)
    );
    assert!(
        e.to_string()
            .contains("it needs 6 parts, more than the 5 a split may write"),
        "{e}"
    );
    // Under the lower bound nothing is grown.
    let refused = |n: usize, max_parts: usize| {
        split_gltf(
            &g,
            &Options {
                max_parts,
                ..Options::new(n)
            },
            &[],
            &Limits::default(),
        )
        .err()
        .expect("refused")
    };
    let e = refused(3, 4);
    assert!(e.to_string().contains("it needs at least 5 parts"), "{e}");
    // Under two joints a part each point's two joints fill a part, a set of its own:
    // twelve parts at least, known before any is grown (⌈13 / 2⌉ would say 7), and
    // exactly what the split makes.
    let e = refused(2, 11);
    assert!(
        matches!(
            e,
            SplitError::TooManyParts {
                parts: 12,
                at_least: true,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("it needs at least 12 parts"), "{e}");
    let within = Options {
        max_parts: 12,
        ..Options::new(2)
    };
    assert_eq!(split(&g, &within).unwrap().1.primitives[0].parts.len(), 12);
    // The default budget takes thousands of parts.
    assert_eq!(
        Options::new(2).max_parts,
        dashvertex_split::DEFAULT_MAX_PARTS
    );
    const { assert!(dashvertex_split::DEFAULT_MAX_PARTS >= 1024) };
}

// spec: SP11
#[test]
fn every_part_node_keeps_the_node_extensions_that_say_how_it_is_drawn() {
    let g = points(
        3,
        json!({
            "KHR_node_visibility": {"visible": false},
            "EXT_mesh_gpu_instancing": {"attributes": {}},
            "KHR_lights_punctual": {"light": 0},
        }),
    );
    let (doc, report) = split(&g, &Options::new(2)).unwrap();
    assert!(report.warnings.is_empty());
    let nodes = doc["nodes"].as_array().unwrap();
    // The original node and the two added beside it.
    let drawing: Vec<&Value> = nodes.iter().filter(|n| n.get("skin").is_some()).collect();
    assert_eq!(drawing.len(), 3);
    for n in &drawing {
        assert_eq!(
            n["extensions"]["KHR_node_visibility"],
            json!({"visible": false}),
            "a hidden node's parts stay hidden: {n}"
        );
        assert_eq!(
            n["extensions"]["EXT_mesh_gpu_instancing"],
            json!({"attributes": {}})
        );
    }
    // The light shines once: only the original node keeps it.
    let lights = nodes
        .iter()
        .filter(|n| n.pointer("/extensions/KHR_lights_punctual").is_some())
        .count();
    assert_eq!(lights, 1);
}

// spec: SP11
#[test]
fn an_unknown_node_extension_is_refused_at_its_pointer_unless_allowed() {
    let g = points(3, json!({"VENDOR_wobble": {"hz": 3}}));
    let e = split_gltf(&g, &Options::new(2), &[], &Limits::default())
        .err()
        .expect("refused");
    let SplitError::NodeExtension {
        node,
        extension,
        pointer,
        why,
    } = &e
    else {
        panic!("{e}")
    };
    assert_eq!(
        (*node, extension.as_str(), pointer.as_str(), *why),
        (
            0,
            "VENDOR_wobble",
            "/nodes/0/extensions/VENDOR_wobble",
            ExtensionRefusal::Unknown
        )
    );
    let allowed = Options {
        allow_unknown_extensions: true,
        ..Options::new(2)
    };
    let (doc, report) = split(&g, &allowed).unwrap();
    assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
    assert!(report.warnings[0].contains("VENDOR_wobble"));
    let copies = doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n.pointer("/extensions/VENDOR_wobble/hz") == Some(&json!(3)))
        .count();
    assert_eq!(copies, 3);
    // A node whose mesh stays one part gets no node beside it: nothing to refuse.
    let one = points_over(3, 1, json!({"VENDOR_wobble": {}}));
    let (doc, report) = split(&one, &Options::new(2)).unwrap();
    assert_eq!(report.primitives[0].parts.len(), 1);
    assert_eq!(doc["nodes"].as_array().unwrap().len(), 5);
}

// spec: SP11
#[test]
fn a_node_extension_naming_other_nodes_is_refused() {
    let g = points(3, json!({"MSFT_lod": {"ids": [1]}}));
    let allowed = Options {
        allow_unknown_extensions: true,
        ..Options::new(2)
    };
    let e = split_gltf(&g, &allowed, &[], &Limits::default())
        .err()
        .expect("refused");
    assert!(
        matches!(
            &e,
            SplitError::NodeExtension {
                why: ExtensionRefusal::NodeIndices,
                ..
            }
        ),
        "{e}"
    );
    assert!(
        e.to_string().contains("/nodes/0/extensions/MSFT_lod"),
        "{e}"
    );
}

/// 200 points cut to two joints a part (200 parts, 199 nodes added beside node 0), with
/// `extras` at `at` (a JSON Pointer to an object of the document).
fn extras_at(at: &str, extras: Value) -> Gltf {
    points_with(200, 200, json!({}), |doc| {
        doc.pointer_mut(at)
            .and_then(Value::as_object_mut)
            .unwrap()
            .insert("extras".into(), extras);
    })
}

// spec: SP12
#[test]
fn extras_copied_past_the_output_budget_are_refused_naming_the_largest_share() {
    // 400 KB of extras copied to each of about 200 parts, meshes, skins or nodes: about
    // 80 MB, past the 16 MiB budget of a small file. Refused before anything is written
    // for the mesh, naming what is copied.
    let big = json!({"blob": "x".repeat(400_000)});
    for (at, named, copies) in [
        ("/nodes/0", "/nodes/0/extras", 199),
        ("/meshes/0", "/meshes/0/extras", 200),
        (
            "/meshes/0/primitives/0",
            "/meshes/0/primitives/0/extras",
            200,
        ),
        ("/skins/0", "/skins/0/extras", 200),
    ] {
        let g = extras_at(at, big.clone());
        let e = split_gltf(&g, &Options::new(2), &[], &Limits::default())
            .err()
            .unwrap_or_else(|| panic!("{at}: not refused"));
        let SplitError::OutputBudget {
            mesh,
            bytes,
            budget,
            largest: Some(l),
            ..
        } = &e
        else {
            panic!("{at}: {e}")
        };
        assert_eq!(*mesh, 0);
        assert_eq!(*budget, OUTPUT_FLOOR, "{at}: a small file has the floor");
        assert!(*bytes > 400_000 * copies, "{at}: {bytes}");
        assert_eq!((l.what.as_str(), l.copies), (named, copies), "{at}: {e}");
        let text = e.to_string();
        assert!(text.contains("output budget of 16.0 MiB"), "{text}");
        assert!(
            text.contains(&format!("the largest share is {named}")),
            "{text}"
        );
    }
    // A fiftieth of it fits, and every copy is made: extras are never dropped.
    let small = json!({"blob": "x".repeat(8_000)});
    let g = extras_at("/nodes/0", small.clone());
    let (doc, _) = split(&g, &Options::new(2)).unwrap();
    let copies = doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n.get("extras") == Some(&small))
        .count();
    assert_eq!(copies, 200);
}

// spec: SP12
#[test]
fn the_output_budget_counts_json_as_the_document_holds_it() {
    // Each value costs at least what serde_json holds of it.
    assert!(PER_VALUE >= std::mem::size_of::<Value>() as u64);
    // 3 KB of zeros is 1,500 values: counted as 1,500 × (PER_VALUE + 2) and more, so
    // copied 199 times it passes the budget though its text would be 600 KB.
    let zeros = json!(vec![0; 1_500]);
    assert!(json_cost(&zeros) >= 1_500 * (PER_VALUE + 2));
    let g = extras_at("/nodes/0", json!({"samples": zeros}));
    let e = split_gltf(&g, &Options::new(2), &[], &Limits::default())
        .err()
        .expect("refused");
    assert!(matches!(e, SplitError::OutputBudget { .. }), "{e}");
    // Nesting as deep as the reader allows is counted without recursion.
    let mut deep = json!(0);
    for _ in 0..100_000 {
        deep = Value::Array(vec![deep]);
    }
    assert_eq!(json_cost(&deep), 100_001 * PER_VALUE + 1 + 100_000 * 3);
    // Dropped, serde_json would recurse as deep: leaked instead.
    std::mem::forget(deep);
    // The budget is the floor, or 8 bytes per input byte beyond it.
    assert_eq!(budget::output_budget(0), OUTPUT_FLOOR);
    assert_eq!(budget::output_budget(100 << 20), 800 << 20);
    assert_eq!(budget::output_budget(u64::MAX), u64::MAX);
}
