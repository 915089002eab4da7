//! Reducer input: the bones (names and parents) and, per vertex, the candidate
//! influences, whatever format they came from.

use dashvertex_core::{InfluenceSet, Mesh};

use crate::manifest::BoneRef;

mod block;
mod lists;
pub use block::CandidateBlock;
pub use lists::InfluenceLists;

/// One candidate influence.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cand {
    /// Index into [`Input::bones`].
    pub bone: u32,
    /// The weight as read.
    pub weight: f32,
    /// Where it came from within the vertex (a set × 4 + slot, or a group entry).
    pub at: u32,
}

/// Vertices per parallel chunk of the input checks.
const CHUNK: usize = 1 << 15;

/// Candidates of every vertex, stored contiguously (one allocation, not one per vertex).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Candidates {
    starts: Vec<usize>,
    ends: Vec<usize>,
    entries: Vec<Cand>,
}

impl Candidates {
    /// Room for `counts[v]` candidates of each vertex `v` (for lists whose lengths are
    /// known; [`InfluenceLists`] needs none).
    pub fn with_counts(counts: &[u32]) -> Self {
        let mut starts = Vec::with_capacity(counts.len());
        let mut total = 0usize;
        for &c in counts {
            starts.push(total);
            total += c as usize;
        }
        Candidates {
            ends: starts.clone(),
            starts,
            entries: vec![
                Cand {
                    bone: 0,
                    weight: 0.0,
                    at: 0
                };
                total
            ],
        }
    }

    /// Adds a candidate to vertex `v`; `false` (nothing stored) when the vertex has no
    /// room left of the count given for it, or does not exist.
    #[must_use = "a candidate beyond the vertex's room is not stored"]
    pub fn push(&mut self, v: usize, bone: u32, weight: f32, at: u32) -> bool {
        let limit = self
            .starts
            .get(v + 1)
            .copied()
            .unwrap_or(self.entries.len());
        if let Some(end) = self.ends.get_mut(v).filter(|e| **e < limit) {
            if let Some(slot) = self.entries.get_mut(*end) {
                *slot = Cand { bone, weight, at };
            }
            *end += 1;
            return true;
        }
        false
    }

    /// The candidates of vertex `v`.
    pub fn of(&self, v: usize) -> &[Cand] {
        match (self.starts.get(v), self.ends.get(v)) {
            (Some(&s), Some(&e)) => self.entries.get(s..e).unwrap_or_default(),
            _ => &[],
        }
    }

    /// Number of vertices.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// True when there is no vertex.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// The largest number of candidates of any vertex.
    pub fn max_per_vertex(&self) -> usize {
        self.starts
            .iter()
            .zip(&self.ends)
            .map(|(s, e)| e - s)
            .max()
            .unwrap_or(0)
    }
}

/// Where the candidates came from, for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A per-bone weights document.
    BoneWeights,
    /// Influence sets (DashVertex or glTF JOINTS_n / WEIGHTS_n).
    Sets,
    /// glTF per-bone attributes; the names of the attributes by input bone.
    Attributes(Vec<Option<String>>),
}

/// The candidates, in the layout the source had.
#[derive(Clone, Debug, PartialEq)]
pub enum Data<'a> {
    /// A list per vertex.
    Lists(Candidates),
    /// One weight column per bone: `(bone, weights)`, one weight per vertex.
    Columns(Vec<(u32, Vec<f32>)>),
    /// Influence sets, set-major: `sets[s][v]`.
    Sets(Vec<Vec<InfluenceSet>>),
    /// glTF influence sets read where they lie in the file's buffers (nothing copied);
    /// bone indices are joint indices of the skin.
    Views(Vec<dashvertex_gltf::import::SetView<'a>>),
}

/// Everything the reducer needs. `'a` is the lifetime of a glTF file whose buffers the
/// influences are read from ([`Data::Views`]); other inputs own their data.
#[derive(Clone, Debug, PartialEq)]
pub struct Input<'a> {
    /// The bones candidates refer to (by position).
    pub bones: Vec<BoneRef>,
    /// One position per vertex.
    pub positions: Vec<[f32; 3]>,
    /// The candidates.
    pub data: Data<'a>,
    /// Where candidates came from.
    pub origin: Origin,
}

/// Why an input cannot be reduced.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InputError {
    /// A bone index has no bone.
    #[error(
        "vertex {vertex}, set {set} slot {slot}: bone index {bone} has no bone (the skeleton has {bones})"
    )]
    BoneRange {
        /// Vertex.
        vertex: usize,
        /// Set.
        set: usize,
        /// Slot.
        slot: usize,
        /// The index.
        bone: u32,
        /// Skeleton size.
        bones: usize,
    },
    /// A bone index of a per-vertex list ([`InfluenceLists`]) has no bone.
    #[error(
        "vertex {vertex}, entry {entry}: bone index {bone} has no bone (the skeleton has {bones})"
    )]
    ListBone {
        /// Vertex.
        vertex: usize,
        /// The pair's place in the vertex's list.
        entry: usize,
        /// The index.
        bone: u32,
        /// Skeleton size.
        bones: usize,
    },
}

impl<'a> Input<'a> {
    /// Describes where candidate `c` of vertex `v` came from.
    pub fn describe(&self, v: usize, c: &Cand) -> String {
        let name = self
            .bones
            .get(c.bone as usize)
            .map_or("?", |b| b.name.as_str());
        match &self.origin {
            Origin::BoneWeights => format!("vertex {v}, bone {name:?}"),
            Origin::Sets => format!(
                "vertex {v}, set {} slot {} (bone {name:?})",
                c.at / 4,
                c.at % 4
            ),
            Origin::Attributes(a) => match a.get(c.bone as usize).and_then(Option::as_deref) {
                Some(attr) => format!("vertex {v}, attribute {attr} (bone {name:?})"),
                None => format!("vertex {v}, bone {name:?}"),
            },
        }
    }

    /// Number of vertices: one per position, or for glTF sets read in place (whose
    /// positions stay in the file) one per element of the first set.
    pub fn len(&self) -> usize {
        match &self.data {
            Data::Views(sets) if self.positions.is_empty() => {
                sets.first().map_or(0, |s| s.joints.count)
            }
            _ => self.positions.len(),
        }
    }

    /// True when there is no vertex.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True when a vertex may list a bone twice (columns cannot).
    pub fn may_repeat_bones(&self) -> bool {
        !matches!(self.data, Data::Columns(_))
    }

    /// Replaces `out` with the non-zero candidates of vertex `v`.
    pub fn candidates(&self, v: usize, out: &mut Vec<Cand>) {
        out.clear();
        match &self.data {
            Data::Lists(c) => out.extend_from_slice(c.of(v)),
            Data::Columns(cols) => {
                for (bone, col) in cols {
                    if let Some(&w) = col.get(v).filter(|w| **w != 0.0) {
                        out.push(Cand {
                            bone: *bone,
                            weight: w,
                            at: *bone,
                        });
                    }
                }
            }
            Data::Sets(sets) => {
                for (s, set) in sets.iter().enumerate() {
                    let Some(x) = set.get(v) else { continue };
                    push_set(out, s, x);
                }
            }
            Data::Views(sets) => {
                for (s, set) in sets.iter().enumerate() {
                    push_set(out, s, &set.get(v));
                }
            }
        }
    }

    /// The candidates of vertex `v` (allocates; for tests and tools).
    pub fn candidates_of(&self, v: usize) -> Vec<Cand> {
        let mut out = Vec::new();
        self.candidates(v, &mut out);
        out
    }

    /// The largest number of candidates of any vertex.
    pub fn max_per_vertex(&self) -> usize {
        match &self.data {
            Data::Lists(c) => c.max_per_vertex(),
            _ => {
                let mut buf = Vec::new();
                (0..self.len())
                    .map(|v| {
                        self.candidates(v, &mut buf);
                        buf.len()
                    })
                    .max()
                    .unwrap_or(0)
            }
        }
    }

    /// Input from influence sets whose bone indices refer to `bones`. When `bones` is
    /// empty (no skeleton), only the bones that carry weight become input bones, named
    /// `#N` by their index in the file (see [`Input::unnamed_indices`]): memory and work
    /// follow the influences, not the largest index a file names.
    pub fn from_mesh(mesh: &Mesh, bones: Vec<BoneRef>) -> Result<Input<'static>, InputError> {
        let named = !bones.is_empty();
        let mut used: Vec<u32> = Vec::new();
        for v in 0..mesh.len() {
            for (s, set) in mesh.sets_of(v).enumerate() {
                for (k, (j, w)) in set.pairs().enumerate() {
                    if w == 0.0 {
                        continue;
                    }
                    if named && j as usize >= bones.len() {
                        return Err(InputError::BoneRange {
                            vertex: v,
                            set: s,
                            slot: k,
                            bone: j,
                            bones: bones.len(),
                        });
                    }
                    if !named {
                        used.push(j);
                    }
                }
            }
        }
        let mut sets = vec![mesh.vertices().iter().map(|v| v.skin).collect::<Vec<_>>()];
        sets.extend(mesh.extra_sets().iter().cloned());
        let bones = if named {
            bones
        } else {
            used.sort_unstable();
            used.dedup();
            // Renumber the file's indices to positions in `used` (weightless slots to 0).
            // A position in `used`, which holds distinct u32s, is below 2^32.
            #[allow(clippy::cast_possible_truncation)]
            let position = |j: &u32| used.binary_search(j).map_or(0, |p| p as u32);
            for set in &mut sets {
                for x in set.iter_mut() {
                    for (j, w) in x.joints.iter_mut().zip(&x.weights) {
                        *j = if *w == 0.0 { 0 } else { position(j) };
                    }
                }
            }
            used.iter()
                .map(|i| BoneRef {
                    name: format!("#{i}"),
                    parent: None,
                })
                .collect()
        };
        Ok(Input {
            bones,
            positions: mesh.vertices().iter().map(|v| v.position).collect(),
            data: Data::Sets(sets),
            origin: Origin::Sets,
        })
    }

    /// Input from glTF influence sets read in place, with bone indices referring to
    /// `bones` (the skin's joints). Every weighted joint index is checked against the
    /// skin first. Without a skin (`bones` empty) the sets are copied out and their
    /// bones kept sparse, as [`Input::from_mesh`] does.
    ///
    /// `positions` may be empty (the reducer does not need them): the vertex count is
    /// then the sets' element count.
    pub fn from_views(
        views: Vec<dashvertex_gltf::import::SetView<'a>>,
        bones: Vec<BoneRef>,
        positions: Vec<[f32; 3]>,
    ) -> Result<Input<'a>, InputError> {
        let n = if positions.is_empty() {
            views.first().map_or(0, |s| s.joints.count)
        } else {
            positions.len()
        };
        if bones.is_empty() {
            let positions = if positions.is_empty() {
                vec![[0.0; 3]; n]
            } else {
                positions
            };
            let mut vertices = Vec::with_capacity(n);
            for (v, &position) in positions.iter().enumerate() {
                let skin = views.first().map_or(InfluenceSet::ZERO, |s| s.get(v));
                vertices.push(dashvertex_core::Vertex { position, skin });
            }
            let extra = views
                .iter()
                .skip(1)
                .map(|s| (0..n).map(|v| s.get(v)).collect())
                .collect();
            let mesh =
                Mesh::from_parts(true, vertices, extra).map_err(|_| InputError::BoneRange {
                    vertex: 0,
                    set: 0,
                    slot: 0,
                    bone: 0,
                    bones: 0,
                })?;
            return Input::from_mesh(&mesh, bones);
        }
        // Every weighted joint index in range, checked in parallel chunks; the first
        // fault in vertex order is reported, whatever the thread count.
        let nb = bones.len();
        // Sets are decoded a block of vertices at a time; the first fault is the least
        // (vertex, set, slot) of each set's first.
        let first_fault = |range: std::ops::Range<usize>| {
            const BLOCK: usize = 256;
            let mut block = vec![InfluenceSet::ZERO; BLOCK];
            for start in range.clone().step_by(BLOCK) {
                let end = (start + BLOCK).min(range.end);
                let block = block.get_mut(..end - start).unwrap_or_default();
                let mut first: Option<(usize, usize, usize, u32)> = None;
                for (s, set) in views.iter().enumerate() {
                    set.get_block(start, block);
                    let hit = block.iter().enumerate().find_map(|(i, x)| {
                        // Most vertices: every joint in range, whatever the weights.
                        let [a, b, c, d] = x.joints;
                        if (a.max(b).max(c).max(d) as usize) < nb {
                            return None;
                        }
                        x.pairs()
                            .position(|(j, w)| w != 0.0 && j as usize >= nb)
                            .map(|k| (start + i, s, k, x.joints.get(k).copied().unwrap_or(0)))
                    });
                    if let Some(h) = hit
                        && first.is_none_or(|f| (h.0, h.1, h.2) < (f.0, f.1, f.2))
                    {
                        first = Some(h);
                    }
                }
                if let Some((vertex, set, slot, bone)) = first {
                    return Some(InputError::BoneRange {
                        vertex,
                        set,
                        slot,
                        bone,
                        bones: nb,
                    });
                }
            }
            None
        };
        let faults: Vec<Option<InputError>> = {
            use dashvertex_core::par::prelude::*;
            (0..n.div_ceil(CHUNK))
                .into_par_iter()
                .map(|c| first_fault(c * CHUNK..n.min((c + 1) * CHUNK)))
                .collect()
        };
        if let Some(e) = faults.into_iter().flatten().next() {
            return Err(e);
        }
        Ok(Input {
            bones,
            positions,
            data: Data::Views(views),
            origin: Origin::Sets,
        })
    }

    /// For input without a skeleton (every bone named `#N`), the file's index `N` of each
    /// input bone: the output keeps the file's numbering. `None` when a bone has a name.
    pub fn unnamed_indices(&self) -> Option<Vec<u32>> {
        self.bones
            .iter()
            .map(|b| b.name.strip_prefix('#').and_then(|n| n.parse().ok()))
            .collect()
    }

    /// Input from per-bone weight columns (`(bone, weights)`, one weight per vertex).
    pub fn from_columns(
        bones: Vec<BoneRef>,
        positions: Vec<[f32; 3]>,
        columns: Vec<(u32, Vec<f32>)>,
        attributes: Vec<Option<String>>,
    ) -> Input<'static> {
        Input {
            bones,
            positions,
            data: Data::Columns(columns),
            origin: Origin::Attributes(attributes),
        }
    }

    /// The bones' names and parents, for the manifest.
    pub fn skeleton(&self) -> &[BoneRef] {
        &self.bones
    }
}

/// Bone references of a dash skeleton (parents by name).
pub fn bone_refs(skeleton: &dashvertex_core::Skeleton) -> Vec<BoneRef> {
    skeleton
        .bones
        .iter()
        .map(|b| BoneRef {
            name: b.name.clone(),
            parent: b
                .parent
                .and_then(|p| skeleton.bones.get(p as usize))
                .map(|p| p.name.clone()),
        })
        .collect()
}

/// Appends the weighted slots of set `s` as candidates.
fn push_set(out: &mut Vec<Cand>, s: usize, x: &InfluenceSet) {
    for (k, (j, w)) in x.pairs().enumerate() {
        if w != 0.0 {
            out.push(Cand {
                bone: j,
                weight: w,
                // Only names the slot in messages: saturates past 2^30 sets.
                at: u32::try_from(s * 4 + k).unwrap_or(u32::MAX),
            });
        }
    }
}
