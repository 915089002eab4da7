//! The nearest weighted vertex, for `--zero-sum nearest`: a k-d tree over positions,
//! built and searched with explicit stacks (no recursion). Ties go to the lower vertex
//! index, so the answer never depends on the tree's shape.
//!
//! Coincident points are one point: the lowest vertex index at each position is kept
//! (any other there ties with it at every query, and loses), so ten thousand vertices at
//! one place cost one node, not a search of every one of them per query. Each range is
//! split on its widest axis, so points on a plane or a line are never split along an
//! axis on which they do not differ. Building is O(n log n); a query is about O(log n)
//! for any distribution of distinct points the searches meet in meshes (the k-d tree's
//! worst case, a query at the centre of points all at one distance, still visits them).

/// A static k-d tree over points, each with its vertex index.
pub struct Tree {
    /// Points in tree order: the median of each range is its node.
    points: Vec<([f64; 3], u64)>,
    /// The axis each node splits its range on, by the node's position in `points`.
    axes: Vec<u8>,
}

/// The squared distance between two points.
fn distance2(a: [f64; 3], b: [f64; 3]) -> f64 {
    let d = [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
}

fn coordinate(p: [f64; 3], axis: usize) -> f64 {
    p.get(axis).copied().unwrap_or(0.0)
}

/// The axis on which `points` spread most (the lowest at equal spread).
fn widest(points: &[([f64; 3], u64)]) -> usize {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for (p, _) in points {
        for ((l, h), &x) in lo.iter_mut().zip(hi.iter_mut()).zip(p) {
            *l = l.min(x);
            *h = h.max(x);
        }
    }
    let mut best = 0;
    let mut spread = f64::NEG_INFINITY;
    for (axis, (l, h)) in lo.iter().zip(&hi).enumerate() {
        if h - l > spread {
            spread = h - l;
            best = axis;
        }
    }
    best
}

impl Tree {
    /// Builds the tree. Points with a non-finite coordinate are left out; of points at
    /// one position (0 and -0 alike) the lowest index is kept.
    pub fn new(points: impl IntoIterator<Item = ([f64; 3], u64)>) -> Self {
        let mut points: Vec<([f64; 3], u64)> = points
            .into_iter()
            .filter(|(p, _)| p.iter().all(|c| c.is_finite()))
            // + 0.0 makes -0 into 0: the same position, at the same distance from all.
            .map(|(p, i)| (p.map(|c| c + 0.0), i))
            .collect();
        points.sort_unstable_by(|a, b| {
            let (p, q) = (a.0, b.0);
            p[0].total_cmp(&q[0])
                .then(p[1].total_cmp(&q[1]))
                .then(p[2].total_cmp(&q[2]))
                .then(a.1.cmp(&b.1))
        });
        points.dedup_by(|later, first| later.0 == first.0);
        let mut axes = vec![0u8; points.len()];
        let mut stack = vec![(0usize, points.len())];
        while let Some((lo, hi)) = stack.pop() {
            if hi.saturating_sub(lo) <= 1 {
                continue;
            }
            let mid = lo + (hi - lo) / 2;
            let Some(range) = points.get_mut(lo..hi) else {
                continue;
            };
            let axis = widest(range);
            range.select_nth_unstable_by(mid - lo, |a, b| {
                coordinate(a.0, axis)
                    .total_cmp(&coordinate(b.0, axis))
                    .then(a.1.cmp(&b.1))
            });
            if let Some(slot) = axes.get_mut(mid) {
                *slot = u8::try_from(axis).unwrap_or(0);
            }
            stack.push((lo, mid));
            stack.push((mid + 1, hi));
        }
        Tree { points, axes }
    }

    /// True when the tree holds no point.
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// Points the tree holds (one per distinct position).
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// The vertex nearest to `q` (the lower index at equal distance), if any.
    pub fn nearest(&self, q: [f64; 3]) -> Option<u64> {
        self.search(q).0
    }

    /// The nearest vertex and the number of tree nodes the search looked at (its cost).
    fn search(&self, q: [f64; 3]) -> (Option<u64>, usize) {
        let mut best: Option<(f64, u64)> = None;
        let mut visited = 0usize;
        let mut stack = vec![(0usize, self.points.len())];
        while let Some((lo, hi)) = stack.pop() {
            if lo >= hi {
                continue;
            }
            visited += 1;
            let mid = lo + (hi - lo) / 2;
            let Some(&(p, index)) = self.points.get(mid) else {
                continue;
            };
            let d = distance2(p, q);
            if best.is_none_or(|(bd, bi)| d < bd || (d == bd && index < bi)) {
                best = Some((d, index));
            }
            let axis = usize::from(self.axes.get(mid).copied().unwrap_or(0));
            let diff = coordinate(q, axis) - coordinate(p, axis);
            let (near, far) = if diff < 0.0 {
                ((lo, mid), (mid + 1, hi))
            } else {
                ((mid + 1, hi), (lo, mid))
            };
            // The far side can hold a point at distance diff or more: equal distance
            // still counts, for a lower index there.
            if best.is_none_or(|(bd, _)| diff * diff <= bd) {
                stack.push(far);
            }
            stack.push(near);
        }
        (best.map(|b| b.1), visited)
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

    /// The lowest index among the points nearest to `q`, by looking at every point.
    fn scan(points: &[([f64; 3], u64)], q: [f64; 3]) -> Option<u64> {
        points
            .iter()
            .filter(|(p, _)| p.iter().all(|c| c.is_finite()))
            .map(|(p, i)| {
                let d = (p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2);
                (d, *i)
            })
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
            .map(|x| x.1)
    }

    fn coordinate() -> impl proptest::strategy::Strategy<Value = f64> {
        // Few values, so that points coincide, share planes and lines, and tie.
        proptest::sample::select(vec![0.0, -0.0, 0.5, 1.0, -1.0, 2.0, 1e-300, f64::NAN])
    }

    proptest::proptest! {
        #[test]
        fn the_tree_finds_what_a_scan_finds_among_coincident_points(
            raw in proptest::collection::vec(
                ([coordinate(), coordinate(), coordinate()], 0u64..1000), 0..200),
            queries in proptest::collection::vec([coordinate(), coordinate(), coordinate()], 1..40),
        ) {
            // spec: NN1
            // Vertex indices are unique, in any order.
            let points: Vec<([f64; 3], u64)> = raw
                .iter()
                .enumerate()
                .map(|(k, (p, i))| (*p, i * 1000 + k as u64))
                .collect();
            let tree = Tree::new(points.clone());
            for q in queries.into_iter().filter(|q| q.iter().all(|c| c.is_finite())) {
                proptest::prop_assert_eq!(tree.nearest(q), scan(&points, q), "query {:?}", q);
            }
        }
    }

    #[test]
    fn coincident_points_are_one_node_and_a_query_there_visits_few() {
        // 100,000 vertices at one place and 100,000 on one plane: the tree holds one
        // point for the first, and the search cost stays logarithmic.
        let mut points: Vec<([f64; 3], u64)> =
            (0..100_000).map(|i| ([1.0, 1.0, 1.0], i + 7)).collect();
        points.extend(
            (0..100_000u64).map(|i| ([0.0, (i % 300) as f64, (i / 300) as f64], 200_000 + i)),
        );
        let tree = Tree::new(points);
        assert_eq!(tree.len(), 1 + 100_000);
        // A balanced tree of 100,001 points is 17 levels deep. Ties on a splitting
        // coordinate keep both sides (equal distance may hide a lower index), so a query
        // looks at a few hundred nodes at most — a scan would look at 100,001.
        let (found, visited) = tree.search([1.0, 1.0, 1.0]);
        assert_eq!(found, Some(7));
        assert!(visited <= 1_000, "{visited} nodes visited");
        let (found, visited) = tree.search([0.0, 5.0, 2.0]);
        assert_eq!(found, Some(200_000 + 2 * 300 + 5));
        assert!(visited <= 1_000, "{visited} nodes visited");
    }

    #[test]
    fn non_finite_points_are_left_out() {
        let tree = Tree::new([([f64::NAN, 0.0, 0.0], 0), ([1.0, 0.0, 0.0], 1)]);
        assert_eq!(tree.nearest([0.0, 0.0, 0.0]), Some(1));
        assert!(Tree::new([]).is_empty());
    }
}
