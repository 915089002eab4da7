//! The skinning evaluator's inner loop: 1 M vertices with 4 influences (one set) and with
//! 16 (four sets) on a 64-joint skin, skinned at one pose; beside a pass that only reads
//! the same positions and influences. Throughput is in vertex-poses.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use dash_benches::Lcg;
use dashvertex_core::InfluenceSet;
use dashvertex_skin::{Joints, math, skin_point};

const N: usize = 1_000_000;
const JOINTS: u32 = 64;

fn joints(rng: &mut Lcg) -> Joints {
    let m: Vec<math::Mat4> = (0..JOINTS)
        .map(|_| {
            let mut u = || f64::from(rng.unit());
            let q = [u() - 0.5, u() - 0.5, u() - 0.5, 1.0];
            math::from_trs([u(), u(), u()], q, [1.0; 3])
        })
        .collect();
    Joints::from_matrices(&m)
}

fn sets(rng: &mut Lcg, per_vertex: usize) -> Vec<InfluenceSet> {
    (0..N * per_vertex)
        .map(|_| {
            let mut s = InfluenceSet::ZERO;
            for k in 0..4 {
                s.joints[k] = rng.next_u32() % JOINTS;
                s.weights[k] = rng.unit() * 0.25;
            }
            s
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let mut rng = Lcg::new(11);
    let j = joints(&mut rng);
    let positions: Vec<[f32; 3]> = (0..N)
        .map(|_| [rng.unit(), rng.unit(), rng.unit()])
        .collect();
    for per_vertex in [1usize, 4] {
        let s = sets(&mut rng, per_vertex);
        let mut g = c.benchmark_group(format!("skin/{}-influences", per_vertex * 4));
        g.throughput(Throughput::Elements(N as u64));
        g.sample_size(10);
        g.bench_function("baseline: read positions and influences", |b| {
            b.iter(|| {
                let mut acc = 0.0f64;
                for (v, p) in positions.iter().enumerate() {
                    acc += f64::from(p[0]);
                    for set in s.iter().skip(v * per_vertex).take(per_vertex) {
                        acc += f64::from(set.weights[0]) + f64::from(set.joints[3]);
                    }
                }
                black_box(acc)
            })
        });
        g.bench_function("skin_point", |b| {
            b.iter(|| {
                let mut acc = 0.0f64;
                for (v, p) in positions.iter().enumerate() {
                    let sets = s
                        .get(v * per_vertex..(v + 1) * per_vertex)
                        .unwrap_or_default();
                    acc += skin_point(*p, sets, &j)[1];
                }
                black_box(acc)
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
