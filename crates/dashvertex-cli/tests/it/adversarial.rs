//! The `dashvertex` command against hostile inputs, at the level of the whole process: each run
//! is a child process under a 256 MiB address-space limit (`ulimit -v`), and must end
//! with exit 0, 1 or 2 within a time bound, touching no file but its named output.
//! One test per class of issue 10 (spec/security.md).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use dashvertex_testkit::repo;

/// A fresh folder for one test.
fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dash-adv-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `dashvertex` with `args` in `dir` under the 256 MiB address-space limit; fails the
/// test when it runs longer than `secs` or ends other than with 0, 1 or 2.
fn limited(dir: &Path, args: &[&str], secs: u64) -> Output {
    dashvertex_testkit::run_limited(Path::new(env!("CARGO_BIN_EXE_dashvertex")), dir, args, secs)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The files below `dir`, relative, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if std::fs::symlink_metadata(&p).unwrap().is_dir() {
                stack.push(p.clone());
            }
            out.push(p.strip_prefix(dir).unwrap().display().to_string());
        }
    }
    out.sort();
    out
}

/// The minimal valid glTF vector with its buffer moved out to `uri`; returns the bytes
/// the buffer held.
pub(crate) fn gltf_with_uri(path: &Path, uri: &str) -> Vec<u8> {
    let text =
        std::fs::read_to_string(repo().join("spec/vectors/gltf/valid-minimal.gltf")).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let data = doc["buffers"][0]["uri"].as_str().unwrap().to_owned();
    let b64 = data.split_once(',').unwrap().1;
    let bytes = base64::Engine::decode(&base64::engine::general_purpose::STANDARD, b64).unwrap();
    doc["buffers"][0]["uri"] = serde_json::Value::String(uri.to_owned());
    std::fs::write(path, serde_json::to_string(&doc).unwrap()).unwrap();
    bytes
}

#[test]
fn buffer_uris_that_leave_the_folder_are_refused_and_nothing_is_copied() {
    // spec: R1
    let d = scratch("contain");
    std::fs::create_dir_all(d.join("model")).unwrap();
    // The "secret" is the real buffer, so a run that read it would succeed.
    let bytes = gltf_with_uri(&d.join("model/probe.gltf"), "probe.bin");
    std::fs::write(d.join("secret.bin"), &bytes).unwrap();
    std::os::unix::fs::symlink("../secret.bin", d.join("model/link.bin")).unwrap();
    for (name, uri) in [
        ("dotdot.gltf", "../secret.bin"),
        ("percent.gltf", "%2e%2e/secret.bin"),
        ("link.gltf", "link.bin"),
        ("absolute.gltf", d.join("secret.bin").to_str().unwrap()),
        ("zero.gltf", "../../../../../../../../../../dev/zero"),
        (
            "environ.gltf",
            "../../../../../../../../../../proc/self/environ",
        ),
    ] {
        gltf_with_uri(&d.join("model").join(name), uri);
        let before = listing(&d);
        let o = limited(
            &d.join("model"),
            &["reduce", name, "-o", "out.gltf", "--normalize", "unit"],
            5,
        );
        assert_eq!(o.status.code(), Some(1), "{name}: {}", stderr(&o));
        assert_eq!(listing(&d), before, "{name}: no file may appear");
        assert!(
            !stderr(&o).contains("PATH="),
            "{name}: environment bytes leaked"
        );
    }
    // --resource-dir widens the root explicitly: the same file then reduces.
    let o = limited(
        &d.join("model"),
        &[
            "reduce",
            "dotdot.gltf",
            "-o",
            "out.gltf",
            "--normalize",
            "unit",
            "--resource-dir",
            "..",
        ],
        5,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_fifo_named_by_a_buffer_uri_does_not_hang() {
    let d = scratch("fifo");
    if !Command::new("mkfifo")
        .arg(d.join("pipe.bin"))
        .status()
        .is_ok_and(|s| s.success())
    {
        eprintln!("SKIPPED: mkfifo is not available");
        return;
    }
    gltf_with_uri(&d.join("m.gltf"), "pipe.bin");
    let o = limited(&d, &["reduce", "m.gltf", "-o", "out.gltf"], 5);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("FIFO"), "{}", stderr(&o));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn outputs_respect_what_is_there() {
    // spec: W1
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    let d = scratch("outputs");
    let rig = repo().join("examples/rig.json");
    let rig = rig.to_str().unwrap();
    // A device stays a device.
    let o = limited(&d, &["convert", rig, "/dev/null", "--to", "dmx"], 5);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );
    // The mode of a replaced file is kept; a symlink is written through.
    std::fs::write(d.join("private.dmx"), b"old").unwrap();
    std::fs::set_permissions(
        d.join("private.dmx"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    std::os::unix::fs::symlink("private.dmx", d.join("link.dmx")).unwrap();
    let o = limited(&d, &["convert", rig, "link.dmx"], 5);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        std::fs::symlink_metadata(d.join("link.dmx"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let meta = std::fs::metadata(d.join("private.dmx")).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert!(
        std::fs::read(d.join("private.dmx"))
            .unwrap()
            .starts_with(b"DMX\0")
    );
    assert_eq!(
        listing(&d),
        ["link.dmx", "private.dmx"],
        "no temporary file stays"
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn tiny_inputs_cannot_drive_huge_work() {
    // spec: L1
    let d = scratch("bombs");
    let vertex = |bone: u64| {
        format!(
            r#"[{{"x": 0, "y": 0, "z": 0, "skinIndex": [{bone}, 0, 0, 0], "skinWeight": [1, 0, 0, 0]}}]"#
        )
    };
    for bone in [4_294_967_295u64, 100_000_000, 1_000_000] {
        std::fs::write(d.join("v.json"), vertex(bone)).unwrap();
        let o = limited(&d, &["reduce", "v.json", "-o", "out.json"], 2);
        assert_eq!(o.status.code(), Some(0), "bone {bone}: {}", stderr(&o));
        let out = std::fs::read_to_string(d.join("out.json")).unwrap();
        assert!(
            out.contains(&bone.to_string()),
            "the file's index is kept: {out}"
        );
    }
    std::fs::write(
        d.join("w.json"),
        r#"{"type":"DashBoneWeights","vertexCount":134217728,"bones":[]}"#,
    )
    .unwrap();
    let o = limited(&d, &["reduce", "w.json", "-o", "out.json"], 2);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("/vertexCount"), "{}", stderr(&o));
    let o = limited(
        &d,
        &[
            "reduce",
            "v.json",
            "-o",
            "out.json",
            "--max-influences",
            "99999999999",
        ],
        2,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = limited(
        &d,
        &["reduce", "v.json", "-o", "out.json", "--max-bones", "0"],
        2,
    );
    assert_eq!(
        o.status.code(),
        Some(1),
        "--max-bones applies: {}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&d).unwrap();
}

/// A weights document with `n` bones in one chain, each weighting the one vertex.
fn chain_weights(n: usize) -> String {
    let mut s = String::from(r#"{"type":"DashBoneWeights","vertexCount":1,"bones":["#);
    for i in 0..n {
        if i > 0 {
            s.push(',');
            s.push_str(&format!(
                r#"{{"name":"b{i}","parent":"b{}","weights":[0.001]}}"#,
                i - 1
            ));
        } else {
            s.push_str(r#"{"name":"b0","weights":[0.5]}"#);
        }
    }
    s.push_str("]}");
    s
}

#[test]
fn wide_and_deep_skeletons_take_linear_work() {
    let d = scratch("wide");
    std::fs::write(d.join("w.json"), chain_weights(100_000)).unwrap();
    let o = limited(&d, &["manifest", "init", "w.json", "-o", "m.json"], 10);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // A glTF whose single skin's joints are a chain 20,000 nodes deep (the walks were
    // quadratic in depth per joint: 8e12 steps; now linear). Memory: the glTF reader
    // holds the document three times (issue 11), hence not deeper under 256 MiB.
    let n = 20_000usize;
    let bytes =
        std::fs::read_to_string(repo().join("spec/vectors/gltf/valid-minimal.gltf")).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&bytes).unwrap();
    let mut nodes = vec![serde_json::json!({"mesh": 0, "skin": 0})];
    for i in 1..=n {
        let mut node = serde_json::json!({ "name": format!("j{i}") });
        if i < n {
            node["children"] = serde_json::json!([i + 1]);
        }
        nodes.push(node);
    }
    doc["nodes"] = serde_json::Value::Array(nodes);
    doc["scenes"] = serde_json::json!([{"nodes": [0, 1]}]);
    doc["skins"][0]["joints"] = serde_json::json!((1..=n).collect::<Vec<_>>());
    doc["skins"][0]
        .as_object_mut()
        .unwrap()
        .remove("inverseBindMatrices");
    std::fs::write(d.join("deep.gltf"), serde_json::to_string(&doc).unwrap()).unwrap();
    let o = limited(
        &d,
        &["manifest", "init", "deep.gltf", "-o", "deep.json"],
        10,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::remove_dir_all(&d).unwrap();
}

/// A glTF with one vertex and `bones` per-bone attributes (Blender's `_NAME`, no skin),
/// each naming a node; the bone nodes hang, side by side, at the bottom of a chain of
/// `depth` nodes that are no bones (every bone's rest pose folds the whole chain).
fn per_bone_tree(depth: usize, bones: usize) -> String {
    use base64::Engine as _;
    let mut bin = Vec::new();
    for x in [0.0f32, 0.0, 0.0, 0.5] {
        bin.extend_from_slice(&x.to_le_bytes());
    }
    let mut nodes = vec![serde_json::json!({"mesh": 0, "name": "Body"})];
    for i in 0..depth {
        let mut node = serde_json::json!({"name": format!("chain{i}"), "translation": [0, 1, 0]});
        node["children"] = if i + 1 < depth {
            serde_json::json!([i + 2])
        } else {
            serde_json::json!((depth + 1..=depth + bones).collect::<Vec<_>>())
        };
        nodes.push(node);
    }
    let mut attributes = serde_json::Map::new();
    attributes.insert("POSITION".into(), serde_json::json!(0));
    let mut accessors = vec![serde_json::json!({"bufferView": 0, "componentType": 5126,
        "count": 1, "type": "VEC3", "min": [0, 0, 0], "max": [0, 0, 0]})];
    for b in 0..bones {
        nodes.push(serde_json::json!({"name": format!("bone{b}"), "translation": [1, 0, 0]}));
        accessors.push(
            serde_json::json!({"bufferView": 1, "componentType": 5126, "count": 1,
            "type": "SCALAR"}),
        );
        attributes.insert(format!("_BONE{b}"), serde_json::json!(b + 1));
    }
    serde_json::json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": nodes,
        "meshes": [{"primitives": [{"attributes": attributes, "mode": 0}]}],
        "accessors": accessors,
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 12},
            // Every bone's attribute reads this one weight: a stride makes the sharing
            // valid (MESH_PRIMITIVE_ACCESSOR_WITHOUT_BYTESTRIDE).
            {"buffer": 0, "byteOffset": 12, "byteLength": 4, "byteStride": 4}
        ],
        "buffers": [{"byteLength": 16, "uri": format!("data:application/octet-stream;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&bin))}],
    })
    .to_string()
}

/// Per-bone attributes matched to nodes (spec/reduction.md R5.1, R5.2): a 20,000-node chain
/// above 2,000 sibling bones takes linear work (each bone's fold of the chain, its global
/// matrix for the new skin, and the name match are computed once per node), to DashVertex
/// and to GLB with a new skin. One thread: the document alone takes 43 MB resident here
/// (the glTF reader holds it three times, issue 11), and a second thread's allocator arena
/// reserves 64 MiB of the 256 MiB address space, whatever the input.
#[test]
fn per_bone_attributes_on_deep_node_trees_take_linear_work() {
    let d = scratch("perbone");
    std::fs::write(d.join("deep.gltf"), per_bone_tree(20_000, 2_000)).unwrap();
    let o = limited(
        &d,
        &[
            "reduce",
            "deep.gltf",
            "-o",
            "deep.json",
            "--manifest",
            "m.json",
            "--threads",
            "1",
        ],
        10,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = std::fs::read_to_string(d.join("deep.json")).unwrap();
    // bone0 folds the 20,000 chain translations and its own: model position (1, 20000, 0).
    assert!(
        out.contains(
            r#"{"name": "bone0", "parentIndex": null, "position": {"x": 1, "y": 20000, "z": 0}"#
        ),
        "{}",
        &out[out.find("\"bone\"").unwrap_or(0)..][..300.min(out.len())]
    );
    let o = limited(
        &d,
        &[
            "reduce",
            "deep.gltf",
            "-o",
            "deep.glb",
            "--normalize",
            "unit",
            "--threads",
            "1",
        ],
        10,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn concurrent_runs_keep_every_manifest_entry() {
    // spec: W2
    let d = scratch("concurrent");
    let runs = 8;
    for i in 0..runs {
        std::fs::write(
            d.join(format!("w{i}.json")),
            format!(
                r#"{{"type":"DashBoneWeights","vertexCount":1,"bones":[{{"name":"root","weights":[0.5]}},{{"name":"bone{i}","parent":"root","weights":[0.5]}}]}}"#
            ),
        )
        .unwrap();
    }
    let children: Vec<_> = (0..runs)
        .map(|i| {
            Command::new(env!("CARGO_BIN_EXE_dashvertex"))
                .args([
                    "reduce",
                    &format!("w{i}.json"),
                    "-o",
                    &format!("out{i}.json"),
                    "--manifest",
                    "m.json",
                    "-q",
                ])
                .current_dir(&d)
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    assert!(
        !d.join(".m.json.lock").exists(),
        "the lock file is left behind"
    );
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("m.json")).unwrap()).unwrap();
    let index = |name: &str| {
        m["bones"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["name"] == name)
            .map(|b| b["index"].as_u64().unwrap())
            .unwrap_or_else(|| panic!("{name} lost from the manifest: {m}"))
    };
    assert_eq!(m["bones"].as_array().unwrap().len(), runs + 1);
    for i in 0..runs {
        let out: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.join(format!("out{i}.json"))).unwrap())
                .unwrap();
        let used = out["vertex"][0]["skinIndex"].as_array().unwrap().clone();
        assert!(
            used.contains(&serde_json::json!(index(&format!("bone{i}")))),
            "run {i}: its output's index for bone{i} is not the manifest's: {used:?}"
        );
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn reduce_refuses_what_its_validator_would_reject() {
    // spec: V1
    let d = scratch("verify");
    std::fs::write(
        d.join("heavy.json"),
        r#"[{"x": 0, "y": 0, "z": 0, "skinIndex": [0, 1, 0, 0], "skinWeight": [2.5, 3.4e38, 0, 0]}]"#,
    )
    .unwrap();
    let o = limited(&d, &["reduce", "heavy.json", "-o", "out.json"], 2);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    // The reducer refuses before writing, naming the vertex, the bone and the weight.
    assert!(
        stderr(&o).contains("vertex 0: weight 3.4e38 of bone \"#1\" (index 1) is above 1"),
        "{}",
        stderr(&o)
    );
    assert!(!d.join("out.json").exists());
    let o = limited(
        &d,
        &[
            "reduce",
            "heavy.json",
            "-o",
            "out.json",
            "--normalize",
            "unit",
        ],
        2,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Two roots in a weights document: DashVertex has one root, so the second becomes a
    // child of bone 0 (spec/reduction.md R5.4) and the output is written, valid.
    std::fs::write(
        d.join("roots.json"),
        r#"{"type":"DashBoneWeights","vertexCount":1,"bones":[{"name":"a","weights":[0.5]},{"name":"b","weights":[0.5]}]}"#,
    )
    .unwrap();
    let o = limited(
        &d,
        &[
            "reduce",
            "roots.json",
            "-o",
            "r.json",
            "--manifest",
            "m.json",
        ],
        2,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = std::fs::read_to_string(d.join("r.json")).unwrap();
    assert!(
        out.contains(r#"{"name": "a", "parentIndex": null"#)
            && out.contains(r#"{"name": "b", "parentIndex": 0"#),
        "{out}"
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn empty_input_is_an_error() {
    let d = scratch("empty");
    std::fs::write(d.join("e.raw"), b"").unwrap();
    let o = limited(&d, &["inspect", "e.raw"], 2);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("empty"), "{}", stderr(&o));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn messages_say_what_is_wrong_and_where() {
    let d = scratch("messages");
    let rig = repo().join("examples/rig.json");
    let rig = rig.to_str().unwrap();
    // --form is honoured or refused, never silently replaced.
    let o = limited(&d, &["convert", rig, "a.json", "--form", "array"], 5);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--form array cannot hold the skeleton"));
    let o = limited(&d, &["convert", rig, "a.dmx", "--form", "vertex"], 5);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--form sets the shape of JSON output"));
    std::fs::write(
        d.join("two.json"),
        r#"[{"x": 0, "y": 0, "z": 0}, {"x": 1, "y": 0, "z": 0}]"#,
    )
    .unwrap();
    let o = limited(
        &d,
        &["convert", "two.json", "v.json", "--form", "vertex"],
        5,
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("holds exactly one vertex, the input has 2"));
    let o = limited(
        &d,
        &["convert", "two.json", "doc.json", "--form", "document"],
        5,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        std::fs::read_to_string(d.join("doc.json"))
            .unwrap()
            .contains("DashModelExchange")
    );
    // At least one influence set: every vertex has its first.
    let o = limited(&d, &["--max-sets", "0", "inspect", rig], 5);
    assert_eq!(o.status.code(), Some(2));
    // A weights document of the wrong type is told both types reduce reads.
    std::fs::write(
        d.join("w.json"),
        r#"{"type": "Weights", "vertexCount": 1, "bones": []}"#,
    )
    .unwrap();
    let o = limited(&d, &["reduce", "w.json", "-o", "r.json"], 5);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("1:10: type is \"Weights\""), "{e}");
    assert!(
        e.contains("\"DashModelExchange\"") && e.contains("\"DashBoneWeights\""),
        "{e}"
    );
    // A VERT offset past the end is reported at the VERT row, not as a broken later row.
    let mut dmx = std::fs::read(repo().join("examples/rig.dmx")).unwrap();
    dmx[0x38..0x3C].copy_from_slice(&0x10000u32.to_le_bytes());
    std::fs::write(d.join("past.dmx"), &dmx).unwrap();
    let o = limited(&d, &["inspect", "past.dmx"], 5);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("offset 0x38: section VERT ends at byte 65920, beyond the end"),
        "{e}"
    );
    // A byte order mark is named.
    std::fs::write(
        d.join("bom.json"),
        b"\xef\xbb\xbf[{\"x\": 0, \"y\": 0, \"z\": 0}]",
    )
    .unwrap();
    let o = limited(&d, &["convert", "bom.json", "b.dmx"], 5);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("byte order mark"), "{}", stderr(&o));
    // A 1 MB member name is quoted as a short prefix.
    let name = "N".repeat(1 << 20);
    std::fs::write(
        d.join("long.json"),
        format!(r#"[{{"x": 0, "y": 0, "z": 0, "{name}": 1}}]"#),
    )
    .unwrap();
    let o = limited(&d, &["convert", "long.json", "l.dmx"], 5);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stderr.len() < 1000, "{} bytes of message", o.stderr.len());
    assert!(stderr(&o).contains("(1048576 bytes)"), "{}", stderr(&o));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn contents_win_over_a_contradicting_name() {
    // A DMX container named .json used to fail with "invalid UTF-8 at byte 60".
    let d = scratch("named");
    std::fs::copy(repo().join("examples/rig.dmx"), d.join("rig.json")).unwrap();
    let o = limited(&d, &["convert", "rig.json", "out.json"], 5);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("is named as DashVertex JSON but holds a DMX container"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read_to_string(d.join("out.json")).unwrap(),
        std::fs::read_to_string(repo().join("examples/rig.json")).unwrap()
    );
    std::fs::remove_dir_all(&d).unwrap();
}
