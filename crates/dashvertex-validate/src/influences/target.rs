//! The engine-target rules (`spec/targets.md` §3): joints an engine renders per skin,
//! weight in influence sets it does not read, joint indices wider than it stores.
//! Gathered per vertex into [`MeshStats`], reported once per mesh.

use dashvertex_core::InfluenceSet;

use super::{Checker, MeshStats};
use crate::codes::Code;
use crate::diagnostic::Location;
use crate::sink::Sink;

/// Reports a skeleton or skin with `joints` joints when the target renders fewer
/// (`TARGET_JOINTS`); `what` names it ("skin 0", "the skeleton").
pub fn target_joints(
    target: Option<&dashvertex_core::Target>,
    joints: usize,
    at: &dyn Fn() -> Location,
    what: &str,
    sink: &mut Sink,
) {
    let Some((t, max)) = target.and_then(|t| Some((t, t.max_joints?))) else {
        return;
    };
    if joints > max {
        sink.report(Code::TARGET_JOINTS, at, || {
            format!(
                "{what} has {joints} joints; {} renders at most {max} per skin",
                t.engine
            )
        });
    }
}

/// Weight in influence sets an engine does not read, over a mesh.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Beyond {
    /// Vertices with such weight.
    pub vertices: u64,
    /// The first of them.
    pub first: Option<u64>,
    /// The largest share of a vertex's weight lost, and that vertex (the first at equal
    /// share).
    pub worst: Option<(f32, u64)>,
}

impl Beyond {
    pub(super) fn add(&mut self, v: u64, share: f32) {
        self.vertices += 1;
        self.first.get_or_insert(v);
        if self.worst.is_none_or(|(w, _)| share > w) {
            self.worst = Some((share, v));
        }
    }

    pub(super) fn append(&mut self, later: Beyond) {
        self.vertices += later.vertices;
        if self.first.is_none() {
            self.first = later.first;
        }
        if let Some((share, v)) = later.worst
            && self.worst.is_none_or(|(w, _)| share > w)
        {
            self.worst = Some((share, v));
        }
    }
}

impl Checker {
    /// With a target: the weight of `sets` beyond the ones it reads, and the largest
    /// weighted bone index.
    #[inline]
    pub(super) fn target_stats(&self, v: u64, sets: &[InfluenceSet], stats: &mut MeshStats) {
        let Some(t) = self.target else {
            return;
        };
        let usable = |w: f32| w.is_finite() && w > 0.0;
        for set in sets {
            for (&j, &w) in set.joints.iter().zip(&set.weights) {
                if usable(w) && stats.max_bone.is_none_or(|m| j > m) {
                    stats.max_bone = Some(j);
                }
            }
        }
        let Some(read) = t.sets_read.filter(|&n| sets.len() > n) else {
            return;
        };
        let sum = |s: &[InfluenceSet]| -> f64 {
            s.iter()
                .flat_map(|x| x.weights)
                .filter(|&w| usable(w))
                .map(f64::from)
                .sum()
        };
        let lost = sum(sets.get(read..).unwrap_or_default());
        if lost > 0.0 {
            let total = sum(sets);
            #[allow(
                clippy::cast_possible_truncation,
                reason = "a share in [0, 1], rounded"
            )]
            let share = (lost / total) as f32;
            stats.beyond.add(v, share);
        }
    }

    /// The target's mesh-level rules (`spec/targets.md` §3).
    pub(super) fn target_mesh(
        &self,
        t: &dashvertex_core::Target,
        stats: &MeshStats,
        sets: usize,
        set_location: &dyn Fn(usize) -> Location,
        sink: &mut Sink,
    ) {
        let read = t.sets_read.unwrap_or(usize::MAX);
        if sets > read && t.extra_sets == dashvertex_core::ExtraSets::Rejected {
            sink.report(
                Code::TARGET_SETS_REJECTED,
                || set_location(read),
                || {
                    format!(
                        "{} refuses a primitive with more than {read} influence set(s); this one has {sets}",
                        t.engine
                    )
                },
            );
        } else if let (Some(first), Some((share, worst))) = (stats.beyond.first, stats.beyond.worst)
        {
            let n = stats.beyond.vertices;
            sink.report(
                Code::TARGET_SETS_IGNORED,
                || set_location(read),
                || {
                    format!(
                        "{} reads influence set{} 0{} only: {n} {} weight in later sets (first: vertex {first}; most: vertex {worst}, {:.1} % of its weight); {}",
                        t.engine,
                        if read == 1 { "" } else { "s" },
                        if read == 1 { String::new() } else { format!(" to {}", read - 1) },
                        if n == 1 { "vertex carries" } else { "vertices carry" },
                        f64::from(share) * 100.0,
                        if t.renormalizes {
                            "it renormalizes what it reads, so those vertices follow fewer bones"
                        } else {
                            "it does not renormalize, so those vertices are pulled toward the origin"
                        }
                    )
                },
            );
        }
        if let Some(m) = stats.max_bone.filter(|&m| m > t.max_joint_index) {
            sink.report(
                Code::TARGET_INDEX_WIDTH,
                || set_location(0),
                || {
                    format!(
                        "{} stores joint indices up to {}; this mesh uses bone {m}",
                        t.engine, t.max_joint_index
                    )
                },
            );
        }
    }
}
