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

/// A GLB file with one skinned primitive of `n` vertices (POSITION, JOINTS_0 as
/// UNSIGNED_BYTE, WEIGHTS_0 as FLOAT summing to 1) and a skin of `joints` joints.
pub fn skinned_glb(n: usize, joints: u32) -> Vec<u8> {
    let mesh = skinned_mesh(n, 1, joints);
    let mut bin: Vec<u8> = Vec::with_capacity(n * (12 + 4 + 16) + joints as usize * 64);
    let mut min = [f32::MAX; 3];
    let mut max = [f32::MIN; 3];
    for v in mesh.vertices() {
        for (c, x) in v.position.iter().enumerate() {
            if let (Some(lo), Some(hi)) = (min.get_mut(c), max.get_mut(c)) {
                *lo = lo.min(*x);
                *hi = hi.max(*x);
            }
            bin.extend_from_slice(&x.to_le_bytes());
        }
    }
    let joints_at = bin.len();
    for v in mesh.vertices() {
        bin.extend(v.skin.joints.iter().map(|&j| j as u8));
    }
    let weights_at = bin.len();
    for v in mesh.vertices() {
        // Renormalize in float32 so the glTF rule holds.
        let total: f32 = v.skin.weights.iter().sum();
        let mut w = v.skin.weights.map(|x| x / total);
        let rest: f32 = w.iter().skip(1).sum();
        if let Some(first) = w.first_mut() {
            *first = 1.0 - rest;
        }
        for x in w {
            bin.extend_from_slice(&x.to_le_bytes());
        }
    }
    let ibm_at = bin.len();
    for _ in 0..joints {
        for x in [
            1.0f32, 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1.,
        ] {
            bin.extend_from_slice(&x.to_le_bytes());
        }
    }
    let nodes: Vec<String> = std::iter::once(r#"{"name":"mesh","mesh":0,"skin":0}"#.to_owned())
        .chain((0..joints).map(|i| {
            if i + 1 < joints {
                format!(r#"{{"name":"j{i}","children":[{}]}}"#, i + 2)
            } else {
                format!(r#"{{"name":"j{i}"}}"#)
            }
        }))
        .collect();
    let joint_list: Vec<String> = (1..=joints).map(|i| i.to_string()).collect();
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0,1]}}],"nodes":[{}],"skins":[{{"joints":[{}],"inverseBindMatrices":3}}],"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,"JOINTS_0":1,"WEIGHTS_0":2}}}}]}}],"accessors":[{{"bufferView":0,"componentType":5126,"count":{n},"type":"VEC3","min":[{},{},{}],"max":[{},{},{}]}},{{"bufferView":1,"componentType":5121,"count":{n},"type":"VEC4"}},{{"bufferView":2,"componentType":5126,"count":{n},"type":"VEC4"}},{{"bufferView":3,"componentType":5126,"count":{joints},"type":"MAT4"}}],"bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":{},"target":34962}},{{"buffer":0,"byteOffset":{joints_at},"byteLength":{},"target":34962}},{{"buffer":0,"byteOffset":{weights_at},"byteLength":{},"target":34962}},{{"buffer":0,"byteOffset":{ibm_at},"byteLength":{}}}],"buffers":[{{"byteLength":{}}}]}}"#,
        nodes.join(","),
        joint_list.join(","),
        min[0],
        min[1],
        min[2],
        max[0],
        max[1],
        max[2],
        joints_at,
        weights_at - joints_at,
        ibm_at - weights_at,
        bin.len() - ibm_at,
        bin.len(),
    );
    dashvertex_gltf::glb::build(json.as_bytes(), Some(&bin)).unwrap_or_default()
}
