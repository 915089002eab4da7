//! Large, real-shaped skinned GLB files for the whole-process benchmarks (`benches/peers.py`,
//! `benches/python_read.py`): one triangle-list primitive with POSITION, NORMAL,
//! TEXCOORD_0, 16 influences per vertex in four JOINTS_n / WEIGHTS_n (f32) sets, and a skin
//! of a joint tree with inverse bind matrices, the shape a Blender export with "all
//! influences" has. Every vertex's weights sum to 1 within the glTF tolerance, with
//! distinct joints, heaviest first, so the file is valid for the official validator.
//!
//! [`ShapedGlb::blender`] gives the shape Blender 3.4's exporter writes for a dense
//! character (measured on a real export): UNSIGNED_BYTE joints, 48 joints by default, and
//! a u32 index buffer of about 2.25 indices per vertex (vertices split at seams, as Blender
//! writes them), after the attributes in the exporter's order. Without it, joints are
//! UNSIGNED_SHORT and there are no indices.

/// xorshift64*: deterministic and fast; the file is the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
}

const SETS: usize = 4;

/// What to build.
#[derive(Clone, Copy, Debug)]
pub struct ShapedGlb {
    /// Vertices (rounded down to a multiple of 3).
    pub vertices: usize,
    /// Joints of the skin (at least 16; at most 256 with `blender`, 65,535 without).
    pub joints: usize,
    /// Keyframes of one animation that turns every joint a little at each (0: none).
    pub keyframes: usize,
    /// Blender 3.4's shape: u8 joints and a u32 index buffer.
    pub blender: bool,
}

impl ShapedGlb {
    /// The default joint count for the shape (48 for Blender's, 64 otherwise).
    pub fn default_joints(blender: bool) -> usize {
        if blender { 48 } else { 64 }
    }

    /// The joints the file has: [`ShapedGlb::joints`] within the shape's bounds.
    pub fn joint_count(&self) -> usize {
        let most = if self.blender { 256 } else { 65_535 };
        self.joints.clamp(SETS * 4, most)
    }

    /// The GLB's bytes and the number of indices it holds; `None` when it would be 4 GiB
    /// or more.
    pub fn build(&self) -> Option<(Vec<u8>, usize)> {
        let blender = self.blender;
        let n = self.vertices / 3 * 3;
        let joints = self.joint_count();
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let data = Attributes::new(&mut rng, n, joints, blender);
        let mut bin = Bin::default();
        let vp = bin.add(&data.pos, Some(34962));
        let vn = bin.add(&data.nrm, Some(34962));
        let vu = bin.add(&data.uv, Some(34962));
        let vj: Vec<usize> = data.jnt.iter().map(|b| bin.add(b, Some(34962))).collect();
        let vw: Vec<usize> = data.wgt.iter().map(|b| bin.add(b, Some(34962))).collect();
        // Blender's index buffer: three triangles for every four vertices of the run (a
        // vertex shared by up to three), 2.25 indices per vertex; u32, as it writes them for
        // more than 65,535 vertices.
        let indices: Vec<u8> = if blender {
            (0..n.saturating_sub(2))
                .filter(|v| v % 4 != 3)
                .flat_map(|v| [v, v + 1, v + 2])
                .flat_map(|i| (i as u32).to_le_bytes())
                .collect()
        } else {
            Vec::new()
        };
        let index_view = (!indices.is_empty()).then(|| bin.add(&indices, Some(34963)));
        let vi = bin.add(&inverse_bind_matrices(joints), None);
        let acc = |view: usize, ct: u32, ty: &str| serde_json::json!({"bufferView": view, "componentType": ct, "count": n, "type": ty});
        let mut accessors = vec![
            acc(vp, 5126, "VEC3"),
            acc(vn, 5126, "VEC3"),
            acc(vu, 5126, "VEC2"),
        ];
        accessors[0]["min"] = serde_json::json!(data.lo);
        accessors[0]["max"] = serde_json::json!(data.hi);
        let mut attributes = serde_json::json!({"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2});
        for s in 0..SETS {
            attributes[format!("JOINTS_{s}")] = accessors.len().into();
            accessors.push(acc(vj[s], if blender { 5121 } else { 5123 }, "VEC4"));
            attributes[format!("WEIGHTS_{s}")] = accessors.len().into();
            accessors.push(acc(vw[s], 5126, "VEC4"));
        }
        let mut primitive = serde_json::json!({"attributes": attributes, "mode": 4});
        if let Some(view) = index_view {
            primitive["indices"] = accessors.len().into();
            accessors.push(
                serde_json::json!({"bufferView": view, "componentType": 5125,
                "count": indices.len() / 4, "type": "SCALAR"}),
            );
        }
        let ibm_accessor = accessors.len();
        accessors.push(serde_json::json!({"bufferView": vi, "componentType": 5126, "count": joints, "type": "MAT4"}));
        let animation = (self.keyframes > 0)
            .then(|| wobble(&mut bin, &mut accessors, &mut rng, joints, self.keyframes));
        let mut doc = serde_json::json!({
            "asset": {"version": "2.0", "generator": "dash benches/make_skinned_glb"},
            "scene": 0,
            "scenes": [{"nodes": [0, 1]}],
            "nodes": nodes(joints),
            "meshes": [{"primitives": [primitive]}],
            "skins": [{"joints": (1..=joints).collect::<Vec<_>>(), "inverseBindMatrices": ibm_accessor, "skeleton": 1}],
            "accessors": accessors,
            "bufferViews": bin.views,
            "buffers": [{"byteLength": bin.bytes.len()}],
        });
        if let Some(animation) = animation {
            doc["animations"] = serde_json::json!([animation]);
        }
        let json = serde_json::to_vec(&doc).ok()?;
        let glb = dashvertex_gltf::glb::build(&json, Some(&bin.bytes)).ok()?;
        Some((glb, indices.len() / 4))
    }
}

/// The vertex attributes' bytes: a cylinder of rings, height following the vertex
/// number, with 16 distinct joints near each vertex's height, weights falling off and
/// summing to 1, heaviest first.
struct Attributes {
    /// POSITION, f32 VEC3.
    pos: Vec<u8>,
    /// NORMAL, f32 VEC3.
    nrm: Vec<u8>,
    /// TEXCOORD_0, f32 VEC2.
    uv: Vec<u8>,
    /// JOINTS_0..3: u8 (Blender's shape) or u16 VEC4.
    jnt: Vec<Vec<u8>>,
    /// WEIGHTS_0..3, f32 VEC4.
    wgt: Vec<Vec<u8>>,
    /// The positions' least components.
    lo: [f32; 3],
    /// The positions' greatest components.
    hi: [f32; 3],
}

impl Attributes {
    /// `n` vertices over `joints` joints, drawn from `rng`.
    fn new(rng: &mut Rng, n: usize, joints: usize, blender: bool) -> Attributes {
        let mut pos = Vec::with_capacity(n * 12);
        let mut nrm = Vec::with_capacity(n * 12);
        let mut uv = Vec::with_capacity(n * 8);
        let mut jnt: Vec<Vec<u8>> = (0..SETS).map(|_| Vec::with_capacity(n * 8)).collect();
        let mut wgt: Vec<Vec<u8>> = (0..SETS).map(|_| Vec::with_capacity(n * 16)).collect();
        let (mut lo, mut hi) = ([f32::MAX; 3], [f32::MIN; 3]);
        let mut picked = [0usize; SETS * 4];
        for v in 0..n {
            // A cylinder of rings: height follows the vertex number, the joints along it.
            let t = v as f32 / n as f32;
            let a = rng.unit() * std::f32::consts::TAU;
            let p = [a.cos() * 0.2, t * 2.0, a.sin() * 0.2];
            for k in 0..3 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
            for x in p {
                pos.extend_from_slice(&x.to_le_bytes());
            }
            for x in [a.cos(), 0.0, a.sin()] {
                nrm.extend_from_slice(&x.to_le_bytes());
            }
            for x in [a / std::f32::consts::TAU, t] {
                uv.extend_from_slice(&x.to_le_bytes());
            }
            // 16 distinct joints near the vertex's height, weights falling off, summing to 1.
            let centre = (t * (joints - 1) as f32) as usize;
            let mut count = 0;
            while count < picked.len() {
                let off = (rng.next() % (2 * 12 + 1)) as isize - 12;
                let j = (centre as isize + off).rem_euclid(joints as isize) as usize;
                if !picked[..count].contains(&j) {
                    picked[count] = j;
                    count += 1;
                }
            }
            let mut w: Vec<f32> = (0..picked.len())
                .map(|k| (1.0 + rng.unit()) / (1 + k * k) as f32)
                .collect();
            w.sort_by(|a, b| b.total_cmp(a));
            let sum: f32 = w.iter().sum();
            for x in &mut w {
                *x /= sum;
            }
            // Put the rounding residue on the heaviest weight so the f32 sum is within 2e-7·n.
            let residue = 1.0 - w.iter().sum::<f32>();
            w[0] += residue;
            for s in 0..SETS {
                for k in 0..4 {
                    let j = picked[s * 4 + k];
                    if blender {
                        jnt[s].push(j as u8);
                    } else {
                        jnt[s].extend_from_slice(&(j as u16).to_le_bytes());
                    }
                    wgt[s].extend_from_slice(&w[s * 4 + k].to_le_bytes());
                }
            }
        }
        Attributes {
            pos,
            nrm,
            uv,
            jnt,
            wgt,
            lo,
            hi,
        }
    }
}

/// One buffer of 4-aligned buffer views.
#[derive(Default)]
struct Bin {
    /// The buffer's bytes.
    bytes: Vec<u8>,
    /// The buffer views' JSON.
    views: Vec<serde_json::Value>,
}

impl Bin {
    /// Appends `bytes` as a new view (with `target`, if any) at the next 4-byte boundary;
    /// returns its index.
    fn add(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        while !self.bytes.len().is_multiple_of(4) {
            self.bytes.push(0);
        }
        let mut v = serde_json::json!({"buffer": 0, "byteOffset": self.bytes.len(), "byteLength": bytes.len()});
        if let Some(t) = target {
            v["target"] = t.into();
        }
        self.bytes.extend_from_slice(bytes);
        self.views.push(v);
        self.views.len() - 1
    }
}

/// The inverse bind matrices of `joints` joints up the y axis, as f32 MAT4 bytes.
fn inverse_bind_matrices(joints: usize) -> Vec<u8> {
    let mut ibm = Vec::with_capacity(joints * 64);
    for j in 0..joints {
        let y = j as f32 * 2.0 / joints as f32;
        let m = [
            1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, -y, 0.0, 1.0,
        ];
        for x in m {
            ibm.extend_from_slice(&x.to_le_bytes());
        }
    }
    ibm
}

/// Node 0, the skinned mesh, then nodes 1..=`joints`, the joints: joint 0 the root, each
/// later joint `j` a child of `j - 2`, a chain of two branches so that depth grows like a
/// spine with arms.
fn nodes(joints: usize) -> Vec<serde_json::Value> {
    let parent = |j: usize| j.saturating_sub(2);
    let mut nodes = vec![serde_json::json!({"name": "body", "mesh": 0, "skin": 0})];
    for j in 0..joints {
        let y = if j == 0 {
            0.0
        } else {
            2.0 / joints as f32 * if j < 2 { 1.0 } else { 2.0 }
        };
        let mut node =
            serde_json::json!({"name": format!("joint_{j:03}"), "translation": [0.0, y, 0.0]});
        let children: Vec<usize> = (1..joints)
            .filter(|&c| c != j && parent(c) == j)
            .map(|c| c + 1)
            .collect();
        if !children.is_empty() {
            node["children"] = serde_json::json!(children);
        }
        nodes.push(node);
    }
    nodes
}

/// The animation "wobble": `keyframes` keys at 24 per second turning every one of the
/// `joints` joints a little about x at each (angles drawn from `rng`), its data added to
/// `bin` and `accessors`.
fn wobble(
    bin: &mut Bin,
    accessors: &mut Vec<serde_json::Value>,
    rng: &mut Rng,
    joints: usize,
    keyframes: usize,
) -> serde_json::Value {
    let times: Vec<u8> = (0..keyframes)
        .flat_map(|k| (k as f32 / 24.0).to_le_bytes())
        .collect();
    let vt = bin.add(&times, None);
    let input = accessors.len();
    accessors.push(
        serde_json::json!({"bufferView": vt, "componentType": 5126, "count": keyframes,
        "type": "SCALAR", "min": [0.0], "max": [(keyframes - 1) as f32 / 24.0]}),
    );
    let (mut samplers, mut channels) = (Vec::new(), Vec::new());
    for j in 0..joints {
        let rot: Vec<u8> = (0..keyframes)
            .flat_map(|_| {
                let a = (rng.unit() - 0.5) * 0.4;
                let (s, c) = (a.sin(), a.cos());
                [s, 0.0, 0.0, c].into_iter().flat_map(f32::to_le_bytes)
            })
            .collect();
        let vr = bin.add(&rot, None);
        accessors.push(serde_json::json!({"bufferView": vr, "componentType": 5126, "count": keyframes, "type": "VEC4"}));
        samplers.push(serde_json::json!({"input": input, "output": accessors.len() - 1}));
        channels
            .push(serde_json::json!({"sampler": j, "target": {"node": j + 1, "path": "rotation"}}));
    }
    serde_json::json!({"name": "wobble", "samplers": samplers, "channels": channels})
}
