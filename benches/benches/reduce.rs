//! The reducer on 1 M vertices: (a) 64 dense per-bone weight arrays to 4 influences, (b) 16
//! slots (four sets) to 4; each against a pass that only reads the same input.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use dash_benches::Lcg;
use dashvertex_reduce::input::Input;
use dashvertex_reduce::manifest::{BoneRef, Manifest};
use dashvertex_reduce::{Config, Normalize};

const N: usize = 1_000_000;

fn bones(n: u32) -> Vec<BoneRef> {
    (0..n)
        .map(|i| BoneRef {
            name: format!("bone_{i:02}"),
            parent: i.checked_sub(1).map(|p| format!("bone_{p:02}")),
        })
        .collect()
}

/// 64 columns; each vertex has 8 non-zero weights on neighbouring bones (as a skinned
/// limb does), the rest zero.
fn dense_columns() -> Vec<Vec<f32>> {
    let mut rng = Lcg::new(7);
    let mut cols = vec![vec![0.0f32; N]; 64];
    for v in 0..N {
        let start = (rng.next_u32() % 64) as usize;
        for k in 0..8 {
            if let Some(c) = cols
                .get_mut((start + k * 3) % 64)
                .and_then(|c| c.get_mut(v))
            {
                *c = rng.unit() + 0.001;
            }
        }
    }
    cols
}

fn reduce(c: &mut Criterion) {
    let cfg = Config::default().with_normalize(Normalize::Unit);
    let mut g = c.benchmark_group("reduce_1m_vertices");
    g.throughput(Throughput::Elements(N as u64));
    g.sample_size(10);

    // (a) 64 dense per-bone arrays -> 4.
    let cols = dense_columns();
    let b64 = bones(64);
    let m64 = Manifest::init(&b64).expect("manifest");
    let positions = vec![[0.0f32; 3]; N];
    // Baselines read every weight and count the non-zero ones (what any reducer must do
    // at least), vectorized and branch-free.
    g.bench_function("a_baseline_read_64_columns", |b| {
        b.iter(|| {
            let mut n = 0u32;
            for col in &cols {
                for &w in col {
                    n += u32::from(w != 0.0);
                }
            }
            black_box(n)
        })
    });
    let columns: Vec<(u32, Vec<f32>)> = cols
        .iter()
        .cloned()
        .enumerate()
        .map(|(i, c)| (i as u32, c))
        .collect();
    let dense = Input::from_columns(b64.clone(), positions.clone(), columns, vec![None; 64]);
    let map64 = dashvertex_reduce::index_map(&dense, &m64).expect("map");
    g.bench_function("a_reduce_64_dense_columns_to_4", |b| {
        b.iter(|| {
            black_box(dashvertex_reduce::reduce(&dense, &map64, None, &cfg).expect("reduces"))
        })
    });

    // (b) 16 slots -> 4.
    let mesh = dash_benches::skinned_mesh(N, 4, 64);
    g.bench_function("b_baseline_read_16_slots", |b| {
        b.iter(|| {
            let mut n = 0u32;
            for v in 0..mesh.len() {
                for set in mesh.sets_of(v) {
                    for &w in &set.weights {
                        n += u32::from(w != 0.0);
                    }
                }
            }
            black_box(n)
        })
    });
    let slots = Input::from_mesh(&mesh, b64.clone()).expect("input");
    g.bench_function("b_reduce_16_slots_to_4", |b| {
        b.iter(|| {
            black_box(dashvertex_reduce::reduce(&slots, &map64, None, &cfg).expect("reduces"))
        })
    });
    g.finish();
}

criterion_group!(benches, reduce);
criterion_main!(benches);
