//! The nearest weighted vertex, for `--zero-sum nearest`: a k-d tree over positions,
//! built and searched with explicit stacks (no recursion), O(n log n) to build and about
//! O(log n) per query. Ties go to the lower vertex index, so the answer never depends on
//! the tree's shape.

/// A static k-d tree over points, each with its vertex index.
pub struct Tree {
    /// Points in tree order: the median of each range is its node.
    points: Vec<([f64; 3], u64)>,
}

/// The squared distance between two points.
fn distance2(a: [f64; 3], b: [f64; 3]) -> f64 {
    let d = [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
}

fn coordinate(p: [f64; 3], axis: usize) -> f64 {
    p.get(axis).copied().unwrap_or(0.0)
}

impl Tree {
    /// Builds the tree. Points with a non-finite coordinate are left out.
    pub fn new(points: impl IntoIterator<Item = ([f64; 3], u64)>) -> Self {
        let mut points: Vec<([f64; 3], u64)> = points
            .into_iter()
            .filter(|(p, _)| p.iter().all(|c| c.is_finite()))
            .collect();
        let mut stack = vec![(0usize, points.len(), 0usize)];
        while let Some((lo, hi, depth)) = stack.pop() {
            if hi.saturating_sub(lo) <= 1 {
                continue;
            }
            let mid = lo + (hi - lo) / 2;
            let axis = depth % 3;
            if let Some(range) = points.get_mut(lo..hi) {
                range.select_nth_unstable_by(mid - lo, |a, b| {
                    coordinate(a.0, axis)
                        .total_cmp(&coordinate(b.0, axis))
                        .then(a.1.cmp(&b.1))
                });
            }
            stack.push((lo, mid, depth + 1));
            stack.push((mid + 1, hi, depth + 1));
        }
        Tree { points }
    }

    /// True when the tree holds no point.
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// The vertex nearest to `q` (the lower index at equal distance), if any.
    pub fn nearest(&self, q: [f64; 3]) -> Option<u64> {
        let mut best: Option<(f64, u64)> = None;
        let mut stack = vec![(0usize, self.points.len(), 0usize)];
        while let Some((lo, hi, depth)) = stack.pop() {
            if lo >= hi {
                continue;
            }
            let mid = lo + (hi - lo) / 2;
            let Some(&(p, index)) = self.points.get(mid) else {
                continue;
            };
            let d = distance2(p, q);
            if best.is_none_or(|(bd, bi)| d < bd || (d == bd && index < bi)) {
                best = Some((d, index));
            }
            let diff = coordinate(q, depth % 3) - coordinate(p, depth % 3);
            let (near, far) = if diff < 0.0 {
                ((lo, mid), (mid + 1, hi))
            } else {
                ((mid + 1, hi), (lo, mid))
            };
            if best.is_none_or(|(bd, _)| diff * diff <= bd) {
                stack.push((far.0, far.1, depth + 1));
            }
            stack.push((near.0, near.1, depth + 1));
        }
        best.map(|b| b.1)
    }
}

#[cfg(test)]
mod tests {
    use super::Tree;

    #[test]
    fn the_tree_finds_what_a_scan_finds() {
        // spec: F5 (ties: the scan takes the lower index; coordinates on a 1/4 grid tie often)
        let mut state = 12345u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) % 64) as f64 / 4.0
        };
        let points: Vec<([f64; 3], u64)> =
            (0..500).map(|i| ([next(), next(), next()], i)).collect();
        let tree = Tree::new(points.clone());
        for _ in 0..300 {
            let q = [next(), next(), next()];
            let scan = points
                .iter()
                .map(|(p, i)| {
                    let d = (p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2);
                    (d, *i)
                })
                .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
                .map(|x| x.1);
            assert_eq!(tree.nearest(q), scan, "query {q:?}");
        }
    }

    #[test]
    fn non_finite_points_are_left_out() {
        let tree = Tree::new([([f64::NAN, 0.0, 0.0], 0), ([1.0, 0.0, 0.0], 1)]);
        assert_eq!(tree.nearest([0.0, 0.0, 0.0]), Some(1));
        assert!(Tree::new([]).is_empty());
    }
}
