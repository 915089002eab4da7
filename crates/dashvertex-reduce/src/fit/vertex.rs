//! One vertex of the fit: its candidates merged as the reducer merges them, the plain
//! output it replaces only when that lowers the displacement, the two supports tried
//! (the plain top K and the greedy one), their weights made exact for the storage, and
//! the output slots written.

use std::cmp::Ordering;

use dashvertex_core::InfluenceSet;
use dashvertex_core::canonical_order;

use super::gram::Table;
use super::solve::{Fitted, Problem, target};
use crate::input::{Cand, CandidateBlock, Input};

/// What a vertex's fit needs from the run.
pub(super) struct Ctx<'a> {
    pub(super) input: &'a Input<'a>,
    pub(super) map: &'a [u32],
    pub(super) positions: &'a [[f32; 3]],
    pub(super) table: &'a Table<'a>,
    /// Bones a support may hold: K, at most four per output set.
    pub(super) k: usize,
    /// 255 or 65535 for integer storage.
    pub(super) qmax: Option<u32>,
}

/// Buffers a worker reuses from vertex to vertex.
#[derive(Default)]
pub(super) struct Scratch {
    /// The decoded block of vertices the candidates are read from.
    block: CandidateBlock,
    cands: Vec<Cand>,
    /// (input bone, output bone, weight), merged, in the total order.
    list: Vec<(u32, u32, f32)>,
    g: Vec<f64>,
    points: Vec<[f64; 3]>,
    compact: Vec<usize>,
    ints: Vec<u32>,
    rems: Vec<(f64, usize)>,
    raw: Vec<(u32, f32)>,
    plain: Vec<(u32, f32)>,
    /// Per candidate: the plain weights, the weights as read, `G · full`, and work space.
    w_plain: Vec<f64>,
    full: Vec<f64>,
    t: Vec<f64>,
    u: Vec<f64>,
    dense: Vec<f64>,
    bones: Vec<u32>,
    weights: Vec<f64>,
    flat: Vec<f32>,
    q: Vec<(usize, u32)>,
    /// The KKT system's space.
    work: Vec<f64>,
    /// The written weights of the support being tried, and of the best so far.
    trial: Written,
    best: Written,
}

/// Which weights a vertex was written with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Choice {
    /// Nothing was dropped: the fit had nothing to do.
    Untouched,
    /// The plain reduction's weights (no fit lowered the displacement).
    Plain,
    /// Weights fitted on the plain top-K bones.
    TopK,
    /// Weights fitted on the greedy support.
    Greedy,
}

/// What the fit did to one vertex.
#[derive(Clone, Copy, Debug)]
pub(super) struct Outcome {
    pub(super) choice: Choice,
    /// Squared displacement summed over the poses: the plain output's, and the written.
    pub(super) plain: f64,
    pub(super) written: f64,
    /// Influences the plain output kept, and the written output.
    pub(super) kept_plain: usize,
    pub(super) kept: usize,
    /// The heaviest candidate the written output does not hold: (weight, output bone,
    /// whether the fit left it out while the plain selection kept it).
    pub(super) dropped: Option<(f32, u32, bool)>,
}

impl Outcome {
    const UNTOUCHED: Outcome = Outcome {
        choice: Choice::Untouched,
        plain: 0.0,
        written: 0.0,
        kept_plain: 0,
        kept: 0,
        dropped: None,
    };
}

/// One support's written weights: (candidate position, weight, integer), in the
/// output order.
type Written = Vec<(usize, f32, u32)>;

/// Fits vertex `v`, whose plain output is `sets` (and `ints`), in place.
pub(super) fn fit_vertex(
    ctx: &Ctx<'_>,
    v: usize,
    sets: &mut [InfluenceSet],
    ints: Option<&mut [[u32; 4]]>,
    sc: &mut Scratch,
) -> Outcome {
    // The Gram matrix's buffer is held apart while the rest of the scratch is used.
    let mut g = std::mem::take(&mut sc.g);
    let o = fit_with(ctx, v, sets, ints, sc, &mut g);
    sc.g = g;
    o
}

fn fit_with(
    ctx: &Ctx<'_>,
    v: usize,
    sets: &mut [InfluenceSet],
    ints: Option<&mut [[u32; 4]]>,
    sc: &mut Scratch,
    g: &mut Vec<f64>,
) -> Outcome {
    let Some(x) = prepare(ctx, v, sets, sc) else {
        return Outcome::UNTOUCHED;
    };
    ctx.table
        .gram(x, &sc.bones, g, (&mut sc.points, &mut sc.compact));
    let mut full = std::mem::take(&mut sc.full);
    let mut t = std::mem::take(&mut sc.t);
    full.clear();
    full.extend(sc.list.iter().map(|c| f64::from(c.2)));
    target(g, &full, &mut t);
    let problem = Problem::new(g, &full, &t);
    let o = choose(ctx, &problem, sets, ints, sc);
    sc.full = full;
    sc.t = t;
    o
}

/// Reads vertex `v`'s candidates (`sc.list`, `sc.bones`) and its plain output `sets`
/// (`sc.plain`, `sc.w_plain`); its position when the plain output dropped a candidate,
/// so the fit has something to do, else `None`.
fn prepare(ctx: &Ctx<'_>, v: usize, sets: &[InfluenceSet], sc: &mut Scratch) -> Option<[f64; 3]> {
    merged(ctx, v, sc);
    let n = sc.list.len();
    sc.plain.clear();
    sc.plain
        .extend(sets.iter().flat_map(|s| s.pairs()).filter(|p| p.1 > 0.0));
    if sc.plain.len() >= n || n < 2 {
        return None;
    }
    sc.w_plain.clear();
    sc.w_plain.resize(n, 0.0);
    for &(b, w) in &sc.plain {
        // A bone the candidates do not hold (the empty-vertex root): left alone.
        let i = sc.list.iter().position(|x| x.1 == b)?;
        *sc.w_plain.get_mut(i)? = f64::from(w);
    }
    sc.bones.clear();
    sc.bones.extend(sc.list.iter().map(|c| c.0));
    Some(
        ctx.positions
            .get(v)
            .copied()
            .unwrap_or([0.0; 3])
            .map(f64::from),
    )
}

/// Per group of the pose set ([`Table::groups`]), vertex `v`'s plain output's squared
/// displacement summed over the group's poses, and the group's scale for the vertex (the
/// mean diagonal of its Gram block); `None` when the plain output dropped nothing.
pub(super) fn plain_by_group(
    ctx: &Ctx<'_>,
    v: usize,
    sets: &[InfluenceSet],
    sc: &mut Scratch,
    out: &mut Vec<(f64, f64)>,
) -> Option<()> {
    let x = prepare(ctx, v, sets, sc)?;
    let mut g = std::mem::take(&mut sc.g);
    ctx.table
        .gram(x, &sc.bones, &mut g, (&mut sc.points, &mut sc.compact));
    let n = sc.list.len();
    sc.full.clear();
    sc.full.extend(sc.list.iter().map(|c| f64::from(c.2)));
    out.clear();
    for block in g.chunks_exact(n * n) {
        target(block, &sc.full, &mut sc.t);
        let e = Problem::new(block, &sc.full, &sc.t).objective(&sc.w_plain);
        let trace: f64 = (0..n)
            .map(|i| block.get(i * n + i).copied().unwrap_or(0.0))
            .sum();
        out.push((e, trace / n as f64));
    }
    sc.g = g;
    Some(())
}

/// Tries the plain top K and the greedy support on `problem` and writes the best, when
/// it beats the plain output already in `sets`.
fn choose(
    ctx: &Ctx<'_>,
    problem: &Problem<'_>,
    sets: &mut [InfluenceSet],
    ints: Option<&mut [[u32; 4]]>,
    sc: &mut Scratch,
) -> Outcome {
    let n = problem.n;
    let e_plain = problem.objective(&sc.w_plain);
    let k = ctx.k.min(n);
    let mut top = [0usize; super::solve::CAP];
    for (i, s) in top.iter_mut().enumerate().take(k) {
        *s = i;
    }
    let top = top.get(..k).unwrap_or_default();
    let (greedy, len, greedy_fit) = problem.greedy(k, &mut sc.u, &mut sc.work);
    let greedy = greedy.get(..len).unwrap_or_default();
    // The greedy support first: its E is what the top K's must reach, and the top K is
    // solved only when a bound below its E does not already rule it out. Ties still go
    // to the top K (then to the plain output, which a fit must strictly beat).
    let mut best: Option<(Choice, f64)> = None;
    if greedy != top
        && let Some(fitted) = greedy_fit
    {
        exact(ctx, problem, &fitted, sc);
        dense(n, &sc.trial, &mut sc.dense);
        let e = problem.objective(&sc.dense);
        if e < e_plain {
            best = Some((Choice::Greedy, e));
            std::mem::swap(&mut sc.trial, &mut sc.best);
        }
    }
    let fitted = if greedy == top && top.len() > 1 {
        // The greedy search already solved this support.
        greedy_fit
    } else {
        // The equality step serves both the bound and, when the top K is solved, the
        // solve's first step.
        let beat = best.map_or(e_plain, |b| b.1);
        problem.solve_equality(top, &mut sc.work).and_then(|first| {
            let out_of_reach = problem
                .lower_bound(top, &first, &mut sc.dense)
                .is_some_and(|lb| lb > beat || lb >= e_plain);
            if out_of_reach {
                None
            } else {
                problem.solve_from(top, first, &mut sc.work)
            }
        })
    };
    if let Some(fitted) = fitted {
        exact(ctx, problem, &fitted, sc);
        dense(n, &sc.trial, &mut sc.dense);
        let e = problem.objective(&sc.dense);
        if e < e_plain && best.is_none_or(|b| e <= b.1) {
            best = Some((Choice::TopK, e));
            std::mem::swap(&mut sc.trial, &mut sc.best);
        }
    }
    let kept_plain = sc.plain.len();
    let Some((choice, e)) = best else {
        let w_plain = &sc.w_plain;
        let dropped = heaviest_dropped(
            &sc.list,
            |i| w_plain.get(i).is_some_and(|&w| w > 0.0),
            |_| false,
        );
        return Outcome {
            choice: Choice::Plain,
            plain: e_plain,
            written: e_plain,
            kept_plain,
            kept: kept_plain,
            dropped,
        };
    };
    write(&sc.list, &sc.best, sets, ints);
    let (written, w_plain) = (&sc.best, &sc.w_plain);
    let dropped = heaviest_dropped(
        &sc.list,
        |i| written.iter().any(|x| x.0 == i),
        |i| w_plain.get(i).is_some_and(|&w| w > 0.0),
    );
    Outcome {
        choice,
        plain: e_plain,
        written: e,
        kept_plain,
        kept: sc.best.len(),
        dropped,
    }
}

/// Vertex `v`'s candidates into `sc.list`: positive finite weights, a bone listed twice
/// merged by adding its weights in float64 in ascending order, rounded once (as the
/// reducer merges), in the total order of output bones.
fn merged(ctx: &Ctx<'_>, v: usize, sc: &mut Scratch) {
    ctx.input.candidates_near(v, &mut sc.block, &mut sc.cands);
    sc.list.clear();
    let raw = &mut sc.raw;
    raw.clear();
    raw.extend(
        sc.cands
            .iter()
            .filter(|c| c.weight.is_finite() && c.weight > 0.0)
            .map(|c| (c.bone, c.weight)),
    );
    // Most vertices name each bone once: then merging changes nothing, and the sort
    // that brings a bone's entries together is skipped.
    let repeats = may_repeat(raw)
        && raw.iter().enumerate().any(|(i, a)| {
            raw.get(..i)
                .is_some_and(|before| before.iter().any(|b| b.0 == a.0))
        });
    if !repeats {
        sc.list.extend(
            raw.iter()
                .map(|&(b, w)| (b, ctx.map.get(b as usize).copied().unwrap_or(u32::MAX), w)),
        );
        sc.list
            .sort_unstable_by(|a, b| canonical_order(&(a.1, a.2), &(b.1, b.2)));
        return;
    }
    raw.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let mut i = 0;
    while let Some(&(b, w)) = raw.get(i) {
        let mut total = f64::from(w);
        let mut j = i + 1;
        while let Some(&(_, w2)) = raw.get(j).filter(|x| x.0 == b) {
            total += f64::from(w2);
            j += 1;
        }
        let out = ctx.map.get(b as usize).copied().unwrap_or(u32::MAX);
        sc.list.push((b, out, to_f32(total)));
        i = j;
    }
    sc.list
        .sort_unstable_by(|a, b| canonical_order(&(a.1, a.2), &(b.1, b.2)));
}

/// False when no two entries of `raw` can name the same bone: their bones' low eight
/// bits all differ (one bit each in a 256-bit mask). True tells nothing.
fn may_repeat(raw: &[(u32, f32)]) -> bool {
    let mut seen = [0u64; 4];
    for &(b, _) in raw {
        let low = (b & 255) as usize;
        let bit = 1u64 << (low % 64);
        let Some(word) = seen.get_mut(low / 64) else {
            return true;
        };
        if *word & bit != 0 {
            return true;
        }
        *word |= bit;
    }
    false
}

#[allow(
    clippy::cast_possible_truncation,
    reason = "f64 → f32 rounds to nearest"
)]
fn to_f32(x: f64) -> f32 {
    x as f32
}

/// The fitted weights made exact for the storage: binary32 passing the glTF sum rule in
/// the output layout, or integers summing to exactly `qmax` (largest-remainder
/// rounding, then single units moved between bones while a move lowers the objective,
/// at most 64 moves). Bones whose weight ends at 0 are left out. Output order: weight
/// descending, output bone ascending.
fn exact(ctx: &Ctx<'_>, p: &Problem<'_>, fitted: &Fitted, sc: &mut Scratch) {
    let list = &sc.list;
    let out_bone = |i: usize| list.get(i).map_or(u32::MAX, |x| x.1);
    let w = &mut sc.trial;
    w.clear();
    match ctx.qmax {
        None => w.extend(fitted.pairs().map(|(i, x)| (i, to_f32(x), 0))),
        Some(max) => {
            sc.weights.clear();
            sc.weights.extend(fitted.pairs().map(|x| x.1.max(0.0)));
            dashvertex_core::weights::largest_remainder(
                &sc.weights,
                max,
                &mut sc.ints,
                &mut sc.rems,
            );
            sc.q.clear();
            sc.q.extend(fitted.pairs().map(|x| x.0).zip(sc.ints.iter().copied()));
            improve(p, &mut sc.q, max, &mut sc.dense, &mut sc.u);
            w.extend(
                sc.q.iter()
                    .map(|&(i, q)| (i, to_f32(f64::from(q) / f64::from(max)), q)),
            );
        }
    }
    w.retain(|x| x.1 > 0.0);
    let by_weight = |a: &(usize, f32, u32), b: &(usize, f32, u32)| -> Ordering {
        canonical_order(&(out_bone(a.0), a.1), &(out_bone(b.0), b.1))
    };
    w.sort_by(by_weight);
    if ctx.qmax.is_none() {
        for _ in 0..2 {
            sc.flat.clear();
            sc.flat.extend(w.iter().map(|x| x.1));
            dashvertex_core::weights::normalize_unit(&mut sc.flat);
            for (x, f) in w.iter_mut().zip(&sc.flat) {
                x.1 = *f;
            }
            w.retain(|x| x.1 > 0.0);
            if w.is_sorted_by(|a, b| by_weight(a, b) != Ordering::Greater) {
                break;
            }
            w.sort_by(by_weight);
        }
    }
}

/// Moves single units between the bones of `q` (candidate position, integer) while a
/// move lowers the objective: the best move each time (ties to the first pair in order),
/// at most 64.
pub(super) fn improve(
    p: &Problem<'_>,
    q: &mut [(usize, u32)],
    max: u32,
    dense: &mut Vec<f64>,
    grad: &mut Vec<f64>,
) {
    let u = 1.0 / f64::from(max);
    dense.clear();
    dense.resize(p.n, 0.0);
    for &(i, x) in q.iter() {
        if let Some(s) = dense.get_mut(i) {
            *s = f64::from(x) * u;
        }
    }
    p.half_gradient(dense, grad);
    for _ in 0..64 {
        let mut best: Option<(usize, usize, f64)> = None;
        for (a, &(i, qi)) in q.iter().enumerate() {
            if qi == 0 {
                continue;
            }
            for (b, &(j, _)) in q.iter().enumerate() {
                if a == b {
                    continue;
                }
                let gi = grad.get(i).copied().unwrap_or(0.0);
                let gj = grad.get(j).copied().unwrap_or(0.0);
                let curve = p.entry(i, i) + p.entry(j, j) - 2.0 * p.entry(i, j);
                let change = 2.0 * u * (gj - gi) + u * u * curve;
                if change < 0.0 && best.is_none_or(|x| change < x.2) {
                    best = Some((a, b, change));
                }
            }
        }
        let Some((a, b, _)) = best else { break };
        let (Some(&(i, _)), Some(&(j, _))) = (q.get(a), q.get(b)) else {
            break;
        };
        if let Some(x) = q.get_mut(a) {
            x.1 -= 1;
        }
        if let Some(x) = q.get_mut(b) {
            x.1 += 1;
        }
        for (k, g) in grad.iter_mut().enumerate() {
            *g += u * (p.entry(k, j) - p.entry(k, i));
        }
    }
}

/// The written weights as one weight per candidate (0 for those left out), into `d`.
fn dense(n: usize, written: &Written, d: &mut Vec<f64>) {
    d.clear();
    d.resize(n, 0.0);
    for &(i, w, _) in written {
        if let Some(s) = d.get_mut(i) {
            *s = f64::from(w);
        }
    }
}

/// Writes `written` into the vertex's sets (and integers): influence `i` in set `i / 4`,
/// slot `i % 4`, unused slots bone 0 with weight 0.
fn write(
    list: &[(u32, u32, f32)],
    written: &Written,
    sets: &mut [InfluenceSet],
    mut ints: Option<&mut [[u32; 4]]>,
) {
    for s in sets.iter_mut() {
        *s = InfluenceSet::ZERO;
    }
    if let Some(q) = ints.as_deref_mut() {
        for s in q.iter_mut() {
            *s = [0; 4];
        }
    }
    for (slot, &(i, w, q)) in written.iter().enumerate() {
        let bone = list.get(i).map_or(0, |x| x.1);
        if let Some(set) = sets.get_mut(slot / 4) {
            if let Some(j) = set.joints.get_mut(slot % 4) {
                *j = bone;
            }
            if let Some(x) = set.weights.get_mut(slot % 4) {
                *x = w;
            }
        }
        if let Some(x) = ints
            .as_deref_mut()
            .and_then(|s| s.get_mut(slot / 4))
            .and_then(|s| s.get_mut(slot % 4))
        {
            *x = q;
        }
    }
}

/// The heaviest candidate (first in the total order) for which `kept` is false, with
/// whether `was_kept` held for it.
fn heaviest_dropped(
    list: &[(u32, u32, f32)],
    kept: impl Fn(usize) -> bool,
    was_kept: impl Fn(usize) -> bool,
) -> Option<(f32, u32, bool)> {
    let i = (0..list.len()).find(|&i| !kept(i))?;
    let &(_, out, w) = list.get(i)?;
    Some((w, out, was_kept(i)))
}
