//! The Gram matrix of a vertex's candidate bones over the pose set: `G[i][j] = Σ_p
//! (M_i(p)·x) · (M_j(p)·x)` for the vertex at `x`. Its squared displacement from the
//! full-influence skinning, for any weights `w`, is `(w − w_full)ᵀ G (w − w_full)`
//! summed over the poses, so one `G` per vertex answers every question the fit asks.
//!
//! A pose set split into groups ([`Poses::begin_group`]) gets one Gram matrix per group,
//! `n × n` blocks one after the other, so the fit can weigh each group apart.
//!
//! For a rig of at most [`DENSE_BONES`] used bones, the poses are folded once into a
//! 4 × 4 matrix per bone pair, `Q_ab = Σ_p M_a(p)ᵀ M_b(p)`, and `G[i][j] = x̃ᵀ Q x̃`
//! (`x̃ = (x, y, z, 1)`) costs 16 products whatever the number of poses. Larger rigs
//! skin each candidate at each pose instead.

use dashvertex_core::par::prelude::*;

use super::poses::{Poses, Rows, apply};

/// The most used bones for which the pair table is built (131,328 pairs, 10.5 MB).
pub const DENSE_BONES: usize = 512;

/// The poses folded into one 4 × 4 matrix per pair of used bones, or (past
/// [`DENSE_BONES`]) the poses themselves.
pub(super) enum Table<'p> {
    /// `pairs[tri(a, b) × groups + g]` for compact bones `a ≤ b` and group `g`: the upper
    /// triangle of the symmetric part of `Q_ab` summed over the group's poses (`x̃ᵀ Q x̃`
    /// only sees that part), each off-diagonal entry doubled; `compact[bone]` is a bone's
    /// compact number (`u32::MAX`: no candidate names it, or it has no matrix).
    Dense {
        compact: Vec<u32>,
        pairs: Vec<[f64; 10]>,
        groups: usize,
    },
    /// Skin every candidate at every pose; with `weights`, each pose's products weighed
    /// by its group's weight into one block.
    Direct {
        poses: &'p Poses,
        weights: Option<Vec<f64>>,
    },
}

/// Index of the pair `(a, b)`, `a ≤ b`, in a packed upper triangle.
#[inline]
fn tri(a: usize, b: usize) -> usize {
    b * (b + 1) / 2 + a
}

impl<'p> Table<'p> {
    /// The table for the bones `used[b]` says candidates name (bones past
    /// `poses.bones()` have no matrix and are left out).
    pub(super) fn new(poses: &'p Poses, used: &[bool], dense_limit: usize) -> Table<'p> {
        let bones: Vec<usize> = used
            .iter()
            .enumerate()
            .filter(|&(b, &u)| u && b < poses.bones())
            .map(|(b, _)| b)
            .collect();
        if bones.len() > dense_limit {
            return Table::Direct {
                poses,
                weights: None,
            };
        }
        let mut compact = vec![u32::MAX; poses.bones()];
        for (c, &b) in bones.iter().enumerate() {
            if let Some(slot) = compact.get_mut(b) {
                *slot = u32::try_from(c).unwrap_or(u32::MAX);
            }
        }
        let n = bones.len();
        let groups = poses.groups();
        let keys: Vec<(usize, usize, usize)> = (0..n)
            .flat_map(|b| (0..=b).flat_map(move |a| (0..groups).map(move |g| (a, b, g))))
            .collect();
        // Each pair summed alone over its group's poses in order: the same bits at any
        // thread count.
        let pairs = keys
            .par_iter()
            .with_min_len(64)
            .map(|&(a, b, g)| {
                let (ba, bb) = (
                    bones.get(a).copied().unwrap_or(0),
                    bones.get(b).copied().unwrap_or(0),
                );
                let mut q = [0.0; 16];
                for p in (0..poses.len()).filter(|&p| poses.group_of(p) == g) {
                    if let (Some(ma), Some(mb)) = (poses.get(p, ba), poses.get(p, bb)) {
                        fold(&mut q, ma, mb);
                    }
                }
                symmetric(&q)
            })
            .collect();
        Table::Dense {
            compact,
            pairs,
            groups,
        }
    }

    /// Groups of the pose set: Gram matrices [`Table::gram`] fills per vertex.
    pub(super) fn groups(&self) -> usize {
        match self {
            Table::Dense { groups, .. } => *groups,
            Table::Direct {
                weights: Some(_), ..
            } => 1,
            Table::Direct { poses, .. } => poses.groups(),
        }
    }

    /// The groups folded into one, group `g`'s poses weighed by `weights[g]` (a group
    /// without a weight counts 0): its [`Table::gram`] fills one block of the weighed sum.
    pub(super) fn weighed(&self, weights: &[f64]) -> Table<'p> {
        let w = |g: usize| weights.get(g).copied().unwrap_or(0.0);
        match self {
            Table::Dense {
                compact,
                pairs,
                groups,
            } => {
                let n = (*groups).max(1);
                let pairs = pairs
                    .chunks_exact(n)
                    .map(|qs| {
                        let mut sum = [0.0; 10];
                        for (g, q) in qs.iter().enumerate() {
                            for (s, x) in sum.iter_mut().zip(q) {
                                *s += w(g) * x;
                            }
                        }
                        sum
                    })
                    .collect();
                Table::Dense {
                    compact: compact.clone(),
                    pairs,
                    groups: 1,
                }
            }
            Table::Direct { poses, .. } => Table::Direct {
                poses,
                weights: Some((0..poses.groups()).map(w).collect()),
            },
        }
    }

    /// Fills `g` (one `n × n` row-major block per group, [`Table::groups`]) for the vertex
    /// at `x` whose candidates are the input bones `bones`; `scratch` holds the skinned
    /// points of the direct path, `c` the candidates' compact numbers of the dense one.
    pub(super) fn gram(
        &self,
        x: [f64; 3],
        bones: &[u32],
        g: &mut Vec<f64>,
        (scratch, c): (&mut Vec<[f64; 3]>, &mut Vec<usize>),
    ) {
        let n = bones.len();
        let nn = n * n;
        g.clear();
        g.resize(nn * self.groups(), 0.0);
        match self {
            Table::Dense {
                compact,
                pairs,
                groups,
            } => {
                let xt = outer(x);
                // Each candidate's compact number, looked up once (`usize::MAX`: none).
                c.clear();
                c.extend(bones.iter().map(|&b| {
                    compact
                        .get(b as usize)
                        .copied()
                        .filter(|&c| c != u32::MAX)
                        .map_or(usize::MAX, |c| c as usize)
                }));
                for (i, &ci) in c.iter().enumerate() {
                    if ci == usize::MAX {
                        continue;
                    }
                    for (j, &cj) in c.iter().enumerate().skip(i) {
                        if cj == usize::MAX {
                            continue;
                        }
                        let (lo, hi) = if ci <= cj { (ci, cj) } else { (cj, ci) };
                        if *groups == 1 {
                            // The fit's own path (its groups weighed into one): without
                            // the per-pair block iterator, the fit runs about 15 % faster.
                            if let Some(q) = pairs.get(tri(lo, hi)) {
                                let v = quad(q, &xt);
                                set(g, n, i, j, v);
                                set(g, n, j, i, v);
                            }
                            continue;
                        }
                        let at = tri(lo, hi) * groups;
                        let Some(qs) = pairs.get(at..at + groups) else {
                            continue;
                        };
                        for (block, q) in g.chunks_exact_mut(nn.max(1)).zip(qs) {
                            let v = quad(q, &xt);
                            set(block, n, i, j, v);
                            set(block, n, j, i, v);
                        }
                    }
                }
            }
            Table::Direct { poses, weights } => {
                for p in 0..poses.len() {
                    let group = poses.group_of(p);
                    let (start, scale) = match weights {
                        Some(w) => (0, w.get(group).copied().unwrap_or(0.0)),
                        None => (group * nn, 1.0),
                    };
                    let Some(block) = g.get_mut(start..start + nn) else {
                        continue;
                    };
                    scratch.clear();
                    scratch.extend(
                        bones
                            .iter()
                            .map(|&b| poses.get(p, b as usize).map_or([0.0; 3], |m| apply(m, x))),
                    );
                    for (i, ai) in scratch.iter().enumerate() {
                        for (j, aj) in scratch.iter().enumerate().skip(i) {
                            let d = scale * (ai[0] * aj[0] + ai[1] * aj[1] + ai[2] * aj[2]);
                            add(block, n, i, j, d);
                            if i != j {
                                add(block, n, j, i, d);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// `q += maᵀ mb` for the 3 × 4 row-major `ma`, `mb`.
#[inline]
fn fold(q: &mut [f64; 16], ma: &Rows, mb: &Rows) {
    for (rc, slot) in q.iter_mut().enumerate() {
        let (r, c) = (rc / 4, rc % 4);
        let mut s = 0.0;
        for k in 0..3 {
            s += ma.get(k * 4 + r).copied().unwrap_or(0.0)
                * mb.get(k * 4 + c).copied().unwrap_or(0.0);
        }
        *slot += s;
    }
}

/// The upper triangle (row by row) of `Q + Qᵀ` halved, off-diagonal entries doubled:
/// `x̃ᵀ Q x̃ = Σ sym[k] · outer(x)[k]`.
fn symmetric(q: &[f64; 16]) -> [f64; 10] {
    let e = |r: usize, c: usize| q.get(r * 4 + c).copied().unwrap_or(0.0);
    let mut out = [0.0; 10];
    let mut k = 0;
    for r in 0..4 {
        for c in r..4 {
            if let Some(o) = out.get_mut(k) {
                *o = if r == c { e(r, r) } else { e(r, c) + e(c, r) };
            }
            k += 1;
        }
    }
    out
}

/// The products `x̃_r x̃_c`, `r ≤ c`, of `x̃ = (x, y, z, 1)`, in [`symmetric`]'s order.
fn outer(x: [f64; 3]) -> [f64; 10] {
    let [a, b, c] = x;
    [a * a, a * b, a * c, a, b * b, b * c, b, c * c, c, 1.0]
}

/// `x̃ᵀ Q x̃` from the pair's [`symmetric`] entries and the vertex's [`outer`] products.
/// `Q_ba = Q_abᵀ` gives the same scalar, so the pair is always read in the order (lower,
/// higher) and `G[i][j]` does not depend on which bone is listed first.
#[inline]
fn quad(q: &[f64; 10], xt: &[f64; 10]) -> f64 {
    q.iter().zip(xt).map(|(a, b)| a * b).sum()
}

#[inline]
fn set(g: &mut [f64], n: usize, i: usize, j: usize, v: f64) {
    if let Some(x) = g.get_mut(i * n + j) {
        *x = v;
    }
}

#[inline]
fn add(g: &mut [f64], n: usize, i: usize, j: usize, v: f64) {
    if let Some(x) = g.get_mut(i * n + j) {
        *x += v;
    }
}
