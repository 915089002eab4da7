//! Hostile meshopt-compressed files (spec/security.md [R3], [L2]) through every command,
//! each in a child process under the 256 MiB address-space limit: views that declare
//! 10^6 to 2^40 elements of up to 256 bytes over a stream of a few bytes, 64 views
//! sharing one stream that decodes 1024× its size, fallback buffers that declare 2^50
//! bytes. Every run ends with exit 0 or 1 (never a crash, never the limit), changes no
//! file when it fails, and a refusal names the view's extension pointer.

use std::path::Path;

use dashvertex_testkit::{Scratch, changes, repo, run_limited, snapshot};
use serde_json::{Value, json};

fn dash(dir: &Path, args: &[&str]) -> std::process::Output {
    run_limited(Path::new(env!("CARGO_BIN_EXE_dashvertex")), dir, args, 60)
}

fn validate(dir: &Path, args: &[&str]) -> std::process::Output {
    run_limited(
        Path::new(env!("CARGO_BIN_EXE_dash-validate")),
        dir,
        args,
        60,
    )
}

/// The JSON and binary chunks of a GLB.
fn chunks(glb: &[u8]) -> (Value, Vec<u8>) {
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let json: Value = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    let rest = &glb[20 + json_len..];
    let n = u32::from_le_bytes(rest[0..4].try_into().unwrap()) as usize;
    (json, rest[8..8 + n].to_vec())
}

/// A version 1 attribute stream of `count` elements of 16 bytes, every byte lane
/// "all deltas zero": 4 control bytes per 256 elements, 1024 output bytes per stream
/// byte, the most the format allows.
fn zero_stream(count: u64) -> Vec<u8> {
    let blocks = count.div_ceil(256) as usize;
    let mut s = vec![0xa1];
    s.extend(std::iter::repeat_n(0xaa, 4 * blocks));
    s.extend([0u8; 24]); // padding to 24 bytes, baseline (16) and channel modes (4)
    s
}

/// `rs_pack_c.glb` with `views` more KHR_meshopt_compression views of `count` elements
/// of `stride` bytes, each reading `stream` (appended to the binary chunk), in a new
/// fallback buffer of `fallback` bytes (their total when `None`).
fn hostile(views: usize, count: u64, stride: u64, stream: &[u8], fallback: Option<u64>) -> Vec<u8> {
    let source = std::fs::read(repo().join("fixtures/compressed/rs_pack_c.glb")).unwrap();
    let (mut doc, mut bin) = chunks(&source);
    let at = bin.len() as u64;
    bin.extend_from_slice(stream);
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    doc["buffers"][0]["byteLength"] = json!(bin.len());
    let b = doc["buffers"].as_array().unwrap().len();
    let length = count.saturating_mul(stride);
    doc["buffers"].as_array_mut().unwrap().push(
        json!({"byteLength": fallback.unwrap_or(length.saturating_mul(views as u64).max(1))}),
    );
    for k in 0..views as u64 {
        doc["bufferViews"].as_array_mut().unwrap().push(json!({
            "buffer": b,
            "byteOffset": k.saturating_mul(length),
            "byteLength": length,
            "byteStride": stride,
            "extensions": {"KHR_meshopt_compression": {
                "buffer": 0, "byteOffset": at, "byteLength": stream.len(),
                "byteStride": stride, "count": count, "mode": "ATTRIBUTES"
            }}
        }));
    }
    for key in ["extensionsUsed", "extensionsRequired"] {
        doc[key]
            .as_array_mut()
            .unwrap()
            .push(json!("KHR_meshopt_compression"));
    }
    dashvertex_gltf::glb::build(&serde_json::to_vec(&doc).unwrap(), Some(&bin)).unwrap()
}

/// Runs every command on `file` in a fresh folder; `refused`: each must exit 1 naming a
/// meshopt extension pointer (else 0 or 1).
fn every_command(name: &str, file: &[u8], refused: bool) {
    let dir = Scratch::new("hostile-meshopt");
    let d = dir.path();
    std::fs::write(d.join("in.glb"), file).unwrap();
    std::fs::copy(
        repo().join("fixtures/corpus/gltf/khronos_samples/RiggedSimple.glb"),
        d.join("rs.glb"),
    )
    .unwrap();
    let made = dash(d, &["manifest", "init", "rs.glb", "-o", "m.json"]);
    assert_eq!(made.status.code(), Some(0));
    let o = validate(d, &["in.glb"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{name}: validate {:?}",
        o.status
    );
    if !refused {
        assert_eq!(o.status.code(), Some(0), "{name}: {text}");
    } else {
        assert_eq!(o.status.code(), Some(1), "{name}: {text}");
        assert!(
            text.contains("GLTF_BUFFER") && text.contains("KHR_meshopt_compression"),
            "{name}: {text}"
        );
    }
    for args in [
        vec!["inspect", "in.glb"],
        vec!["convert", "in.glb", "out.json"],
        vec!["reduce", "in.glb", "-o", "out.glb", "--max-influences", "1"],
        vec!["fix", "in.glb", "-o", "out.glb"],
        vec!["remap", "in.glb", "--manifest", "m.json", "-o", "out.glb"],
        vec!["split", "in.glb", "-o", "out.glb", "--max-joints", "1"],
    ] {
        let before = snapshot(d);
        let o = dash(d, &args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            matches!(o.status.code(), Some(0 | 1)),
            "{name} {args:?}: {:?} {err}",
            o.status
        );
        if o.status.code() == Some(1) {
            assert!(changes(&before, &snapshot(d)).is_empty(), "{name} {args:?}");
        }
        if refused && args[0] != "inspect" {
            assert_eq!(o.status.code(), Some(1), "{name} {args:?}: {err}");
            assert!(
                err.contains("/extensions/KHR_meshopt_compression"),
                "{name} {args:?}: {err}"
            );
        }
        let _ = std::fs::remove_file(d.join("out.glb"));
        let _ = std::fs::remove_file(d.join("out.json"));
    }
}

#[test]
fn a_million_elements_from_a_few_kilobytes_decode_within_the_limit() {
    // spec: L2
    // 16 MB from 15.6 KB: inside the budget (2^20 + 4 per input byte), decoded.
    let stream = zero_stream(1_000_000);
    every_command("1M", &hostile(1, 1_000_000, 16, &stream, None), false);
}

#[test]
fn views_sharing_one_stream_pass_the_budget_and_are_refused() {
    // spec: L2
    let stream = zero_stream(1_000_000);
    every_command("64×1M", &hostile(64, 1_000_000, 16, &stream, None), true);
}

#[test]
fn declared_counts_and_lengths_beyond_the_stream_are_refused_before_allocating() {
    // spec: L2
    let stream = zero_stream(256);
    // 2^40 elements of 16 bytes (the view's byteLength 2^44)
    every_command("2^40", &hostile(1, 1 << 40, 16, &stream, None), true);
    // 900,000 elements of 256 bytes from 88 bytes: shorter than the shortest stream
    every_command("short", &hostile(1, 900_000, 256, &stream, None), true);
    // a fallback buffer without data that declares 2^50 bytes
    every_command("2^50", &hostile(1, 256, 16, &stream, Some(1 << 50)), true);
}
