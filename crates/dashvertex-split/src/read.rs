//! A skinned primitive read for the split: its elements (indices, or the implicit
//! `0, 1, 2, …`), its vertex count, and its influence sets with every weight as stored,
//! so that what is written back for an untouched vertex is the same bits.

use dashvertex_core::{InfluenceSet, Limits};
use dashvertex_gltf::Gltf;
use dashvertex_gltf::accessor::{self, AccessorData};
use dashvertex_gltf::document::component;
use dashvertex_gltf::export::{InfluenceSource, WeightFormat};
use dashvertex_gltf::skinning::PrimitiveSets;

use crate::SplitError;
use crate::partition::{Rows, TableFull};

/// Influence sets with their stored values.
#[derive(Clone, Debug, PartialEq)]
pub struct Stored {
    /// Influence sets per vertex.
    pub sets: usize,
    /// How every set stores its weights.
    pub format: WeightFormat,
    /// Joint of slot `k` of set `s` of vertex `v` at `v × 4 × sets + 4 × s + k` (a
    /// `JOINTS_n` value: 8 or 16 bits).
    pub joints: Vec<u16>,
    /// The stored weight of the same slot: an f32's bits, or the integer.
    pub weights: Vec<u32>,
}

impl Stored {
    /// Slots per vertex.
    pub fn slots(&self) -> usize {
        4 * self.sets
    }

    /// Number of vertices.
    pub fn vertices(&self) -> usize {
        self.joints.len().checked_div(self.slots()).unwrap_or(0)
    }

    /// What a stored weight is divided by.
    pub fn scale(&self) -> f64 {
        match self.format {
            WeightFormat::F32 => 1.0,
            WeightFormat::Unorm8 => 255.0,
            WeightFormat::Unorm16 => 65535.0,
        }
    }

    /// The weight of slot `i` as the model holds it (`stored / scale`, rounded once to
    /// binary32, as `dashvertex_gltf::import` reads it).
    #[allow(clippy::cast_possible_truncation, reason = "f64 to f32 rounds")]
    pub fn weight(&self, i: usize) -> f32 {
        let raw = self.weights.get(i).copied().unwrap_or(0);
        match self.format {
            WeightFormat::F32 => f32::from_bits(raw),
            _ => (f64::from(raw) / self.scale()) as f32,
        }
    }

    /// Whether slot `i` carries weight (a NaN counts, as the validator counts it).
    pub fn used(&self, i: usize) -> bool {
        let w = self.weight(i);
        w != 0.0
    }

    /// The influence sets of vertex `v`.
    pub fn sets_of(&self, v: usize) -> Vec<InfluenceSet> {
        let mut out = Vec::with_capacity(self.sets);
        self.sets_into(v, &mut out);
        out
    }

    /// [`Stored::sets_of`] into `out` (cleared first), which keeps its allocation.
    pub fn sets_into(&self, v: usize, out: &mut Vec<InfluenceSet>) {
        out.clear();
        out.extend((0..self.sets).map(|s| {
            let at = v * self.slots() + 4 * s;
            InfluenceSet {
                joints: std::array::from_fn(|k| {
                    self.joints.get(at + k).copied().map_or(0, u32::from)
                }),
                weights: std::array::from_fn(|k| self.weight(at + k)),
            }
        }));
    }

    /// Per vertex, the joints with weight, sorted and distinct.
    pub fn vertex_joints(&self) -> Result<Rows<u16>, TableFull> {
        let mut rows = Rows::with_capacity(self.vertices(), self.joints.len());
        let mut scratch = Vec::new();
        for v in 0..self.vertices() {
            scratch.clear();
            let at = v * self.slots();
            for i in at..at + self.slots() {
                if self.used(i) {
                    scratch.push(self.joints.get(i).copied().unwrap_or(0));
                }
            }
            scratch.sort_unstable();
            scratch.dedup();
            rows.push(scratch.iter().copied())?;
        }
        Ok(rows)
    }
}

/// The part of [`Stored`] one output primitive writes: its vertices (original indices)
/// with joints renumbered through `local` (skin joint → part joint).
pub struct PartInfluences<'a> {
    /// The primitive's influences.
    pub stored: &'a Stored,
    /// The original vertex of each output vertex.
    pub vertices: &'a [u32],
    /// Skin joint → the part's joint index (`u32::MAX` for joints it does not have).
    pub local: &'a [u32],
}

impl InfluenceSource for PartInfluences<'_> {
    fn sets(&self) -> usize {
        self.stored.sets
    }
    fn vertices(&self) -> usize {
        self.vertices.len()
    }
    fn joints(&self, s: usize, v: usize) -> [u32; 4] {
        let Some(&o) = self.vertices.get(v) else {
            return [0; 4];
        };
        let at = o as usize * self.stored.slots() + 4 * s;
        std::array::from_fn(|k| {
            let j = self.stored.joints.get(at + k).copied().unwrap_or(0);
            // A weighted joint is in the part; a zero-weight slot is padding, written as
            // joint 0 when its joint is not.
            match self.local.get(j as usize) {
                Some(&l) if l != u32::MAX => l,
                _ => 0,
            }
        })
    }
    fn format(&self) -> WeightFormat {
        self.stored.format
    }
    fn weights_f32(&self, s: usize, v: usize) -> [f32; 4] {
        self.raw(s, v).map(f32::from_bits)
    }
    fn weights_int(&self, s: usize, v: usize) -> [u32; 4] {
        self.raw(s, v)
    }
}

impl PartInfluences<'_> {
    fn raw(&self, s: usize, v: usize) -> [u32; 4] {
        let Some(&o) = self.vertices.get(v) else {
            return [0; 4];
        };
        let at = o as usize * self.stored.slots() + 4 * s;
        std::array::from_fn(|k| self.stored.weights.get(at + k).copied().unwrap_or(0))
    }
}

/// A primitive ready to be split.
pub struct Read {
    /// Vertices per element.
    pub arity: usize,
    /// The list mode its elements are drawn with as parts: POINTS (0), LINES (1) or
    /// TRIANGLES (4); a strip, fan or loop is read as the list it draws.
    pub mode: u32,
    /// Element vertex indices, `arity` per element.
    pub indices: Vec<u32>,
    /// The index accessor's component type (UNSIGNED_SHORT when there is none).
    pub index_type: u32,
    /// Vertex count.
    pub vertices: usize,
    /// The influence sets.
    pub stored: Stored,
}

/// How a primitive's index sequence makes elements (glTF 2.0, 3.7.2.1 "Topology Types").
#[derive(Clone, Copy)]
enum List {
    Points,
    Lines,
    LineLoop,
    LineStrip,
    Triangles,
    TriangleStrip,
    TriangleFan,
}

impl List {
    /// The list mode the elements are written with.
    fn list_mode(self) -> u32 {
        match self {
            Self::Points => 0,
            Self::Lines | Self::LineLoop | Self::LineStrip => 1,
            Self::Triangles | Self::TriangleStrip | Self::TriangleFan => 4,
        }
    }

    /// The elements of the index sequence `v`, as a list: a strip or fan of n indices
    /// draws n - 2 triangles (a strip's odd ones with their last two corners swapped, so
    /// every triangle keeps the strip's winding), a line strip n - 1 lines and a loop n. At most
    /// three indices per index of `v`: bounded by what the file carries.
    fn elements(self, v: Vec<u32>) -> Vec<u32> {
        let n = v.len();
        let at = |i: usize| v.get(i).copied().unwrap_or(0);
        match self {
            Self::Points | Self::Lines | Self::Triangles => v,
            Self::LineStrip | Self::LineLoop => {
                let closed = matches!(self, Self::LineLoop) && n >= 2;
                let lines = n.saturating_sub(1) + usize::from(closed);
                let mut out = Vec::with_capacity(2 * lines);
                for i in 1..n {
                    out.extend([at(i - 1), at(i)]);
                }
                if closed {
                    out.extend([at(n - 1), at(0)]);
                }
                out
            }
            Self::TriangleStrip => {
                let mut out = Vec::with_capacity(3 * n.saturating_sub(2));
                for i in 2..n {
                    if i % 2 == 0 {
                        out.extend([at(i - 2), at(i - 1), at(i)]);
                    } else {
                        out.extend([at(i - 2), at(i), at(i - 1)]);
                    }
                }
                out
            }
            Self::TriangleFan => {
                let mut out = Vec::with_capacity(3 * n.saturating_sub(2));
                for i in 2..n {
                    out.extend([at(i - 1), at(i), at(0)]);
                }
                out
            }
        }
    }
}

/// Refuses primitive `p` with `what`, located at `pointer` under it.
fn refuse(p: &PrimitiveSets, tail: &str, what: String) -> SplitError {
    SplitError::Unsupported {
        mesh: p.mesh,
        primitive: p.primitive,
        pointer: format!("{}{tail}", p.pointer()),
        what,
    }
}

fn read_acc<'g>(
    gltf: &'g Gltf,
    p: &PrimitiveSets,
    tail: &str,
    index: u64,
    limits: &Limits,
) -> Result<AccessorData<'g>, SplitError> {
    accessor::read(gltf, index, limits).map_err(|e| refuse(p, tail, e.to_string()))
}

/// Reads primitive `p` of `gltf`, whose skin has `skin_joints` joints.
pub fn read(
    gltf: &Gltf,
    p: &PrimitiveSets,
    skin_joints: usize,
    limits: &Limits,
) -> Result<Read, SplitError> {
    let json = gltf
        .value
        .pointer(&p.pointer())
        .ok_or_else(|| refuse(p, "", "the primitive is missing".into()))?;
    let (arity, list) = topology(p, json)?;
    let n = vertex_count(gltf, p)?;
    let (format, views) = influence_views(gltf, p, limits)?;
    let stored = store(p, &views, format, n, skin_joints)?;
    let (indices, index_type) = read_indices(gltf, p, json, n, limits)?;
    let indices = list.elements(indices);
    if indices.len() % arity != 0 {
        return Err(refuse(
            p,
            "/indices",
            format!(
                "{} indices do not make whole elements of {arity} vertices",
                indices.len()
            ),
        ));
    }
    Ok(Read {
        arity,
        mode: list.list_mode(),
        indices,
        index_type,
        vertices: n,
        stored,
    })
}

/// The vertices per element of primitive `p` (`json`) and how its `mode` makes
/// elements; refused for a mode glTF does not define.
fn topology(p: &PrimitiveSets, json: &serde_json::Value) -> Result<(usize, List), SplitError> {
    let mode = json
        .get("mode")
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(4);
    Ok(match mode {
        0 => (1, List::Points),
        1 => (2, List::Lines),
        2 => (2, List::LineLoop),
        3 => (2, List::LineStrip),
        4 => (3, List::Triangles),
        5 => (3, List::TriangleStrip),
        6 => (3, List::TriangleFan),
        m => {
            return Err(refuse(
                p,
                "/mode",
                format!("mode {m} is not a glTF primitive mode (0 to 6)"),
            ));
        }
    })
}

/// The vertex count of primitive `p`: the count every attribute shares (0 without
/// attributes); refused when an attribute is not an accessor or the counts differ.
fn vertex_count(gltf: &Gltf, p: &PrimitiveSets) -> Result<usize, SplitError> {
    // Every attribute has the same count: the vertex count.
    let mut vertices: Option<u64> = None;
    for (name, acc) in &p.attributes {
        let tail = format!("/attributes/{name}");
        let Some(acc) = acc else {
            return Err(refuse(
                p,
                &tail,
                "the attribute is not an accessor index".into(),
            ));
        };
        let count = usize::try_from(*acc)
            .ok()
            .and_then(|i| gltf.root.accessors.get(i))
            .map(|a| a.count)
            .ok_or_else(|| refuse(p, &tail, format!("accessor {acc} does not exist")))?;
        match vertices {
            Some(v) if v != count => {
                return Err(refuse(
                    p,
                    &tail,
                    format!("{count} elements, where the primitive's other attributes have {v}"),
                ));
            }
            _ => vertices = Some(count),
        }
    }
    Ok(usize::try_from(vertices.unwrap_or(0)).unwrap_or(usize::MAX))
}

/// Each influence set's JOINTS and WEIGHTS accessors of primitive `p`, with the weight
/// format they all share; refused for malformed names, a missing or incomplete set,
/// types `split` does not write, or sets whose weight formats differ.
fn influence_views<'g>(
    gltf: &'g Gltf,
    p: &PrimitiveSets,
    limits: &Limits,
) -> Result<(WeightFormat, Vec<(AccessorData<'g>, AccessorData<'g>)>), SplitError> {
    if !p.malformed.is_empty() {
        return Err(refuse(
            p,
            "/attributes",
            format!(
                "malformed influence attribute names: {}",
                p.malformed.join(", ")
            ),
        ));
    }
    let mut format = None;
    let mut views = Vec::new();
    for (k, s) in p.sets.iter().enumerate() {
        let (Some(j), Some(w)) = (s.joints, s.weights) else {
            return Err(refuse(
                p,
                "/attributes",
                format!("set {} lacks JOINTS_{0} or WEIGHTS_{0}", s.n),
            ));
        };
        if s.n as usize != k {
            return Err(refuse(p, "/attributes", format!("set {k} is missing")));
        }
        let jt = format!("/attributes/JOINTS_{}", s.n);
        let wt = format!("/attributes/WEIGHTS_{}", s.n);
        let jd = read_acc(gltf, p, &jt, j, limits)?;
        let wd = read_acc(gltf, p, &wt, w, limits)?;
        if jd.components != 4 || !matches!(jd.component_type, component::U8 | component::U16) {
            return Err(refuse(
                p,
                &jt,
                "JOINTS must be VEC4 UNSIGNED_BYTE or UNSIGNED_SHORT".into(),
            ));
        }
        let f = match (wd.component_type, wd.normalized, wd.components) {
            (component::F32, false, 4) => WeightFormat::F32,
            (component::U8, true, 4) => WeightFormat::Unorm8,
            (component::U16, true, 4) => WeightFormat::Unorm16,
            _ => {
                return Err(refuse(
                    p,
                    &wt,
                    "WEIGHTS must be VEC4 FLOAT or normalized UNSIGNED_BYTE / UNSIGNED_SHORT"
                        .into(),
                ));
            }
        };
        if format.is_some_and(|g| g != f) {
            return Err(refuse(
                p,
                &wt,
                "the sets store weights in different formats; `dashvertex convert` writes them in one"
                    .into(),
            ));
        }
        format = Some(f);
        views.push((jd, wd));
    }
    let format = format.ok_or_else(|| refuse(p, "/attributes", "no influence set".into()))?;
    Ok((format, views))
}

/// The influences of `views` for `n` vertices, stored as `format`; refused at the first
/// used slot whose joint is not among the skin's `skin_joints`.
fn store(
    p: &PrimitiveSets,
    views: &[(AccessorData<'_>, AccessorData<'_>)],
    format: WeightFormat,
    n: usize,
    skin_joints: usize,
) -> Result<Stored, SplitError> {
    let sets = views.len();
    let mut stored = Stored {
        sets,
        format,
        joints: Vec::with_capacity(n.saturating_mul(4 * sets).min(1 << 28)),
        weights: Vec::with_capacity(n.saturating_mul(4 * sets).min(1 << 28)),
    };
    for v in 0..n {
        for (s, (jd, wd)) in views.iter().enumerate() {
            let j = jd.get4(v);
            let w = wd.get4(v);
            for k in 0..4 {
                let (jk, wk) = (
                    j.get(k).copied().unwrap_or(0.0),
                    w.get(k).copied().unwrap_or(0.0),
                );
                #[allow(
                    clippy::cast_possible_truncation,
                    clippy::cast_sign_loss,
                    reason = "JOINTS and integer WEIGHTS are whole numbers of u8/u16 (checked above)"
                )]
                let (ji, raw) = (
                    jk as u16,
                    match format {
                        WeightFormat::F32 => (wk as f32).to_bits(),
                        _ => wk as u32,
                    },
                );
                let at = stored.joints.len();
                stored.joints.push(ji);
                let ji = u32::from(ji);
                stored.weights.push(raw);
                if stored.used(at) && ji as usize >= skin_joints {
                    return Err(refuse(
                        p,
                        &format!("/attributes/JOINTS_{s}"),
                        format!(
                            "vertex {v} slot {k}: joint {ji} is not in the skin ({skin_joints} joints); \
                             `dashvertex fix` or `dash-validate` says more"
                        ),
                    ));
                }
            }
        }
    }
    Ok(stored)
}

/// Primitive `p`'s index list and its component type: `0..n` as UNSIGNED_SHORT without
/// an index accessor; refused when the indices are not unsigned integer scalars or one
/// is not below the vertex count `n`.
fn read_indices(
    gltf: &Gltf,
    p: &PrimitiveSets,
    json: &serde_json::Value,
    n: usize,
    limits: &Limits,
) -> Result<(Vec<u32>, u32), SplitError> {
    let index_acc = json.get("indices").and_then(serde_json::Value::as_u64);
    Ok(match index_acc {
        None => (
            (0..u32::try_from(n).unwrap_or(u32::MAX)).collect::<Vec<u32>>(),
            component::U16,
        ),
        Some(i) => {
            let d = read_acc(gltf, p, "/indices", i, limits)?;
            if d.components != 1
                || !matches!(
                    d.component_type,
                    component::U8 | component::U16 | component::U32
                )
            {
                return Err(refuse(
                    p,
                    "/indices",
                    "indices must be SCALAR unsigned integers".into(),
                ));
            }
            let mut out = Vec::with_capacity(d.count);
            for e in 0..d.count {
                let x = d.get(e, 0);
                #[allow(
                    clippy::cast_possible_truncation,
                    clippy::cast_sign_loss,
                    reason = "an unsigned integer index of at most 32 bits"
                )]
                let x = x as u32;
                if x as usize >= n {
                    return Err(refuse(
                        p,
                        "/indices",
                        format!("index {e} is {x}; the primitive has {n} vertices"),
                    ));
                }
                out.push(x);
            }
            (out, d.component_type)
        }
    })
}
