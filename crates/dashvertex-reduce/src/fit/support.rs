//! Fitting the weights of one vertex on bones another rule chose: `dashvertex split
//! --reduce --fit` (`spec/split.md` §3) takes joints off an element's vertices by its own
//! rule, then asks, per vertex, for the weights on the joints left that move the vertex
//! least from its skinning with every influence (\[RF1\]'s objective, \[RF2\]'s exact weights),
//! written in the slots those joints already hold.

use dashvertex_core::weights::{largest_remainder, normalize_unit};

use super::gram::{DENSE_BONES, Table};
use super::poses::Poses;
use super::solve::{Problem, target};
use super::vertex::improve;
use crate::Quantize;

/// A pose set prepared for [`SupportFit::refit`]: the poses folded once per pair of the
/// bones in use, as the fitted reduction folds them.
pub struct SupportFit<'p> {
    table: Table<'p>,
}

/// Fitted weights of one vertex, one per slot of the layout given to
/// [`SupportFit::refit`].
#[derive(Clone, Debug, PartialEq)]
pub struct Refit {
    /// The weight of each slot (0 for a slot left unused, or whose bone the fit left at 0,
    /// or a later slot of a bone held twice).
    pub weights: Vec<f32>,
    /// With unorm storage, the integers (`weights` are those over 255 or 65535).
    pub integers: Option<Vec<u32>>,
    /// The squared displacement summed over the poses of the weights given.
    pub objective_given: f64,
    /// The same for the fitted weights: always below `objective_given`.
    pub objective: f64,
}

/// Buffers [`SupportFit::refit`] reuses from vertex to vertex.
#[derive(Default)]
pub struct RefitScratch {
    bones: Vec<u32>,
    full: Vec<f64>,
    g: Vec<f64>,
    t: Vec<f64>,
    points: Vec<[f64; 3]>,
    compact: Vec<usize>,
    given: Vec<f64>,
    dense: Vec<f64>,
    grad: Vec<f64>,
    work: Vec<f64>,
    ints: Vec<u32>,
    rems: Vec<(f64, usize)>,
}

impl<'p> SupportFit<'p> {
    /// The pose set `poses` prepared for the bones `used[b]` marks (the bones any
    /// vertex to refit carries weight on; others are left out of the pair table).
    pub fn new(poses: &'p Poses, used: &[bool]) -> SupportFit<'p> {
        SupportFit {
            table: Table::new(poses, used, DENSE_BONES),
        }
    }

    /// The weights, on the bones `slots` holds, that minimize the squared displacement of
    /// the vertex at `x` from its skinning with every influence `full` (bone and weight,
    /// each bone once, weights as read), summed over the poses; non-negative, summing to
    /// one, exact in `storage` (binary32 passing the glTF sum rule in the slot layout, or
    /// integers summing to 255 or 65535). `slots` is the vertex's current layout: (bone,
    /// weight) per slot, weight 0 for an unused slot; every used bone must be one of
    /// `full`'s. `None` when nothing beats the weights given (they stay), when a bone of
    /// `slots` is not in `full`, or when the system is singular.
    pub fn refit(
        &self,
        x: [f32; 3],
        full: &[(u32, f64)],
        slots: &[(u32, f32)],
        storage: Quantize,
        sc: &mut RefitScratch,
    ) -> Option<Refit> {
        // The Gram matrix and its companions are held apart while the rest of the
        // scratch is used.
        let (mut g, mut t, mut f) = (
            std::mem::take(&mut sc.g),
            std::mem::take(&mut sc.t),
            std::mem::take(&mut sc.full),
        );
        let out = self.refit_with(x, full, slots, storage, sc, (&mut g, &mut t, &mut f));
        (sc.g, sc.t, sc.full) = (g, t, f);
        out
    }

    fn refit_with(
        &self,
        x: [f32; 3],
        full: &[(u32, f64)],
        slots: &[(u32, f32)],
        storage: Quantize,
        sc: &mut RefitScratch,
        (g, t, full_w): (&mut Vec<f64>, &mut Vec<f64>, &mut Vec<f64>),
    ) -> Option<Refit> {
        let n = full.len();
        sc.bones.clear();
        sc.bones.extend(full.iter().map(|f| f.0));
        full_w.clear();
        full_w.extend(full.iter().map(|f| f.1));
        // Each used slot's candidate position; the support, ascending and each bone once.
        let position = |bone: u32| full.iter().position(|f| f.0 == bone);
        let mut support = [0usize; super::MAX_FIT_INFLUENCES];
        let mut len = 0;
        sc.given.clear();
        sc.given.resize(n, 0.0);
        for &(bone, w) in slots.iter().filter(|s| s.1 > 0.0) {
            let i = position(bone)?;
            *sc.given.get_mut(i)? += f64::from(w);
            if !support.get(..len)?.contains(&i) {
                *support.get_mut(len)? = i;
                len += 1;
            }
        }
        let support = support.get_mut(..len)?;
        support.sort_unstable();
        let xf = x.map(f64::from);
        self.table
            .gram(xf, &sc.bones, g, (&mut sc.points, &mut sc.compact));
        target(g, full_w, t);
        let problem = Problem::new(g, full_w, t);
        let given = problem.objective(&sc.given);
        let fitted = problem.solve(support, &mut sc.work)?;
        // The fitted weight of each slot: a bone's first slot holds it.
        let mut weights: Vec<f64> = vec![0.0; slots.len()];
        for (k, &(bone, w)) in slots.iter().enumerate() {
            let first = slots.iter().position(|s| s.0 == bone && s.1 > 0.0) == Some(k);
            if w > 0.0 && first {
                let i = position(bone)?;
                let x = fitted.pairs().find(|p| p.0 == i).map_or(0.0, |p| p.1);
                *weights.get_mut(k)? = x.max(0.0);
            }
        }
        let (out, integers) = match storage.max() {
            None => (exact_f32(&weights), None),
            Some(max) => {
                let ints = exact_unorm(&problem, &weights, slots, full, max, sc)?;
                let w = ints
                    .iter()
                    .map(|&q| to_f32(f64::from(q) / f64::from(max)))
                    .collect();
                (w, Some(ints))
            }
        };
        sc.dense.clear();
        sc.dense.resize(n, 0.0);
        for (&(bone, _), &w) in slots.iter().zip(&out) {
            if w > 0.0 {
                *sc.dense.get_mut(position(bone)?)? += f64::from(w);
            }
        }
        let objective = problem.objective(&sc.dense);
        (objective < given).then_some(Refit {
            weights: out,
            integers,
            objective_given: given,
            objective,
        })
    }
}

/// \[RF2\]'s unorm weights: largest remainder, then single units moved between the
/// support's bones while a move lowers the objective (at most 64 moves).
fn exact_unorm(
    problem: &Problem<'_>,
    weights: &[f64],
    slots: &[(u32, f32)],
    full: &[(u32, f64)],
    max: u32,
    sc: &mut RefitScratch,
) -> Option<Vec<u32>> {
    largest_remainder(weights, max, &mut sc.ints, &mut sc.rems);
    // (candidate position, integer) of the slots holding a share, in slot order.
    let mut q: Vec<(usize, u32)> = Vec::new();
    let mut at: Vec<usize> = Vec::new();
    for (k, (&(bone, _), &v)) in slots.iter().zip(&sc.ints).enumerate() {
        if *weights.get(k)? > 0.0 || v > 0 {
            q.push((full.iter().position(|f| f.0 == bone)?, v));
            at.push(k);
        }
    }
    improve(problem, &mut q, max, &mut sc.dense, &mut sc.grad);
    let mut out = vec![0u32; slots.len()];
    for (&k, &(_, v)) in at.iter().zip(&q) {
        *out.get_mut(k)? = v;
    }
    Some(out)
}

/// The weights rounded once to binary32 and normalized by the glTF sum rule in their
/// layout (`spec/reduction.md` §2 step 9).
fn exact_f32(weights: &[f64]) -> Vec<f32> {
    let mut w: Vec<f32> = weights.iter().map(|&x| to_f32(x)).collect();
    normalize_unit(&mut w);
    w
}

#[allow(
    clippy::cast_possible_truncation,
    reason = "f64 → f32 rounds to nearest"
)]
fn to_f32(x: f64) -> f32 {
    x as f32
}
