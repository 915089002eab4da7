//! What `dashvertex reduce` writes for glTF: pruned and faithful. For real models (and a
//! generated one with 16 influences in 4 sets), the reduced file has no error from the
//! official validator and no UNUSED_OBJECT the input did not have; when influences were
//! dropped it is smaller than its input; a `.gltf` with a `.bin` comes back as a `.gltf`
//! with a `.bin` (no data URI), and GLB stays GLB.

use std::path::{Path, PathBuf};
use std::process::Command;

use dashvertex_testkit::gltf::SkinnedGlb;
use dashvertex_testkit::oracle::{messages, oracle};
use dashvertex_testkit::{Scratch, repo};

fn dash(dir: &Path, args: &[&str]) {
    let o = Command::new(env!("CARGO_BIN_EXE_dashvertex"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "dash {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn reduced_gltf_is_pruned_and_faithful() {
    let dir = Scratch::new("pruned");
    let d = dir.path();
    let corpus = repo().join("fixtures/corpus/gltf");
    std::fs::write(
        d.join("many.glb"),
        SkinnedGlb {
            vertices: 3000,
            primitives: 2,
            sets: 4,
            joints: 60,
            fault_every: 0,
            seed: 2,
        }
        .build(),
    )
    .unwrap();
    // Copy the sources in: a .gltf with its .bin, GLB files.
    let cyl = corpus.join("blenderio/03_skinned_cylinder");
    for f in ["03_skinned_cylinder.gltf", "03_skinned_cylinder.bin"] {
        std::fs::copy(cyl.join(f), d.join(f)).unwrap();
    }
    for f in ["CesiumMan.glb", "Fox.glb", "RiggedFigure.glb"] {
        std::fs::copy(corpus.join("khronos_samples").join(f), d.join(f)).unwrap();
    }
    std::fs::copy(
        repo().join("fixtures/blender/rig24_all.glb"),
        d.join("rig24.glb"),
    )
    .unwrap();
    // Data-URI buffers, one of them left without a view once pruned (removed too).
    std::fs::copy(
        corpus.join("bevy/SimpleSkin.gltf"),
        d.join("SimpleSkin.gltf"),
    )
    .unwrap();
    let cases: &[(&str, &str, &str)] = &[
        ("many.glb", "many-4.glb", "4"),
        ("rig24.glb", "rig24-2.glb", "2"),
        ("CesiumMan.glb", "cesium-2.glb", "2"),
        ("Fox.glb", "fox-1.glb", "1"),
        ("RiggedFigure.glb", "figure-4.glb", "4"),
        ("03_skinned_cylinder.gltf", "cylinder-1.gltf", "1"),
        ("03_skinned_cylinder.gltf", "cylinder-1.glb", "1"),
        ("CesiumMan.glb", "cesium-2.gltf", "2"),
        ("SimpleSkin.gltf", "simple-1.gltf", "1"),
    ];
    let mut files: Vec<PathBuf> = Vec::new();
    for (input, output, k) in cases {
        dash(
            d,
            &[
                "reduce",
                input,
                "-o",
                output,
                "--max-influences",
                k,
                "--normalize",
                "unit",
                "-q",
            ],
        );
        files.push(d.join(input));
        files.push(d.join(output));
    }
    // GLB stays GLB; a .gltf output keeps its buffer in a .bin beside it.
    for (_, output, _) in cases {
        let bytes = std::fs::read(d.join(output)).unwrap();
        assert_eq!(
            bytes.starts_with(b"glTF"),
            output.ends_with(".glb"),
            "{output}"
        );
        if output.ends_with(".gltf") && !output.starts_with("simple") {
            let text = String::from_utf8(bytes).unwrap();
            assert!(!text.contains("data:"), "{output} embeds a buffer");
            let stem = output.trim_end_matches(".gltf");
            assert!(text.contains(&format!("\"{stem}.bin\"")), "{output}");
            assert!(d.join(format!("{stem}.bin")).exists());
        }
    }
    // Smaller than the input where influences were dropped (every case drops some);
    // compared within one container (a `.gltf` is pretty-printed JSON).
    let ext = |p: &str| p.rsplit('.').next().unwrap_or("").to_owned();
    // (SimpleSkin is a few hundred bytes of data in compact JSON: its size is the JSON's
    // formatting, so it is left out.)
    for (input, output, _) in cases
        .iter()
        .filter(|(i, o, _)| ext(i) == ext(o) && !o.starts_with("simple"))
    {
        let size = |p: &str| size_with_buffers(&d.join(p));
        assert!(
            size(output) < size(input),
            "{output} ({}) is not smaller than {input} ({})",
            size(output),
            size(input)
        );
    }
    // The official validator: no error, no new UNUSED_OBJECT.
    let Some(reports) = oracle(&files) else {
        return;
    };
    for pair in reports.chunks(2) {
        let (before, after) = (&pair[0], &pair[1]);
        let name = after["file"].as_str().unwrap_or("?").to_owned();
        assert_eq!(messages(after, 0), Vec::new(), "{name}: official errors");
        let unused = |r: &serde_json::Value| -> Vec<String> {
            [1, 2, 3]
                .iter()
                .flat_map(|&s| messages(r, s))
                .filter(|(c, _)| c == "UNUSED_OBJECT")
                .map(|(_, p)| p)
                .collect()
        };
        let (was, now) = (unused(before), unused(after));
        // Pointers move when accessors are renumbered: compare counts by kind.
        let kinds = |v: &[String]| {
            let mut k: Vec<String> = v
                .iter()
                .map(|p| p.split('/').nth(1).unwrap_or("").to_owned())
                .collect();
            k.sort();
            k
        };
        for kind in ["accessors", "bufferViews", "buffers"] {
            let count = |v: &[String]| kinds(v).iter().filter(|x| *x == kind).count();
            assert!(
                count(&now) <= count(&was),
                "{name}: new unused {kind}: before {was:?}, after {now:?}"
            );
        }
    }
}

/// A file's size plus that of the external buffers it names (for `.gltf`).
fn size_with_buffers(path: &Path) -> u64 {
    let own = std::fs::metadata(path).unwrap().len();
    if path.extension().and_then(|e| e.to_str()) != Some("gltf") {
        return own;
    }
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let dir = path.parent().unwrap();
    own + doc["buffers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|b| b["uri"].as_str())
        .filter(|u| !u.starts_with("data:"))
        .map(|u| std::fs::metadata(dir.join(u)).unwrap().len())
        .sum::<u64>()
}

#[test]
fn buffer_files_with_uri_characters_in_their_name_are_found_when_checked() {
    // `a%41.gltf` writes `a%41.bin`, named `a%2541.bin` in the JSON; the check before
    // writing must find it (it used to decode the name twice and refuse valid output).
    let dir = Scratch::new("percent");
    let d = dir.path();
    std::fs::copy(
        repo().join("fixtures/corpus/gltf/khronos_samples/CesiumMan.glb"),
        d.join("in.glb"),
    )
    .unwrap();
    dash(
        d,
        &[
            "reduce",
            "in.glb",
            "-o",
            "a%41.gltf",
            "--max-influences",
            "2",
            "--normalize",
            "unit",
            "-q",
        ],
    );
    let text = std::fs::read_to_string(d.join("a%41.gltf")).unwrap();
    assert!(text.contains("\"a%2541.bin\""), "{text}");
    assert!(d.join("a%41.bin").exists());
}
