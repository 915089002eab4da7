//! `dashvertex reduce` and `remap` from a GLB file to a GLB read the file sparsely
//! (spec/security.md [V2]): the views only NORMAL, TEXCOORD and indices use (and for a
//! remap POSITION) are left unread and copied from the input by the writer. The bytes written are the ones a whole
//! read writes (standard input is always read whole), at any thread count; a fault in the
//! carried data passes through as it was; data the job reads is still checked.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use dashvertex_testkit::Scratch;
use dashvertex_testkit::shaped::ShapedGlb;

fn run(dir: &Path, args: &[&str], stdin: Option<&Path>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_dashvertex"));
    c.args(args).current_dir(dir);
    if let Some(p) = stdin {
        c.stdin(Stdio::from(std::fs::File::open(dir.join(p)).unwrap()));
    }
    c.output().unwrap()
}

fn ok(o: &Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{err}");
    err
}

/// Asserts that a run refused its input (exit 1).
fn refused(o: &Output) {
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A Blender-shaped GLB whose NORMAL, TEXCOORD_0 and index views are each over 64 KiB.
fn shaped() -> Vec<u8> {
    ShapedGlb {
        vertices: 30_000,
        joints: 48,
        keyframes: 0,
        blender: true,
    }
    .build()
    .unwrap()
    .0
}

/// Where accessor `name`'s first element is in a GLB (the binary chunk follows the JSON).
fn attribute_offset(glb: &[u8], name: &str) -> usize {
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let doc: serde_json::Value = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    let a = doc["meshes"][0]["primitives"][0]["attributes"][name]
        .as_u64()
        .unwrap() as usize;
    let acc = &doc["accessors"][a];
    let view = &doc["bufferViews"][acc["bufferView"].as_u64().unwrap() as usize];
    28 + json_len
        + view["byteOffset"].as_u64().unwrap_or(0) as usize
        + acc["byteOffset"].as_u64().unwrap_or(0) as usize
}

const REDUCE: [&str; 5] = ["--max-influences", "4", "--normalize", "unit", "-v"];

#[test]
fn a_sparse_read_writes_the_bytes_of_a_whole_read_at_any_thread_count() {
    // spec: V2
    let dir = Scratch::new("sparse-same");
    let d = dir.path();
    std::fs::write(d.join("in.glb"), shaped()).unwrap();
    fn with<'a>(extra: &[&'a str]) -> Vec<&'a str> {
        let mut v = extra.to_vec();
        v.extend(REDUCE);
        v
    }
    let whole = ok(&run(
        d,
        &with(&["reduce", "-", "-o", "whole.glb"]),
        Some(Path::new("in.glb")),
    ));
    assert!(!whole.contains("without being read"), "{whole}");
    for threads in ["1", "3"] {
        let out = format!("sparse{threads}.glb");
        let log = ok(&run(
            d,
            &with(&["reduce", "in.glb", "-o", &out, "--threads", threads]),
            None,
        ));
        assert!(log.contains("without being read"), "{log}");
        assert_eq!(
            std::fs::read(d.join(&out)).unwrap(),
            std::fs::read(d.join("whole.glb")).unwrap(),
            "{threads} thread(s)"
        );
    }
    let v = Command::new(env!("CARGO_BIN_EXE_dash-validate"))
        .arg(d.join("sparse1.glb"))
        .output()
        .unwrap();
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stdout));
    // A DashVertex output, or a report that skins the mesh, reads the file whole.
    let log = ok(&run(
        d,
        &with(&["reduce", "in.glb", "-o", "r.glb", "--report", "r.json"]),
        None,
    ));
    assert!(!log.contains("without being read"), "{log}");
    assert_eq!(
        std::fs::read(d.join("r.glb")).unwrap(),
        std::fs::read(d.join("whole.glb")).unwrap()
    );
}

#[test]
fn carried_faults_pass_through_and_read_faults_refuse() {
    // spec: V2
    let dir = Scratch::new("sparse-faults");
    let d = dir.path();
    let mut glb = shaped();
    // A NORMAL of length 2: an error in the carried data.
    let at = attribute_offset(&glb, "NORMAL");
    glb[at..at + 4].copy_from_slice(&2.0f32.to_le_bytes());
    glb[at + 4..at + 12].copy_from_slice(&[0; 8]);
    std::fs::write(d.join("normal.glb"), &glb).unwrap();
    let mut args = vec!["reduce", "normal.glb", "-o", "out.glb"];
    args.extend(REDUCE);
    ok(&run(d, &args, None));
    let input = std::fs::read(d.join("normal.glb")).unwrap();
    let out = std::fs::read(d.join("out.glb")).unwrap();
    let o = attribute_offset(&out, "NORMAL");
    assert_eq!(out[o..o + 12], input[at..at + 12], "carried byte for byte");
    // dash-validate finds it in the output as in the input.
    for f in ["normal.glb", "out.glb"] {
        let v = Command::new(env!("CARGO_BIN_EXE_dash-validate"))
            .arg(d.join(f))
            .output()
            .unwrap();
        assert_eq!(v.status.code(), Some(1), "{f}");
    }
    // Read whole (standard input), the same fault is carried too: it lies outside what
    // reduce reads (spec/validation.md [RW1]), and the run says so.
    let mut args = vec!["reduce", "-", "-o", "whole.glb"];
    args.extend(REDUCE);
    let o = run(d, &args, Some(Path::new("normal.glb")));
    let said = ok(&o);
    assert!(
        said.contains("GLTF_ATTRIBUTE_NON_UNIT") && said.contains("carried"),
        "{said}"
    );
    let whole = std::fs::read(d.join("whole.glb")).unwrap();
    let w = attribute_offset(&whole, "NORMAL");
    assert_eq!(
        whole[w..w + 12],
        input[at..at + 12],
        "carried byte for byte"
    );
    // A NaN in POSITION, which the reduction reads, refuses the sparse run too.
    let mut glb = shaped();
    let at = attribute_offset(&glb, "POSITION");
    glb[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    std::fs::write(d.join("nan.glb"), &glb).unwrap();
    let mut args = vec!["reduce", "nan.glb", "-o", "nan_out.glb"];
    args.extend(REDUCE);
    let o = run(d, &args, None);
    refused(&o);
    assert!(!d.join("nan_out.glb").exists());
}

#[test]
fn remap_reads_sparsely_and_fix_reads_whole() {
    // spec: V2
    let dir = Scratch::new("sparse-fix");
    let d = dir.path();
    std::fs::write(d.join("in.glb"), shaped()).unwrap();
    ok(&run(
        d,
        &["manifest", "init", "in.glb", "-o", "m.json"],
        None,
    ));
    // The manifest numbers the joints backwards: remap rewrites every JOINTS_n.
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("m.json")).unwrap()).unwrap();
    let bones = m["bones"].as_array_mut().unwrap();
    bones.reverse();
    for (i, b) in bones.iter_mut().enumerate() {
        b["index"] = serde_json::json!(i);
        b.as_object_mut().unwrap().remove("parent");
    }
    std::fs::write(d.join("m.json"), m.to_string()).unwrap();
    let jobs: [&[&str]; 1] = [&["remap", "--manifest", "m.json"]];
    for job in jobs {
        let mut whole = vec![job[0], "-", "-o", "whole.glb", "-v"];
        whole.extend(&job[1..]);
        let log = ok(&run(d, &whole, Some(Path::new("in.glb"))));
        assert!(!log.contains("without being read"), "{job:?}: {log}");
        for threads in ["1", "3"] {
            let mut sparse = vec![
                job[0],
                "in.glb",
                "-o",
                "sparse.glb",
                "-v",
                "--threads",
                threads,
            ];
            sparse.extend(&job[1..]);
            let log = ok(&run(d, &sparse, None));
            assert!(log.contains("without being read"), "{job:?}: {log}");
            assert_eq!(
                std::fs::read(d.join("sparse.glb")).unwrap(),
                std::fs::read(d.join("whole.glb")).unwrap(),
                "{job:?} at {threads} thread(s)"
            );
        }
    }
    // A remap reads no POSITION: a NaN there is carried as it was (dash-validate reports
    // it in the output as in the input), where a whole read refuses the file.
    let mut glb = shaped();
    let at = attribute_offset(&glb, "POSITION");
    glb[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    std::fs::write(d.join("nan.glb"), &glb).unwrap();
    let remap = ["--manifest", "m.json", "-v"];
    let mut args = vec!["remap", "nan.glb", "-o", "nan_out.glb"];
    args.extend(remap);
    let log = ok(&run(d, &args, None));
    assert!(log.contains("POSITION"), "{log}");
    let out = std::fs::read(d.join("nan_out.glb")).unwrap();
    let o = attribute_offset(&out, "POSITION");
    assert_eq!(out[o..o + 12], glb[at..at + 12], "carried byte for byte");
    for f in ["nan.glb", "nan_out.glb"] {
        let v = Command::new(env!("CARGO_BIN_EXE_dash-validate"))
            .arg(d.join(f))
            .output()
            .unwrap();
        assert_eq!(v.status.code(), Some(1), "{f}");
    }
    let mut args = vec!["remap", "-", "-o", "nan_whole.glb"];
    args.extend(remap);
    refused(&run(d, &args, Some(Path::new("nan.glb"))));
    assert!(!d.join("nan_whole.glb").exists());
    // fix reads the file whole (its output must pass every check: spec/fix.md [F3]); a
    // valid file is copied byte for byte.
    let log = ok(&run(d, &["fix", "in.glb", "-o", "copy.glb", "-v"], None));
    assert!(!log.contains("without being read"), "{log}");
    assert_eq!(
        std::fs::read(d.join("copy.glb")).unwrap(),
        std::fs::read(d.join("in.glb")).unwrap()
    );
}
