//! `dashvertex.reduce` on numpy arrays: the reducer of `dashvertex reduce`
//! (`dashvertex_reduce::reduce`, spec/reduction.md), fed the arrays as influence sets
//! (joints and weights, any number of columns) or as one weight column per bone (a dense
//! per-bone matrix), with the arrays' own bone indices kept.

use dashvertex_core::{InfluenceSet, Mesh, Vertex};
use dashvertex_reduce::fit::{FitOptions, FitReport, Poses};
use dashvertex_reduce::input::{Data, Input, Origin};
use dashvertex_reduce::manifest::BoneRef;
use dashvertex_reduce::{Config, Reduced};
use numpy::ndarray::{ArrayView2, ArrayView4};
use rayon::prelude::*;

use crate::errors::{Failure, Result};

/// Joint indices as the caller's array holds them, read in place.
pub enum JointsView<'a> {
    /// uint8.
    U8(ArrayView2<'a, u8>),
    /// uint16.
    U16(ArrayView2<'a, u16>),
    /// uint32.
    U32(ArrayView2<'a, u32>),
    /// Any other integer dtype, converted to int64 by numpy.
    I64(ArrayView2<'a, i64>),
}

impl JointsView<'_> {
    fn shape(&self) -> (usize, usize) {
        match self {
            JointsView::U8(a) => a.dim(),
            JointsView::U16(a) => a.dim(),
            JointsView::U32(a) => a.dim(),
            JointsView::I64(a) => a.dim(),
        }
    }

    /// Element `(v, c)` as a bone index, or the value that is not one.
    fn get(&self, v: usize, c: usize) -> std::result::Result<u32, i64> {
        match self {
            JointsView::U8(a) => Ok(a.get((v, c)).copied().map_or(0, u32::from)),
            JointsView::U16(a) => Ok(a.get((v, c)).copied().map_or(0, u32::from)),
            JointsView::U32(a) => Ok(a.get((v, c)).copied().unwrap_or(0)),
            JointsView::I64(a) => {
                let x = a.get((v, c)).copied().unwrap_or(0);
                u32::try_from(x).map_err(|_| x)
            }
        }
    }
}

/// Vertices per parallel chunk.
const CHUNK: usize = 1 << 15;

/// Influence sets from joint and weight columns: set `s` is columns `4s .. 4s + 4`, the
/// last set padded with zero weights.
fn sets_of(
    joints: &JointsView<'_>,
    weights: ArrayView2<'_, f32>,
) -> Result<Vec<Vec<InfluenceSet>>> {
    let (n, cols) = weights.dim();
    if joints.shape() != (n, cols) {
        let (jn, jc) = joints.shape();
        return Err(Failure::option(format!(
            "joints has shape ({jn}, {jc}) but weights has shape ({n}, {cols}): they must match"
        )));
    }
    let sets = cols.div_ceil(4);
    if let Some(fast) = contiguous_sets(joints, weights, sets) {
        return Ok(fast);
    }
    let mut out = Vec::with_capacity(sets);
    for s in 0..sets {
        let chunks: Vec<std::result::Result<Vec<InfluenceSet>, Failure>> = (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                let range = c * CHUNK..n.min((c + 1) * CHUNK);
                let mut part = Vec::with_capacity(range.len());
                for v in range {
                    let mut x = InfluenceSet::ZERO;
                    for k in 0..4 {
                        let col = 4 * s + k;
                        if col >= cols {
                            break;
                        }
                        let j = joints.get(v, col).map_err(|bad| {
                            Failure::option(format!(
                                "joints[{v}, {col}] is {bad}, not a bone index (0 to 4294967295)"
                            ))
                            .at_vertex(v as u64)
                        })?;
                        if let (Some(jo), Some(wo), Some(w)) = (
                            x.joints.get_mut(k),
                            x.weights.get_mut(k),
                            weights.get((v, col)),
                        ) {
                            *jo = j;
                            *wo = *w;
                        }
                    }
                    part.push(x);
                }
                Ok(part)
            })
            .collect();
        let mut set = Vec::with_capacity(n);
        for c in chunks {
            set.extend(c?);
        }
        out.push(set);
    }
    Ok(out)
}

/// [`sets_of`] for row-major arrays of unsigned joints (what numpy makes by default): the
/// rows read as slices, no per-element dispatch. `None` for any other layout or dtype.
fn contiguous_sets(
    joints: &JointsView<'_>,
    weights: ArrayView2<'_, f32>,
    sets: usize,
) -> Option<Vec<Vec<InfluenceSet>>> {
    fn build<J: Copy + Into<u32> + Sync>(
        j: &[J],
        w: &[f32],
        cols: usize,
        sets: usize,
    ) -> Vec<Vec<InfluenceSet>> {
        (0..sets)
            .map(|s| {
                let (lo, hi) = (4 * s, (4 * s + 4).min(cols));
                j.par_chunks(cols.max(1))
                    .zip(w.par_chunks(cols.max(1)))
                    .map(|(jr, wr)| {
                        let mut x = InfluenceSet::ZERO;
                        let (js, ws) = (
                            jr.get(lo..hi).unwrap_or_default(),
                            wr.get(lo..hi).unwrap_or_default(),
                        );
                        for (k, (&b, &wt)) in js.iter().zip(ws).enumerate() {
                            if let (Some(jo), Some(wo)) =
                                (x.joints.get_mut(k), x.weights.get_mut(k))
                            {
                                *jo = b.into();
                                *wo = wt;
                            }
                        }
                        x
                    })
                    .collect()
            })
            .collect()
    }
    let cols = weights.dim().1;
    let w = weights.as_slice()?;
    match joints {
        JointsView::U8(a) => a.as_slice().map(|j| build(j, w, cols, sets)),
        JointsView::U16(a) => a.as_slice().map(|j| build(j, w, cols, sets)),
        JointsView::U32(a) => a.as_slice().map(|j| build(j, w, cols, sets)),
        JointsView::I64(_) => None,
    }
}

/// Above this many bone indices, the bones of the input are the indices that carry
/// weight only (sparse); below, every index up to the largest is a bone.
const DENSE_BONES: u32 = 1 << 20;

/// The reducer's input from joint and weight arrays: bones are named `#N` by their index,
/// as a DashVertex file without a skeleton gives them to the CLI (`Input::from_mesh`).
/// Up to [`DENSE_BONES`] indices every index is a bone (nothing to renumber, as fast as
/// the CLI's glTF path); beyond, only the weighted ones (`Input::from_mesh`, memory
/// bounded by the influences). Either way the reducer sees the same candidates in the
/// same order with a monotone bone numbering, so indices, merges and tie-breaks, and the
/// output bits, are the CLI's.
fn input_from_sets(
    joints: &JointsView<'_>,
    weights: ArrayView2<'_, f32>,
) -> Result<(Input<'static>, Vec<u32>)> {
    let mut sets = sets_of(joints, weights)?;
    let n = weights.dim().0;
    if sets.is_empty() {
        // No column: every vertex is empty (one all-zero set).
        sets.push(vec![InfluenceSet::ZERO; n]);
    }
    let largest = sets
        .par_iter()
        .flat_map_iter(|set| set.iter())
        .flat_map_iter(|x| x.pairs().filter(|(_, w)| *w != 0.0).map(|(j, _)| j))
        .max();
    match largest {
        Some(m) if m >= DENSE_BONES => {
            let mut iter = sets.into_iter();
            let first = iter.next().unwrap_or_default();
            let vertices: Vec<Vertex> = first
                .into_iter()
                .map(|skin| Vertex {
                    position: [0.0; 3],
                    skin,
                })
                .collect();
            let mesh = Mesh::from_parts(true, vertices, iter.collect())
                .map_err(|e| Failure::option(e.to_string()))?;
            let input =
                Input::from_mesh(&mesh, Vec::new()).map_err(|e| Failure::option(e.to_string()))?;
            let map = input.unnamed_indices().unwrap_or_default();
            Ok((input, map))
        }
        _ => {
            let count = largest.map_or(0, |m| m + 1);
            let bones = (0..count)
                .map(|j| BoneRef {
                    name: format!("#{j}"),
                    parent: None,
                })
                .collect();
            let input = Input {
                bones,
                positions: vec![[0.0; 3]; n],
                data: Data::Sets(sets),
                origin: Origin::Sets,
            };
            Ok((input, (0..count).collect()))
        }
    }
}

/// Columns one pass over a dense matrix's rows copies out.
const COLUMNS_PER_PASS: usize = 16;
/// Rows of a dense matrix transposed together (16 columns of them: 8 KiB).
const ROWS_PER_BLOCK: usize = 128;

/// The reducer's input from a dense `(n, bones)` matrix: column `b` is bone `b`'s weight
/// on every vertex (Blender's per-bone attributes, a weights document).
fn input_from_matrix(weights: ArrayView2<'_, f32>) -> Result<(Input<'static>, Vec<u32>)> {
    let (n, bones) = weights.dim();
    let index = |b: usize| {
        u32::try_from(b).map_err(|_| Failure::option("weights has more than 2^32 columns"))
    };
    let mut columns: Vec<(u32, Vec<f32>)> = (0..bones)
        .map(|b| Ok((index(b)?, vec![0.0; n])))
        .collect::<Result<_>>()?;
    if let Some(by_column) = weights.t().as_slice() {
        // Fortran order (a transposed (bones, n) array, Blender's read): each column is
        // one run of memory.
        columns
            .par_iter_mut()
            .zip(by_column.par_chunks_exact(n.max(1)))
            .for_each(|((_, col), src)| col.copy_from_slice(src));
    } else {
        // Transposed a few columns at a time, a block of rows at a time: the block's rows
        // stay in cache while each column of the group takes its share (a column copied
        // alone would read one weight per cache line of a row-major matrix). Groups of at
        // most 16 columns (a cache line of each row), enough of them for every thread.
        let group = bones
            .div_ceil(rayon::current_num_threads().max(1))
            .clamp(1, COLUMNS_PER_PASS);
        let rows = weights.as_slice();
        columns
            .par_chunks_mut(group)
            .enumerate()
            .for_each(|(g, cols)| {
                let first = g * group;
                for start in (0..n).step_by(ROWS_PER_BLOCK) {
                    let end = (start + ROWS_PER_BLOCK).min(n);
                    for (c, (_, col)) in cols.iter_mut().enumerate() {
                        let dst = col.get_mut(start..end).unwrap_or_default();
                        match rows {
                            // C order: row v is `rows[v * bones..][..bones]`.
                            Some(rows) => {
                                let block =
                                    rows.get(start * bones..end * bones).unwrap_or_default();
                                for (d, row) in dst.iter_mut().zip(block.chunks_exact(bones.max(1)))
                                {
                                    *d = row.get(first + c).copied().unwrap_or(0.0);
                                }
                            }
                            None => {
                                for (d, v) in dst.iter_mut().zip(start..end) {
                                    *d = weights.get((v, first + c)).copied().unwrap_or(0.0);
                                }
                            }
                        }
                    }
                }
            });
    }
    let names = (0..bones)
        .map(|b| BoneRef {
            name: format!("#{b}"),
            parent: None,
        })
        .collect();
    let map = (0..bones).map(index).collect::<Result<_>>()?;
    let input = Input {
        bones: names,
        positions: vec![[0.0; 3]; n],
        data: Data::Columns(columns),
        origin: Origin::BoneWeights,
    };
    Ok((input, map))
}

/// What [`run`] gives back: joints and weights row-major `(n, 4 * sets)`.
pub struct Output {
    /// Rows.
    pub rows: usize,
    /// Sets per output row.
    pub sets: usize,
    /// Sets the reducer filled (the rest of each row is zeros).
    pub filled: usize,
    /// Joint indices, or `None` when every index fits 16 bits.
    pub joints_u32: Option<Vec<u32>>,
    /// Joint indices narrowed to 16 bits (empty when `joints_u32` is set).
    pub joints_u16: Vec<u16>,
    /// Weights.
    pub weights: Vec<f32>,
    /// The reducer's report and settings.
    pub report: dashvertex_reduce::Report,
}

/// The reduced sets laid out row-major, `width_sets` sets per row (the sets the reducer
/// did not fill are zeros), so the shape depends on `max_influences` alone.
fn flatten(reduced: Reduced, rows: usize, width_sets: usize) -> Output {
    let filled = reduced.sets;
    let sets = width_sets.max(filled);
    let width = 4 * sets;
    let wide = reduced
        .influences
        .par_iter()
        .any(|x| x.joints.iter().any(|&j| j > u32::from(u16::MAX)));
    // Row v of the output is the reducer's sets of vertex v, then zeros: each row filled
    // in place, rows in parallel.
    fn fill<T: Copy + Default + Send>(
        reduced: &Reduced,
        rows: usize,
        width: usize,
        lane: impl Fn(&InfluenceSet, usize) -> T + Sync,
    ) -> Vec<T> {
        let filled = reduced.sets;
        let mut out = vec![T::default(); rows * width];
        out.par_chunks_mut(width.max(1))
            .enumerate()
            .for_each(|(v, row)| {
                let sets = reduced
                    .influences
                    .get(v * filled..(v + 1) * filled)
                    .unwrap_or_default();
                for (slots, x) in row.chunks_mut(4).zip(sets) {
                    for (k, o) in slots.iter_mut().enumerate() {
                        *o = lane(x, k);
                    }
                }
            });
        out
    }
    let weights = fill(&reduced, rows, width, |x, k| {
        x.weights.get(k).copied().unwrap_or(0.0)
    });
    let (joints_u32, joints_u16) = if wide {
        let j = fill(&reduced, rows, width, |x, k| {
            x.joints.get(k).copied().unwrap_or(0)
        });
        (Some(j), Vec::new())
    } else {
        let j = fill(&reduced, rows, width, |x, k| {
            x.joints
                .get(k)
                .map_or(0, |&j| u16::try_from(j).unwrap_or(u16::MAX))
        });
        (None, j)
    };
    Output {
        rows,
        sets,
        filled,
        joints_u32,
        joints_u16,
        weights,
        report: reduced.report,
    }
}

/// What `fit=True` fits to: each vertex's position (`(n, 3)`) and the joint matrices
/// of every pose (`(poses, joints, 3 or 4, 4)`, global × inverse bind, acting on column
/// vectors: `M @ (x, y, z, 1)`), indexed by the joint indices of the arrays; optionally
/// a second group of poses (a range of motion) weighed against the first
/// (`spec/reduction.md` \[RF1\]).
pub struct FitArgs<'a> {
    /// Positions, one row per vertex.
    pub positions: ArrayView2<'a, f32>,
    /// Joint matrices per pose and joint index.
    pub poses: ArrayView4<'a, f64>,
    /// The second group's joint matrices, shaped as `poses`.
    pub motion: Option<ArrayView4<'a, f64>>,
    /// How much the second group counts once both count alike (1: alike).
    pub motion_weight: f64,
}

/// Reduces the arrays (runs without the GIL, on the worker pool); with `fit`, refits the
/// reduction over the poses given (spec/reduction.md §6).
pub fn run(
    joints: Option<&JointsView<'_>>,
    weights: ArrayView2<'_, f32>,
    cfg: &Config,
    fit: Option<&FitArgs<'_>>,
) -> Result<(Output, Option<FitReport>)> {
    let rows = weights.dim().0;
    let (input, map) = match joints {
        Some(j) => input_from_sets(j, weights)?,
        None => input_from_matrix(weights)?,
    };
    let mut reduced = dashvertex_reduce::reduce(&input, &map, None, cfg)?;
    let report = match fit {
        None => None,
        Some(f) => {
            let positions = positions(f.positions, rows)?;
            let mut poses_set = Poses::new(map.len());
            push_poses(&mut poses_set, f.poses, "poses", &map)?;
            if let Some(m) = f.motion {
                poses_set.begin_group();
                push_poses(&mut poses_set, m, "motion_poses", &map)?;
            }
            let opts = FitOptions {
                motion_weight: f.motion_weight,
                ..FitOptions::default()
            };
            let report = dashvertex_reduce::fit::fit(
                &input,
                &map,
                &positions,
                &poses_set,
                cfg,
                &opts,
                &mut reduced,
            )
            .map_err(|e| Failure::option(format!("fit=True: {e}")).caused_by(e))?;
            Some(report)
        }
    };
    Ok((
        flatten(reduced, rows, cfg.max_influences.div_ceil(4)),
        report,
    ))
}

/// The `(n, 3)` positions as points, refused when the shape or a value is wrong.
fn positions(a: ArrayView2<'_, f32>, rows: usize) -> Result<Vec<[f32; 3]>> {
    if a.dim() != (rows, 3) {
        return Err(Failure::option(format!(
            "positions has shape {:?}; fit=True needs one (x, y, z) row per vertex: ({rows}, 3)",
            a.dim()
        )));
    }
    a.rows()
        .into_iter()
        .enumerate()
        .map(|(v, r)| {
            let p = [0, 1, 2].map(|k| r.get(k).copied().unwrap_or(0.0));
            if p.iter().all(|x| x.is_finite()) {
                Ok(p)
            } else {
                Err(Failure::option(format!(
                    "positions[{v}] is {p:?}: every coordinate must be finite"
                )))
            }
        })
        .collect()
}

/// Appends the joint matrices of every pose of `a` (the argument `name`) to `out`, by
/// the reducer's input bone (`map[bone]` is its joint index in the arrays). Refused when
/// a weighted joint index has no matrix, when a matrix is not affine (a last row other
/// than 0 0 0 1) or holds a value that is not finite: the fit would otherwise measure the
/// vertex against a pose it cannot mean.
fn push_poses(out: &mut Poses, a: ArrayView4<'_, f64>, name: &str, map: &[u32]) -> Result<()> {
    let (count, joints, r, c) = a.dim();
    if !(r == 3 || r == 4) || c != 4 {
        return Err(Failure::option(format!(
            "{name} has shape {:?}; fit=True needs (poses, joints, 4, 4) or (poses, joints, 3, 4) joint matrices",
            a.dim()
        )));
    }
    if count == 0 {
        return Err(Failure::option(format!(
            "{name} holds no pose; fit=True needs at least one (the rest pose is one)"
        )));
    }
    if let Some(&j) = map.iter().filter(|&&j| j as usize >= joints).max() {
        return Err(Failure::option(format!(
            "{name} has matrices for joints 0..{joints}, but the arrays use joint {j}: give one matrix per joint index up to the largest"
        )));
    }
    for p in 0..count {
        let mut pose = Vec::with_capacity(map.len());
        for &j in map {
            let j = j as usize;
            let at = |i: usize, k: usize| a.get((p, j, i, k)).copied().unwrap_or(f64::NAN);
            let rows: [f64; 12] = std::array::from_fn(|i| at(i / 4, i % 4));
            let affine = r == 3 || (at(3, 0), at(3, 1), at(3, 2), at(3, 3)) == (0.0, 0.0, 0.0, 1.0);
            if !rows.iter().all(|x| x.is_finite()) || !affine {
                return Err(Failure::option(format!(
                    "{name}[{p}, {j}] is not a finite affine joint matrix (last row 0 0 0 1)"
                )));
            }
            pose.push(rows);
        }
        out.push(pose);
    }
    Ok(())
}
