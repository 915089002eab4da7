//! Compressed and extended glTF files (spec/security.md [R3], issue 48): data dash cannot
//! decode is refused by name in every command, never read as zeros; a rewrite of a
//! primitive that also carries a Draco stream drops the stream and says so; meshopt
//! streams are decoded, and a rewrite writes them as plain views.
//!
//! `fixtures/compressed/` holds RiggedSimple (the Khronos sample in the corpus)
//! compressed by glTF-Transform 4.5.1 (`draco`, `meshopt`) and gltfpack 0.18 (`-c`).

use std::path::Path;
use std::process::Output;

use dashvertex_testkit::{Scratch, changes, repo, run_limited, snapshot};
use serde_json::{Value, json};

fn dash(dir: &Path, args: &[&str]) -> Output {
    run_limited(Path::new(env!("CARGO_BIN_EXE_dashvertex")), dir, args, 30)
}

fn validate(dir: &Path, args: &[&str]) -> Output {
    run_limited(
        Path::new(env!("CARGO_BIN_EXE_dash-validate")),
        dir,
        args,
        30,
    )
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The JSON and binary chunks of a GLB.
fn chunks(glb: &[u8]) -> (Value, Vec<u8>) {
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let json: Value = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    let rest = &glb[20 + json_len..];
    let bin = if rest.len() >= 8 {
        let n = u32::from_le_bytes(rest[0..4].try_into().unwrap()) as usize;
        rest[8..8 + n].to_vec()
    } else {
        Vec::new()
    };
    (json, bin)
}

fn glb(json: &Value, bin: &[u8]) -> Vec<u8> {
    dashvertex_gltf::glb::build(&serde_json::to_vec(json).unwrap(), Some(bin)).unwrap()
}

#[test]
fn data_dash_cannot_decode_is_refused_by_name_everywhere() {
    // spec: R3
    // Meshopt-compressed files are decoded: `meshopt_files_read_everywhere` below.
    for (file, extension) in [("rs_draco.glb", "KHR_draco_mesh_compression")] {
        let dir = Scratch::new("compressed");
        let d = dir.path();
        std::fs::copy(
            repo().join("fixtures/compressed").join(file),
            d.join("in.glb"),
        )
        .unwrap();
        let made = dash(
            d,
            &[
                "manifest",
                "init",
                &repo()
                    .join("fixtures/corpus/gltf/khronos_samples/RiggedSimple.glb")
                    .display()
                    .to_string(),
                "-o",
                "m.json",
            ],
        );
        assert_eq!(made.status.code(), Some(0), "{}", stderr(&made));
        let before = snapshot(d);
        // Inspect refuses nothing: it lists the error and shows what it can read.
        let o = dash(d, &["inspect", "in.glb"]);
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(0), "{file}: {}", stderr(&o));
        assert!(
            out.contains("GLTF_EXTENSION_UNSUPPORTED") && out.contains(extension),
            "{file}: {out}"
        );
        assert!(
            !out.contains("position (0 0 0)"),
            "{file}: zeros shown: {out}"
        );
        for args in [
            vec!["convert", "in.glb", "out.json"],
            vec!["reduce", "in.glb", "-o", "out.glb"],
            vec!["reduce", "in.glb", "-o", "out.glb", "--report", "r.json"],
            vec!["fix", "in.glb", "-o", "out.glb"],
            vec!["remap", "in.glb", "--manifest", "m.json", "-o", "out.glb"],
            vec!["split", "in.glb", "-o", "out.glb", "--max-joints", "1"],
            vec!["manifest", "init", "in.glb", "-o", "new.json"],
        ] {
            let o = dash(d, &args);
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(1), "{file} {args:?}: {err}");
            assert!(
                err.contains(extension) && err.contains("/extensionsRequired/"),
                "{file} {args:?}: {err}"
            );
            assert!(err.contains("Nothing written"), "{file} {args:?}: {err}");
        }
        assert!(
            changes(&before, &snapshot(d)).is_empty(),
            "{file}: a file changed"
        );
        // The validator: the extension, where it is; no finding made from zeros.
        let o = validate(d, &["--format", "json", "in.glb"]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let report: Value = serde_json::from_slice(&o.stdout).unwrap();
        let found = report["files"][0]["diagnostics"]
            .as_array()
            .unwrap()
            .clone();
        assert!(
            found
                .iter()
                .filter(|f| f["severity"] == "error")
                .all(|f| f["code"] == "GLTF_EXTENSION_UNSUPPORTED")
                && !found
                    .iter()
                    .any(|f| f["code"].as_str().is_some_and(|c| c.starts_with("WEIGHT"))),
            "{file}: {found:#?}"
        );
        assert!(
            found.iter().any(|f| f["location"]["pointer"]
                .as_str()
                .is_some_and(|p| p.contains(extension))),
            "{file}: {found:#?}"
        );
    }
}

#[test]
fn an_unknown_required_extension_is_refused_and_a_known_one_read() {
    let source =
        std::fs::read(repo().join("fixtures/corpus/gltf/khronos_samples/RiggedSimple.glb"))
            .unwrap();
    let (mut doc, bin) = chunks(&source);
    let dir = Scratch::new("compressed-required");
    let d = dir.path();
    doc["extensionsUsed"] = json!(["EXT_made_up"]);
    doc["extensionsRequired"] = json!(["EXT_made_up"]);
    std::fs::write(d.join("unknown.glb"), glb(&doc, &bin)).unwrap();
    let o = dash(d, &["reduce", "unknown.glb", "-o", "out.glb"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("\"EXT_made_up\""), "{}", stderr(&o));
    assert!(!d.join("out.glb").exists());
    // A required extension dash understands (material-only) is read as before.
    doc["extensionsUsed"] = json!(["KHR_materials_unlit"]);
    doc["extensionsRequired"] = json!(["KHR_materials_unlit"]);
    std::fs::write(d.join("known.glb"), glb(&doc, &bin)).unwrap();
    let o = dash(d, &["reduce", "known.glb", "-o", "out.glb"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// A primitive that keeps plain accessors beside a Draco stream (Draco used, not
/// required): dash reads the plain data, and a rewrite that replaces the influences
/// (reduce, remap) or cuts the primitive into parts (split) drops the stream, which holds
/// the old data, and says so.
#[test]
fn a_rewrite_drops_the_draco_stream_of_what_it_changed() {
    // spec: R3
    let source = dashvertex_testkit::gltf::SkinnedGlb {
        vertices: 300,
        primitives: 1,
        sets: 1,
        joints: 24,
        ..Default::default()
    }
    .build();
    let (mut doc, bin) = chunks(&source);
    let attrs = doc["meshes"][0]["primitives"][0]["attributes"].clone();
    doc["meshes"][0]["primitives"][0]["extensions"] = json!({
        "KHR_draco_mesh_compression": {"bufferView": 0, "attributes": attrs},
        "EXT_other_primitive_data": {"kept": true}
    });
    doc["extensionsUsed"] = json!(["KHR_draco_mesh_compression", "EXT_other_primitive_data"]);
    let dir = Scratch::new("compressed-fallback");
    let d = dir.path();
    std::fs::write(d.join("in.glb"), glb(&doc, &bin)).unwrap();
    let o = validate(d, &["in.glb"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let made = dash(d, &["manifest", "init", "in.glb", "-o", "m.json"]);
    assert_eq!(made.status.code(), Some(0), "{}", stderr(&made));
    // Reversed joint order, so remap has something to renumber.
    let mut m: Value = serde_json::from_slice(&std::fs::read(d.join("m.json")).unwrap()).unwrap();
    let bones = m["bones"].as_array_mut().unwrap();
    bones.reverse();
    for (i, b) in bones.iter_mut().enumerate() {
        b["index"] = json!(i);
    }
    std::fs::write(d.join("m.json"), serde_json::to_vec(&m).unwrap()).unwrap();
    for args in [
        vec!["reduce", "in.glb", "-o", "out.glb", "--max-influences", "1"],
        vec!["remap", "in.glb", "--manifest", "m.json", "-o", "out.glb"],
        vec![
            "split",
            "in.glb",
            "-o",
            "out.glb",
            "--max-joints",
            "12",
            "--allow-unknown-extensions",
        ],
    ] {
        let o = dash(d, &args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {err}");
        assert!(
            err.contains("KHR_draco_mesh_compression stream held"),
            "{args:?}: {err}"
        );
        let (out, _) = chunks(&std::fs::read(d.join("out.glb")).unwrap());
        let prims: Vec<&Value> = out["meshes"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| m["primitives"].as_array().unwrap())
            .collect();
        if args[0] == "split" {
            assert!(prims.len() > 1, "{args:?}: one part");
        }
        for prim in prims {
            assert!(
                prim["extensions"]
                    .get("KHR_draco_mesh_compression")
                    .is_none(),
                "{args:?}: {prim}"
            );
            assert_eq!(
                prim["extensions"]["EXT_other_primitive_data"],
                json!({"kept": true})
            );
        }
        assert_eq!(
            out["extensionsUsed"],
            json!(["EXT_other_primitive_data"]),
            "{args:?}"
        );
        let o = validate(d, &["out.glb"]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stdout)
        );
    }
}

/// Every command reads a meshopt-compressed file (gltfpack `-c`, glTF-Transform
/// `meshopt`, `KHR_meshopt_compression` with v1 streams) as its decoded data; a rewrite
/// writes one GLB with plain views and no trace of the extension, which validates.
#[test]
fn meshopt_files_read_everywhere() {
    // spec: R3
    for file in ["rs_meshopt.glb", "rs_pack_c.glb", "rs_pack_khr_v1.glb"] {
        let dir = Scratch::new("meshopt");
        let d = dir.path();
        std::fs::copy(
            repo().join("fixtures/compressed").join(file),
            d.join("in.glb"),
        )
        .unwrap();
        let o = validate(d, &["--format", "json", "in.glb"]);
        assert_eq!(o.status.code(), Some(0), "{file}: {}", stderr(&o));
        let report: Value = serde_json::from_slice(&o.stdout).unwrap();
        let found = report["files"][0]["diagnostics"].as_array().unwrap();
        assert!(
            found
                .iter()
                .all(|f| f["severity"] != "error" && f["code"] != "GLTF_BUFFER_PLACEHOLDER"),
            "{file}: {found:#?}"
        );
        let made = dash(d, &["manifest", "init", "in.glb", "-o", "m.json"]);
        assert_eq!(made.status.code(), Some(0), "{file}: {}", stderr(&made));
        let mut m: Value =
            serde_json::from_slice(&std::fs::read(d.join("m.json")).unwrap()).unwrap();
        let bones = m["bones"].as_array_mut().unwrap();
        assert_eq!(bones.len(), 2, "{file}");
        bones.reverse();
        for (i, b) in bones.iter_mut().enumerate() {
            b["index"] = json!(i);
        }
        std::fs::write(d.join("rev.json"), serde_json::to_vec(&m).unwrap()).unwrap();
        let o = dash(d, &["inspect", "in.glb"]);
        assert_eq!(o.status.code(), Some(0), "{file}: {}", stderr(&o));
        let o = dash(d, &["convert", "in.glb", "out.json"]);
        assert_eq!(o.status.code(), Some(0), "{file}: {}", stderr(&o));
        let doc: Value =
            serde_json::from_slice(&std::fs::read(d.join("out.json")).unwrap()).unwrap();
        assert!(doc.to_string().contains("\"Bone.001\""), "{file}");
        for args in [
            vec!["reduce", "in.glb", "-o", "out.glb", "--max-influences", "1"],
            vec!["reduce", "in.glb", "-o", "out.glb", "--report", "r.json"],
            vec!["fix", "in.glb", "-o", "out.glb"],
            vec!["remap", "in.glb", "--manifest", "rev.json", "-o", "out.glb"],
        ] {
            let _ = std::fs::remove_file(d.join("out.glb"));
            let before = snapshot(d);
            let o = dash(d, &args);
            assert_eq!(o.status.code(), Some(0), "{file} {args:?}: {}", stderr(&o));
            let added = changes(&before, &snapshot(d));
            assert!(
                added
                    .iter()
                    .all(|c| c.contains("out.glb") || c.contains("r.json")),
                "{file} {args:?}: {added:?}"
            );
            let out = std::fs::read(d.join("out.glb")).unwrap();
            if args[0] == "fix" && out == std::fs::read(d.join("in.glb")).unwrap() {
                // nothing to fix: the input copied unchanged, still compressed
                continue;
            }
            let (json, _) = chunks(&out);
            assert!(
                !json.to_string().contains("meshopt"),
                "{file} {args:?}: {json}"
            );
            assert_eq!(
                json["buffers"].as_array().unwrap().len(),
                1,
                "{file} {args:?}"
            );
            let o = validate(d, &["out.glb"]);
            assert_eq!(
                o.status.code(),
                Some(0),
                "{file} {args:?}: {}",
                String::from_utf8_lossy(&o.stdout)
            );
        }
    }
}

/// Split cuts a meshopt-compressed figure (gltfpack `-cc`: filtered normals and
/// rotations) into parts written with plain views.
#[test]
fn split_writes_a_meshopt_file_plain() {
    // spec: R3
    let dir = Scratch::new("meshopt-split");
    let d = dir.path();
    std::fs::copy(
        repo().join("fixtures/compressed/rf_pack_cc.glb"),
        d.join("in.glb"),
    )
    .unwrap();
    let o = dash(
        d,
        &["split", "in.glb", "-o", "out.glb", "--max-joints", "8"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (json, _) = chunks(&std::fs::read(d.join("out.glb")).unwrap());
    assert!(json["meshes"].as_array().unwrap().len() > 1);
    assert!(!json.to_string().contains("meshopt"), "{json}");
    assert_eq!(json["buffers"].as_array().unwrap().len(), 1);
    let o = validate(d, &["out.glb"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

/// A meshopt stream that does not decode is refused by name in every command (the view
/// and why), and reported once by the validator at its fallback buffer.
#[test]
fn a_meshopt_stream_that_does_not_decode_is_refused_by_name() {
    // spec: R3
    let source = std::fs::read(repo().join("fixtures/compressed/rs_pack_c.glb")).unwrap();
    let (mut doc, bin) = chunks(&source);
    // one byte fewer in the stream of view 1: its tail is no longer where it must be
    let ext = &mut doc["bufferViews"][1]["extensions"]["EXT_meshopt_compression"];
    ext["byteLength"] = json!(ext["byteLength"].as_u64().unwrap() - 1);
    let dir = Scratch::new("meshopt-broken");
    let d = dir.path();
    std::fs::write(d.join("in.glb"), glb(&doc, &bin)).unwrap();
    let made = dash(
        d,
        &[
            "manifest",
            "init",
            &repo()
                .join("fixtures/corpus/gltf/khronos_samples/RiggedSimple.glb")
                .display()
                .to_string(),
            "-o",
            "m.json",
        ],
    );
    assert_eq!(made.status.code(), Some(0), "{}", stderr(&made));
    let before = snapshot(d);
    for args in [
        vec!["convert", "in.glb", "out.json"],
        vec!["reduce", "in.glb", "-o", "out.glb"],
        vec!["fix", "in.glb", "-o", "out.glb"],
        vec!["remap", "in.glb", "--manifest", "m.json", "-o", "out.glb"],
        vec!["split", "in.glb", "-o", "out.glb", "--max-joints", "1"],
    ] {
        let o = dash(d, &args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("/bufferViews/1/extensions/EXT_meshopt_compression"),
            "{args:?}: {err}"
        );
    }
    assert!(changes(&before, &snapshot(d)).is_empty());
    let o = validate(d, &["--format", "json", "in.glb"]);
    assert_eq!(o.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let found = report["files"][0]["diagnostics"].as_array().unwrap();
    let errors: Vec<&Value> = found.iter().filter(|f| f["severity"] == "error").collect();
    assert_eq!(errors.len(), 1, "{found:#?}");
    assert_eq!(errors[0]["code"], "GLTF_BUFFER");
    let message = errors[0]["message"].as_str().unwrap();
    assert!(
        message.contains("buffer view 1") && message.contains("EXT_meshopt_compression"),
        "{message}"
    );
}

/// A meshopt GLB large enough for the rewrite's sparse read (an image of 600 KB beside
/// the streams): remap splices what it carries from the input file, which must never
/// take the decoded data's place for bytes of the file.
#[test]
fn a_large_meshopt_glb_is_remapped_from_its_decoded_data() {
    // spec: R3
    let source = std::fs::read(repo().join("fixtures/compressed/rs_pack_c.glb")).unwrap();
    let (mut doc, mut bin) = chunks(&source);
    let at = bin.len();
    bin.extend((0..600_000u32).map(|i| (i * 7 % 251) as u8));
    doc["buffers"][0]["byteLength"] = json!(bin.len());
    let views = doc["bufferViews"].as_array_mut().unwrap();
    views.push(json!({"buffer": 0, "byteOffset": at, "byteLength": 600_000}));
    let image_view = views.len() - 1;
    doc["images"] = json!([{"bufferView": image_view, "mimeType": "image/png"}]);
    // and a view of 1.6 MB of zeros in 1,589 bytes (format v1, every lane "zero"), more
    // than the sparse rewrite splices from the file
    let stream_at = bin.len();
    bin.push(0xa1);
    bin.extend(std::iter::repeat_n(0xaa, 4 * 100_000usize.div_ceil(256)));
    bin.extend([0u8; 24]);
    let stream_len = bin.len() - stream_at;
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    doc["buffers"][0]["byteLength"] = json!(bin.len());
    let b = doc["buffers"].as_array().unwrap().len();
    doc["buffers"]
        .as_array_mut()
        .unwrap()
        .push(json!({"byteLength": 1_600_000}));
    doc["bufferViews"].as_array_mut().unwrap().push(json!({
        "buffer": b, "byteLength": 1_600_000, "byteStride": 16,
        "extensions": {"KHR_meshopt_compression": {
            "buffer": 0, "byteOffset": stream_at, "byteLength": stream_len,
            "byteStride": 16, "count": 100_000, "mode": "ATTRIBUTES"}}
    }));
    for key in ["extensionsUsed", "extensionsRequired"] {
        doc[key]
            .as_array_mut()
            .unwrap()
            .push(json!("KHR_meshopt_compression"));
    }
    let dir = Scratch::new("meshopt-large");
    let d = dir.path();
    std::fs::write(d.join("in.glb"), glb(&doc, &bin)).unwrap();
    let made = dash(d, &["manifest", "init", "in.glb", "-o", "m.json"]);
    assert_eq!(made.status.code(), Some(0), "{}", stderr(&made));
    let mut m: Value = serde_json::from_slice(&std::fs::read(d.join("m.json")).unwrap()).unwrap();
    let bones = m["bones"].as_array_mut().unwrap();
    bones.reverse();
    for (i, b) in bones.iter_mut().enumerate() {
        b["index"] = json!(i);
    }
    std::fs::write(d.join("m.json"), serde_json::to_vec(&m).unwrap()).unwrap();
    let o = dash(
        d,
        &["remap", "in.glb", "--manifest", "m.json", "-o", "out.glb"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = validate(d, &["out.glb"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    // The same positions as the input's, decoded.
    let limits = dashvertex_core::Limits::default();
    let input = dashvertex_gltf::load(
        &std::fs::read(d.join("in.glb")).unwrap(),
        &dashvertex_gltf::NoFiles,
        &limits,
    )
    .unwrap();
    let output = dashvertex_gltf::load(
        &std::fs::read(d.join("out.glb")).unwrap(),
        &dashvertex_gltf::NoFiles,
        &limits,
    )
    .unwrap();
    let position = |g: &dashvertex_gltf::Gltf| {
        let a = g.value["meshes"][0]["primitives"][0]["attributes"]["POSITION"]
            .as_u64()
            .unwrap();
        let d = dashvertex_gltf::accessor::read(g, a, &limits).unwrap();
        (0..d.count)
            .flat_map(|i| (0..3).map(move |c| (i, c)))
            .map(|(i, c)| d.get(i, c))
            .collect::<Vec<f64>>()
    };
    assert_eq!(position(&input), position(&output));
    let zeros = output
        .root
        .buffer_views
        .iter()
        .find(|v| v.byte_length == 1_600_000)
        .unwrap();
    let buf = output.buffer(zeros.buffer as usize).unwrap().unwrap();
    let at = zeros.byte_offset as usize;
    assert!(buf[at..at + 1_600_000].iter().all(|&x| x == 0));
}
