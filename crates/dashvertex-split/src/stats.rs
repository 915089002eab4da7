//! The quality figures of a split primitive (`spec/split.md` §4): vertices each part
//! writes, the duplication they cause, how full each palette is, and the seam edges.

use crate::partition::{Part, Rows, Shape};

/// How many distinct vertices the elements of `part` use (the vertices it writes).
/// `mark` has a slot per vertex, none of them equal to `stamp` yet.
pub fn part_vertex_count(shape: &Shape<'_>, part: &Part, mark: &mut [u32], stamp: u32) -> usize {
    let mut n = 0;
    for &e in &part.elements {
        for &v in shape.element(e as usize) {
            if let Some(m) = mark.get_mut(v as usize)
                && *m != stamp
            {
                *m = stamp;
                n += 1;
            }
        }
    }
    n
}

/// Edges (pairs of vertices of an element) whose elements lie in different parts.
/// `owner` gives each element's part, `adj` is [`crate::partition::vertex_elements`] of
/// `shape`.
///
/// Each edge is looked at from its lower vertex, over the elements using that vertex
/// (a vertex → elements table built by counting): linear in the indices, where sorting
/// every edge took an eighth of a large split.
pub fn seam_edges(shape: &Shape<'_>, adj: &Rows, owner: &[u32]) -> usize {
    use dashvertex_core::par::prelude::*;
    if shape.arity < 2 {
        return 0;
    }
    let n = shape.vertex_joints.len();
    // One range of lower vertices per thread (each edge is counted from its lower
    // vertex alone, so the ranges add up to the whole at any thread count).
    let pieces = if shape.indices.len() < crate::partition::PARALLEL_FROM {
        1
    } else {
        dashvertex_core::par::current_num_threads().clamp(1, n.max(1))
    };
    let per = n.div_ceil(pieces);
    (0..pieces)
        .into_par_iter()
        .map(|k| seams_from(shape, adj, owner, k * per..n.min((k + 1) * per)))
        .sum()
}

/// The seam edges whose lower vertex is in `lower`.
fn seams_from(
    shape: &Shape<'_>,
    adj: &Rows,
    owner: &[u32],
    lower: std::ops::Range<usize>,
) -> usize {
    // Per higher vertex b of an edge (a, b) seen from a: `seen[b - base] == a + 1` when
    // the edge was met already, with the part of its first element and whether it is a
    // seam yet (b is at least a, so at least `base`).
    let base = lower.start;
    let above = shape.vertex_joints.len().saturating_sub(base);
    let mut seen = vec![0u32; above];
    let mut first = vec![0u32; above];
    let mut seam = vec![false; above];
    let mut seams = 0;
    for a in lower {
        let tag = u32::try_from(a + 1).unwrap_or(u32::MAX);
        let mut last = None;
        for &e in adj.row(a) {
            // A vertex used twice by one element lists it twice (consecutively).
            if last == Some(e) {
                continue;
            }
            last = Some(e);
            let vs = shape.element(e as usize);
            let part = owner.get(e as usize).copied().unwrap_or(0);
            let k_n = vs.len();
            let pairs = if k_n == 2 { 1 } else { k_n };
            for k in 0..pairs {
                let (Some(&x), Some(&y)) = (vs.get(k), vs.get((k + 1) % k_n)) else {
                    continue;
                };
                if x.min(y) as usize != a {
                    continue;
                }
                let b = x.max(y) as usize - base;
                let (Some(s), Some(f), Some(m)) =
                    (seen.get_mut(b), first.get_mut(b), seam.get_mut(b))
                else {
                    continue;
                };
                if *s != tag {
                    *s = tag;
                    *f = part;
                    *m = false;
                } else if !*m && *f != part {
                    *m = true;
                    seams += 1;
                }
            }
        }
    }
    seams
}
