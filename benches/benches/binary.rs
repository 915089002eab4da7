//! Binary decoders and encoder on 1 M vertices, against memcpy of the same bytes.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use dashvertex_binary::{Expect, View, WriteOptions};
use dashvertex_core::Limits;

fn binary(c: &mut Criterion) {
    let doc = dash_benches::document(1_000_000, 1, 64);
    let bytes =
        dashvertex_binary::encode_document(&doc, &WriteOptions::default()).expect("encodes");
    let limits = Limits::default();
    let mut g = c.benchmark_group("binary_1m_vertices");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.sample_size(10);
    // Two baselines: a copy into fresh memory (pays the page faults a new allocation
    // costs, as decoding to a new Vec does) and a copy into a warm buffer.
    g.bench_function("baseline_memcpy_fresh", |b| {
        b.iter(|| black_box(bytes.clone()))
    });
    let mut warm = vec![0u8; bytes.len()];
    g.bench_function("baseline_memcpy_warm", |b| {
        b.iter(|| {
            warm.copy_from_slice(black_box(&bytes));
            black_box(warm.len())
        })
    });
    g.bench_function("zerocopy_view_sum_weights", |b| {
        // Touch every record through the view: the cost of zero-copy access.
        b.iter(|| {
            let view = View::parse(black_box(&bytes), &limits).expect("valid");
            let mut sum = 0f32;
            if let dashvertex_binary::VertexRecords::Full(records) = view.vertices() {
                for r in records {
                    sum += r.skin_weight[0].get() + r.position[1].get();
                }
            }
            sum
        })
    });
    g.bench_function("decode_zerocopy_to_owned", |b| {
        b.iter(|| dashvertex_binary::decode(black_box(&bytes), &limits))
    });
    let mut reused = Vec::new();
    g.bench_function("decode_zerocopy_into_reused_vec", |b| {
        b.iter(|| {
            let view = View::parse(black_box(&bytes), &limits).expect("valid");
            reused.clear();
            view.vertices().extend_vertices(&mut reused);
            black_box(reused.len())
        })
    });
    g.bench_function("decode_binrw", |b| {
        b.iter(|| dashvertex_binary::binrw_io::decode(black_box(&bytes), &limits))
    });
    g.bench_function("decode_nom_streaming_64k_chunks", |b| {
        b.iter(|| {
            dashvertex_binary::decode_chunked(black_box(&bytes), 1 << 16, Expect::Detect, &limits)
        })
    });
    g.bench_function("encode", |b| {
        b.iter(|| dashvertex_binary::encode_document(black_box(&doc), &WriteOptions::default()))
    });
    g.finish();
}

criterion_group!(benches, binary);
criterion_main!(benches);
