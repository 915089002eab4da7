//! The fit's arithmetic on one vertex's Gram matrix ([`super::gram`]): the squared
//! displacement of any weights, the best non-negative weights summing to one on a given
//! support, and the greedy support search.

/// One vertex's problem: `n` candidates in the reducer's total order (weight descending,
/// bone index ascending), their weights as read (`full`), their Gram matrix `g`
/// (row-major) and `t = g · full`.
pub(super) struct Problem<'a> {
    pub(super) n: usize,
    pub(super) g: &'a [f64],
    pub(super) full: &'a [f64],
    pub(super) t: &'a [f64],
    pub(super) c0: f64,
}

/// Bones a support holds at most ([`super::MAX_FIT_INFLUENCES`]).
pub(super) const CAP: usize = super::MAX_FIT_INFLUENCES;

/// Candidates whose objective is summed on the stack; more go the dense way.
const MAX_ROWS: usize = 64;

/// Weights on a support: candidate positions (ascending) and their weights, held on the
/// stack (a vertex's fit allocates nothing).
#[derive(Clone, Copy, Debug)]
pub(super) struct Fitted {
    idx: [usize; CAP],
    w: [f64; CAP],
    len: usize,
}

impl Fitted {
    const EMPTY: Fitted = Fitted {
        idx: [0; CAP],
        w: [0.0; CAP],
        len: 0,
    };

    fn push(&mut self, i: usize, w: f64) {
        if let (Some(a), Some(b)) = (self.idx.get_mut(self.len), self.w.get_mut(self.len)) {
            *a = i;
            *b = w;
            self.len += 1;
        }
    }

    /// (candidate position, weight) pairs.
    pub(super) fn pairs(&self) -> impl Iterator<Item = (usize, f64)> + '_ {
        self.idx
            .iter()
            .copied()
            .zip(self.w.iter().copied())
            .take(self.len)
    }
}

/// `t = g · full` into `t` (`n × n` row-major `g`).
pub(super) fn target(g: &[f64], full: &[f64], t: &mut Vec<f64>) {
    let n = full.len();
    t.clear();
    t.resize(n, -0.0);
    // Column by column (`g` is symmetric): each `t_i` sums its products in the order of
    // `j`, as a row's dot product would, and a column's pass runs over contiguous rows.
    for (j, &fj) in full.iter().enumerate() {
        let row = g.get(j * n..(j + 1) * n).unwrap_or_default();
        for (ti, &gji) in t.iter_mut().zip(row) {
            *ti += gji * fj;
        }
    }
}

#[inline]
fn at(v: &[f64], i: usize) -> f64 {
    v.get(i).copied().unwrap_or(0.0)
}

impl<'a> Problem<'a> {
    /// The problem of Gram matrix `g`, weights `full` and `t = g · full` ([`target`]).
    pub(super) fn new(g: &'a [f64], full: &'a [f64], t: &'a [f64]) -> Problem<'a> {
        let n = full.len();
        let c0 = full.iter().zip(t).map(|(a, b)| a * b).sum();
        Problem { n, g, full, t, c0 }
    }

    #[inline]
    fn g(&self, i: usize, j: usize) -> f64 {
        at(self.g, i * self.n + j)
    }

    /// The squared displacement summed over the poses of the weights `w` (one per
    /// candidate, 0 for those left out): `δᵀ G δ`, `δ = w − full`, as `Σ_i δ_i r_i` with
    /// `r = G w − t` summed over the non-zero weights only (O(n K), not O(n²)); the
    /// cancellation in `r_i` is the one `Σ_j G_ij δ_j` has, of the order of `G`'s entries,
    /// not the expanded form's of `c0`.
    pub(super) fn objective(&self, w: &[f64]) -> f64 {
        let n = self.n;
        let mut nz = [0usize; CAP];
        let mut len = 0;
        for (j, &x) in w.iter().enumerate().take(n) {
            if x == 0.0 {
                continue;
            }
            match nz.get_mut(len) {
                Some(slot) => *slot = j,
                None => return self.objective_dense(w),
            }
            len += 1;
        }
        let nz = nz.get(..len).unwrap_or_default();
        // `r = G w` column by column (`G` is symmetric, so column j is row j): each
        // `r_i` sums its products in the order of `nz`, as a row-by-row sum would, and
        // the columns' passes run over contiguous rows.
        let mut r = [0.0f64; MAX_ROWS];
        let Some(r) = r.get_mut(..n) else {
            return self.objective_dense(w);
        };
        r.fill(-0.0);
        for &j in nz {
            let wj = at(w, j);
            let row = self.g.get(j * n..(j + 1) * n).unwrap_or_default();
            for (ri, &gji) in r.iter_mut().zip(row) {
                *ri += gji * wj;
            }
        }
        let mut s = 0.0;
        for (((&ri, &f), &ti), &wi) in r.iter().zip(self.full).zip(self.t).zip(w) {
            s += (wi - f) * (ri - ti);
        }
        s.max(0.0)
    }

    /// [`Problem::objective`] for weights with more than [`CAP`] non-zero entries.
    fn objective_dense(&self, w: &[f64]) -> f64 {
        let n = self.n;
        let mut s = 0.0;
        for i in 0..n {
            let di = at(w, i) - at(self.full, i);
            if di == 0.0 {
                continue;
            }
            let row = self.g.get(i * n..(i + 1) * n).unwrap_or_default();
            let r: f64 = row
                .iter()
                .zip(self.full)
                .zip(w)
                .map(|((g, f), x)| g * (x - f))
                .sum();
            s += di * r;
        }
        s.max(0.0)
    }

    /// The non-negative weights summing to one on `support` (candidate positions,
    /// ascending) that minimize the objective: the equality-constrained least squares
    /// solved on the free bones, and while a weight comes out negative the most negative
    /// one (the later on a tie) is fixed at 0 and the rest solved again. `None` when no
    /// bone is left or the system is singular.
    /// `work` is the KKT system's space, reused from call to call.
    pub(super) fn solve(&self, support: &[usize], work: &mut Vec<f64>) -> Option<Fitted> {
        let whole = support.get(..support.len().min(CAP))?;
        let first = self.solve_equality(whole, work)?;
        self.solve_from(whole, first, work)
    }

    /// [`Problem::solve`] given its first step, the equality-constrained solution on the
    /// whole `support` ([`Problem::solve_equality`]), when the caller has it already.
    pub(super) fn solve_from(
        &self,
        support: &[usize],
        first: [f64; CAP + 1],
        work: &mut Vec<f64>,
    ) -> Option<Fitted> {
        let mut free = [0usize; CAP];
        let mut m = support.len().min(CAP);
        for (f, &s) in free.iter_mut().zip(support) {
            *f = s;
        }
        let mut first = Some(first);
        while m > 0 {
            let bones = free.get(..m)?;
            let w = match first.take() {
                Some(w) => w,
                None => self.solve_equality(bones, work)?,
            };
            let worst = w
                .iter()
                .take(m)
                .enumerate()
                .filter(|(_, x)| **x < 0.0)
                .min_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)));
            match worst {
                None => {
                    let mut out = Fitted::EMPTY;
                    for (&i, &x) in bones.iter().zip(&w) {
                        out.push(i, x);
                    }
                    return Some(out);
                }
                Some((i, _)) => {
                    free.copy_within(i + 1..m, i);
                    m -= 1;
                }
            }
        }
        None
    }

    /// A number no larger than the objective of any weights on `support` that are
    /// non-negative and sum to one, whatever their rounding. The objective is convex, so
    /// for any point `w₀` of that simplex `E(w) ≥ E(w₀) + ∇E(w₀)·(w − w₀)`, and the
    /// smallest this takes on the simplex is at a corner: `E(w₀) − ∇E(w₀)·w₀ + min_i
    /// ∇E(w₀)_i` (the sum allowed to miss one by the storage's rounding). `w₀` is the
    /// equality-constrained optimum with its negative weights set
    /// to 0 and the rest scaled to sum to one, so the bound is the optimum itself when no
    /// weight was negative; it holds for any `w₀`, however the solve rounded. A margin for
    /// the rounding of the sums is taken off. `w` is that optimum, as
    /// [`Problem::solve_equality`] gives it on `support`. `None` when no
    /// weight is positive. `dense` is work space.
    pub(super) fn lower_bound(
        &self,
        support: &[usize],
        w: &[f64; CAP + 1],
        dense: &mut Vec<f64>,
    ) -> Option<f64> {
        let positive: f64 = w.iter().take(support.len()).map(|x| x.max(0.0)).sum();
        if !(positive.is_finite() && positive > 0.0) {
            return None;
        }
        dense.clear();
        dense.resize(self.n, 0.0);
        for (&i, &x) in support.iter().zip(w) {
            if let Some(slot) = dense.get_mut(i) {
                *slot = x.max(0.0) / positive;
            }
        }
        let e = self.objective(dense);
        let (mut lowest, mut along) = (f64::INFINITY, 0.0);
        for &i in support {
            let gw: f64 = support.iter().map(|&j| self.g(i, j) * at(dense, j)).sum();
            let grad = 2.0 * (gw - at(self.t, i));
            lowest = lowest.min(grad);
            along += grad * at(dense, i);
        }
        let largest = (0..self.n).map(|i| self.g(i, i)).fold(0.0, f64::max);
        let rounding = 256.0 * self.n as f64 * f64::EPSILON * largest;
        // Written weights sum to one only as closely as their storage allows (binary32:
        // a few units in 2⁻²⁴), so the corner is taken at sums from 1 − 10⁻⁵ to 1 + 10⁻⁵.
        let bound = e - along + lowest - 1e-5 * lowest.abs() - rounding;
        bound.is_finite().then_some(bound)
    }

    /// `min wᵀ G w − 2 tᵀ w` subject to `Σ w = 1` on the bones `free`: the solution of
    /// the KKT system `[G + εI, 1; 1ᵀ, 0] [w; μ] = [t; 1]` (ε = 10⁻¹² of the mean
    /// diagonal keeps bones that move together solvable). `G + εI` is symmetric positive
    /// definite, so it is factored as `L D Lᵀ` and `w = a − μ b` with `(G + εI) a = t`,
    /// `(G + εI) b = 1`, `μ = (Σ a − 1) / Σ b`; when a pivot is not positive (rounding on
    /// a singular block), the KKT system is solved by elimination instead
    /// ([`Problem::solve_kkt`]).
    pub(super) fn solve_equality(
        &self,
        free: &[usize],
        a: &mut Vec<f64>,
    ) -> Option<[f64; CAP + 1]> {
        self.solve_ldl(free, a).or_else(|| self.solve_kkt(free, a))
    }

    /// [`Problem::solve_equality`] by `L D Lᵀ`; `None` when a pivot is not positive or the
    /// result is not finite.
    fn solve_ldl(&self, free: &[usize], l: &mut Vec<f64>) -> Option<[f64; CAP + 1]> {
        let m = free.len();
        if m == 0 || m > CAP {
            return None;
        }
        let trace: f64 = free.iter().map(|&i| self.g(i, i)).sum();
        let eps = 1e-12 * (trace / m as f64).max(f64::MIN_POSITIVE);
        // L's strict lower part row-major with stride m (in `l`, sized for this support
        // only), and D.
        l.clear();
        l.resize(m * m, 0.0);
        let l = l.as_mut_slice();
        let mut d = [0.0f64; CAP];
        for (j, &fj) in free.iter().enumerate() {
            let row_j = l.get(j * m..j * m + j)?;
            let mut dj = self.g(fj, fj) + eps;
            for (ljk, dk) in row_j.iter().zip(&d) {
                dj -= ljk * ljk * dk;
            }
            if dj.is_nan() || dj <= 0.0 {
                return None;
            }
            put(&mut d, j, dj);
            for (i, &fi) in free.iter().enumerate().skip(j + 1) {
                let mut sum = self.g(fi, fj);
                for k in 0..j {
                    sum -= at(l, i * m + k) * at(l, j * m + k) * at(&d, k);
                }
                put(l, i * m + j, sum / dj);
            }
        }
        // Two right-hand sides at once: t (a) and the ones (b).
        let mut a = [0.0f64; CAP];
        let mut b = [0.0f64; CAP];
        for (i, &fi) in free.iter().enumerate() {
            let (mut sa, mut sb) = (at(self.t, fi), 1.0);
            for k in 0..i {
                let lik = at(l, i * m + k);
                sa -= lik * at(&a, k);
                sb -= lik * at(&b, k);
            }
            put(&mut a, i, sa);
            put(&mut b, i, sb);
        }
        for ((x, y), di) in a.iter_mut().zip(b.iter_mut()).zip(&d).take(m) {
            *x /= di;
            *y /= di;
        }
        for i in (0..m).rev() {
            let (mut sa, mut sb) = (at(&a, i), at(&b, i));
            for k in i + 1..m {
                let lki = at(l, k * m + i);
                sa -= lki * at(&a, k);
                sb -= lki * at(&b, k);
            }
            put(&mut a, i, sa);
            put(&mut b, i, sb);
        }
        let (sum_a, sum_b): (f64, f64) = (a.iter().take(m).sum(), b.iter().take(m).sum());
        let mu = (sum_a - 1.0) / sum_b;
        let mut w = [0.0; CAP + 1];
        for i in 0..m {
            let x = at(&a, i) - mu * at(&b, i);
            if !x.is_finite() {
                return None;
            }
            put(&mut w, i, x);
        }
        Some(w)
    }

    /// [`Problem::solve_equality`] by Gaussian elimination with partial pivoting on the
    /// KKT system itself.
    fn solve_kkt(&self, free: &[usize], a: &mut Vec<f64>) -> Option<[f64; CAP + 1]> {
        let (m, n) = (free.len(), self.n);
        let w = m + 2;
        let trace: f64 = free.iter().map(|&i| self.g(i, i)).sum();
        let eps = 1e-12 * (trace / m as f64).max(f64::MIN_POSITIVE);
        a.clear();
        a.resize((m + 1) * w, 0.0);
        let mut rows = a.chunks_exact_mut(w);
        for ((r, &i), row) in free.iter().enumerate().zip(rows.by_ref()) {
            let g_row = self.g.get(i * n..(i + 1) * n).unwrap_or_default();
            for ((c, &j), x) in free.iter().enumerate().zip(row.iter_mut()) {
                let ridge = if r == c { eps } else { 0.0 };
                *x = at(g_row, j) + ridge;
            }
            if let [.., one, t] = row {
                (*one, *t) = (1.0, at(self.t, i));
            }
        }
        if let Some(last) = rows.next() {
            for x in last.iter_mut().take(m) {
                *x = 1.0;
            }
            if let Some(x) = last.last_mut() {
                *x = 1.0;
            }
        }
        eliminate(a, m + 1)
    }

    /// The greedy support of at most `k` bones: first the bone that alone leaves the least
    /// displacement; then, `k − 1` times, the bone whose best mix with the current weights
    /// (`(1 − α) w + α e_j`, `α` in `[0, 1]`) leaves the least, the weights becoming that
    /// mix; the full support is then fitted ([`Problem::solve`]). Ties go to the bone first
    /// in the total order. Returns the support (candidate positions, ascending), its length
    /// and its fitted weights (`None` when that system is singular).
    ///
    /// The mixes themselves are never held: only what the search reads of them, `u = G w`,
    /// `wᵀ G w` and `wᵀ t`, each updated in O(n) as a bone joins.
    pub(super) fn greedy(
        &self,
        k: usize,
        u: &mut Vec<f64>,
        work: &mut Vec<f64>,
    ) -> ([usize; CAP], usize, Option<Fitted>) {
        let mut support = [0usize; CAP];
        let mut len = 0usize;
        let last = k.min(self.n).min(CAP);
        let (mut wgw, mut wt) = (0.0f64, 0.0f64);
        u.clear();
        u.resize(self.n, 0.0);
        while len < last {
            let current = wgw - 2.0 * wt + self.c0;
            // The best so far, in registers: (candidate, displacement, α); `usize::MAX`
            // until the first candidate not yet chosen.
            let (mut bj, mut be, mut ba) = (usize::MAX, 0.0f64, 0.0f64);
            let chosen = support.get(..len).unwrap_or_default();
            for (j, (&tj, &uj)) in self.t.iter().zip(u.iter()).enumerate() {
                if chosen.contains(&j) {
                    continue;
                }
                let gjj = self.g(j, j);
                let (e, alpha) = if len == 0 {
                    (gjj - 2.0 * tj + self.c0, 1.0)
                } else {
                    let slope = uj - tj - (wgw - wt);
                    let curve = gjj - 2.0 * uj + wgw;
                    let alpha = if curve > 0.0 {
                        (-slope / curve).clamp(0.0, 1.0)
                    } else if slope < 0.0 {
                        1.0
                    } else {
                        0.0
                    };
                    (current + 2.0 * alpha * slope + alpha * alpha * curve, alpha)
                };
                if bj == usize::MAX || e < be {
                    (bj, be, ba) = (j, e, alpha);
                }
            }
            if bj == usize::MAX {
                break;
            }
            let (j, alpha) = (bj, ba);
            if let Some(slot) = support.get_mut(len) {
                *slot = j;
            }
            len += 1;
            if let Some(s) = support.get_mut(..len) {
                s.sort_unstable();
            }
            if len == last {
                break;
            }
            // The weights become (1 − α) w + α e_j (e_j alone for the first bone).
            let (uj, gjj, tj) = (at(u, j), self.g(j, j), at(self.t, j));
            let keep = 1.0 - alpha;
            wgw = keep * keep * wgw + 2.0 * alpha * keep * uj + alpha * alpha * gjj;
            wt = keep * wt + alpha * tj;
            let column = self.g.get(j * self.n..(j + 1) * self.n).unwrap_or_default();
            for (ui, &gij) in u.iter_mut().zip(column) {
                *ui = keep * *ui + alpha * gij;
            }
        }
        let solved = match support.get(..len).unwrap_or_default() {
            // One bone: weight 1 is the only point that sums to one.
            &[j] => {
                let mut one = Fitted::EMPTY;
                one.push(j, 1.0);
                Some(one)
            }
            [] => None,
            chosen => self.solve(chosen, work),
        };
        (support, len, solved)
    }

    /// Half the gradient of the objective at the weights `w` (dense): `G w − t`.
    pub(super) fn half_gradient(&self, w: &[f64], out: &mut Vec<f64>) {
        out.clear();
        out.extend(
            (0..self.n)
                .map(|i| (0..self.n).map(|j| self.g(i, j) * at(w, j)).sum::<f64>() - at(self.t, i)),
        );
    }

    /// `G[i][j]`, for the unit moves of integer weights.
    pub(super) fn entry(&self, i: usize, j: usize) -> f64 {
        self.g(i, j)
    }
}

#[inline]
fn put(a: &mut [f64], i: usize, v: f64) {
    if let Some(x) = a.get_mut(i) {
        *x = v;
    }
}

/// Solves the `r × r` system held row-major as `[A | b]` (rows of `r + 1`) by Gaussian
/// elimination with partial pivoting (ties to the upper row). `None` when a pivot is 0
/// or the result is not finite.
fn eliminate(a: &mut [f64], r: usize) -> Option<[f64; CAP + 1]> {
    let w = r + 1;
    for col in 0..r {
        let mut pivot = col;
        let mut largest = f64::NEG_INFINITY;
        for (row, line) in a.chunks_exact(w).enumerate().take(r).skip(col) {
            let v = at(line, col).abs();
            // Strictly larger only: a tie keeps the upper row.
            if v.total_cmp(&largest).is_gt() {
                (pivot, largest) = (row, v);
            }
        }
        if largest == 0.0 {
            return None;
        }
        if pivot != col {
            let (upper, lower) = a.split_at_mut(pivot * w);
            upper
                .get_mut(col * w..(col + 1) * w)?
                .swap_with_slice(lower.get_mut(..w)?);
        }
        let (head, tail) = a.split_at_mut((col + 1) * w);
        let prow = head.get(col * w..)?;
        let p = at(prow, col);
        for row in tail.chunks_exact_mut(w).take(r - col - 1) {
            let f = at(row, col) / p;
            if f == 0.0 {
                continue;
            }
            for (x, &y) in row.iter_mut().zip(prow).skip(col) {
                *x -= f * y;
            }
        }
    }
    let mut x = [0.0; CAP + 1];
    for (i, row) in a.chunks_exact(w).enumerate().take(r).rev() {
        let mut s = at(row, r);
        for (&arc, &xc) in row.iter().zip(&x).take(r).skip(i + 1) {
            s -= arc * xc;
        }
        let v = s / at(row, i);
        if !v.is_finite() {
            return None;
        }
        put(&mut x, i, v);
    }
    Some(x)
}

#[cfg(test)]
mod tests {
    #![allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing,
        clippy::cast_possible_truncation
    )]

    use proptest::prelude::*;

    use super::{Problem, target};

    /// `G = AᵀA` for the rows `a` (each `n` long): a Gram matrix as the poses make one.
    fn gram(a: &[Vec<f64>], n: usize) -> Vec<f64> {
        let mut g = vec![0.0; n * n];
        for row in a {
            for i in 0..n {
                for j in 0..n {
                    g[i * n + j] += row[i] * row[j];
                }
            }
        }
        g
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

        /// The bound that lets the fit skip solving the top K never exceeds the objective
        /// of weights it could have written: non-negative on the support, summing to one
        /// exactly (unorm) or as binary32 rounds them.
        #[test]
        fn the_lower_bound_is_below_every_weighting_of_the_support(
            rows in prop::collection::vec(prop::collection::vec(-2.0f64..2.0, 6), 1..12),
            full in prop::collection::vec(0.01f64..1.0, 6),
            twin in any::<bool>(),
            size in 1usize..5,
            mixes in prop::collection::vec(prop::collection::vec(0.0f64..1.0, 4), 32),
        ) {
            let n = 6;
            let mut rows = rows;
            if twin {
                // Two bones that move together: a singular block.
                for r in &mut rows {
                    r[1] = r[0];
                }
            }
            let g = gram(&rows, n);
            let total: f64 = full.iter().sum();
            let full: Vec<f64> = full.iter().map(|x| f64::from((x / total) as f32)).collect();
            let mut t = Vec::new();
            target(&g, &full, &mut t);
            let p = Problem::new(&g, &full, &t);
            let support: Vec<usize> = (0..size).collect();
            let (mut work, mut dense) = (Vec::new(), Vec::new());
            let Some(lb) = p
                .solve_equality(&support, &mut work)
                .and_then(|w| p.lower_bound(&support, &w, &mut dense))
            else {
                return Ok(());
            };
            for mix in &mixes {
                let sum: f64 = mix.iter().take(size).sum::<f64>().max(1e-9);
                for storage in [None, Some(255.0), Some(65535.0)] {
                    let mut w = vec![0.0; n];
                    for (i, &x) in mix.iter().take(size).enumerate() {
                        w[i] = x / sum;
                    }
                    match storage {
                        None => w.iter_mut().for_each(|x| *x = f64::from(*x as f32)),
                        Some(m) => {
                            // Rounded down, the remainder on the first bone: sums to m.
                            let mut q: Vec<f64> = w.iter().map(|x| (x * m).floor()).collect();
                            q[0] += m - q.iter().sum::<f64>();
                            w = q.iter().map(|x| x / m).collect();
                        }
                    }
                    let e = p.objective(&w);
                    prop_assert!(lb <= e, "bound {} above {} at {:?}", lb, e, w);
                }
            }
            // A corner is a weighting too.
            for i in 0..size {
                let mut w = vec![0.0; n];
                w[i] = 1.0;
                prop_assert!(lb <= p.objective(&w));
            }
        }
    }
}
