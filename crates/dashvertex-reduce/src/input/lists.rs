//! Reducer input from per-vertex influence lists, built one vertex at a time.

use super::{Cand, Candidates, Data, Input, InputError, Origin};
use crate::manifest::BoneRef;

/// Per-vertex influence lists — any number of `(bone, weight)` pairs per vertex, in any
/// order, a bone possibly repeated (the reducer merges repeats) — gathered into a
/// reducer [`Input`]. Nothing is counted in advance and nothing is dropped: every pair
/// given is a candidate.
///
/// ```
/// use dashvertex_reduce::input::InfluenceLists;
/// use dashvertex_reduce::manifest::BoneRef;
/// let bones = vec![BoneRef { name: "root".into(), parent: None }];
/// let mut lists = InfluenceLists::new(bones);
/// lists.vertex([(0, 1.0)]).vertex([(0, 0.25), (0, 0.75)]);
/// let input = lists.build()?;
/// assert_eq!(input.len(), 2);
/// assert_eq!(input.candidates_of(1).len(), 2);
/// # Ok::<(), dashvertex_reduce::input::InputError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InfluenceLists {
    bones: Vec<BoneRef>,
    /// Where each vertex's pairs start in `entries`.
    starts: Vec<usize>,
    entries: Vec<Cand>,
}

impl InfluenceLists {
    /// No vertex yet; bone indices refer to `bones` (by position).
    pub fn new(bones: Vec<BoneRef>) -> InfluenceLists {
        InfluenceLists {
            bones,
            starts: Vec::new(),
            entries: Vec::new(),
        }
    }

    /// No vertex yet; bone `i` is the `i`-th name, a root (no parent).
    pub fn named<S: Into<String>>(names: impl IntoIterator<Item = S>) -> InfluenceLists {
        let bones = names.into_iter().map(|n| BoneRef {
            name: n.into(),
            parent: None,
        });
        InfluenceLists::new(bones.collect())
    }

    /// Adds the next vertex with its `(bone, weight)` pairs (none: an unweighted vertex).
    pub fn vertex(&mut self, influences: impl IntoIterator<Item = (u32, f32)>) -> &mut Self {
        self.starts.push(self.entries.len());
        for (k, (bone, weight)) in influences.into_iter().enumerate() {
            let at = u32::try_from(k).unwrap_or(u32::MAX);
            self.entries.push(Cand { bone, weight, at });
        }
        self
    }

    /// The number of vertices added.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// Whether no vertex was added.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// The reducer input, every bone index checked against the bones first.
    pub fn build(self) -> Result<Input<'static>, InputError> {
        let n = self.starts.len();
        let ends: Vec<usize> = self
            .starts
            .iter()
            .skip(1)
            .copied()
            .chain([self.entries.len()])
            .collect();
        for (vertex, (&s, &e)) in self.starts.iter().zip(&ends).enumerate() {
            let list = self.entries.get(s..e).unwrap_or_default();
            if let Some((entry, c)) = list
                .iter()
                .enumerate()
                .find(|(_, c)| c.bone as usize >= self.bones.len())
            {
                return Err(InputError::ListBone {
                    vertex,
                    entry,
                    bone: c.bone,
                    bones: self.bones.len(),
                });
            }
        }
        Ok(Input {
            bones: self.bones,
            // The reducer reads no position; one per vertex gives the input its length.
            positions: vec![[0.0; 3]; n],
            data: Data::Lists(Candidates {
                starts: self.starts,
                ends,
                entries: self.entries,
            }),
            origin: Origin::BoneWeights,
        })
    }
}
