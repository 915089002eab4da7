//! Animated, skinned GLB files built in memory, for the loss report, `--max-error` and
//! `fix --zero-sum nearest` under hostile sizes: many keyframes, many nodes no skin
//! uses, coincident vertices, curves that swing between their keys, non-finite values.

/// A non-finite value planted in one place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Poison {
    /// NaN in the animated joint's translation output (a translation channel is added).
    NanTranslation,
    /// +Inf in its scale output (a scale channel is added).
    InfScale,
    /// NaN in its rotation output (a rotation channel is added to a CUBICSPLINE file).
    NanRotation,
    /// NaN in the second joint's inverse bind matrix.
    NanInverseBind,
    /// NaN in the last vertex's position.
    NanPosition,
}

/// What to build.
#[derive(Clone, Debug)]
pub struct AnimatedGlb {
    /// Vertices of the one skinned primitive.
    pub vertices: usize,
    /// Every vertex at one position (else spread along the joint chain).
    pub coincident: bool,
    /// One vertex in this many has no weight at all (0: none).
    pub zero_every: usize,
    /// Joints in the skin: a chain, each 1 above its parent, inverse bind matrices the
    /// inverse of the rest pose (so the rest pose moves nothing).
    pub joints: usize,
    /// Nodes beside the skeleton that no skin uses, each a root, each animated when
    /// `animate_others` (the evaluator once posed every node at every moment).
    pub other_nodes: usize,
    /// Whether the other nodes are animated too.
    pub animate_others: bool,
    /// Keyframes of the animation (0: no animation).
    pub keyframes: usize,
    /// `LINEAR` (a rotation of the second joint), `STEP` or `CUBICSPLINE` (a
    /// translation of the second joint that is 0 at every key and swings between them).
    pub interpolation: &'static str,
    /// A non-finite value, if any.
    pub poison: Option<Poison>,
}

impl Default for AnimatedGlb {
    fn default() -> Self {
        AnimatedGlb {
            vertices: 100,
            coincident: false,
            zero_every: 0,
            joints: 4,
            other_nodes: 0,
            animate_others: false,
            keyframes: 10,
            interpolation: "LINEAR",
            poison: None,
        }
    }
}

#[derive(Default)]
struct Bin {
    bytes: Vec<u8>,
    views: Vec<serde_json::Value>,
    accessors: Vec<serde_json::Value>,
}

impl Bin {
    fn floats(&mut self, values: &[f32], ty: &str, per: usize) -> usize {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.add(&bytes, 5126, ty, values.len() / per.max(1))
    }

    fn add(&mut self, bytes: &[u8], ct: u32, ty: &str, count: usize) -> usize {
        while !self.bytes.len().is_multiple_of(4) {
            self.bytes.push(0);
        }
        self.views.push(serde_json::json!({"buffer": 0, "byteOffset": self.bytes.len(), "byteLength": bytes.len()}));
        self.bytes.extend_from_slice(bytes);
        self.accessors.push(serde_json::json!({"bufferView": self.views.len() - 1, "componentType": ct, "count": count, "type": ty}));
        self.accessors.len() - 1
    }
}

impl AnimatedGlb {
    /// The GLB's bytes.
    pub fn build(&self) -> Vec<u8> {
        let joints = self.joints.max(2);
        let n = self.vertices;
        let mut b = Bin::default();
        // Vertices: up to four influences on neighbouring joints, heaviest first.
        let mut pos = Vec::with_capacity(n * 3);
        let mut js: Vec<u8> = Vec::with_capacity(n * 8);
        let mut ws = Vec::with_capacity(n * 4);
        for v in 0..n {
            let y = if self.coincident {
                0.5
            } else {
                (v as f32 / n.max(1) as f32) * joints as f32
            };
            let x = if self.coincident {
                0.25
            } else {
                (v % 7) as f32 * 0.1
            };
            pos.extend_from_slice(&[x, y, 0.0]);
            let first = v % joints;
            for k in 0..4 {
                js.extend_from_slice(&(((first + k) % joints) as u16).to_le_bytes());
            }
            if self.zero_every > 0 && v % self.zero_every == 0 {
                ws.extend_from_slice(&[0.0, 0.0, 0.0, 0.0]);
            } else {
                ws.extend_from_slice(&[0.4, 0.3, 0.2, 0.1]);
            }
        }
        if self.poison == Some(Poison::NanPosition)
            && let Some(p) = pos.last_mut()
        {
            *p = f32::NAN;
        }
        let position = b.floats(&pos, "VEC3", 3);
        if !self.coincident || n == 0 {
            let (mut lo, mut hi) = ([f32::MAX; 3], [f32::MIN; 3]);
            for p in pos.chunks(3) {
                for c in 0..3 {
                    if p[c].is_finite() {
                        lo[c] = lo[c].min(p[c]);
                        hi[c] = hi[c].max(p[c]);
                    }
                }
            }
            if n > 0 {
                b.accessors[position]["min"] = serde_json::json!(lo);
                b.accessors[position]["max"] = serde_json::json!(hi);
            }
        } else {
            b.accessors[position]["min"] = serde_json::json!([0.25, 0.5, 0.0]);
            b.accessors[position]["max"] = serde_json::json!([0.25, 0.5, 0.0]);
        }
        let joints_accessor = b.add(&js, 5123, "VEC4", n);
        let weights_accessor = b.floats(&ws, "VEC4", 4);
        // Inverse bind matrices: translation (0, -j, 0).
        let mut ibm = Vec::with_capacity(joints * 16);
        for j in 0..joints {
            let mut m = [
                1.0f32, 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1.,
            ];
            m[13] = -(j as f32);
            if j == 1 && self.poison == Some(Poison::NanInverseBind) {
                m[5] = f32::NAN;
            }
            ibm.extend_from_slice(&m);
        }
        let ibm_accessor = b.floats(&ibm, "MAT4", 16);
        // Nodes: 0 the skinned mesh, 1..=joints the chain, then the others.
        let mut nodes = vec![serde_json::json!({"name": "body", "mesh": 0, "skin": 0})];
        for j in 0..joints {
            let mut node = serde_json::json!({"name": format!("joint_{j}")});
            if j > 0 {
                node["translation"] = serde_json::json!([0.0, 1.0, 0.0]);
            }
            if j + 1 < joints {
                node["children"] = serde_json::json!([j + 2]);
            }
            nodes.push(node);
        }
        // Unnamed and in no scene: three bytes each.
        nodes.extend((0..self.other_nodes).map(|_| serde_json::json!({})));
        let roots = [0, 1];
        let mut doc = serde_json::json!({
            "asset": {"version": "2.0"},
            "scene": 0,
            "scenes": [{"nodes": roots}],
            "nodes": nodes,
            "meshes": [{"primitives": [{"attributes": {
                "POSITION": position, "JOINTS_0": joints_accessor, "WEIGHTS_0": weights_accessor}}]}],
            "skins": [{"joints": (1..=joints).collect::<Vec<_>>(), "inverseBindMatrices": ibm_accessor}],
        });
        if self.keyframes > 0 {
            doc["animations"] = self.animation(&mut b);
        }
        doc["accessors"] = serde_json::Value::Array(std::mem::take(&mut b.accessors));
        doc["bufferViews"] = serde_json::Value::Array(std::mem::take(&mut b.views));
        while !b.bytes.len().is_multiple_of(4) {
            b.bytes.push(0);
        }
        doc["buffers"] = serde_json::json!([{"byteLength": b.bytes.len()}]);
        glb(&doc, &b.bytes)
    }

    /// One animation: a channel on the second joint, the poison's channel, and one per
    /// other node when they are animated, all on one sampler's keyframes.
    fn animation(&self, b: &mut Bin) -> serde_json::Value {
        let k = self.keyframes;
        let times: Vec<f32> = (0..k).map(|i| i as f32 / 30.0).collect();
        let input = b.floats(&times, "SCALAR", 1);
        // Keyframe times carry their bounds, as glTF requires of a sampler's input.
        if let (Some(first), Some(last)) = (times.first(), times.last()) {
            b.accessors[input]["min"] = serde_json::json!([first]);
            b.accessors[input]["max"] = serde_json::json!([last]);
        }
        let cubic = self.interpolation == "CUBICSPLINE";
        let mut rotation = Vec::with_capacity(k * 4);
        for i in 0..k {
            let half = (i as f32 * 0.1) / 2.0;
            rotation.extend_from_slice(&[0.0, 0.0, half.sin(), half.cos()]);
        }
        if self.poison == Some(Poison::NanRotation) {
            rotation[4 * (k / 2) + 2] = f32::NAN;
        }
        let mut samplers = Vec::new();
        let mut channels = Vec::new();
        let mut sampler = |output: usize, interpolation: &str| {
            samplers.push(serde_json::json!({"input": input, "output": output, "interpolation": interpolation}));
            samplers.len() - 1
        };
        if cubic {
            // At rest on every key, tangents ±60: the joint swings half a unit sideways
            // between keys and is back on each.
            let mut t = Vec::with_capacity(k * 9);
            for _ in 0..k {
                t.extend_from_slice(&[-60.0, 0.0, 0.0, 0.0, 1.0, 0.0, 60.0, 0.0, 0.0]);
            }
            let out = b.floats(&t, "VEC3", 3);
            let s = sampler(out, "CUBICSPLINE");
            channels.push(
                serde_json::json!({"sampler": s, "target": {"node": 2, "path": "translation"}}),
            );
            if self.poison == Some(Poison::NanRotation) {
                let out = b.floats(&rotation, "VEC4", 4);
                let s = sampler(out, "LINEAR");
                channels.push(
                    serde_json::json!({"sampler": s, "target": {"node": 2, "path": "rotation"}}),
                );
            }
        } else {
            let out = b.floats(&rotation, "VEC4", 4);
            let s = sampler(out, self.interpolation);
            channels
                .push(serde_json::json!({"sampler": s, "target": {"node": 2, "path": "rotation"}}));
        }
        let poisoned = |bad: f32| -> Vec<f32> {
            let mut v: Vec<f32> = (0..k)
                .flat_map(|i| [0.0, 1.0 + i as f32 * 0.01, 0.0])
                .collect();
            v[3 * (k / 2)] = bad;
            v
        };
        match self.poison {
            Some(Poison::NanTranslation) => {
                let out = b.floats(&poisoned(f32::NAN), "VEC3", 3);
                let s = sampler(out, "LINEAR");
                channels.push(
                    serde_json::json!({"sampler": s, "target": {"node": 2, "path": "translation"}}),
                );
            }
            Some(Poison::InfScale) => {
                let out = b.floats(&poisoned(f32::INFINITY), "VEC3", 3);
                let s = sampler(out, "LINEAR");
                channels.push(
                    serde_json::json!({"sampler": s, "target": {"node": 2, "path": "scale"}}),
                );
            }
            _ => {}
        }
        if self.animate_others && self.other_nodes > 0 {
            let out = b.floats(&rotation, "VEC4", 4);
            let s = sampler(out, "LINEAR");
            let first = 1 + self.joints.max(2);
            for o in 0..self.other_nodes {
                channels.push(serde_json::json!({"sampler": s, "target": {"node": first + o, "path": "rotation"}}));
            }
        }
        serde_json::json!([{"name": "move", "samplers": samplers, "channels": channels}])
    }
}

/// A GLB of `doc` and its binary chunk (dash's own GLB framing).
fn glb(doc: &serde_json::Value, bin: &[u8]) -> Vec<u8> {
    let json = serde_json::to_vec(doc).unwrap_or_default();
    dashvertex_gltf::glb::build(&json, Some(bin)).unwrap_or_default()
}
