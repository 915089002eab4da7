//! The fitted reduction (`spec/reduction.md` §6) against an evaluator written here, not
//! the fit's own arithmetic: every vertex skinned at every pose, full against reduced.

use dashvertex_core::weights::check_float_sets;
use dashvertex_core::{InfluenceSet, Mesh, Vertex};
use dashvertex_reduce::fit::{FitOptions, FitReport, Poses, Rows, fit, precision};
use dashvertex_reduce::input::Input;
use dashvertex_reduce::manifest::{BoneRef, Manifest};
use dashvertex_reduce::{Config, Normalize, Quantize, Reduced};
use proptest::prelude::*;

/// A chain of bones up the Y axis (bone j's joint at (0, j, 0)), posed by turns about
/// Z and X, and vertices along it weighted to their nearest bones.
pub struct Rig {
    pub bones: Vec<BoneRef>,
    pub poses: Poses,
    pub positions: Vec<[f32; 3]>,
    pub weights: Vec<Vec<(u32, f32)>>,
}

/// A small deterministic generator (64-bit LCG), so the rig is the same everywhere.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn mul(a: &Rows, b: &Rows) -> Rows {
    let mut o = [0.0; 12];
    for r in 0..3 {
        for c in 0..4 {
            let mut s = if c == 3 { a[r * 4 + 3] } else { 0.0 };
            for k in 0..3 {
                s += a[r * 4 + k] * b[k * 4 + c];
            }
            o[r * 4 + c] = s;
        }
    }
    o
}

fn turn(z: f64, x: f64) -> Rows {
    let (sz, cz, sx, cx) = (z.sin(), z.cos(), x.sin(), x.cos());
    let rz = [cz, -sz, 0.0, 0.0, sz, cz, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    let rx = [1.0, 0.0, 0.0, 0.0, 0.0, cx, -sx, 0.0, 0.0, sx, cx, 0.0];
    mul(&rz, &rx)
}

fn shift(y: f64) -> Rows {
    [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, y, 0.0, 0.0, 1.0, 0.0]
}

pub fn rig(seed: u64, bones: usize, vertices: usize, influences: usize, poses: usize) -> Rig {
    let mut r = Lcg(seed);
    let mut set = Poses::new(bones);
    for p in 0..poses {
        let mut global: Vec<Rows> = Vec::with_capacity(bones);
        for j in 0..bones {
            let local = mul(
                &shift(if j == 0 { 0.0 } else { 1.0 }),
                &turn(
                    (r.next() - 0.5) * 1.6,
                    (r.next() - 0.5) * 0.8 * (p % 2) as f64,
                ),
            );
            let g = match global.last() {
                Some(parent) => mul(parent, &local),
                None => local,
            };
            global.push(g);
        }
        set.push(
            global
                .iter()
                .enumerate()
                .map(|(j, g)| mul(g, &shift(-(j as f64)))),
        );
    }
    let mut positions = Vec::with_capacity(vertices);
    let mut weights = Vec::with_capacity(vertices);
    for _ in 0..vertices {
        let y = r.next() * (bones as f64 - 1.0);
        positions.push([
            (r.next() as f32 - 0.5) * 0.6,
            y as f32,
            (r.next() as f32 - 0.5) * 0.6,
        ]);
        let mut list: Vec<(u32, f64)> = (0..bones)
            .map(|j| {
                (
                    j as u32,
                    1.0 / (0.3 + (y - j as f64).abs()).powi(2) * (0.5 + r.next()),
                )
            })
            .collect();
        list.sort_by(|a, b| b.1.total_cmp(&a.1));
        list.truncate(influences);
        let total: f64 = list.iter().map(|x| x.1).sum();
        weights.push(
            list.into_iter()
                .map(|(b, w)| (b, (w / total) as f32))
                .collect(),
        );
    }
    Rig {
        bones: (0..bones)
            .map(|j| BoneRef {
                name: format!("bone{j:02}"),
                parent: (j > 0).then(|| format!("bone{:02}", j - 1)),
            })
            .collect(),
        poses: set,
        positions,
        weights,
    }
}

pub fn input(rig: &Rig) -> Input<'static> {
    let mut vertices = Vec::new();
    let sets = rig
        .weights
        .iter()
        .map(|w| w.len().div_ceil(4))
        .max()
        .unwrap_or(1)
        .max(1);
    let mut extra = vec![Vec::new(); sets - 1];
    for (p, w) in rig.positions.iter().zip(&rig.weights) {
        let mut all: Vec<InfluenceSet> = w
            .chunks(4)
            .map(|c| InfluenceSet::from_pairs(c).unwrap())
            .collect();
        all.resize(sets, InfluenceSet::ZERO);
        vertices.push(Vertex {
            position: *p,
            skin: all[0],
        });
        for (s, set) in all.into_iter().enumerate().skip(1) {
            extra[s - 1].push(set);
        }
    }
    let mesh = Mesh::from_parts(true, vertices, extra).unwrap();
    Input::from_mesh(&mesh, rig.bones.clone()).unwrap()
}

/// Per vertex: the squared displacement summed over the poses and the largest
/// displacement at any pose, of `out` (output bones, through `map`) from the input's
/// full skinning.
pub fn measure(rig: &Rig, map: &[u32], out: &Reduced) -> Vec<(f64, f64)> {
    measure_groups(rig, map, out)
        .iter()
        .map(|g| {
            g.iter()
                .fold((0.0, 0.0f64), |(s, m), x| (s + x.0, m.max(x.1)))
        })
        .collect()
}

/// [`measure`] per group of the rig's pose set ([`Poses::group_of`]).
pub fn measure_groups(rig: &Rig, map: &[u32], out: &Reduced) -> Vec<Vec<(f64, f64)>> {
    let back = |o: u32| map.iter().position(|&m| m == o).unwrap();
    (0..rig.positions.len())
        .map(|v| {
            let x = rig.positions[v].map(f64::from);
            let kept: Vec<(usize, f64)> = out.influences[v * out.sets..(v + 1) * out.sets]
                .iter()
                .flat_map(|s| s.pairs())
                .filter(|p| p.1 != 0.0)
                .map(|(o, w)| (back(o), f64::from(w)))
                .collect();
            let mut groups = vec![(0.0, 0.0f64); rig.poses.groups()];
            for p in 0..rig.poses.len() {
                let at = |b: usize| {
                    let m = rig.poses.get(p, b).unwrap();
                    [
                        m[0] * x[0] + m[1] * x[1] + m[2] * x[2] + m[3],
                        m[4] * x[0] + m[5] * x[1] + m[6] * x[2] + m[7],
                        m[8] * x[0] + m[9] * x[1] + m[10] * x[2] + m[11],
                    ]
                };
                let mut d = [0.0; 3];
                for &(b, w) in &rig.weights[v] {
                    let y = at(b as usize);
                    (0..3).for_each(|i| d[i] += f64::from(w) * y[i]);
                }
                for &(b, w) in &kept {
                    let y = at(b);
                    (0..3).for_each(|i| d[i] -= w * y[i]);
                }
                let sq = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                let g = &mut groups[rig.poses.group_of(p)];
                g.0 += sq;
                g.1 = g.1.max(sq.sqrt());
            }
            groups
        })
        .collect()
}

/// The objective of [RF1] per vertex: each group's summed squared displacement weighed
/// by `weights` (all 1 when empty).
pub fn weighed(m: &[Vec<(f64, f64)>], weights: &[f64]) -> Vec<f64> {
    m.iter()
        .map(|g| {
            g.iter()
                .enumerate()
                .map(|(i, x)| weights.get(i).copied().unwrap_or(1.0) * x.0)
                .sum()
        })
        .collect()
}

/// The group weights [RF1] gives, from the plain output `out` measured here (`m`):
/// group g weighs S_0 / S_g, S_g the plain output's displacement summed over the
/// vertices it dropped an influence of (inputs of at most 4096 vertices, which the fit
/// samples whole).
pub fn expected_weights(rig: &Rig, out: &Reduced, m: &[Vec<(f64, f64)>]) -> Vec<f64> {
    let groups = m.first().map_or(0, |g| g.len());
    let dropped = |v: usize| {
        let kept = out.influences[v * out.sets..(v + 1) * out.sets]
            .iter()
            .flat_map(|s| s.pairs())
            .filter(|p| p.1 > 0.0)
            .count();
        kept < rig.weights[v].iter().filter(|w| w.1 > 0.0).count()
    };
    let sums: Vec<f64> = (0..groups)
        .map(|g| {
            (0..m.len())
                .filter(|&v| dropped(v))
                .map(|v| m[v][g].0)
                .sum()
        })
        .collect();
    sums.iter().map(|s| sums[0] / s).collect()
}

pub fn map_of(rig: &Rig, i: &Input<'_>) -> Vec<u32> {
    dashvertex_reduce::index_map(i, &Manifest::init(&rig.bones).unwrap()).unwrap()
}

fn cfg(k: usize, q: Quantize) -> Config {
    Config::default()
        .with_max_influences(k)
        .with_quantize(q)
        .with_normalize(Normalize::Unit)
}

/// Plain and fitted reductions of `rig`.
pub fn both(rig: &Rig, c: &Config, opts: &FitOptions) -> (Vec<u32>, Reduced, Reduced) {
    let (map, plain, fitted, _) = both_reported(rig, c, opts);
    (map, plain, fitted)
}

/// [`both`], with the fit's report.
pub fn both_reported(
    rig: &Rig,
    c: &Config,
    opts: &FitOptions,
) -> (Vec<u32>, Reduced, Reduced, FitReport) {
    let i = input(rig);
    let map = map_of(rig, &i);
    let plain = dashvertex_reduce::reduce(&i, &map, None, c).unwrap();
    let mut fitted = plain.clone();
    let report = fit(&i, &map, &rig.positions, &rig.poses, c, opts, &mut fitted).unwrap();
    (map, plain, fitted, report)
}

fn sums_are_exact(r: &Reduced, q: Quantize) {
    let n = r.influences.len() / r.sets;
    for v in 0..n {
        let sets = &r.influences[v * r.sets..(v + 1) * r.sets];
        match q.max() {
            None => assert!(check_float_sets(sets).passes(), "vertex {v}: {sets:?}"),
            Some(m) => {
                let ints = &r.integers.as_ref().unwrap()[v * r.sets..(v + 1) * r.sets];
                assert_eq!(ints.iter().flatten().sum::<u32>(), m, "vertex {v}");
                for (s, i) in sets.iter().zip(ints) {
                    for (w, q) in s.weights.iter().zip(i) {
                        assert_eq!(*w, (f64::from(*q) / f64::from(m)) as f32);
                        assert_eq!(*q == 0, *w == 0.0);
                    }
                }
            }
        }
    }
}

#[test]
fn the_fit_moves_vertices_less_than_plain_top_k_on_a_chain_rig() {
    // spec: RF1
    let rig = rig(7, 12, 400, 10, 24);
    for (k, q) in [
        (4, Quantize::F32),
        (4, Quantize::Unorm8),
        (2, Quantize::Unorm16),
    ] {
        let (map, plain, fitted) = both(&rig, &cfg(k, q), &FitOptions::default());
        let (a, b) = (measure(&rig, &map, &plain), measure(&rig, &map, &fitted));
        for (v, (pa, fa)) in a.iter().zip(&b).enumerate() {
            assert!(
                fa.0 <= pa.0 * (1.0 + 1e-9) + 1e-12,
                "K={k} {q:?} vertex {v}: {} > {}",
                fa.0,
                pa.0
            );
        }
        let total = |m: &[(f64, f64)]| m.iter().map(|x| x.0).sum::<f64>();
        let worst = |m: &[(f64, f64)]| m.iter().map(|x| x.1).fold(0.0, f64::max);
        assert!(
            total(&b) < 0.8 * total(&a),
            "K={k} {q:?}: {} vs {}",
            total(&b),
            total(&a)
        );
        assert!(
            worst(&b) < worst(&a),
            "K={k} {q:?}: {} vs {}",
            worst(&b),
            worst(&a)
        );
        sums_are_exact(&fitted, q);
    }
}

#[test]
fn the_fit_is_the_same_at_any_thread_count_and_without_the_pair_table() {
    // spec: RF4
    let rig = rig(11, 10, 300, 8, 16);
    let c = cfg(4, Quantize::Unorm8);
    let run = |threads: usize, opts: FitOptions| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| both(&rig, &c, &opts).2)
    };
    let one = run(1, FitOptions::default());
    assert_eq!(one, run(3, FitOptions::default()));
    // The direct path skins every candidate at every pose: the same supports and, within
    // rounding of the objective, the same weights.
    let direct = run(
        2,
        FitOptions {
            dense_bones: 0,
            ..FitOptions::default()
        },
    );
    let same = one
        .influences
        .iter()
        .zip(&direct.influences)
        .filter(|(a, b)| a == b)
        .count();
    assert!(
        same * 100 >= one.influences.len() * 99,
        "{same} of {}",
        one.influences.len()
    );
}

#[test]
fn reducing_a_fitted_output_again_changes_nothing() {
    // spec: RF5
    let rig = rig(3, 8, 200, 8, 12);
    for q in [Quantize::F32, Quantize::Unorm8, Quantize::Unorm16] {
        let c = cfg(4, q);
        let (map, _, fitted) = both(&rig, &c, &FitOptions::default());
        // The fitted output as an input of its own, bones by output index.
        let back = |o: u32| map.iter().position(|&m| m == o).unwrap() as u32;
        let again = Rig {
            bones: rig.bones.clone(),
            poses: rig.poses.clone(),
            positions: rig.positions.clone(),
            weights: fitted
                .influences
                .chunks(fitted.sets)
                .map(|s| {
                    s.iter()
                        .flat_map(|s| s.pairs())
                        .filter(|p| p.1 > 0.0)
                        .map(|(o, w)| (back(o), w))
                        .collect()
                })
                .collect(),
        };
        let (_, plain2, fitted2) = both(&again, &c, &FitOptions::default());
        assert_eq!(plain2.influences, fitted.influences, "{q:?}");
        assert_eq!(fitted2.influences, fitted.influences, "{q:?}");
    }
}

#[test]
fn a_thinned_pose_set_is_reported() {
    let rig = rig(5, 6, 50, 6, 40);
    let c = cfg(2, Quantize::F32);
    let i = input(&rig);
    let map = map_of(&rig, &i);
    let mut r = dashvertex_reduce::reduce(&i, &map, None, &c).unwrap();
    // 6 bones: 21 pairs × 48 per pose; room for 10 poses.
    let opts = FitOptions {
        max_work: 21 * 48 * 10,
        ..FitOptions::default()
    };
    let rep = fit(&i, &map, &rig.positions, &rig.poses, &c, &opts, &mut r).unwrap();
    assert_eq!((rep.poses, rep.poses_given), (10, 40));
    assert!(rep.fitted > 0 && rep.considered >= rep.fitted);
    assert!(rep.objective_fitted < rep.objective_plain);
}

#[test]
fn settings_the_fit_cannot_honour_are_refused() {
    use dashvertex_reduce::fit::FitError;
    let rig = rig(5, 4, 4, 4, 2);
    let i = input(&rig);
    let map = map_of(&rig, &i);
    let go = |c: Config| {
        let mut r = dashvertex_reduce::reduce(&i, &map, None, &c).unwrap();
        fit(
            &i,
            &map,
            &rig.positions,
            &rig.poses,
            &c,
            &FitOptions::default(),
            &mut r,
        )
        .unwrap_err()
    };
    assert_eq!(
        go(cfg(2, Quantize::F32).with_normalize(Normalize::None)),
        FitError::NeedsUnit
    );
    assert_eq!(
        go(cfg(2, Quantize::F32).with_min_weight(0.1)),
        FitError::Threshold
    );
    assert_eq!(go(cfg(17, Quantize::F32)), FitError::TooManyInfluences(17));
}

#[test]
fn auto_precision_picks_the_smallest_storage_within_the_budget() {
    // spec: RQ1
    let rig = rig(9, 8, 200, 8, 16);
    let i = input(&rig);
    let map = map_of(&rig, &i);
    let c = cfg(4, Quantize::F32);
    let opts = FitOptions::default();
    let probe = precision::choose(
        &i,
        &map,
        None,
        &rig.positions,
        &rig.poses,
        &c,
        Some(&opts),
        f64::INFINITY,
    )
    .unwrap();
    assert_eq!(probe.chosen, Some(Quantize::Unorm8));
    let cost = |q: Quantize| probe.costs.iter().find(|x| x.quantize == q).unwrap().max;
    let (c8, c16, c32) = (
        cost(Quantize::Unorm8),
        cost(Quantize::Unorm16),
        cost(Quantize::F32),
    );
    // A budget between unorm8's and unorm16's cost takes unorm16; below every cost, none.
    if c16 < c8 {
        let budget = (c8 + c16) / 2.0;
        let pick = precision::choose(
            &i,
            &map,
            None,
            &rig.positions,
            &rig.poses,
            &c,
            Some(&opts),
            budget,
        )
        .unwrap();
        assert_ne!(pick.chosen, Some(Quantize::Unorm8));
        let (max, _) = precision::displacement(&i, &map, &rig.positions, &rig.poses, &pick.reduced);
        assert!(max <= budget);
    }
    let none = precision::choose(
        &i,
        &map,
        None,
        &rig.positions,
        &rig.poses,
        &c,
        Some(&opts),
        c8.min(c16).min(c32) / 2.0,
    )
    .unwrap();
    assert_eq!(none.chosen, None);
    // The measure agrees with the evaluator here.
    let m = measure(&rig, &map, &probe.reduced)
        .iter()
        .map(|x| x.1)
        .fold(0.0, f64::max);
    assert!((m - c8).abs() <= 1e-9 * m.max(1.0), "{m} vs {c8}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn never_worse_than_plain_at_any_vertex_and_sums_exact(
        seed in any::<u64>(),
        bones in 2usize..10,
        influences in 1usize..12,
        k in 1usize..6,
        q in 0u8..3,
        poses in 1usize..8,
    ) {
        // spec: RF2
        let rig = rig(seed, bones, 12, influences, poses);
        let q = [Quantize::F32, Quantize::Unorm16, Quantize::Unorm8][q as usize];
        let (map, plain, fitted) = both(&rig, &cfg(k, q), &FitOptions::default());
        for (v, (p, f)) in measure(&rig, &map, &plain).iter().zip(measure(&rig, &map, &fitted)).enumerate() {
            prop_assert!(f.0 <= p.0 * (1.0 + 1e-9) + 1e-12, "vertex {}: {} > {}", v, f.0, p.0);
        }
        sums_are_exact(&fitted, q);
        prop_assert!(fitted.influences.chunks(fitted.sets).all(|s| s.iter().flat_map(|s| s.pairs()).filter(|p| p.1 > 0.0).count() <= k));
    }

    #[test]
    fn in_groups_never_worse_by_the_weighed_objective_and_weighed_as_the_spec_says(
        seed in any::<u64>(),
        bones in 2usize..8,
        influences in 2usize..10,
        k in 1usize..5,
        q in 0u8..3,
        poses in 2usize..8,
        split in 1usize..7,
    ) {
        // spec: RF1
        let mut rig = rig(seed, bones, 12, influences, poses);
        let split = split.min(poses - 1);
        let mut grouped = Poses::new(bones);
        for p in 0..poses {
            if p == split {
                prop_assert!(grouped.begin_group());
            }
            grouped.push((0..bones).map(|b| *rig.poses.get(p, b).unwrap()));
        }
        rig.poses = grouped;
        prop_assert_eq!(rig.poses.groups(), 2);
        let q = [Quantize::F32, Quantize::Unorm16, Quantize::Unorm8][q as usize];
        let (map, plain, fitted, report) = both_reported(&rig, &cfg(k, q), &FitOptions::default());
        let (ga, gb) = (measure_groups(&rig, &map, &plain), measure_groups(&rig, &map, &fitted));
        let mut want = expected_weights(&rig, &plain, &ga);
        if want.iter().any(|w| !w.is_finite() || *w == 0.0) {
            // A group the plain output does not move (nothing dropped): all weigh 1.
            want = vec![1.0, 1.0];
        }
        prop_assert_eq!(report.pose_group_weights.len(), 2);
        for (got, w) in report.pose_group_weights.iter().zip(&want) {
            prop_assert!((got - w).abs() <= 1e-9 * w, "{} vs {}", got, w);
        }
        let (ep, ef) = (weighed(&ga, &want), weighed(&gb, &want));
        for (v, (p, f)) in ep.iter().zip(&ef).enumerate() {
            prop_assert!(*f <= p * (1.0 + 1e-9) + 1e-12, "vertex {}: {} > {}", v, f, p);
        }
        sums_are_exact(&fitted, q);
    }
}

#[test]
fn a_pose_set_splits_into_two_groups_at_most() {
    // spec: RF1
    let id = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    let mut p = Poses::new(1);
    // An empty group is not started.
    assert!(p.begin_group());
    assert_eq!(p.groups(), 1);
    p.push([id]);
    assert!(p.begin_group());
    assert!(p.begin_group());
    assert_eq!(p.groups(), 2);
    p.push([id]);
    p.push([id]);
    assert!(!p.begin_group());
    assert_eq!((p.groups(), p.len()), (2, 3));
    assert_eq!([p.group_of(0), p.group_of(1), p.group_of(2)], [0, 1, 1]);
}

#[test]
fn the_spec_vector_the_range_of_motion_counts_as_much_as_the_animation() {
    // spec: RF1
    let id = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    let up = |y: f64| [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, y, 0.0, 0.0, 1.0, 0.0];
    // The animation: the rest pose, and C up by 1; then B up by 0.5.
    let mut one = Poses::new(3);
    one.push([id, id, id]);
    one.push([id, id, up(1.0)]);
    let mut two = one.clone();
    one.push([id, up(0.5), id]);
    assert!(two.begin_group());
    two.push([id, up(0.5), id]);
    // Summed alone, following C costs less: 0.5² × 0.35² = 0.030625 against 0.0625.
    let (_, _, fitted, r) = both_reported(
        &vector_vertex(one),
        &cfg(2, Quantize::F32),
        &FitOptions::default(),
    );
    assert!(r.pose_group_weights.is_empty());
    assert_eq!(fitted.influences[0].joints, [0, 2, 0, 0]);
    assert_eq!(fitted.influences[0].weights, [0.75, 0.25, 0.0, 0.0]);
    // In groups, the range of motion weighs 0.0625 / (0.5² × (0.46666667 − 0.35)²), about
    // 18.37: dropping B now costs 0.5625, and A 0.65, B 0.35 follow it exactly.
    let (map, plain, fitted, r) = both_reported(
        &vector_vertex(two),
        &cfg(2, Quantize::F32),
        &FitOptions::default(),
    );
    assert_eq!(r.pose_group_weights.len(), 2);
    assert!(
        (r.pose_group_weights[1] - 18.367).abs() < 1e-3,
        "{:?}",
        r.pose_group_weights
    );
    assert_eq!(fitted.influences[0].joints, [0, 1, 0, 0]);
    assert_eq!(fitted.influences[0].weights, [0.65, 0.35, 0.0, 0.0]);
    let rig = vector_vertex({
        let mut p = Poses::new(3);
        p.push([id, id, id]);
        p.push([id, id, up(1.0)]);
        p.begin_group();
        p.push([id, up(0.5), id]);
        p
    });
    let (a, b) = (
        measure_groups(&rig, &map, &plain),
        measure_groups(&rig, &map, &fitted),
    );
    assert!((b[0][0].0 - a[0][0].0).abs() < 1e-12);
    assert!(b[0][1].0 < 1e-12 && a[0][1].0 > 3e-3);
}

/// The vertex of the spec's vectors: at (1, 0, 0), bones A 0.4, B 0.35, C 0.25.
fn vector_vertex(poses: Poses) -> Rig {
    Rig {
        bones: ["a", "b", "c"]
            .map(|n| BoneRef {
                name: n.into(),
                parent: None,
            })
            .to_vec(),
        poses,
        positions: vec![[1.0, 0.0, 0.0]],
        weights: vec![vec![(0, 0.4), (1, 0.35), (2, 0.25)]],
    }
}

#[test]
fn the_spec_vector_two_bones_that_move_together_give_way_to_the_one_that_moves() {
    // spec: RF4
    let id = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    let up = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0];
    let mut poses = Poses::new(3);
    poses.push([id, id, id]);
    poses.push([id, id, up]);
    let rig = vector_vertex(poses);
    let (map, plain, fitted) = both(&rig, &cfg(2, Quantize::F32), &FitOptions::default());
    assert_eq!(map, [0, 1, 2]);
    assert_eq!(plain.influences[0].joints, [0, 1, 0, 0]);
    assert_eq!(
        plain.influences[0].weights,
        [0.53333336, 0.46666667, 0.0, 0.0]
    );
    assert!((measure(&rig, &map, &plain)[0].0 - 0.0625).abs() < 1e-7);
    assert_eq!(fitted.influences[0].joints, [0, 2, 0, 0]);
    assert_eq!(fitted.influences[0].weights, [0.75, 0.25, 0.0, 0.0]);
    assert!(measure(&rig, &map, &fitted)[0].0 < 1e-14);
    let (_, _, q) = both(&rig, &cfg(2, Quantize::Unorm8), &FitOptions::default());
    assert_eq!(q.integers.as_ref().unwrap()[0], [191, 64, 0, 0]);
    assert_eq!(q.influences[0].joints, [0, 2, 0, 0]);
}

/// A glTF file's first skinned primitive as a [`Rig`] over the fit's pose set (with
/// `motion` false, the rest pose and the animations' moments alone: what the loss
/// report measures on an animated file).
pub fn rig_of_file(rel: &str, motion: bool) -> Rig {
    use dashvertex_core::Limits;
    let limits = Limits::default();
    let g = dashvertex_gltf::load_path(&dashvertex_testkit::repo().join(rel), &limits).unwrap();
    let anims = dashvertex_skin::animations(&g, &limits).unwrap();
    rig_of_gltf(&g, &anims, motion)
}

/// [`rig_of_file`] for a loaded glTF, over the animations `anims`.
fn rig_of_gltf(
    g: &dashvertex_gltf::Gltf,
    anims: &[dashvertex_skin::Animation],
    motion: bool,
) -> Rig {
    use dashvertex_core::Limits;
    let limits = Limits::default();
    let inputs = dashvertex_reduce::gltf::inputs(g, &limits).unwrap();
    let p = inputs.iter().find(|p| p.skin.is_some()).unwrap();
    let skin = p.skin.unwrap();
    let joints = g.root.skins[skin].joints.len();
    let used: Vec<usize> = if motion {
        (0..joints).collect()
    } else {
        Vec::new()
    };
    let budget = dashvertex_skin::work_budget(g, anims);
    let fp = dashvertex_skin::fit_poses(g, skin, anims, &used, &limits, budget, 0).unwrap();
    let poses = dashvertex_reduce::fit::gltf::poses_of(&fp);
    Rig {
        bones: p.input.bones.clone(),
        poses,
        positions: p.positions(),
        weights: (0..p.input.len())
            .map(|v| {
                p.input
                    .candidates_of(v)
                    .iter()
                    .filter(|c| c.weight > 0.0)
                    .map(|c| (c.bone, c.weight))
                    .collect()
            })
            .collect(),
    }
}

#[test]
fn without_an_animation_the_rest_pose_and_the_range_of_motion_are_one_group() {
    // spec: RF1 RF3
    // Blender's FBX export of a character: its rest pose is the first frame of its
    // action, not the bind pose.
    use dashvertex_core::Limits;
    let limits = Limits::default();
    let fbx = std::fs::read(dashvertex_testkit::repo().join("fixtures/fbx/animated_rig.fbx"));
    let scene = dashvertex_fbx::load(&fbx.unwrap(), &limits).unwrap();
    let glb = dashvertex_fbx::to_glb(&scene).unwrap().glb;
    let g = dashvertex_gltf::load(&glb, &dashvertex_gltf::NoFiles, &limits).unwrap();
    let anims = dashvertex_skin::animations(&g, &limits).unwrap();
    assert!(!anims.is_empty());
    assert_eq!(rig_of_gltf(&g, &anims, true).poses.groups(), 2);
    let still = rig_of_gltf(&g, &[], true);
    assert_eq!(still.poses.groups(), 1);
    let c = cfg(4, Quantize::F32);
    let (map, plain, fitted, report) = both_reported(&still, &c, &FitOptions::default());
    assert!(report.pose_group_weights.is_empty());
    assert!(report.fitted > 0);
    // The rest pose moves the plain output: as a group of its own it would have been
    // weighed against the whole range of motion.
    let mut rest = Poses::new(still.poses.bones());
    rest.push((0..still.poses.bones()).map(|b| *still.poses.get(0, b).unwrap()));
    let at_rest = Rig {
        bones: still.bones.clone(),
        poses: rest,
        positions: still.positions.clone(),
        weights: still.weights.clone(),
    };
    let moved = measure(&at_rest, &map, &plain);
    assert!(moved.iter().map(|m| m.1).fold(0.0, f64::max) > 1e-3);
    // Every pose weighs 1: never worse by the plain sum, at any vertex.
    let (a, b) = (
        measure(&still, &map, &plain),
        measure(&still, &map, &fitted),
    );
    for (v, (p, f)) in a.iter().zip(&b).enumerate() {
        assert!(
            f.0 <= p.0 * (1.0 + 1e-9) + 1e-15,
            "vertex {v}: {} > {}",
            f.0,
            p.0
        );
    }
    assert!(b.iter().map(|x| x.0).sum::<f64>() < a.iter().map(|x| x.0).sum::<f64>());
}

#[test]
fn on_animated_exports_the_fit_lowers_the_worst_and_mean_displacement() {
    // spec: RF1
    for (file, bounds) in [
        (
            "fixtures/blender/loss_rig.glb",
            [(4, 0.7, 0.8), (2, 0.85, 0.85)],
        ),
        (
            "fixtures/generated/animated_rig_10.glb",
            [(4, 0.7, 0.8), (2, 0.85, 0.85)],
        ),
    ] {
        let rig = rig_of_file(file, true);
        let animated = rig_of_file(file, false);
        // The rest pose and the animations, then the range of motion.
        assert_eq!(rig.poses.groups(), 2, "{file}");
        for (k, worst_bound, mean_bound) in bounds {
            let (map, plain, fitted, report) =
                both_reported(&rig, &cfg(k, Quantize::F32), &FitOptions::default());
            let (ga, gb) = (
                measure_groups(&rig, &map, &plain),
                measure_groups(&rig, &map, &fitted),
            );
            let weights = expected_weights(&rig, &plain, &ga);
            assert_eq!(report.pose_group_weights.len(), 2);
            for (got, want) in report.pose_group_weights.iter().zip(&weights) {
                assert!(
                    (got - want).abs() <= 1e-9 * want,
                    "{file} K={k}: {got} vs {want}"
                );
            }
            // Never worse by the objective, at any vertex.
            let (ep, ef) = (weighed(&ga, &weights), weighed(&gb, &weights));
            for (v, (p, f)) in ep.iter().zip(&ef).enumerate() {
                assert!(*f <= p * (1.0 + 1e-9) + 1e-15, "{file} K={k} vertex {v}");
            }
            let (a, b) = (measure(&rig, &map, &plain), measure(&rig, &map, &fitted));
            // Over the animation alone, as the loss report measures it.
            let (c, d) = (
                measure(&animated, &map, &plain),
                measure(&animated, &map, &fitted),
            );
            let worst = |m: &[(f64, f64)]| m.iter().map(|x| x.1).fold(0.0, f64::max);
            let mean = |m: &[(f64, f64)]| m.iter().map(|x| x.1).sum::<f64>() / m.len() as f64;
            let (rw, rm) = (worst(&b) / worst(&a), mean(&b) / mean(&a));
            let (aw, am) = (worst(&d) / worst(&c), mean(&d) / mean(&c));
            eprintln!(
                "{file} K={k}: pose set: worst {:.6} -> {:.6} ({rw:.3}x), mean {:.6} -> {:.6} ({rm:.3}x); animation alone: worst {aw:.3}x, mean {am:.3}x",
                worst(&a),
                worst(&b),
                mean(&a),
                mean(&b)
            );
            assert!(
                rw <= worst_bound && rm <= mean_bound,
                "{file} K={k}: {rw} {rm}"
            );
            assert!(
                aw <= worst_bound && am <= mean_bound,
                "{file} K={k}: {aw} {am}"
            );
        }
    }
}

mod gltf_run {
    use dashvertex_core::Limits;
    use dashvertex_gltf::Container;
    use dashvertex_gltf::export::BufferFiles;
    use dashvertex_reduce::fit::FitOptions;
    use dashvertex_reduce::fit::gltf::{GltfFit, reduce_gltf_fitted};
    use dashvertex_reduce::manifest::Manifest;
    use dashvertex_reduce::pipeline::{Options, PipelineError, reduce_gltf};
    use dashvertex_reduce::{Config, Normalize, Quantize};

    fn cfg(q: Quantize) -> Config {
        Config::default()
            .with_quantize(q)
            .with_normalize(Normalize::Unit)
    }

    /// Reduces the generated rig plainly and with `fit` / `max_error`; returns the
    /// largest displacement over its animation of each output (the loss report's figure)
    /// and the fitted run's primitive records.
    fn run(
        q: Quantize,
        fit: bool,
        max_error: Option<f64>,
    ) -> Result<(f64, f64, Vec<dashvertex_reduce::fit::gltf::PrimitiveFit>), PipelineError> {
        let limits = Limits::default();
        let path = dashvertex_testkit::repo().join("fixtures/generated/animated_rig_10.glb");
        let g = dashvertex_gltf::load_path(&path, &limits).unwrap();
        let prims = dashvertex_reduce::gltf::inputs(&g, &limits).unwrap();
        let anims = dashvertex_skin::animations(&g, &limits).unwrap();
        let opts = Options {
            keep_order: true,
            ..Options::default()
        };
        let files = BufferFiles::Embed;
        let plain = reduce_gltf(
            &g,
            &prims,
            &mut Manifest::default(),
            &cfg(q),
            &opts,
            Container::Glb,
            &files,
        )
        .unwrap();
        let plan = GltfFit {
            fit,
            max_error,
            anims: &anims,
            budget: dashvertex_skin::work_budget(&g, &anims),
            options: FitOptions::default(),
            limits: &limits,
        };
        let (fitted, records) = reduce_gltf_fitted(
            &g,
            &prims,
            &mut Manifest::default(),
            &cfg(q),
            &opts,
            Container::Glb,
            &files,
            &plan,
        )?;
        let max = |bytes: &[u8]| {
            let out = dashvertex_gltf::load(bytes, &dashvertex_gltf::NoFiles, &limits).unwrap();
            dashvertex_skin::loss(&g, &out, &limits).unwrap()[0].max
        };
        Ok((max(&plain.written.main), max(&fitted.written.main), records))
    }

    #[test]
    fn a_fitted_glb_moves_its_vertices_less_over_the_animation() {
        // spec: RF1
        for q in [Quantize::F32, Quantize::Unorm8] {
            let (plain, fitted, records) = run(q, true, None).unwrap();
            assert!(fitted <= 0.7 * plain, "{q:?}: {fitted} vs {plain}");
            let f = records[0].fit.as_ref().unwrap();
            assert_eq!((f.considered, records[0].quantize), (144, q));
            assert_eq!(records[0].poses, (46, 60, 106));
        }
    }

    #[test]
    fn quantize_auto_takes_the_smallest_storage_within_the_budget_and_never_exceeds_it() {
        // spec: RQ1
        let (_, fitted, records) = run(Quantize::F32, true, Some(1.0)).unwrap();
        assert_eq!(records[0].quantize, Quantize::Unorm8);
        assert_eq!(records[0].costs.len(), 3);
        assert!(fitted <= 1.0);
        // A budget between what unorm8 and float cost takes a larger storage, and holds.
        let c = &records[0].costs;
        let (c8, c32) = (c[0].max, c[2].max);
        if c32 < c8 {
            let budget = (c8 + c32) / 2.0;
            let (_, moved, r) = run(Quantize::F32, true, Some(budget)).unwrap();
            assert_ne!(r[0].quantize, Quantize::Unorm8);
            assert!(moved <= budget, "{moved} > {budget}");
        }
        // Below every storage's cost: refused, naming the primitive.
        let best = c.iter().map(|x| x.max).fold(f64::INFINITY, f64::min);
        match run(Quantize::F32, true, Some(best / 2.0)) {
            Err(PipelineError::OverBudget {
                mesh: 0,
                primitive: 0,
                ..
            }) => {}
            other => panic!("{:?}", other.map(|x| x.2)),
        }
    }
}

#[test]
fn a_support_another_rule_chose_is_fitted_in_its_slots() {
    // spec: SP14 (spec/split.md §3, --reduce --fit): the RF4 vector with B taken off by
    // the split's rule; the slots keep their places, B's slot stays empty.
    use dashvertex_reduce::fit::support::{RefitScratch, SupportFit};
    let id = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    let up = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0];
    let mut poses = Poses::new(3);
    poses.push([id, id, id]);
    poses.push([id, id, up]);
    let fit = SupportFit::new(&poses, &[true, true, true]);
    let full = [(0, 0.4), (1, 0.35), (2, 0.25)];
    let renormalized = [(0, 0.615_384_6), (0, 0.0), (2, 0.384_615_4), (0, 0.0)];
    let mut sc = RefitScratch::default();
    let r = fit
        .refit(
            [1.0, 0.0, 0.0],
            &full,
            &renormalized,
            Quantize::F32,
            &mut sc,
        )
        .expect("the fit moves the vertex less");
    assert_eq!(r.weights, [0.75, 0.0, 0.25, 0.0]);
    assert!(r.integers.is_none());
    // Renormalized, C weighs 0.3846 where it should weigh 0.25: 0.1346² at the raised pose.
    assert!((r.objective_given - 0.134_615_4f64.powi(2)).abs() < 1e-6);
    assert!(r.objective < 1e-14);
    let q = fit
        .refit(
            [1.0, 0.0, 0.0],
            &full,
            &[(0, 157.0 / 255.0), (0, 0.0), (2, 98.0 / 255.0), (0, 0.0)],
            Quantize::Unorm8,
            &mut sc,
        )
        .expect("fitted in unorm8");
    assert_eq!(q.integers.as_deref(), Some(&[191, 0, 64, 0][..]));
    // Weights already the best stay: nothing is returned.
    assert!(
        fit.refit(
            [1.0, 0.0, 0.0],
            &full,
            &[(0, 0.75), (2, 0.25), (0, 0.0), (0, 0.0)],
            Quantize::F32,
            &mut sc
        )
        .is_none()
    );
    // A bone the full influences do not hold is not fitted.
    assert!(
        fit.refit([1.0, 0.0, 0.0], &full, &[(7, 1.0)], Quantize::F32, &mut sc)
            .is_none()
    );
}

#[test]
fn a_motion_weight_of_zero_fits_to_the_first_group_alone_and_a_bad_one_is_refused() {
    // spec: RF1
    let id = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    let up = |y: f64| [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, y, 0.0, 0.0, 1.0, 0.0];
    let mut poses = Poses::new(3);
    poses.push([id, id, id]);
    poses.push([id, id, up(1.0)]);
    poses.begin_group();
    poses.push([id, up(0.5), id]);
    let rig = vector_vertex(poses);
    let opts = FitOptions {
        motion_weight: 0.0,
        ..FitOptions::default()
    };
    let (_, _, fitted, r) = both_reported(&rig, &cfg(2, Quantize::F32), &opts);
    assert_eq!(r.pose_group_weights, [1.0, 0.0]);
    // The vector's animation alone: C is followed, B dropped.
    assert_eq!(fitted.influences[0].joints, [0, 2, 0, 0]);
    assert_eq!(fitted.influences[0].weights, [0.75, 0.25, 0.0, 0.0]);
    let i = input(&rig);
    let map = map_of(&rig, &i);
    for bad in [-1.0, f64::NAN, f64::INFINITY] {
        let c = cfg(2, Quantize::F32);
        let mut out = dashvertex_reduce::reduce(&i, &map, None, &c).unwrap();
        let opts = FitOptions {
            motion_weight: bad,
            ..FitOptions::default()
        };
        let e = fit(&i, &map, &rig.positions, &rig.poses, &c, &opts, &mut out).unwrap_err();
        assert!(
            matches!(e, dashvertex_reduce::fit::FitError::MotionWeight(_)),
            "{e}"
        );
    }
}
