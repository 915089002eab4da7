//! JSON decode and encode, against memcpy and a bare serde_json scan of the same text.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use dashvertex_core::Limits;

fn json(c: &mut Criterion) {
    let doc = dash_benches::document(100_000, 1, 64);
    let text = dashvertex_json::encode_document(&doc).expect("finite synthetic data");
    let mut g = c.benchmark_group("json_100k_vertices");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.sample_size(20);
    g.bench_function("baseline_memcpy", |b| {
        b.iter(|| black_box(text.as_bytes().to_vec()))
    });
    g.bench_function("baseline_serde_json_scan", |b| {
        b.iter(|| serde_json::from_str::<serde::de::IgnoredAny>(black_box(&text)))
    });
    g.bench_function("decode", |b| {
        b.iter(|| dashvertex_json::decode(black_box(&text), &Limits::default()))
    });
    g.bench_function("encode", |b| {
        b.iter(|| dashvertex_json::encode_document(black_box(&doc)))
    });
    g.finish();
}

criterion_group!(benches, json);
criterion_main!(benches);
