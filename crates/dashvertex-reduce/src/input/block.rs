//! Candidates read a block of vertices at a time: for a glTF input, whose influence sets
//! are decoded from the file's bytes on every read, one decode per set and block instead
//! of one per set and vertex.

use dashvertex_core::InfluenceSet;

use super::{Cand, Data, Input, push_set};

/// Vertices decoded together.
const BLOCK: usize = 256;

/// The decoded sets of one block of vertices, for [`Input::candidates_near`].
#[derive(Clone, Debug, Default)]
pub struct CandidateBlock {
    /// Set-major: set `s` of the block's `i`-th vertex at `s × BLOCK + i`.
    sets: Vec<InfluenceSet>,
    start: usize,
    len: usize,
}

impl Input<'_> {
    /// The candidates of vertex `v`, as [`Input::candidates`] gives them, read through
    /// `block`: when the input decodes its sets on each read and `v` starts a block of 256
    /// vertices, that block is decoded once and kept, so vertices read in order cost one
    /// decode per block. Vertices read here and there, and other inputs, are read
    /// directly.
    pub fn candidates_near(&self, v: usize, block: &mut CandidateBlock, out: &mut Vec<Cand>) {
        let Data::Views(views) = &self.data else {
            return self.candidates(v, out);
        };
        let held = block.start..block.start + block.len;
        if !held.contains(&v) {
            if !v.is_multiple_of(BLOCK) || v >= self.len() {
                return self.candidates(v, out);
            }
            let len = BLOCK.min(self.len() - v);
            block.sets.clear();
            block.sets.resize(views.len() * BLOCK, InfluenceSet::ZERO);
            for (set, dst) in views.iter().zip(block.sets.chunks_exact_mut(BLOCK)) {
                set.get_block(v, dst.get_mut(..len).unwrap_or_default());
            }
            (block.start, block.len) = (v, len);
        }
        out.clear();
        let i = v - block.start;
        for (s, sets) in block.sets.chunks_exact(BLOCK).enumerate() {
            if let Some(x) = sets.get(i) {
                push_set(out, s, x);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

    use super::CandidateBlock;

    /// Read in order, out of order and past a block's end, every vertex's candidates are
    /// the direct read's.
    #[test]
    fn a_block_read_gives_what_a_direct_read_gives() {
        use dashvertex_core::Limits;
        let bytes = dashvertex_testkit::gltf::SkinnedGlb {
            vertices: 700,
            primitives: 1,
            sets: 3,
            ..Default::default()
        }
        .build();
        let limits = Limits::default();
        let g = dashvertex_gltf::load(&bytes, &dashvertex_gltf::NoFiles, &limits).unwrap();
        let inputs = crate::gltf::inputs(&g, &limits).unwrap();
        let input = &inputs[0].input;
        assert!(matches!(input.data, super::Data::Views(_)));
        let (mut block, mut a, mut b) = (CandidateBlock::default(), Vec::new(), Vec::new());
        let order: Vec<usize> = (0..700)
            .chain([699, 3, 255, 256, 512, 0, 640, 699, 700])
            .collect();
        for v in order {
            input.candidates_near(v, &mut block, &mut a);
            input.candidates(v, &mut b);
            assert_eq!(a, b, "vertex {v}");
        }
    }
}
