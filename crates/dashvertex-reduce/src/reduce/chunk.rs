//! One chunk of vertices: the scratch buffers a worker reuses, the choice between the
//! fast and the general selection, and joining chunks' reports.

use dashvertex_core::InfluenceSet;

use super::fast::{TOP, reduce_columns, reduce_rows};
use super::finish::Finish;
use super::select::Stamps;
use super::{Config, ReduceError, Report};
use crate::input::{Data, Input};

/// Reusable per-vertex buffers.
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) stamps: Stamps,
    pub(super) list: Vec<(u32, f32)>,
    pub(super) weights: Vec<f32>,
    pub(super) ints: Vec<u32>,
    pub(super) rems: Vec<(f64, usize)>,
    pub(super) fin: Vec<(u32, f32, u32)>,
}

impl Scratch {
    /// A scratch whose bone stamps are sized for the output indices of `map`.
    pub(super) fn for_map(map: &[u32]) -> Scratch {
        Scratch {
            stamps: Stamps::for_map(map),
            ..Scratch::default()
        }
    }
}

/// What one chunk learnt beside its output: the sets its widest vertex needs, and its
/// report.
pub(super) struct Chunk {
    pub(super) widest: usize,
    pub(super) report: Report,
}

/// Reduces the vertices in `range` of `input` into `out` (`max_sets` zeroed sets per
/// vertex, not yet narrowed to the widest) and, when quantizing, `ints` (laid out alike).
#[allow(
    clippy::too_many_arguments,
    reason = "the reducer's inputs and one chunk's share of its outputs"
)]
pub(super) fn reduce_range<'a>(
    input: &'a Input,
    map: &'a [u32],
    root: Option<u32>,
    cfg: &'a Config,
    allow_fast: bool,
    range: std::ops::Range<usize>,
    out: &'a mut [InfluenceSet],
    ints: Option<&'a mut [[u32; 4]]>,
    sc: &mut Scratch,
) -> Result<Chunk, ReduceError> {
    let n = range.len();
    let k = cfg.max_influences;
    let max_sets = k.div_ceil(4).max(1);
    let qmax = cfg.quantize.max();
    let mut f = Finish {
        range: range.clone(),
        input,
        map,
        root,
        cfg,
        qmax,
        max_sets,
        report: Report {
            vertices: n as u64,
            ..Report::default()
        },
        influences: out,
        integers: ints,
        widest: 1,
    };
    let mut cands = Vec::new();
    // The fast selection takes every vertex whose weights are positive and finite and
    // whose bones are distinct, when there is no threshold; it selects exactly what the
    // general path would (a test compares them). K is rounded up to 4, 8 or 16 for it.
    let fast = allow_fast && cfg.min_weight == 0.0 && k <= TOP;
    match (&input.data, fast) {
        (Data::Columns(cols), true) => match k {
            1..=4 => reduce_columns::<4>(&mut f, cols, sc, &mut cands)?,
            5..=8 => reduce_columns::<8>(&mut f, cols, sc, &mut cands)?,
            _ => reduce_columns::<TOP>(&mut f, cols, sc, &mut cands)?,
        },
        (_, true) => match k {
            1..=4 => reduce_rows::<4>(&mut f, sc, &mut cands)?,
            5..=8 => reduce_rows::<8>(&mut f, sc, &mut cands)?,
            _ => reduce_rows::<TOP>(&mut f, sc, &mut cands)?,
        },
        (_, false) => {
            for v in range {
                let dirty = f.general(v, &mut cands, sc)?;
                f.vertex(v, dirty, sc)?;
            }
        }
    }
    Ok(Chunk {
        widest: f.widest,
        report: f.report,
    })
}

impl Report {
    /// Adds the report of a later chunk of vertices: counts add up, and the "first" and
    /// "largest" entries are chosen by the same order a single run uses, so the joined
    /// report is the one a single run over all vertices gives.
    pub(super) fn append(&mut self, later: Report) {
        self.vertices += later.vertices;
        self.changed += later.changed;
        self.dropped += later.dropped;
        self.below_threshold += later.below_threshold;
        self.quantized_away += later.quantized_away;
        self.merged += later.merged;
        self.negative += later.negative;
        self.empty += later.empty;
        self.max_influences_in = self.max_influences_in.max(later.max_influences_in);
        if self.first_empty.is_none() {
            self.first_empty = later.first_empty;
        }
        // Later chunks hold later vertices, so an earlier first negative stays first.
        if self.first_negative.is_none() {
            self.first_negative = later.first_negative;
        }
        if let Some(d) = later.largest_dropped
            && self
                .largest_dropped
                .as_ref()
                .is_none_or(|x| x.beaten_by(d.weight, d.vertex, d.bone))
        {
            self.largest_dropped = Some(d);
        }
    }
}
