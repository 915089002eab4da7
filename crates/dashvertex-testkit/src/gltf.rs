//! Skinned GLB files built in memory for tests: several primitives, several influence
//! sets, chosen faults, deterministic from a seed.

/// What to build.
#[derive(Clone, Debug)]
pub struct SkinnedGlb {
    /// Vertices per primitive.
    pub vertices: usize,
    /// Primitives (one mesh, one skinned node).
    pub primitives: usize,
    /// Influence sets (JOINTS_n/WEIGHTS_n pairs) per primitive.
    pub sets: usize,
    /// Joints in the skin.
    pub joints: usize,
    /// One vertex in this many gets a fault (a weight off, a duplicate bone, a bone out
    /// of range, a NaN); 0 for none.
    pub fault_every: usize,
    /// Seed of the pseudo-random weights.
    pub seed: u64,
}

impl Default for SkinnedGlb {
    fn default() -> Self {
        SkinnedGlb {
            vertices: 1000,
            primitives: 2,
            sets: 2,
            joints: 24,
            fault_every: 0,
            seed: 1,
        }
    }
}

impl SkinnedGlb {
    /// The GLB's bytes: POSITION f32, JOINTS_n u16, WEIGHTS_n f32 heaviest first and
    /// summing to 1 (except the faults), a joint chain with identity bind matrices.
    pub fn build(&self) -> Vec<u8> {
        let mut state = self.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = move || {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_F491_4F6C_DD1D)
        };
        let n = self.vertices;
        let slots = self.sets * 4;
        let mut b = Parts::default();
        let mut primitives = Vec::new();
        for p in 0..self.primitives {
            let mut pos = Vec::with_capacity(n * 12);
            let (mut lo, mut hi) = ([f32::MAX; 3], [f32::MIN; 3]);
            let mut joints: Vec<Vec<u8>> = vec![Vec::with_capacity(n * 8); self.sets];
            let mut weights: Vec<Vec<u8>> = vec![Vec::with_capacity(n * 16); self.sets];
            for v in 0..n {
                for c in 0..3 {
                    let x = (v * 3 + c + p) as f32 * 0.001;
                    lo[c] = lo[c].min(x);
                    hi[c] = hi[c].max(x);
                    pos.extend_from_slice(&x.to_le_bytes());
                }
                let used = 1 + (next() as usize % slots);
                let start = next() as usize % self.joints;
                let mut w: Vec<f32> = (0..used).map(|k| 1.0 / (1 + k) as f32).collect();
                let sum: f32 = w.iter().sum();
                w.iter_mut().for_each(|x| *x /= sum);
                let mut js: Vec<u16> = (0..used)
                    .map(|k| ((start + k) % self.joints) as u16)
                    .collect();
                w.resize(slots, 0.0);
                js.resize(slots, 0);
                if self.fault_every > 0 && (next() as usize).is_multiple_of(self.fault_every) {
                    match next() % 4 {
                        0 => w[0] += 0.25,
                        1 if used > 1 => js[1] = js[0],
                        2 => js[0] = self.joints as u16 + 3,
                        _ => w[0] = f32::NAN,
                    }
                }
                for s in 0..self.sets {
                    for k in 0..4 {
                        joints[s].extend_from_slice(&js[s * 4 + k].to_le_bytes());
                        weights[s].extend_from_slice(&w[s * 4 + k].to_le_bytes());
                    }
                }
            }
            let mut attributes = serde_json::Map::new();
            let a = b.add(&pos, 5126, "VEC3", n);
            attributes.insert("POSITION".into(), a.into());
            if n > 0 {
                b.accessors[a]["min"] = serde_json::json!(lo);
                b.accessors[a]["max"] = serde_json::json!(hi);
            }
            for s in 0..self.sets {
                let a = b.add(&joints[s], 5123, "VEC4", n);
                attributes.insert(format!("JOINTS_{s}"), a.into());
                let a = b.add(&weights[s], 5126, "VEC4", n);
                attributes.insert(format!("WEIGHTS_{s}"), a.into());
            }
            primitives.push(serde_json::json!({"attributes": attributes}));
        }
        let ibm: Vec<u8> = (0..self.joints)
            .flat_map(|_| {
                [
                    1.0f32, 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1.,
                ]
                .into_iter()
                .flat_map(f32::to_le_bytes)
            })
            .collect();
        let ibm_accessor = b.add(&ibm, 5126, "MAT4", self.joints);
        let Parts {
            mut bin,
            views,
            accessors,
        } = b;
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        let mut nodes = vec![serde_json::json!({"name": "body", "mesh": 0, "skin": 0})];
        for j in 0..self.joints {
            let mut node = serde_json::json!({"name": format!("joint_{j}")});
            if j + 1 < self.joints {
                node["children"] = serde_json::json!([j + 2]);
            }
            nodes.push(node);
        }
        let doc = serde_json::json!({
            "asset": {"version": "2.0"},
            "scene": 0,
            "scenes": [{"nodes": [0, 1]}],
            "nodes": nodes,
            "meshes": [{"primitives": primitives}],
            "skins": [{"joints": (1..=self.joints).collect::<Vec<_>>(), "inverseBindMatrices": ibm_accessor}],
            "accessors": accessors,
            "bufferViews": views,
            "buffers": [{"byteLength": bin.len()}],
        });
        let json = serde_json::to_vec(&doc).unwrap_or_default();
        dashvertex_gltf::glb::build(&json, Some(&bin)).unwrap_or_default()
    }
}

/// The binary chunk, buffer views and accessors being built.
#[derive(Default)]
struct Parts {
    bin: Vec<u8>,
    views: Vec<serde_json::Value>,
    accessors: Vec<serde_json::Value>,
}

impl Parts {
    /// Adds `bytes` as a 4-aligned buffer view with an accessor on it; returns the
    /// accessor's index.
    fn add(&mut self, bytes: &[u8], ct: u32, ty: &str, count: usize) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        self.views.push(serde_json::json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()}));
        self.bin.extend_from_slice(bytes);
        self.accessors.push(serde_json::json!({"bufferView": self.views.len() - 1, "componentType": ct, "count": count, "type": ty}));
        self.accessors.len() - 1
    }
}
