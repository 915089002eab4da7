//! Property tests of the partition on random rigs: every part within the budget, every
//! element in exactly one part, each part's joints exactly those its elements use, at
//! least the lower bound of parts, and the same parts every time, at any thread count.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::cast_possible_truncation
)]

use dashvertex_split::PartBudget;
use dashvertex_split::partition::{
    Rows, Shape, element_joints, infeasible, partition, partition_within, vertex_elements,
};
use dashvertex_split::stats::{part_vertex_count, seam_edges};
use proptest::prelude::*;

/// A random rig: vertices with 1–4 joints each (out of `joints`), triangles over them.
fn rig() -> impl Strategy<Value = (usize, Rows<u16>, Vec<u32>)> {
    (2usize..40, 3usize..200).prop_flat_map(|(joints, vertices)| {
        let j = joints as u16;
        let per_vertex = proptest::collection::vec(
            proptest::collection::btree_set(0..j, 1..=4.min(joints)),
            vertices,
        );
        let v = vertices as u32;
        let tris =
            proptest::collection::vec((0..v, 0..v, 0..v).prop_map(|(a, b, c)| [a, b, c]), 1..400);
        (Just(joints), per_vertex, tris).prop_map(|(joints, pv, tris)| {
            let mut rows = Rows::new();
            for s in pv {
                rows.push(s).unwrap();
            }
            (joints, rows, tris.into_iter().flatten().collect())
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn parts_are_within_budget_and_cover_every_element_once(
        (joints, rows, indices) in rig(),
        budget in 1usize..16,
    ) {
        let shape = Shape { arity: 3, indices: &indices, vertex_joints: &rows, joints };
        let ej = element_joints(&shape).unwrap();
        // The smallest budget every element fits, at least the one drawn.
        let needed = (0..ej.len()).map(|e| ej.row(e).len()).max().unwrap_or(0);
        let max = budget.max(needed);
        prop_assert!(infeasible(&ej, max).is_none());
        if needed > budget {
            prop_assert!(infeasible(&ej, budget).is_some());
        }
        let adj = vertex_elements(&shape).unwrap();
        let parts = partition(&shape, &ej, &adj, max);
        prop_assert_eq!(&parts, &partition(&shape, &ej, &adj, max), "deterministic");
        // The lower bound never refuses what the split makes: a budget of exactly its
        // parts takes the same parts, one fewer is refused.
        prop_assert_eq!(partition_within(&shape, &ej, &adj, max, parts.len()), Ok(parts.clone()));
        prop_assert!(partition_within(&shape, &ej, &adj, max, parts.len() - 1).is_err());
        // The growths run side by side on two threads and one after another on one:
        // the same parts either way.
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let alone = pool.install(|| partition(&shape, &ej, &adj, max));
            prop_assert_eq!(&parts, &alone, "the same parts on {} thread(s)", threads);
        }
        for p in &parts {
            prop_assert!(p.elements.windows(2).all(|w| w[0] < w[1]), "elements ascending");
        }
        let mut seen = vec![0u32; shape.elements()];
        let mut used = std::collections::BTreeSet::new();
        for p in &parts {
            prop_assert!(p.joints.len() <= max);
            let mut union: Vec<u32> = p.elements.iter().flat_map(|&e| ej.row(e as usize).iter().map(|&j| u32::from(j))).collect();
            union.sort_unstable();
            union.dedup();
            prop_assert_eq!(&union, &p.joints, "a part's joints are its elements'");
            for &e in &p.elements {
                seen[e as usize] += 1;
            }
            used.extend(p.joints.iter().copied());
        }
        prop_assert!(seen.iter().all(|&n| n == 1), "every element in exactly one part");
        prop_assert!(parts.len() >= used.len().div_ceil(max));
    }

    #[test]
    fn seams_and_vertex_counts_match_their_definitions(
        (joints, rows, indices) in rig(),
        budget in 1usize..16,
        lines in any::<bool>(),
    ) {
        // Triangles as drawn, or the same indices read as lines (degenerate elements
        // included: the random triangles repeat vertices).
        let arity = if lines { 2 } else { 3 };
        let n = indices.len() - indices.len() % arity;
        let shape = Shape { arity, indices: &indices[..n], vertex_joints: &rows, joints };
        let ej = element_joints(&shape).unwrap();
        let max = budget.max((0..ej.len()).map(|e| ej.row(e).len()).max().unwrap_or(0));
        let adj = vertex_elements(&shape).unwrap();
        let parts = partition(&shape, &ej, &adj, max);
        let mut owner = vec![0u32; shape.elements()];
        let mut mark = vec![0u32; rows.len()];
        for (k, p) in parts.iter().enumerate() {
            for &e in &p.elements {
                owner[e as usize] = k as u32 + 1;
            }
            let mut vs: Vec<u32> = p.elements.iter().flat_map(|&e| shape.element(e as usize).to_vec()).collect();
            vs.sort_unstable();
            vs.dedup();
            prop_assert_eq!(part_vertex_count(&shape, p, &mut mark, k as u32 + 1), vs.len());
        }
        // By definition: every edge (unordered pair of an element's consecutive
        // vertices), grouped, a seam when its elements lie in more than one part.
        let mut parts_of: std::collections::BTreeMap<(u32, u32), std::collections::BTreeSet<u32>> =
            std::collections::BTreeMap::new();
        for (e, &part) in owner.iter().enumerate() {
            let vs = shape.element(e);
            let pairs = if vs.len() == 2 { 1 } else { vs.len() };
            for k in 0..pairs {
                let (a, b) = (vs[k], vs[(k + 1) % vs.len()]);
                parts_of.entry((a.min(b), a.max(b))).or_default().insert(part);
            }
        }
        let expected = parts_of.values().filter(|s| s.len() > 1).count();
        prop_assert_eq!(seam_edges(&shape, &adj, &owner), expected);
        // Counted over one range of vertices per thread: the same at any count.
        for threads in [1, 3] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            prop_assert_eq!(pool.install(|| seam_edges(&shape, &adj, &owner)), expected);
        }
    }
}

// spec: SP10
#[test]
fn the_part_budget_is_counted_at_the_partition() {
    // Points each using joint 0 and one of their own, three joints a part: two points a
    // part (joints 0, a, b), so five parts, where ⌈11 / 3⌉ = 4 is the lower bound. The
    // budget is decided by counting the parts the partition makes.
    let n = 10u16;
    let mut rows = Rows::new();
    for k in 0..n {
        rows.push([0u16, 1 + k]).unwrap();
    }
    let indices: Vec<u32> = (0..u32::from(n)).collect();
    let shape = Shape {
        arity: 1,
        indices: &indices,
        vertex_joints: &rows,
        joints: 1 + usize::from(n),
    };
    let ej = element_joints(&shape).unwrap();
    let adj = vertex_elements(&shape).unwrap();
    let all = partition(&shape, &ej, &adj, 3);
    assert_eq!(all.len(), 5);
    assert_eq!(partition_within(&shape, &ej, &adj, 3, 5).unwrap(), all);
    assert_eq!(
        partition_within(&shape, &ej, &adj, 3, 4),
        Err(PartBudget {
            parts: 5,
            at_least: false
        })
    );
    // Below the lower bound nothing is grown: the bound itself is the count.
    assert_eq!(
        partition_within(&shape, &ej, &adj, 3, 3),
        Err(PartBudget {
            parts: 4,
            at_least: true
        })
    );
    // Two joints a part: each point's joints fill a part and no two points share one.
    // The ten distinct full sets are the bound, known before any part is grown, where
    // ⌈11 / 2⌉ = 6 would have let the growth run.
    assert_eq!(partition(&shape, &ej, &adj, 2).len(), 10);
    assert_eq!(
        partition_within(&shape, &ej, &adj, 2, 9),
        Err(PartBudget {
            parts: 10,
            at_least: true
        })
    );
    assert_eq!(
        partition_within(&shape, &ej, &adj, 2, 10).unwrap().len(),
        10
    );
    // Disjoint joints three a point, three a part: the lower bound is the count.
    let mut rows = Rows::new();
    for k in 0..n {
        rows.push([3 * k, 3 * k + 1, 3 * k + 2]).unwrap();
    }
    let shape = Shape {
        joints: 3 * usize::from(n),
        vertex_joints: &rows,
        ..shape
    };
    let ej = element_joints(&shape).unwrap();
    assert_eq!(
        partition_within(&shape, &ej, &adj, 3, 9),
        Err(PartBudget {
            parts: 10,
            at_least: true
        })
    );
    assert_eq!(
        partition_within(&shape, &ej, &adj, 3, 10).unwrap().len(),
        10
    );
}

#[test]
fn a_fan_of_distinct_joints_is_split_in_bounded_work() {
    // One vertex shared by every triangle, each triangle bringing two joints of its own:
    // the growth meets the same large vertex in every part.
    let n = 3_000u32;
    let mut rows = Rows::new();
    rows.push([0u16]).unwrap();
    for t in 0..n as u16 {
        rows.push([1 + 2 * t]).unwrap();
        rows.push([2 + 2 * t]).unwrap();
    }
    let indices: Vec<u32> = (0..n).flat_map(|t| [0, 1 + 2 * t, 2 + 2 * t]).collect();
    let shape = Shape {
        arity: 3,
        indices: &indices,
        vertex_joints: &rows,
        joints: 1 + 2 * n as usize,
    };
    let ej = element_joints(&shape).unwrap();
    let adj = vertex_elements(&shape).unwrap();
    let parts = partition(&shape, &ej, &adj, 9);
    assert_eq!(
        parts.iter().map(|p| p.elements.len()).sum::<usize>(),
        n as usize
    );
    assert!(parts.iter().all(|p| p.joints.len() <= 9));
    // Four triangles a part (1 + 4 × 2 joints): the lower bound.
    assert_eq!(parts.len(), (n as usize).div_ceil(4));
}

#[test]
fn a_grid_large_enough_for_two_threads_splits_the_same_on_one() {
    // 130 × 90 quads (70,200 incidences, past PARALLEL_FROM), each vertex bound to the
    // corners of its cell in a 13 × 9 grid of joints, as the benchmark rig is.
    let (w, h) = (131usize, 91usize);
    let (jw, jh) = (13usize, 9usize);
    let mut rows = Rows::new();
    for y in 0..h {
        for x in 0..w {
            let (cx, cy) = ((x * (jw - 1)) / (w - 1), (y * (jh - 1)) / (h - 1));
            let mut js: Vec<u16> = [(0, 0), (1, 0), (0, 1), (1, 1)]
                .iter()
                .map(|&(dx, dy)| ((cy + dy).min(jh - 1) * jw + (cx + dx).min(jw - 1)) as u16)
                .collect();
            js.sort_unstable();
            js.dedup();
            rows.push(js).unwrap();
        }
    }
    let at = |x: usize, y: usize| (y * w + x) as u32;
    let mut indices = Vec::new();
    for y in 0..h - 1 {
        for x in 0..w - 1 {
            indices.extend([at(x, y), at(x + 1, y), at(x, y + 1)]);
            indices.extend([at(x + 1, y), at(x + 1, y + 1), at(x, y + 1)]);
        }
    }
    assert!(indices.len() >= dashvertex_split::partition::PARALLEL_FROM);
    let shape = Shape {
        arity: 3,
        indices: &indices,
        vertex_joints: &rows,
        joints: jw * jh,
    };
    let ej = element_joints(&shape).unwrap();
    let adj = vertex_elements(&shape).unwrap();
    for max in [9, 16, 40] {
        let on = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let parts = partition(&shape, &ej, &adj, max);
                let mut owner = vec![0u32; shape.elements()];
                for (k, p) in parts.iter().enumerate() {
                    for &e in &p.elements {
                        owner[e as usize] = k as u32 + 1;
                    }
                }
                let seams = seam_edges(&shape, &adj, &owner);
                (parts, seams)
            })
        };
        let (parts, seams) = on(1);
        assert!(parts.iter().all(|p| p.joints.len() <= max));
        assert_eq!(
            parts.iter().map(|p| p.elements.len()).sum::<usize>(),
            shape.elements()
        );
        assert!(seams > 0 || parts.len() == 1);
        for threads in [2, 3] {
            assert_eq!(
                on(threads),
                (parts.clone(), seams),
                "N = {max}, {threads} threads"
            );
        }
    }
}
