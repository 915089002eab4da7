//! The quality figures of a split primitive (`spec/split.md` §4): vertices each part
//! writes, the duplication they cause, how full each palette is, and the seam edges.

use crate::partition::{Part, Shape};

/// The vertices of each part: the distinct vertices of its elements, ascending.
pub fn part_vertices(shape: &Shape<'_>, part: &Part, mark: &mut [u32], stamp: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for &e in &part.elements {
        for &v in shape.element(e as usize) {
            if let Some(m) = mark.get_mut(v as usize)
                && *m != stamp
            {
                *m = stamp;
                out.push(v);
            }
        }
    }
    out.sort_unstable();
    out
}

/// Edges (pairs of vertices of an element) whose elements lie in different parts.
/// `owner` gives each element's part.
pub fn seam_edges(shape: &Shape<'_>, owner: &[u32]) -> usize {
    if shape.arity < 2 {
        return 0;
    }
    let mut edges: Vec<(u32, u32, u32)> = Vec::with_capacity(shape.indices.len());
    for e in 0..shape.elements() {
        let vs = shape.element(e);
        let part = owner.get(e).copied().unwrap_or(0);
        let n = vs.len();
        let pairs = if n == 2 { 1 } else { n };
        for k in 0..pairs {
            let (Some(&a), Some(&b)) = (vs.get(k), vs.get((k + 1) % n)) else {
                continue;
            };
            edges.push((a.min(b), a.max(b), part));
        }
    }
    edges.sort_unstable();
    let mut seams = 0;
    let mut i = 0;
    while i < edges.len() {
        let Some(&(a, b, p)) = edges.get(i) else {
            break;
        };
        let mut k = i + 1;
        let mut split = false;
        while let Some(&(x, y, q)) = edges.get(k) {
            if (x, y) != (a, b) {
                break;
            }
            split |= q != p;
            k += 1;
        }
        seams += usize::from(split);
        i = k;
    }
    seams
}
