//! Vertices and their influence sets.

use crate::InfluenceSet;

/// One vertex: a position and its first influence set (set 0).
///
/// Sets 1, 2, … live in [`Mesh`] (set-major, like glTF's `JOINTS_1` accessor), so that a
/// mesh with four or fewer influences pays for exactly one set.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Vertex {
    /// `x`, `y`, `z`.
    pub position: [f32; 3],
    /// Set 0: the four strongest influences (`skinIndex` / `skinWeight`).
    pub skin: InfluenceSet,
}

impl Vertex {
    /// An unskinned vertex at a position.
    pub fn at(position: [f32; 3]) -> Self {
        Vertex {
            position,
            skin: InfluenceSet::ZERO,
        }
    }

    /// True when the position and set 0 are equal bit for bit, so `-0.0` differs from `0.0`
    /// and NaN payloads are compared (`==` follows float equality instead).
    pub fn bit_eq(&self, other: &Self) -> bool {
        crate::f32_bits_eq(&self.position, &other.position) && self.skin.bit_eq(&other.skin)
    }
}

/// The model was asked to hold something inconsistent.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// An extra influence set does not have one entry per vertex.
    #[error("influence set {set} has {found} entries but the mesh has {expected} vertices")]
    SetLength {
        /// Set number (1-based: set 0 lives in the vertices).
        set: usize,
        /// Number of entries the set was given.
        found: usize,
        /// Number of vertices in the mesh, which every set must match.
        expected: usize,
    },
}

/// A list of vertices with a uniform number of influence sets.
///
/// Every vertex has set 0 (in [`Vertex::skin`]); sets `1..set_count()` are stored
/// set-major. `skinned` is the file-level toggle of `spec/dashvertex.md` §6: an unskinned
/// mesh has no meaningful influence data (it is kept, never dropped, so that a reader can
/// report data that contradicts the toggle).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mesh {
    skinned: bool,
    vertices: Vec<Vertex>,
    extra_sets: Vec<Vec<InfluenceSet>>,
}

impl Mesh {
    /// An unskinned mesh.
    pub fn unskinned(vertices: Vec<Vertex>) -> Self {
        Mesh {
            skinned: false,
            vertices,
            extra_sets: Vec::new(),
        }
    }

    /// A skinned mesh with one influence set per vertex.
    pub fn skinned(vertices: Vec<Vertex>) -> Self {
        Mesh {
            skinned: true,
            vertices,
            extra_sets: Vec::new(),
        }
    }

    /// A mesh from its parts; each extra set must have one entry per vertex.
    pub fn from_parts(
        skinned: bool,
        vertices: Vec<Vertex>,
        extra_sets: Vec<Vec<InfluenceSet>>,
    ) -> Result<Self, ModelError> {
        for (i, set) in extra_sets.iter().enumerate() {
            if set.len() != vertices.len() {
                return Err(ModelError::SetLength {
                    set: i + 1,
                    found: set.len(),
                    expected: vertices.len(),
                });
            }
        }
        Ok(Mesh {
            skinned,
            vertices,
            extra_sets,
        })
    }

    /// Splits the mesh into its parts (the inverse of [`Mesh::from_parts`]).
    pub fn into_parts(self) -> (bool, Vec<Vertex>, Vec<Vec<InfluenceSet>>) {
        (self.skinned, self.vertices, self.extra_sets)
    }

    /// The skinned/unskinned toggle.
    pub fn is_skinned(&self) -> bool {
        self.skinned
    }

    /// Sets the skinned/unskinned toggle.
    pub fn set_skinned(&mut self, skinned: bool) {
        self.skinned = skinned;
    }

    /// The vertices, each carrying its set 0; vertex `v` is `vertices()[v]`.
    pub fn vertices(&self) -> &[Vertex] {
        &self.vertices
    }

    /// The vertices, mutably (the count cannot change through this).
    pub fn vertices_mut(&mut self) -> &mut [Vertex] {
        &mut self.vertices
    }

    /// Number of vertices.
    pub fn len(&self) -> usize {
        self.vertices.len()
    }

    /// True when the mesh has no vertex.
    pub fn is_empty(&self) -> bool {
        self.vertices.is_empty()
    }

    /// Number of influence sets per vertex (always at least 1: set 0 is stored even for an
    /// unskinned mesh).
    pub fn set_count(&self) -> usize {
        1 + self.extra_sets.len()
    }

    /// Sets 1.., set-major: `extra_sets()[s - 1][v]` is set `s` of vertex `v`.
    pub fn extra_sets(&self) -> &[Vec<InfluenceSet>] {
        &self.extra_sets
    }

    /// Mutable access to sets 1.. (the lengths cannot change through this).
    pub fn extra_sets_mut(&mut self) -> impl Iterator<Item = &mut [InfluenceSet]> {
        self.extra_sets.iter_mut().map(Vec::as_mut_slice)
    }

    /// Appends an influence set (one entry per vertex).
    pub fn push_set(&mut self, set: Vec<InfluenceSet>) -> Result<(), ModelError> {
        if set.len() != self.vertices.len() {
            return Err(ModelError::SetLength {
                set: self.set_count(),
                found: set.len(),
                expected: self.vertices.len(),
            });
        }
        self.extra_sets.push(set);
        Ok(())
    }

    /// Keeps the first `n` sets (at least 1).
    pub fn truncate_sets(&mut self, n: usize) {
        self.extra_sets.truncate(n.saturating_sub(1));
    }

    /// Set `s` of vertex `v`, if both exist.
    pub fn set(&self, v: usize, s: usize) -> Option<&InfluenceSet> {
        if s == 0 {
            self.vertices.get(v).map(|x| &x.skin)
        } else {
            self.extra_sets.get(s - 1).and_then(|set| set.get(v))
        }
    }

    /// All sets of vertex `v`, set 0 first. Empty when `v` is out of range.
    pub fn sets_of(&self, v: usize) -> impl Iterator<Item = &InfluenceSet> + '_ {
        let first = self.vertices.get(v).map(|x| &x.skin);
        let rest = self
            .extra_sets
            .iter()
            .filter_map(move |set| if first.is_some() { set.get(v) } else { None });
        first.into_iter().chain(rest)
    }

    /// True when any weight or bone index in any set is not zero.
    pub fn has_skin_data(&self) -> bool {
        self.vertices.iter().any(|v| !v.skin.is_zero())
            || self.extra_sets.iter().flatten().any(|s| !s.is_zero())
    }

    /// True when any set holds a non-zero bit (a `-0.0` weight counts): skin data a writer
    /// must keep even in an unskinned mesh.
    pub fn has_skin_bits(&self) -> bool {
        let set_bits = |s: &InfluenceSet| {
            s.joints.iter().any(|&j| j != 0) || s.weights.iter().any(|w| w.to_bits() != 0)
        };
        self.vertices.iter().any(|v| set_bits(&v.skin))
            || self.extra_sets.iter().flatten().any(set_bits)
    }

    /// Bit-exact equality (toggle, positions, every set).
    pub fn bit_eq(&self, other: &Self) -> bool {
        self.skinned == other.skinned
            && self.vertices.len() == other.vertices.len()
            && self.extra_sets.len() == other.extra_sets.len()
            && self
                .vertices
                .iter()
                .zip(&other.vertices)
                .all(|(a, b)| a.bit_eq(b))
            && self
                .extra_sets
                .iter()
                .zip(&other.extra_sets)
                .all(|(a, b)| a.iter().zip(b).all(|(x, y)| x.bit_eq(y)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extra_sets_must_cover_every_vertex() {
        let v = vec![Vertex::default(); 3];
        let err = Mesh::from_parts(true, v.clone(), vec![vec![InfluenceSet::ZERO; 2]]);
        assert_eq!(
            err,
            Err(ModelError::SetLength {
                set: 1,
                found: 2,
                expected: 3
            })
        );
        let mut m = Mesh::skinned(v);
        assert!(m.push_set(vec![InfluenceSet::ZERO; 3]).is_ok());
        assert_eq!(m.set_count(), 2);
        assert_eq!(m.sets_of(2).count(), 2);
        assert_eq!(m.sets_of(3).count(), 0);
        m.truncate_sets(1);
        assert_eq!(m.set_count(), 1);
    }
}
