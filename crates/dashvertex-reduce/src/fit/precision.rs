//! Precision by error budget (`--quantize auto`): of unorm8, unorm16 and float, the
//! smallest storage whose reduction keeps every vertex within a distance of its
//! full-influence skinning at every pose of the pose set.

use dashvertex_core::par::prelude::*;

use super::poses::{Poses, apply};
use super::{FitError, FitOptions, FitReport, fit};
use crate::input::Input;
use crate::reduce::{Config, Quantize, ReduceError, Reduced, reduce};

/// The storages `--quantize auto` tries, smallest first.
pub const LADDER: [Quantize; 3] = [Quantize::Unorm8, Quantize::Unorm16, Quantize::F32];

/// One storage tried: how far its reduction moves the vertex that moves most.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cost {
    /// The storage.
    pub quantize: Quantize,
    /// The largest displacement of any vertex at any pose, in model units.
    pub max: f64,
    /// The vertex it is at (the lowest on a tie).
    pub vertex: usize,
}

/// What [`choose`] picked, with every storage's cost (smallest storage first).
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    /// The smallest storage within the budget; `None` when none is (the float
    /// reduction is returned, and the caller refuses it).
    pub chosen: Option<Quantize>,
    /// What each storage would cost.
    pub costs: Vec<Cost>,
    /// The reduction in the chosen storage (float when none is within the budget).
    pub reduced: Reduced,
    /// The fit's report for that reduction, when fitted.
    pub fit: Option<FitReport>,
}

/// Why [`choose`] failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PrecisionError {
    /// The reduction failed.
    #[error(transparent)]
    Reduce(#[from] ReduceError),
    /// The fit failed.
    #[error(transparent)]
    Fit(#[from] FitError),
}

/// The largest displacement of any vertex of `reduced` (output bones through `map`) from
/// the full-influence skinning of `input` at any pose of `poses`, with the vertex (the
/// lowest on a tie). Each vertex is measured alone: the same at any thread count.
pub fn displacement(
    input: &Input<'_>,
    map: &[u32],
    positions: &[[f32; 3]],
    poses: &Poses,
    reduced: &Reduced,
) -> (f64, usize) {
    let mut back: Vec<(u32, u32)> = map
        .iter()
        .enumerate()
        .map(|(b, &o)| (o, u32::try_from(b).unwrap_or(u32::MAX)))
        .collect();
    back.sort_unstable();
    let to_input = |o: u32| {
        back.binary_search_by_key(&o, |x| x.0)
            .ok()
            .and_then(|i| back.get(i))
            .map(|x| x.1)
    };
    let sets = reduced.sets.max(1);
    (0..input.len())
        .into_par_iter()
        .with_min_len(1024)
        .map_init(Vec::new, |cands, v| {
            input.candidates(v, cands);
            let x = positions.get(v).copied().unwrap_or([0.0; 3]).map(f64::from);
            let kept: Vec<(u32, f64)> = reduced
                .influences
                .get(v * sets..(v + 1) * sets)
                .unwrap_or_default()
                .iter()
                .flat_map(|s| s.pairs())
                .filter(|p| p.1 != 0.0)
                .filter_map(|(o, w)| Some((to_input(o)?, f64::from(w))))
                .collect();
            let mut most = 0.0f64;
            for p in 0..poses.len() {
                let mut d = [0.0; 3];
                let mut add = |b: u32, w: f64| {
                    if let Some(m) = poses.get(p, b as usize) {
                        let y = apply(m, x);
                        for (a, c) in d.iter_mut().zip(y) {
                            *a += w * c;
                        }
                    }
                };
                for c in cands
                    .iter()
                    .filter(|c| c.weight.is_finite() && c.weight > 0.0)
                {
                    add(c.bone, f64::from(c.weight));
                }
                for &(b, w) in &kept {
                    add(b, -w);
                }
                let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
                most = most.max(len);
            }
            (most, v)
        })
        .reduce(
            || (0.0, 0),
            |a, b| {
                if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) {
                    b
                } else {
                    a
                }
            },
        )
}

/// Reduces `input` in each storage of [`LADDER`] (fitted over `poses` when `fit` is
/// given), measures each ([`displacement`]) and picks the smallest storage whose largest
/// displacement is at most `max_error`. `cfg.quantize` is ignored; `cfg.normalize` must
/// be unit.
#[allow(
    clippy::too_many_arguments,
    reason = "the reduction's inputs, the pose set and the budget"
)]
pub fn choose(
    input: &Input<'_>,
    map: &[u32],
    root: Option<u32>,
    positions: &[[f32; 3]],
    poses: &Poses,
    cfg: &Config,
    fit_opts: Option<&FitOptions>,
    max_error: f64,
) -> Result<Choice, PrecisionError> {
    let mut costs = Vec::with_capacity(LADDER.len());
    let mut picked: Option<(Quantize, Reduced, Option<FitReport>)> = None;
    let mut last = None;
    for q in LADDER {
        let c = Config {
            quantize: q,
            ..*cfg
        };
        let mut r = reduce(input, map, root, &c)?;
        let report = match fit_opts {
            Some(o) => Some(fit(input, map, positions, poses, &c, o, &mut r)?),
            None => None,
        };
        let (max, vertex) = displacement(input, map, positions, poses, &r);
        costs.push(Cost {
            quantize: q,
            max,
            vertex,
        });
        if picked.is_none() && max <= max_error {
            picked = Some((q, r, report));
        } else {
            last = Some((r, report));
        }
    }
    let (chosen, reduced, fit) = match (picked, last) {
        (Some((q, r, f)), _) => (Some(q), r, f),
        (None, Some((r, f))) => (None, r, f),
        (None, None) => (None, reduce(input, map, root, cfg)?, None),
    };
    Ok(Choice {
        chosen,
        costs,
        reduced,
        fit,
    })
}
