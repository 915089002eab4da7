//! Differential tests of the meshopt decoder on real files (spec/security.md [R3]).
//!
//! - Every compressed view of files written by gltfpack 0.18 (`-c`, `-cc`: v0 streams and
//!   the octahedral, quaternion and exponential filters), glTF-Transform 4.5.1 `meshopt`,
//!   and a `KHR_meshopt_compression` file with v1 attribute streams decodes to the bytes
//!   meshoptimizer's own decoder gives (`oracle.json`; filters to one unit in the last
//!   place, as the specification allows).
//! - gltfpack without `-c` writes the same quantized data uncompressed: every attribute,
//!   skin and animation accessor of the `-c` file reads exactly as there, and its
//!   triangles are the same triangles (the index codec may start a triangle at another
//!   corner, keeping its winding).
//!
//! `fixtures/compressed/README.md` lists the files, the tools and their sha256.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]

use std::path::PathBuf;

use dashvertex_core::Limits;
use dashvertex_gltf::{Gltf, NoFiles, accessor, load};
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/compressed")
        .join(name)
}

fn open(name: &str) -> Gltf {
    let bytes = std::fs::read(fixture(name)).unwrap();
    load(&bytes, &NoFiles, &Limits::default()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// A view's bytes in the loaded document.
fn view_bytes(g: &Gltf, v: usize) -> &[u8] {
    let bv = &g.root.buffer_views[v];
    let buf = g.buffer(bv.buffer as usize).unwrap().unwrap();
    &buf[bv.byte_offset as usize..(bv.byte_offset + bv.byte_length) as usize]
}

#[test]
fn every_compressed_view_decodes_as_the_reference_decoder_does() {
    // spec: R3
    let oracle: Value =
        serde_json::from_slice(&std::fs::read(fixture("oracle.json")).unwrap()).unwrap();
    let files = oracle["files"].as_object().unwrap();
    assert_eq!(files.len(), 6);
    let mut filters = std::collections::BTreeSet::new();
    for (file, views) in files {
        let g = open(file);
        // the compressed views became plain views of the loaded document
        let text = g.value.to_string();
        assert!(!text.contains("meshopt_compression"), "{file}");
        for (v, want) in views.as_object().unwrap() {
            let v: usize = v.parse().unwrap();
            let got = view_bytes(&g, v);
            let want_bytes = unhex(want["hex"].as_str().unwrap());
            let filter = want["filter"].as_str().unwrap();
            filters.insert(filter.to_owned());
            assert_eq!(got.len(), want_bytes.len(), "{file} view {v}");
            let stride = g.root.buffer_views[v].byte_stride.unwrap_or(4);
            match filter {
                "OCTAHEDRAL" | "QUATERNION" => {
                    let wide = stride == 8;
                    let step = if wide { 2 } else { 1 };
                    for (k, (a, b)) in got.chunks(step).zip(want_bytes.chunks(step)).enumerate() {
                        let (x, y) = if wide {
                            (
                                i32::from(i16::from_le_bytes([a[0], a[1]])),
                                i32::from(i16::from_le_bytes([b[0], b[1]])),
                            )
                        } else {
                            (i32::from(a[0].cast_signed()), i32::from(b[0].cast_signed()))
                        };
                        assert!(
                            (x - y).abs() <= 1,
                            "{file} view {v} ({filter}) {k}: {x} vs {y}"
                        );
                    }
                }
                _ => assert!(got == want_bytes.as_slice(), "{file} view {v} ({filter})"),
            }
        }
    }
    for f in ["NONE", "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL"] {
        assert!(filters.contains(f), "{f} untested: {filters:?}");
    }
}

/// The accessors every primitive names as indices.
fn index_accessors(g: &Gltf) -> Vec<u64> {
    g.value["meshes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["primitives"].as_array().unwrap())
        .filter_map(|p| p["indices"].as_u64())
        .collect()
}

/// Triangles, each started at its smallest corner (winding kept), sorted.
fn triangles(d: &accessor::AccessorData<'_>) -> Vec<[u64; 3]> {
    let mut t: Vec<[u64; 3]> = (0..d.count / 3)
        .map(|k| {
            let c = [0, 1, 2].map(|j| d.get(3 * k + j, 0) as u64);
            let m = (0..3).min_by_key(|&j| c[j]).unwrap();
            [c[m], c[(m + 1) % 3], c[(m + 2) % 3]]
        })
        .collect();
    t.sort_unstable();
    t
}

#[test]
fn gltfpack_c_reads_as_its_uncompressed_output() {
    // spec: R3
    for name in ["rs", "rf"] {
        let plain = open(&format!("{name}_pack.glb"));
        for packed in [
            format!("{name}_pack_c.glb"),
            "rs_pack_khr_v1.glb".to_owned(),
        ] {
            if name == "rf" && packed.starts_with("rs_") {
                continue;
            }
            let packed_g = open(&packed);
            let limits = Limits::default();
            let indices = index_accessors(&plain);
            assert_eq!(indices, index_accessors(&packed_g));
            assert_eq!(plain.root.accessors.len(), packed_g.root.accessors.len());
            for i in 0..plain.root.accessors.len() as u64 {
                let x = accessor::read(&plain, i, &limits).unwrap();
                let y = accessor::read(&packed_g, i, &limits)
                    .unwrap_or_else(|e| panic!("{packed} accessor {i}: {e}"));
                assert_eq!(
                    (x.count, x.components, x.component_type),
                    (y.count, y.components, y.component_type),
                    "{packed} accessor {i}"
                );
                if indices.contains(&i) {
                    assert_eq!(triangles(&x), triangles(&y), "{packed} accessor {i}");
                    continue;
                }
                for e in 0..x.count {
                    for c in 0..x.components {
                        assert_eq!(
                            x.get(e, c).to_bits(),
                            y.get(e, c).to_bits(),
                            "{packed} accessor {i} element {e} component {c}"
                        );
                    }
                }
            }
        }
    }
}
