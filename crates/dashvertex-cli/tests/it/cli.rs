//! `dashvertex` end to end where a transcript is not enough: conversions through files and
//! pipes compared byte for byte, destinations left untouched on failure, exit codes.

use dashvertex_testkit::repo;

use std::path::PathBuf;
use std::process::{Command, Output};

fn dash(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dashvertex"))
        .current_dir(repo())
        .args(args)
        .output()
        .unwrap()
}

fn dash_stdin(args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_dashvertex"))
        .current_dir(repo())
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dash-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn json_to_binary_to_json_is_identical() {
    // spec: J10 B2
    let dmx = tmp("rig.dmx");
    let json = tmp("rig.json");
    let o = dash(&["convert", "examples/rig.json", dmx.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        std::fs::read(&dmx).unwrap(),
        std::fs::read(repo().join("examples/rig.dmx")).unwrap()
    );
    let o = dash(&["convert", dmx.to_str().unwrap(), json.to_str().unwrap()]);
    assert!(o.status.success());
    assert_eq!(
        std::fs::read_to_string(&json).unwrap(),
        std::fs::read_to_string(repo().join("examples/rig.json")).unwrap()
    );
}

#[test]
fn conversions_through_pipes() {
    let o = dash(&["convert", "examples/rig.json", "-", "--to", "dmx"]);
    assert!(o.status.success());
    let bin = o.stdout;
    // An array cannot carry the skeleton: asked for one, convert refuses and says why
    // (it used to write a document instead, silently).
    let o = dash_stdin(
        &["convert", "-", "-", "--to", "json", "--form", "array"],
        &bin,
    );
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--form array cannot hold the skeleton (3 bone(s)); use --form document"),
        "{err}"
    );
    assert!(o.stdout.is_empty());
    // Not asked for a shape, binary input becomes a document.
    let o = dash_stdin(&["convert", "-", "-", "--to", "json"], &bin);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.starts_with(
            "{\n  \"type\": \"DashModelExchange\",\n  \"material\": [],\n  \"vertex\""
        ),
        "{text}"
    );
    assert!(text.contains("\"bone\": ["));
    // Raw records: written and detected back.
    // Raw records hold no skeleton: it is dropped with a note, the records written.
    let o = dash_stdin(&["convert", "-", "-", "--to", "raw"], &bin);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("hold no skeleton"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!o.stdout.is_empty() && o.stdout.len().is_multiple_of(48));
    let o = dash(&[
        "convert",
        "spec/vectors/binary/valid-raw.raw",
        "-",
        "--to",
        "json",
    ]);
    assert!(o.status.success());
    let o2 = dash_stdin(&["convert", "-", "-", "--to", "raw"], &o.stdout);
    assert_eq!(
        o2.stdout,
        std::fs::read(repo().join("spec/vectors/binary/valid-raw.raw")).unwrap()
    );
}

#[test]
fn a_failed_conversion_leaves_the_destination_untouched() {
    let out = tmp("keep.dmx");
    std::fs::write(&out, b"previous content").unwrap();
    // The document has members the binary form cannot hold.
    let o = dash(&[
        "convert",
        "spec/vectors/json/document-full.json",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains(r#""texture", "material", "face", "animation", "x-tool""#)
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"previous content");
    // Invalid input.
    let o = dash(&[
        "convert",
        "spec/vectors/binary/invalid-overlap.dmx",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(std::fs::read(&out).unwrap(), b"previous content");
    // No temporary file is left behind.
    let leftovers: Vec<_> = std::fs::read_dir(out.parent().unwrap())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("dash-tmp"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn exit_codes() {
    assert_eq!(
        dash(&["convert", "no/such/file.json", "/tmp/x.json"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        dash(&["convert", "examples/rig.json", "out.unknown"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(dash(&["frobnicate"]).status.code(), Some(2));
    assert_eq!(
        dash(&["inspect", "spec/vectors/binary/invalid-stride.dmx"])
            .status
            .code(),
        Some(1)
    );
}

#[test]
fn reduce_reads_gltf_from_standard_input_and_writes_to_standard_output() {
    // glTF is told by its bytes on standard input; `-o -` needs --to.
    let glb = std::fs::read(repo().join("fixtures/blender/rig24_all.glb")).unwrap();
    let o = dash_stdin(
        &[
            "reduce",
            "-",
            "-o",
            "-",
            "--to",
            "glb",
            "--normalize",
            "unit",
            "-q",
        ],
        &glb,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stdout.starts_with(b"glTF"));
    let report = dashvertex_validate::validate_bytes(
        "out.glb",
        &o.stdout,
        &dashvertex_validate::Options::default(),
    );
    assert_eq!(report.counts.errors, 0, "{:?}", report.diagnostics);
    // A .gltf to standard output embeds its buffers (there is no folder for a .bin).
    let o = dash(&[
        "reduce",
        "fixtures/corpus/gltf/blenderio/03_skinned_cylinder/03_skinned_cylinder.gltf",
        "-o",
        "-",
        "--to",
        "gltf",
        "--normalize",
        "unit",
        "-q",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("data:application/octet-stream;base64,"));
    // Without --to, standard output has no format: a usage error.
    let o = dash(&[
        "reduce",
        "examples/arm.weights.json",
        "-o",
        "-",
        "--normalize",
        "unit",
    ]);
    assert_eq!(o.status.code(), Some(2));
}
