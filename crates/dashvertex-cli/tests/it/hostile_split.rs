//! `dashvertex split` on files whose parts are bounded by nothing but their element count
//! (spec/split.md [SP10]): triangle strips without indices or POSITION whose vertices
//! each use random joints of a 256-joint skin, so that nearly every triangle is a part of
//! its own. Each run is a child under the 256 MiB address-space limit and a time bound
//! (`dashvertex_testkit::run_limited`, which fails on any exit but 0, 1 or 2); such a
//! file made 19,993 parts of about 14 KB each and aborted at the limit.

use std::path::Path;
use std::process::Output;

use dashvertex_testkit::Scratch;

fn limited(dir: &Path, args: &[&str]) -> Output {
    dashvertex_testkit::run_limited(Path::new(env!("CARGO_BIN_EXE_dashvertex")), dir, args, 180)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A GLB: one TRIANGLE_STRIP of `vertices` vertices (no indices, no POSITION), each
/// vertex with `influences` (a multiple of 4) distinct random joints of a `joints`-joint
/// skin, UNSIGNED_BYTE joints and normalized UNSIGNED_BYTE weights summing to 255; the
/// skin's joints are children of one root. Deterministic from `seed`.
fn strip(vertices: usize, influences: usize, joints: usize, seed: u64) -> Vec<u8> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    let sets = influences / 4;
    let mut js: Vec<Vec<u8>> = vec![Vec::with_capacity(vertices * 4); sets];
    let mut ws: Vec<Vec<u8>> = vec![Vec::with_capacity(vertices * 4); sets];
    for _ in 0..vertices {
        let mut chosen: Vec<u8> = Vec::with_capacity(influences);
        while chosen.len() < influences {
            let j = (next() % joints as u64) as u8;
            if !chosen.contains(&j) {
                chosen.push(j);
            }
        }
        // Every weight at least 1 (each joint is used), the first takes the rest.
        let mut w: Vec<u8> = (0..influences)
            .map(|_| 1 + (next() % (255 / influences as u64)) as u8)
            .collect();
        let rest: u32 = w[1..].iter().map(|&x| u32::from(x)).sum();
        w[0] = (255 - rest) as u8;
        for s in 0..sets {
            js[s].extend_from_slice(&chosen[4 * s..4 * s + 4]);
            ws[s].extend_from_slice(&w[4 * s..4 * s + 4]);
        }
    }
    let mut bin = Vec::new();
    let mut views = Vec::new();
    let mut accessors = Vec::new();
    let mut attributes = serde_json::Map::new();
    for (name, data, normalized) in js
        .iter()
        .enumerate()
        .map(|(s, d)| (format!("JOINTS_{s}"), d, false))
        .chain(
            ws.iter()
                .enumerate()
                .map(|(s, d)| (format!("WEIGHTS_{s}"), d, true)),
        )
    {
        views.push(
            serde_json::json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": data.len()}),
        );
        bin.extend_from_slice(data);
        let mut a = serde_json::json!({"bufferView": views.len() - 1, "componentType": 5121, "type": "VEC4", "count": vertices});
        if normalized {
            a["normalized"] = true.into();
        }
        accessors.push(a);
        attributes.insert(name, (accessors.len() - 1).into());
    }
    let mut nodes = vec![
        serde_json::json!({"name": "body", "mesh": 0, "skin": 0}),
        serde_json::json!({"name": "root", "children": (2..=joints).collect::<Vec<_>>()}),
    ];
    for j in 1..joints {
        nodes.push(serde_json::json!({ "name": format!("j{j}") }));
    }
    let doc = serde_json::json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": nodes,
        "meshes": [{"primitives": [{"attributes": attributes, "mode": 5}]}],
        "skins": [{"joints": (1..=joints).collect::<Vec<_>>()}],
        "accessors": accessors,
        "bufferViews": views,
        "buffers": [{"byteLength": bin.len()}],
    });
    dashvertex_gltf::glb::build(&serde_json::to_vec(&doc).unwrap(), Some(&bin)).unwrap()
}

// spec: SP10
#[test]
fn strips_of_random_joints_are_refused_by_the_part_budget_not_the_memory_limit() {
    let dir = Scratch::new("hostile-split");
    let d = dir.path();
    // (vertices, influences per vertex, --max-joints, extra flags): the 4 random
    // joints of 256 at 12 (20,000 and 70,000 vertices: 19,993 and 69,967 parts), and
    // noisy weights: 16 influences under --reduce to 3, and 30,000 vertices (960 KB) under
    // 100 joints a part (about 5,700 parts; 12,000 vertices make 2,300, written).
    let runs: [(usize, usize, &str, &[&str]); 5] = [
        (20_000, 4, "12", &[]),
        (70_000, 4, "12", &[]),
        (30_000, 4, "8", &["--reduce"]),
        (12_000, 16, "3", &["--reduce"]),
        (30_000, 16, "100", &[]),
    ];
    for (k, (vertices, influences, max_joints, extra)) in runs.into_iter().enumerate() {
        let glb = strip(vertices, influences, 256, 1 + k as u64);
        assert!(glb.len() <= 2 << 20, "{} bytes", glb.len());
        let name = format!("strip{k}.glb");
        std::fs::write(d.join(&name), &glb).unwrap();
        let args = [
            &[
                "split",
                name.as_str(),
                "-o",
                "out.glb",
                "--max-joints",
                max_joints,
            ][..],
            extra,
        ]
        .concat();
        let o = limited(d, &args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("--max-parts"), "{args:?}: {err}");
        assert!(err.contains("mesh 0 primitive 0"), "{args:?}: {err}");
        assert!(!d.join("out.glb").exists(), "{args:?}: nothing written");
    }
}

// spec: SP10
#[test]
fn the_default_part_budget_fits_under_the_memory_limit() {
    // Just under 4,096 parts of one triangle each, every part a mesh, node and skin of
    // its own: written whole under the 256 MiB limit; one part fewer allowed is refused.
    let dir = Scratch::new("hostile-split-budget");
    let d = dir.path();
    std::fs::write(d.join("in.glb"), strip(4_000, 4, 256, 7)).unwrap();
    let o = limited(
        d,
        &[
            "split",
            "in.glb",
            "-o",
            "out.glb",
            "--max-joints",
            "12",
            "--report",
            "r.json",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let r: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("r.json")).unwrap()).unwrap();
    let parts = r["primitives"][0]["parts"].as_array().unwrap().len();
    assert!(parts > 3_900 && parts <= 4_096, "{parts}");
    let fewer = (parts - 1).to_string();
    let o = limited(
        d,
        &[
            "split",
            "in.glb",
            "-o",
            "less.glb",
            "--max-joints",
            "12",
            "--max-parts",
            &fewer,
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(&format!("raise --max-parts to at least {parts}")),
        "{}",
        stderr(&o)
    );
}

/// A GLB of `points` points (mode 0, no POSITION), point k using joint 0 and joint k + 1
/// (UNSIGNED_SHORT joints, normalized UNSIGNED_BYTE weights 128 + 127) of a skin of
/// `points + 1` joints drawn by node 0: under two joints a part every point is a part,
/// and a mesh, skin and node, of its own. `attributes` more custom attributes name the
/// weights' accessor; `tweak` changes the JSON before it is framed.
fn points(points: usize, attributes: usize, tweak: impl FnOnce(&mut serde_json::Value)) -> Vec<u8> {
    use serde_json::json;
    let joints = points + 1;
    let mut bin = Vec::new();
    for k in 0..points {
        for j in [0u16, (k + 1) as u16, 0, 0] {
            bin.extend_from_slice(&j.to_le_bytes());
        }
    }
    for _ in 0..points {
        bin.extend_from_slice(&[128, 127, 0, 0]);
    }
    let mut attrs = serde_json::Map::new();
    attrs.insert("JOINTS_0".into(), json!(0));
    attrs.insert("WEIGHTS_0".into(), json!(1));
    for a in 0..attributes {
        attrs.insert(format!("_A{a}"), json!(1));
    }
    let mut nodes = vec![json!({"name": "body", "mesh": 0, "skin": 0})];
    nodes.push(json!({"name": "root", "children": (2..=joints).collect::<Vec<_>>()}));
    for j in 1..joints {
        nodes.push(json!({ "name": format!("j{j}") }));
    }
    let mut doc = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": nodes,
        "meshes": [{"primitives": [{"attributes": attrs, "mode": 0}]}],
        "skins": [{"joints": (1..=joints).collect::<Vec<_>>()}],
        "accessors": [
            {"bufferView": 0, "componentType": 5123, "type": "VEC4", "count": points},
            {"bufferView": 1, "componentType": 5121, "normalized": true, "type": "VEC4", "count": points},
        ],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 8 * points},
            {"buffer": 0, "byteOffset": 8 * points, "byteLength": 4 * points},
        ],
        "buffers": [{"byteLength": bin.len()}],
    });
    tweak(&mut doc);
    dashvertex_gltf::glb::build(&serde_json::to_vec(&doc).unwrap(), Some(&bin)).unwrap()
}

/// Sets member `key` of the object at JSON Pointer `at` to `v`.
fn put(
    at: &'static str,
    key: &'static str,
    v: serde_json::Value,
) -> impl FnOnce(&mut serde_json::Value) {
    move |doc| {
        doc.pointer_mut(at)
            .and_then(serde_json::Value::as_object_mut)
            .unwrap()
            .insert(key.into(), v);
    }
}

// spec: SP12
#[test]
fn large_extras_copied_to_many_parts_are_refused_by_the_output_budget_not_the_memory_limit() {
    use serde_json::json;
    let dir = Scratch::new("hostile-split-extras");
    let d = dir.path();
    let text = |n: usize| json!({"blob": "x".repeat(n)});
    let numbers = |n: usize| json!({"samples": vec![0; n]});
    // (name, file, whether it must be refused): megabytes of extras (text, or small
    // numbers that serde_json holds at 80 bytes each) on the node, mesh, primitive and
    // skin, or in a node extension copied to every part, under thousands of parts; custom
    // attributes that share one accessor, each gathered per part. Then 2 KB of node
    // extras on 3,999 added nodes, about 15.4 MiB counted, just under the 16 MiB budget:
    // written whole under the limit (8 KB each, 38.5 MiB, aborted at the limit before
    // the budget).
    let cases: Vec<(&str, Vec<u8>, bool)> = vec![
        (
            "node-text",
            points(4_000, 0, put("/nodes/0", "extras", text(1_500_000))),
            true,
        ),
        (
            "node-numbers",
            points(4_000, 0, put("/nodes/0", "extras", numbers(600_000))),
            true,
        ),
        (
            "mesh-text",
            points(1_000, 0, put("/meshes/0", "extras", text(1_500_000))),
            true,
        ),
        (
            "primitive-numbers",
            points(
                1_000,
                0,
                put("/meshes/0/primitives/0", "extras", numbers(600_000)),
            ),
            true,
        ),
        (
            "skin-text",
            points(1_000, 0, put("/skins/0", "extras", text(1_500_000))),
            true,
        ),
        (
            "node-extension",
            points(2_000, 0, |doc: &mut serde_json::Value| {
                put(
                    "/nodes/0",
                    "extensions",
                    json!({"KHR_xmp_json_ld": {"packet": 0, "pad": "x".repeat(1_500_000)}}),
                )(doc);
                doc["extensionsUsed"] = json!(["KHR_xmp_json_ld"]);
            }),
            true,
        ),
        ("attributes", points(1_000, 1_000, |_| {}), true),
        (
            "node-fits",
            points(4_000, 0, put("/nodes/0", "extras", text(2_000))),
            false,
        ),
    ];
    for (name, glb, refused) in cases {
        assert!(glb.len() <= 2 << 20, "{name}: {} bytes", glb.len());
        let file = format!("{name}.glb");
        let out = format!("{name}.out.glb");
        std::fs::write(d.join(&file), &glb).unwrap();
        let o = limited(d, &["split", &file, "-o", &out, "--max-joints", "2"]);
        let err = stderr(&o);
        if refused {
            assert_eq!(o.status.code(), Some(1), "{name}: {err}");
            assert!(err.contains("output budget"), "{name}: {err}");
            assert!(err.contains("the largest share is /"), "{name}: {err}");
            assert!(!d.join(&out).exists(), "{name}: nothing written");
        } else {
            // Written only once the validator accepted it.
            assert_eq!(o.status.code(), Some(0), "{name}: {err}");
            let bytes = std::fs::read(d.join(&out)).unwrap();
            assert_eq!(&bytes[..4], b"glTF", "{name}");
            std::fs::remove_file(d.join(&out)).unwrap();
        }
    }
}
