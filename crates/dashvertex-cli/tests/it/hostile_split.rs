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
