//! Validation of a 1 M-vertex binary file, against memcpy and a plain read of the file.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use dashvertex_binary::WriteOptions;
use dashvertex_validate::{Options, Profile};

fn validate(c: &mut Criterion) {
    let doc = dash_benches::document(1_000_000, 1, 64);
    let bytes =
        dashvertex_binary::encode_document(&doc, &WriteOptions::default()).expect("encodes");
    let path = std::env::temp_dir().join(format!("dash-bench-{}.dmx", std::process::id()));
    std::fs::write(&path, &bytes).expect("temp file");
    let dash = Options::default();
    let gltf = Options::new().with_profile(Profile::Gltf);
    let mut g = c.benchmark_group("validate_1m_vertices");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.sample_size(10);
    let mut warm = vec![0u8; bytes.len()];
    g.bench_function("baseline_memcpy_warm", |b| {
        b.iter(|| {
            warm.copy_from_slice(black_box(&bytes));
            black_box(warm.len())
        })
    });
    g.bench_function("baseline_read_file", |b| {
        b.iter(|| std::fs::read(black_box(&path)).map(|v| v.len()))
    });
    g.bench_function("validate_in_memory_dash", |b| {
        b.iter(|| dashvertex_validate::validate_bytes("x.dmx", black_box(&bytes), &dash))
    });
    g.bench_function("validate_in_memory_gltf", |b| {
        b.iter(|| dashvertex_validate::validate_bytes("x.dmx", black_box(&bytes), &gltf))
    });
    g.bench_function("validate_file_streaming_gltf", |b| {
        b.iter(|| dashvertex_validate::validate_path(black_box(&path), &gltf))
    });
    g.finish();
    let _ = std::fs::remove_file(&path);

    // glTF: a 1 M-vertex GLB (POSITION, JOINTS_0 u16, WEIGHTS_0 f32, one 64-joint skin).
    let glb = dashvertex_testkit::animated::AnimatedGlb {
        vertices: 1_000_000,
        joints: 64,
        keyframes: 0,
        ..Default::default()
    }
    .build();
    let mut g = c.benchmark_group("validate_gltf_1m_vertices");
    g.throughput(Throughput::Bytes(glb.len() as u64));
    g.sample_size(10);
    let mut warm = vec![0u8; glb.len()];
    g.bench_function("baseline_memcpy_warm", |b| {
        b.iter(|| {
            warm.copy_from_slice(black_box(&glb));
            black_box(warm.len())
        })
    });
    let report = dashvertex_validate::validate_bytes("/nonexistent/x.glb", &glb, &gltf);
    assert_eq!(report.counts.errors, 0, "{:?}", report.diagnostics.first());
    g.bench_function("validate_glb_gltf_profile", |b| {
        b.iter(|| dashvertex_validate::validate_bytes("/nonexistent/x.glb", black_box(&glb), &gltf))
    });
    g.finish();
}

criterion_group!(benches, validate);
criterion_main!(benches);
