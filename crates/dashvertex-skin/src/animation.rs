//! glTF animations: channels read from their accessors, sampled at any time as the
//! specification defines STEP, LINEAR (slerp for rotations) and CUBICSPLINE.

use std::sync::Arc;

use dashvertex_core::Limits;
use dashvertex_gltf::Gltf;
use dashvertex_gltf::accessor::AccessorData;

use crate::SkinError;
use crate::math::{normalize, slerp};
use crate::rig::{Local, Pose};

/// Which property a channel drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// `translation` (3 components).
    Translation,
    /// `rotation` (a quaternion, 4 components).
    Rotation,
    /// `scale` (3 components).
    Scale,
}

impl Path {
    fn components(self) -> usize {
        match self {
            Path::Rotation => 4,
            _ => 3,
        }
    }
}

/// How a sampler interpolates between keyframes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    /// The earlier keyframe's value until the next.
    Step,
    /// Linear; spherical linear for rotations.
    Linear,
    /// Cubic Hermite with an in-tangent, a value and an out-tangent per keyframe.
    CubicSpline,
}

/// One channel, its keyframes read out.
#[derive(Clone, Debug, PartialEq)]
pub struct Channel {
    /// The node it drives.
    pub node: usize,
    /// The property.
    pub path: Path,
    /// The interpolation.
    pub interpolation: Interpolation,
    /// Keyframe times, in seconds, as the input accessor holds them (shared by the
    /// channels of one sampler).
    pub times: Arc<[f64]>,
    /// Output values, `components` per keyframe (three times that for CUBICSPLINE:
    /// in-tangent, value, out-tangent).
    pub values: Arc<[f64]>,
}

/// An animation: the channels that drive node transforms (morph-target `weights`
/// channels and channels without a node are left out: they move no joint).
#[derive(Clone, Debug, PartialEq)]
pub struct Animation {
    /// Its index in the document.
    pub index: usize,
    /// Its name, if it has one.
    pub name: Option<String>,
    /// The channels.
    pub channels: Vec<Channel>,
}

/// Reads every animation of `gltf`.
pub fn animations(gltf: &Gltf, limits: &Limits) -> Result<Vec<Animation>, SkinError> {
    let Some(list) = gltf.value.get("animations").and_then(|v| v.as_array()) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::with_capacity(list.len());
    let mut cache: std::collections::HashMap<(Option<u64>, Option<u64>, usize), Keyframes> =
        std::collections::HashMap::new();
    let mut budget = MAX_KEYFRAME_VALUES;
    for (index, a) in list.iter().enumerate() {
        let samplers = a.get("samplers").and_then(|v| v.as_array());
        let mut channels = Vec::new();
        for (c_index, c) in a
            .get("channels")
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
            .enumerate()
        {
            let target = c.get("target");
            let path = match target.and_then(|t| t.get("path")).and_then(|p| p.as_str()) {
                Some("translation") => Path::Translation,
                Some("rotation") => Path::Rotation,
                Some("scale") => Path::Scale,
                _ => continue,
            };
            let Some(node) = target
                .and_then(|t| t.get("node"))
                .and_then(|n| n.as_u64())
                .and_then(|n| usize::try_from(n).ok())
            else {
                continue;
            };
            let sampler_index = c
                .get("sampler")
                .and_then(|s| s.as_u64())
                .and_then(|s| usize::try_from(s).ok())
                .unwrap_or(usize::MAX);
            let sampler = samplers.and_then(|l| l.get(sampler_index)).ok_or_else(|| {
                SkinError::Animation {
                    animation: index,
                    pointer: format!("/animations/{index}/channels/{c_index}/sampler"),
                    what: "a channel names no sampler",
                }
            })?;
            let interpolation = match sampler.get("interpolation").and_then(|i| i.as_str()) {
                None | Some("LINEAR") => Interpolation::Linear,
                Some("STEP") => Interpolation::Step,
                Some("CUBICSPLINE") => Interpolation::CubicSpline,
                Some(_) => {
                    return Err(SkinError::Animation {
                        animation: index,
                        pointer: format!(
                            "/animations/{index}/samplers/{sampler_index}/interpolation"
                        ),
                        what: "a sampler has an unknown interpolation (LINEAR, STEP or CUBICSPLINE)",
                    });
                }
            };
            let accessor = |key: &'static str| {
                let i = sampler.get(key).and_then(|v| v.as_u64()).ok_or_else(|| {
                    SkinError::Animation {
                        animation: index,
                        pointer: format!("/animations/{index}/samplers/{sampler_index}/{key}"),
                        what: "a sampler lacks input or output",
                    }
                })?;
                dashvertex_gltf::accessor::read(gltf, i, limits).map_err(SkinError::Accessor)
            };
            let key = |k: &'static str| sampler.get(k).and_then(|v| v.as_u64());
            let comps = path.components();
            let per_key = comps
                * if interpolation == Interpolation::CubicSpline {
                    3
                } else {
                    1
                };
            // Channels that share a sampler's accessors share its keyframes: read once.
            let cache_key = (key("input"), key("output"), per_key);
            let (times, values) = match cache.get(&cache_key) {
                Some(kv) => kv.clone(),
                None => {
                    let kv = keyframes(
                        &accessor("input")?,
                        &accessor("output")?,
                        per_key,
                        &mut budget,
                        index,
                        sampler_index,
                    )?;
                    cache.insert(cache_key, kv.clone());
                    kv
                }
            };
            channels.push(Channel {
                node,
                path,
                interpolation,
                times,
                values,
            });
        }
        out.push(Animation {
            index,
            name: a.get("name").and_then(|n| n.as_str()).map(str::to_owned),
            channels,
        });
    }
    Ok(out)
}

/// The most keyframe values (times and outputs) a document's animations may hold.
pub const MAX_KEYFRAME_VALUES: usize = 1 << 24;

/// A sampler's times and output values.
type Keyframes = (Arc<[f64]>, Arc<[f64]>);

/// Reads a sampler's keyframes, charging them to `budget`; times must be finite and
/// strictly increasing, which is checked as they are read (an accessor without data,
/// all zeros, fails at its second time, before anything large is allocated), and every
/// output value finite.
fn keyframes(
    input: &AccessorData<'_>,
    output: &AccessorData<'_>,
    per_key: usize,
    budget: &mut usize,
    animation: usize,
    sampler: usize,
) -> Result<Keyframes, SkinError> {
    let keys = input.count;
    let need = keys.saturating_mul(per_key + 1);
    if keys == 0 || output.count.saturating_mul(output.components) < keys.saturating_mul(per_key) {
        return Err(SkinError::Animation {
            animation,
            pointer: format!("/animations/{animation}/samplers/{sampler}/output"),
            what: "a sampler has fewer output values than its keyframes need",
        });
    }
    if need > *budget {
        return Err(SkinError::TooManyKeyframes);
    }
    let mut times = Vec::new();
    let mut last = f64::NEG_INFINITY;
    for k in 0..keys {
        let t = input.get(k, 0);
        if !t.is_finite() || t <= last {
            return Err(SkinError::Animation {
                animation,
                pointer: format!("/animations/{animation}/samplers/{sampler}/input"),
                what: "keyframe times are not finite and strictly increasing",
            });
        }
        last = t;
        times.push(t);
    }
    *budget -= need;
    let comps = output.components.max(1);
    let mut values = Vec::with_capacity(keys * per_key);
    for v in 0..keys * per_key {
        let x = value(output, v / comps, v % comps);
        if !x.is_finite() {
            // A NaN scale or translation would skin to NaN, which compares as no
            // displacement; a NaN rotation would normalise to the identity.
            return Err(SkinError::NonFiniteKeyframe {
                animation,
                sampler,
                keyframe: v / per_key.max(1),
                value: x,
            });
        }
        values.push(x);
    }
    Ok((times.into(), values.into()))
}

/// Component `c` of element `i`, normalised integers mapped to [-1, 1] or [0, 1] as the
/// specification (and KHR_mesh_quantization) defines.
fn value(a: &AccessorData<'_>, i: usize, c: usize) -> f64 {
    let x = a.get(i, c);
    if !a.normalized {
        return x;
    }
    match a.component_type {
        5120 => (x / 127.0).max(-1.0),
        5121 => x / 255.0,
        5122 => (x / 32767.0).max(-1.0),
        5123 => x / 65535.0,
        _ => x,
    }
}

/// `anims` of the document `from`, moved onto the nodes of `to` with the same names (a
/// pose file exported separately, an action from Blender): channels whose node has no
/// namesake in `to` are left out; it is an error when no channel is left.
pub fn retarget(anims: &[Animation], from: &Gltf, to: &Gltf) -> Result<Vec<Animation>, SkinError> {
    let name = |g: &Gltf, i: usize| g.root.nodes.get(i).and_then(|n| n.name.clone());
    let mut by_name = std::collections::HashMap::new();
    for (i, n) in to.root.nodes.iter().enumerate() {
        if let Some(n) = &n.name {
            by_name.entry(n.clone()).or_insert(i);
        }
    }
    let out: Vec<Animation> = anims
        .iter()
        .map(|a| Animation {
            index: a.index,
            name: a.name.clone(),
            channels: a
                .channels
                .iter()
                .filter_map(|c| {
                    let node = *by_name.get(&name(from, c.node)?)?;
                    Some(Channel { node, ..c.clone() })
                })
                .collect(),
        })
        .collect();
    if out.iter().all(|a| a.channels.is_empty()) {
        return Err(SkinError::NoMatchingNodes);
    }
    Ok(out)
}

impl Animation {
    /// Every keyframe time of every channel, ascending, each once. Channels that share
    /// a sampler's times share one array, taken once: ten thousand channels on one
    /// sampler cost its keyframes, not ten thousand times them.
    pub fn times(&self) -> Vec<f64> {
        let mut seen = std::collections::HashSet::new();
        let mut t: Vec<f64> = self
            .channels
            .iter()
            .filter(|c| seen.insert(c.times.as_ptr().addr()))
            .flat_map(|c| c.times.iter().copied())
            .collect();
        t.sort_by(f64::total_cmp);
        t.dedup();
        t
    }

    /// `rest` with every channel applied at time `t` (clamped to each channel's range).
    pub fn pose_at(&self, rest: &Pose, t: f64) -> Pose {
        let mut pose = rest.clone();
        for c in &self.channels {
            let Some(local) = pose.local.get_mut(c.node) else {
                continue;
            };
            c.apply(local, t);
        }
        pose
    }
}

impl Channel {
    fn comps(&self) -> usize {
        self.path.components()
    }

    /// Keyframe `k`'s element `part` (0 in-tangent, 1 value, 2 out-tangent for
    /// CUBICSPLINE; always the value otherwise), padded to four components.
    fn element(&self, k: usize, part: usize) -> [f64; 4] {
        let comps = self.comps();
        let (stride, part) = if self.interpolation == Interpolation::CubicSpline {
            (3 * comps, part)
        } else {
            (comps, 0)
        };
        let base = k * stride + part * comps;
        let mut out = [0.0, 0.0, 0.0, 1.0];
        for (i, o) in out.iter_mut().enumerate().take(comps) {
            *o = self.values.get(base + i).copied().unwrap_or(0.0);
        }
        out
    }

    /// Sets the property this channel drives in `local` to its value at time `t`. glTF
    /// animates only TRS nodes; a matrix node a pose file drives (`--poses`) is
    /// decomposed, so the parts no channel drives keep their values.
    pub fn apply(&self, local: &mut Local, t: f64) {
        let v = self.sample(t);
        let (mut tr, mut r, mut s) = match *local {
            Local::Trs { t, r, s } => (t, r, s),
            Local::Matrix(m) => crate::math::decompose(&m),
        };
        match self.path {
            Path::Translation => tr = [v[0], v[1], v[2]],
            Path::Rotation => r = normalize(v),
            Path::Scale => s = [v[0], v[1], v[2]],
        }
        *local = Local::Trs { t: tr, r, s };
    }

    /// The channel's value at time `t`.
    pub fn sample(&self, t: f64) -> [f64; 4] {
        let n = self.times.len();
        let first = self.times.first().copied().unwrap_or(0.0);
        let last = self.times.last().copied().unwrap_or(0.0);
        if n <= 1 || t <= first {
            return self.element(0, 1);
        }
        if t >= last {
            return self.element(n - 1, 1);
        }
        // The keyframe interval holding t: times[k] <= t < times[k + 1].
        let k = self.times.partition_point(|&x| x <= t).saturating_sub(1);
        let (t0, t1) = (
            self.times.get(k).copied().unwrap_or(first),
            self.times.get(k + 1).copied().unwrap_or(last),
        );
        let dt = t1 - t0;
        let u = if dt > 0.0 { (t - t0) / dt } else { 0.0 };
        let comps = self.comps();
        match self.interpolation {
            Interpolation::Step => self.element(k, 1),
            Interpolation::Linear => {
                let (a, b) = (self.element(k, 1), self.element(k + 1, 1));
                if self.path == Path::Rotation {
                    slerp(a, b, u)
                } else {
                    let mut v = a;
                    for ((o, x), y) in v.iter_mut().zip(a).zip(b).take(comps) {
                        *o = x + u * (y - x);
                    }
                    v
                }
            }
            Interpolation::CubicSpline => {
                let (v0, b0) = (self.element(k, 1), self.element(k, 2));
                let (a1, v1) = (self.element(k + 1, 0), self.element(k + 1, 1));
                let (u2, u3) = (u * u, u * u * u);
                let h00 = 2.0 * u3 - 3.0 * u2 + 1.0;
                let h10 = u3 - 2.0 * u2 + u;
                let h01 = -2.0 * u3 + 3.0 * u2;
                let h11 = u3 - u2;
                let mut v = [0.0, 0.0, 0.0, 1.0];
                let parts = v0.into_iter().zip(b0).zip(v1).zip(a1);
                for (o, (((p0, m0), p1), m1)) in v.iter_mut().zip(parts).take(comps) {
                    *o = h00 * p0 + h10 * dt * m0 + h01 * p1 + h11 * dt * m1;
                }
                if self.path == Path::Rotation {
                    normalize(v)
                } else {
                    v
                }
            }
        }
    }
}
