//! Resources follow the output (spec/security.md [R4]): a textured skinned `.gltf` with a
//! PNG beside it, written by every command to a `.glb` or `.gltf` in another folder, keeps
//! its image (embedded, copied or referenced); a missing image is a warning; an image that
//! leaves the input's folder, a FIFO or a huge file is never read. Each command runs as a
//! child under the 256 MiB limit (`dashvertex_testkit::run_limited`).

use std::path::Path;
use std::process::Output;

use dashvertex_testkit::{Scratch, run_limited};

fn dash(dir: &Path, args: &[&str]) -> Output {
    run_limited(Path::new(env!("CARGO_BIN_EXE_dashvertex")), dir, args, 60)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[track_caller]
fn ok(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(0), "{}", stderr(o));
    stderr(o)
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut c = 0xFFFF_FFFFu32;
    for &b in bytes {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 == 1 {
                (c >> 1) ^ 0xEDB8_8320
            } else {
                c >> 1
            };
        }
    }
    !c
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let mut body = kind.to_vec();
    body.extend_from_slice(data);
    out.extend_from_slice(&body);
    out.extend_from_slice(&crc32(&body).to_be_bytes());
}

/// A valid 1×1 RGBA PNG of colour `rgba`, with `text` in a tEXt chunk (to find its bytes).
fn png(rgba: [u8; 4], text: &str) -> Vec<u8> {
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    chunk(&mut out, b"IHDR", &[0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0]);
    let mut t = b"Comment\0".to_vec();
    t.extend_from_slice(text.as_bytes());
    chunk(&mut out, b"tEXt", &t);
    let raw = [0, rgba[0], rgba[1], rgba[2], rgba[3]];
    let (mut a, mut b) = (1u32, 0u32);
    for &x in &raw {
        a = (a + u32::from(x)) % 65521;
        b = (b + a) % 65521;
    }
    // zlib: one stored block.
    let mut z = vec![0x78, 0x01, 0x01, 5, 0, 0xFA, 0xFF];
    z.extend_from_slice(&raw);
    z.extend_from_slice(&((b << 16) | a).to_be_bytes());
    chunk(&mut out, b"IDAT", &z);
    chunk(&mut out, b"IEND", &[]);
    out
}

/// The chunks of a GLB: JSON and binary.
fn glb_parts(glb: &[u8]) -> (serde_json::Value, Vec<u8>) {
    let jl = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let json = serde_json::from_slice(&glb[20..20 + jl]).unwrap();
    let bin = if glb.len() > 20 + jl {
        let bl = u32::from_le_bytes(glb[20 + jl..24 + jl].try_into().unwrap()) as usize;
        glb[28 + jl..28 + jl + bl].to_vec()
    } else {
        Vec::new()
    };
    (json, bin)
}

/// Writes `in/hand.gltf` (a skinned mesh with TEXCOORD_0 and a material whose base
/// colour texture is `images`' first) and `in/hand.bin` into `dir`.
fn textured(dir: &Path, images: &[&str]) {
    let glb = dashvertex_testkit::gltf::SkinnedGlb {
        vertices: 300,
        primitives: 1,
        sets: 2,
        joints: 12,
        ..Default::default()
    }
    .build();
    let (mut doc, mut bin) = glb_parts(&glb);
    let n = 300;
    let at = bin.len();
    bin.extend(std::iter::repeat_n(0u8, n * 8));
    let views = doc["bufferViews"].as_array_mut().unwrap();
    views.push(serde_json::json!({"buffer": 0, "byteOffset": at, "byteLength": n * 8}));
    let view = views.len() - 1;
    let accessors = doc["accessors"].as_array_mut().unwrap();
    accessors.push(
        serde_json::json!({"bufferView": view, "componentType": 5126, "count": n, "type": "VEC2"}),
    );
    let uv = accessors.len() - 1;
    let prim = &mut doc["meshes"][0]["primitives"][0];
    prim["attributes"]["TEXCOORD_0"] = uv.into();
    prim["material"] = 0.into();
    doc["materials"] =
        serde_json::json!([{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]);
    doc["textures"] = (0..images.len())
        .map(|i| serde_json::json!({"source": i}))
        .collect();
    doc["images"] = images
        .iter()
        .map(|u| serde_json::json!({"uri": u}))
        .collect();
    doc["buffers"] = serde_json::json!([{"byteLength": bin.len(), "uri": "hand.bin"}]);
    std::fs::create_dir_all(dir.join("in")).unwrap();
    std::fs::create_dir_all(dir.join("out")).unwrap();
    std::fs::write(
        dir.join("in/hand.gltf"),
        serde_json::to_vec_pretty(&doc).unwrap(),
    )
    .unwrap();
    std::fs::write(dir.join("in/hand.bin"), &bin).unwrap();
}

const HAND: &str = "hand-texture-bytes";

fn setup(dir: &Path) -> Vec<u8> {
    textured(dir, &["hand.png"]);
    let img = png([200, 150, 100, 255], HAND);
    std::fs::write(dir.join("in/hand.png"), &img).unwrap();
    img
}

/// Every path below `dir` (not following links), relative, without reading a file.
fn names(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if std::fs::symlink_metadata(&p).unwrap().is_dir() {
                stack.push(p.clone());
            }
            out.push(p.strip_prefix(dir).unwrap().display().to_string());
        }
    }
    out
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// The oracle's `(code, pointer)` errors and IO_ERRORs of `file`, when it ran.
fn oracle(file: &Path) -> Option<(Vec<(String, String)>, usize)> {
    let lines = dashvertex_testkit::oracle::oracle(&[file.to_path_buf()])?;
    let line = lines.first()?;
    let errors = dashvertex_testkit::oracle::messages(line, 0);
    let io = errors.iter().filter(|(c, _)| c == "IO_ERROR").count();
    Some((errors, io))
}

/// Every writing command, from `in/hand.gltf` to `out` (a manifest for remap made first).
fn commands(dir: &Path, out: &str) -> Vec<Vec<String>> {
    ok(&dash(
        dir,
        &["manifest", "init", "in/hand.gltf", "-o", "m.json", "-q"],
    ));
    let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
    vec![
        s(&["reduce", "in/hand.gltf", "-o", out, "--max-influences", "2"]),
        s(&["split", "in/hand.gltf", "-o", out, "--max-joints", "64"]),
        s(&["fix", "in/hand.gltf", "-o", out]),
        s(&["remap", "in/hand.gltf", "--manifest", "m.json", "-o", out]),
        s(&["convert", "in/hand.gltf", out]),
    ]
}

fn run(dir: &Path, args: &[String]) -> Output {
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    dash(dir, &a)
}

// spec: R4
#[test]
fn a_glb_in_another_folder_embeds_the_image() {
    let t = Scratch::new("res-glb");
    let img = setup(t.path());
    let input_errors = oracle(&t.path().join("in/hand.gltf"));
    if let Some((_, io)) = &input_errors {
        assert_eq!(*io, 0, "the input is whole in its folder");
    }
    for args in commands(t.path(), "out/x.glb") {
        let _ = std::fs::remove_file(t.path().join("out/x.glb"));
        let err = ok(&run(t.path(), &args));
        assert!(!err.contains("warning"), "{args:?}: {err}");
        let glb = std::fs::read(t.path().join("out/x.glb")).unwrap();
        assert!(contains(&glb, &img), "{args:?}: the PNG is inside the GLB");
        let (json, bin) = glb_parts(&glb);
        let image = &json["images"][0];
        assert!(image.get("uri").is_none(), "{args:?}: {image}");
        assert_eq!(image["mimeType"], "image/png", "{args:?}");
        let view = &json["bufferViews"][image["bufferView"].as_u64().unwrap() as usize];
        let (o, l) = (
            view["byteOffset"].as_u64().unwrap() as usize,
            view["byteLength"].as_u64().unwrap() as usize,
        );
        assert_eq!(&bin[o..o + l], &img[..], "{args:?}");
        assert_eq!(
            std::fs::read_dir(t.path().join("out")).unwrap().count(),
            1,
            "{args:?}: nothing but the GLB is written"
        );
        if let (Some((errors, io)), Some((before, _))) =
            (oracle(&t.path().join("out/x.glb")), &input_errors)
        {
            assert_eq!(io, 0, "{args:?}: {errors:?}");
            assert!(
                errors.len() <= before.len(),
                "{args:?}: {errors:?} (the input has {before:?})"
            );
        }
    }
}

// spec: R4
#[test]
fn a_gltf_in_another_folder_gets_the_image_beside_it() {
    let t = Scratch::new("res-copy");
    let img = setup(t.path());
    for args in commands(t.path(), "out/x.gltf") {
        for f in ["x.gltf", "x.bin", "hand.png"] {
            let _ = std::fs::remove_file(t.path().join("out").join(f));
        }
        let err = ok(&run(t.path(), &args));
        assert!(!err.contains("warning"), "{args:?}: {err}");
        assert_eq!(
            std::fs::read(t.path().join("out/hand.png")).unwrap(),
            img,
            "{args:?}"
        );
        let doc: serde_json::Value =
            serde_json::from_slice(&std::fs::read(t.path().join("out/x.gltf")).unwrap()).unwrap();
        assert_eq!(doc["images"][0]["uri"], "hand.png", "{args:?}");
        if let Some((errors, io)) = oracle(&t.path().join("out/x.gltf")) {
            assert_eq!(io, 0, "{args:?}: {errors:?}");
        }
    }
    // In the input's folder nothing is copied or changed.
    ok(&dash(
        t.path(),
        &[
            "reduce",
            "in/hand.gltf",
            "-o",
            "in/y.gltf",
            "--max-influences",
            "2",
        ],
    ));
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(t.path().join("in/y.gltf")).unwrap()).unwrap();
    assert_eq!(doc["images"][0]["uri"], "hand.png");
}

// spec: R4
#[test]
fn copies_keep_their_folders_and_references_reach_the_originals() {
    let t = Scratch::new("res-ref");
    textured(t.path(), &["tex/my%20hand.png"]);
    let img = png([1, 2, 3, 255], HAND);
    std::fs::create_dir_all(t.path().join("in/tex")).unwrap();
    std::fs::write(t.path().join("in/tex/my hand.png"), &img).unwrap();
    // copy: the folder is made under the output's.
    ok(&dash(t.path(), &["convert", "in/hand.gltf", "out/c.gltf"]));
    assert_eq!(
        std::fs::read(t.path().join("out/tex/my hand.png")).unwrap(),
        img
    );
    // reference: the URI reaches the original from the output's folder.
    std::fs::create_dir_all(t.path().join("out/deep")).unwrap();
    let err = ok(&dash(
        t.path(),
        &[
            "reduce",
            "in/hand.gltf",
            "-o",
            "out/deep/r.gltf",
            "--max-influences",
            "2",
            "--resources",
            "reference",
        ],
    ));
    assert!(!err.contains("warning"), "{err}");
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(t.path().join("out/deep/r.gltf")).unwrap()).unwrap();
    assert_eq!(doc["images"][0]["uri"], "../../in/tex/my%20hand.png");
    assert!(!t.path().join("out/deep/tex").exists(), "nothing copied");
    if let Some((errors, io)) = oracle(&t.path().join("out/deep/r.gltf")) {
        assert_eq!(io, 0, "{errors:?}");
    }
    // embed into a .gltf: a data URI.
    ok(&dash(
        t.path(),
        &[
            "convert",
            "in/hand.gltf",
            "out/e.gltf",
            "--resources",
            "embed",
        ],
    ));
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(t.path().join("out/e.gltf")).unwrap()).unwrap();
    assert!(
        doc["images"][0]["uri"]
            .as_str()
            .unwrap()
            .starts_with("data:image/png;base64,")
    );
}

// spec: R4
#[test]
fn a_missing_image_is_a_warning_naming_it() {
    let t = Scratch::new("res-missing");
    textured(t.path(), &["gone.png"]);
    for out in ["out/x.glb", "out/x.gltf"] {
        let err = ok(&dash(
            t.path(),
            &["reduce", "in/hand.gltf", "-o", out, "--max-influences", "2"],
        ));
        assert!(
            err.contains("warning") && err.contains("gone.png") && err.contains("/images/0/uri"),
            "{out}: {err}"
        );
    }
    let (json, _) = glb_parts(&std::fs::read(t.path().join("out/x.glb")).unwrap());
    assert_eq!(
        json["images"][0]["uri"], "gone.png",
        "the reference is kept"
    );
}

// spec: R4
#[test]
fn hostile_images_are_never_read_or_copied() {
    let t = Scratch::new("res-hostile");
    let secret = png([9, 9, 9, 255], "SECRET-OUTSIDE-BYTES");
    std::fs::write(t.path().join("secret.png"), &secret).unwrap();
    let absolute = t.path().join("secret.png");
    let absolute = absolute.to_str().unwrap();
    textured(
        t.path(),
        &[
            "../secret.png",
            absolute,
            "link.png",
            "fifo.png",
            "huge.png",
        ],
    );
    #[cfg(unix)]
    std::os::unix::fs::symlink("../secret.png", t.path().join("in/link.png")).unwrap();
    let fifo = t.path().join("in/fifo.png");
    let made_fifo = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    // A sparse file far larger than the memory limit.
    std::fs::File::create(t.path().join("in/huge.png"))
        .unwrap()
        .set_len(3 << 30)
        .unwrap();
    let before = names(t.path());
    for (out, extra) in [
        ("out/x.glb", None),
        ("out/x.gltf", None),
        ("out/y.glb", Some("1000000")),
        ("out/z.gltf", Some("1000000")),
    ] {
        let mut args = vec!["reduce", "in/hand.gltf", "-o", out, "--max-influences", "2"];
        if let Some(m) = extra {
            args.extend(["--max-input-bytes", m]);
        }
        let err = ok(&dash(t.path(), &args));
        for (i, name) in ["../secret.png", absolute, "link.png", "huge.png"]
            .iter()
            .enumerate()
        {
            assert!(
                err.contains(&format!("image {i} ")) && err.contains(name),
                "{out}: image {i} {name} not named: {err}"
            );
        }
        if made_fifo {
            assert!(
                err.contains("fifo.png") && err.contains("FIFO"),
                "{out}: {err}"
            );
        }
        let written = std::fs::read(t.path().join(out)).unwrap();
        assert!(!contains(&written, b"SECRET-OUTSIDE-BYTES"), "{out}");
    }
    // Nothing but the outputs (and their buffer files) was written: no copy anywhere.
    let after = names(t.path());
    let new: Vec<&String> = after.iter().filter(|k| !before.contains(*k)).collect();
    for k in &new {
        assert!(
            [".glb", ".gltf", ".bin"].iter().any(|e| k.ends_with(e)) && k.starts_with("out/"),
            "unexpected file {k} (new: {new:?})"
        );
    }
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(t.path().join("out/x.gltf")).unwrap()).unwrap();
    assert_eq!(
        doc["images"][0]["uri"], "../secret.png",
        "the reference is kept"
    );
}

// spec: R4
#[test]
fn a_copy_never_overwrites_an_input_or_another_output() {
    let t = Scratch::new("res-alias");
    // The image is named like the output's buffer file.
    textured(t.path(), &["x.bin"]);
    std::fs::write(t.path().join("in/x.bin"), png([5, 5, 5, 255], HAND)).unwrap();
    let o = dash(
        t.path(),
        &[
            "reduce",
            "in/hand.gltf",
            "-o",
            "out/x.gltf",
            "--max-influences",
            "2",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!t.path().join("out/x.gltf").exists());
}
