//! The moments a loss is measured at (spec/reduction.md §4): the sampling rule and its
//! thinning within a budget.

use super::{INTERIOR_SAMPLES, Moment};
use crate::motion::RangeOfMotion;
use crate::{Animation, Interpolation};

/// One sampled moment: an animation (its position in the list given) at a time, or the
/// rest pose; when the loss is measured over the range-of-motion poses, their one
/// sequence, the pose numbered `index`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Sample {
    /// Position in the sequences' list; `None` for the rest pose.
    pub(crate) anim: Option<usize>,
    /// Seconds.
    pub(crate) time: f64,
    /// The rest pose or a keyframe time (not a moment between keyframes).
    pub(crate) key: bool,
    /// The keyframe's place in its sequence (for a moment between keyframes, the one
    /// before it).
    pub(crate) index: usize,
}

/// The rest pose, always the first moment.
pub(crate) const REST_SAMPLE: Sample = Sample {
    anim: None,
    time: 0.0,
    key: true,
    index: 0,
};

/// What poses the moments: the animations, or the range-of-motion poses.
pub(crate) enum Posing<'a> {
    /// Sample `anim` is the animation at that position in the list.
    Animations(&'a [Animation]),
    /// Sample `index` of the one sequence is that range-of-motion pose.
    Motion(&'a RangeOfMotion),
}

/// The moments a loss is measured at (spec/reduction.md §4): the rest pose; each
/// animation's keyframe times (every channel's, each once) with [`INTERIOR_SAMPLES`]
/// moments inside each interval between them (none for an animation whose channels are
/// all STEP: nothing moves between its keys). When more moments than the budget affords,
/// one interior moment per interval, then none; then the keyframe moments evenly
/// thinned: of K, the ⌊i × K / m⌋-th for i < m, m = what the budget affords less the
/// rest pose.
pub(crate) struct Plan {
    pub(crate) samples: Vec<Sample>,
    /// The moments without a budget.
    pub(crate) full: usize,
}

impl Plan {
    /// The moments of `anims`.
    pub(crate) fn new(anims: &[Animation], affordable: u64) -> Plan {
        let times: Vec<(Vec<f64>, bool)> = anims
            .iter()
            .map(|a| {
                let moves_between = a
                    .channels
                    .iter()
                    .any(|c| c.interpolation != Interpolation::Step);
                (a.times(), moves_between)
            })
            .collect();
        Plan::of(&times, affordable)
    }

    /// The moments of sequences of keyframe times, each with whether anything moves
    /// between its keys.
    pub(crate) fn of(times: &[(Vec<f64>, bool)], affordable: u64) -> Plan {
        let count = |interior: usize| -> usize {
            1 + times
                .iter()
                .map(|(t, between)| {
                    let gaps = if *between {
                        t.len().saturating_sub(1)
                    } else {
                        0
                    };
                    t.len().saturating_add(gaps.saturating_mul(interior))
                })
                .fold(0usize, usize::saturating_add)
        };
        let full = count(INTERIOR_SAMPLES);
        let affordable = usize::try_from(affordable).unwrap_or(usize::MAX).max(1);
        let mut samples = vec![REST_SAMPLE];
        if let Some(interior) = [INTERIOR_SAMPLES, 1, 0]
            .into_iter()
            .find(|&s| count(s) <= affordable)
        {
            samples.reserve(count(interior).saturating_sub(1));
            for (i, (t, between)) in times.iter().enumerate() {
                for (k, &t0) in t.iter().enumerate() {
                    samples.push(Sample {
                        anim: Some(i),
                        time: t0,
                        key: true,
                        index: k,
                    });
                    let Some(&t1) = t.get(k + 1).filter(|_| *between) else {
                        continue;
                    };
                    for q in 1..=interior {
                        samples.push(Sample {
                            anim: Some(i),
                            time: t0 + (t1 - t0) * q as f64 / (interior + 1) as f64,
                            key: false,
                            index: k,
                        });
                    }
                }
            }
        } else {
            let keys = count(0) - 1;
            let keep = affordable - 1;
            samples.reserve(keep);
            // The ⌊i × K / m⌋-th keyframe moment, for i = 0, 1, … m − 1.
            let mut i = 0usize;
            let mut next = 0usize;
            let mut k = 0usize;
            'all: for (a, (t, _)) in times.iter().enumerate() {
                for (index, &time) in t.iter().enumerate() {
                    if i >= keep {
                        break 'all;
                    }
                    if k == next {
                        samples.push(Sample {
                            anim: Some(a),
                            time,
                            key: true,
                            index,
                        });
                        i += 1;
                        next = usize::try_from((i as u128 * keys as u128) / keep.max(1) as u128)
                            .unwrap_or(usize::MAX);
                    }
                    k += 1;
                }
            }
        }
        Plan { samples, full }
    }

    /// Sample `k` as a [`Moment`] of the document's animations or range-of-motion
    /// poses (joints named by `names`).
    pub(crate) fn moment(
        &self,
        posing: &Posing<'_>,
        k: usize,
        names: &dyn Fn(usize) -> Option<String>,
    ) -> Moment {
        let Some(s) = self.samples.get(k) else {
            return REST;
        };
        match (posing, s.anim) {
            (_, None) => REST,
            (Posing::Animations(anims), Some(i)) => match anims.get(i) {
                Some(a) => Moment {
                    animation: Some(a.index),
                    name: a.name.clone(),
                    time: s.time,
                    pose: None,
                },
                None => REST,
            },
            (Posing::Motion(m), Some(_)) => Moment {
                pose: m.pose(s.index, names),
                ..REST
            },
        }
    }
}

pub(crate) const REST: Moment = Moment {
    animation: None,
    name: None,
    time: 0.0,
    pose: None,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Channel;
    use std::sync::Arc;

    fn anim(times: &[f64], interpolation: Interpolation) -> Animation {
        Animation {
            index: 0,
            name: None,
            channels: vec![Channel {
                node: 0,
                path: crate::Path::Translation,
                interpolation,
                times: Arc::from(times),
                values: Arc::from(vec![0.0; times.len() * 9]),
            }],
        }
    }

    #[test]
    pub(crate) fn the_sampling_rule_takes_interior_moments_then_thins_keyframes() {
        // spec: LS1
        let a = [anim(&[0.0, 1.0, 2.0], Interpolation::Linear)];
        let times = |p: &Plan| p.samples.iter().map(|s| s.time).collect::<Vec<_>>();
        // Unlimited: rest, 3 keys, 3 interior moments in each of 2 intervals.
        let p = Plan::new(&a, u64::MAX);
        assert_eq!(p.full, 1 + 3 + 6);
        assert_eq!(
            times(&p),
            [0.0, 0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0]
        );
        // Room for 6: one interior moment per interval.
        let p = Plan::new(&a, 6);
        assert_eq!(times(&p), [0.0, 0.0, 0.5, 1.0, 1.5, 2.0]);
        assert_eq!(p.full, 10);
        // Room for 4: the keyframes alone.
        assert_eq!(times(&Plan::new(&a, 4)), [0.0, 0.0, 1.0, 2.0]);
        // Room for 3: the rest pose and 2 of the 3 keyframes, evenly.
        let p = Plan::new(&a, 3);
        assert_eq!(times(&p), [0.0, 0.0, 1.0]);
        assert!(p.samples.iter().all(|s| s.key));
        // STEP moves nothing between keys: no interior moments.
        let step = [anim(&[0.0, 1.0, 2.0], Interpolation::Step)];
        assert_eq!(Plan::new(&step, u64::MAX).full, 4);
        // Thinning spreads over every animation, in order.
        let many: Vec<f64> = (0..1000).map(f64::from).collect();
        let p = Plan::new(&[anim(&many, Interpolation::Step)], 11);
        assert_eq!(
            times(&p),
            [
                0.0, 0.0, 100.0, 200.0, 300.0, 400.0, 500.0, 600.0, 700.0, 800.0, 900.0
            ]
        );
    }
}
