//! Deterministic synthetic inputs for the benchmarks.

use dashvertex_core::{Bone, Document, InfluenceSet, Mesh, Skeleton, Vertex};

/// A small deterministic pseudo-random generator (64-bit LCG), so inputs are identical on
/// every run and machine.
pub struct Lcg(u64);

impl Lcg {
    /// A generator with a seed.
    pub fn new(seed: u64) -> Self {
        Lcg(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    /// Next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 32) as u32
    }

    /// A float in [0, 1).
    pub fn unit(&mut self) -> f32 {
        (self.next_u32() >> 8) as f32 / (1u32 << 24) as f32
    }
}

/// A skinned mesh of `n` vertices with `sets` influence sets over `bones` bones: distinct
/// bones per vertex, weights sorted heaviest first and summing to about 1.
pub fn skinned_mesh(n: usize, sets: usize, bones: u32) -> Mesh {
    let mut rng = Lcg::new(n as u64 * 31 + sets as u64);
    let slots = sets * 4;
    let mut all: Vec<Vec<InfluenceSet>> = vec![Vec::with_capacity(n); sets];
    let mut vertices = Vec::with_capacity(n);
    for _ in 0..n {
        let position = [rng.unit() * 10.0, rng.unit() * 10.0, rng.unit() * 10.0];
        let start = rng.next_u32() % bones;
        let mut w: Vec<f32> = (0..slots).map(|_| rng.unit() + 0.01).collect();
        w.sort_by(|a, b| b.total_cmp(a));
        let total: f32 = w.iter().sum();
        let mut sets_v = vec![InfluenceSet::ZERO; sets];
        for (k, weight) in w.iter().enumerate() {
            if let Some(s) = sets_v.get_mut(k / 4) {
                s.joints[k % 4] = (start + k as u32) % bones;
                s.weights[k % 4] = weight / total;
            }
        }
        for (dst, s) in all.iter_mut().zip(&sets_v) {
            dst.push(*s);
        }
        vertices.push(Vertex {
            position,
            skin: sets_v.first().copied().unwrap_or_default(),
        });
    }
    let extra = all.into_iter().skip(1).collect();
    Mesh::from_parts(true, vertices, extra).unwrap_or_default()
}

/// A chain skeleton of `bones` bones.
pub fn chain_skeleton(bones: u32) -> Skeleton {
    Skeleton {
        bones: (0..bones)
            .map(|i| Bone::new(format!("bone_{i:03}"), i.checked_sub(1)))
            .collect(),
    }
}

/// A document with a skinned mesh and its skeleton.
pub fn document(n: usize, sets: usize, bones: u32) -> Document {
    Document {
        mesh: skinned_mesh(n, sets, bones),
        skeleton: Some(chain_skeleton(bones)),
    }
}
