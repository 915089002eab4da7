//! The loss report of a reduction (`report` and `max_error`): the input and the output
//! skinned at the rest pose and every sampled moment, and the report's JSON and summary
//! lines.

use std::path::Path;

use dashvertex_core::Limits;
use dashvertex_gltf::Gltf;

use crate::error::{AppError, input_cause, input_error};
use crate::input::Context;
use crate::words::{Opt, Wording};

/// How far the reduction moves each skinned primitive of `source`: the written output is
/// read back from memory (its buffer files with it) and both are skinned at the moments
/// of spec/reduction.md §4. Non-finite data is refused as a fault of `input`.
pub fn loss_of(
    input: &Path,
    source: &Gltf,
    written: &dashvertex_gltf::export::Written,
    anims: &[dashvertex_skin::Animation],
    limits: &Limits,
) -> Result<Vec<dashvertex_skin::PrimitiveLoss>, AppError> {
    let files = dashvertex_gltf::MemoryFiles {
        files: written
            .files
            .iter()
            .map(|(n, b)| (n.as_str(), b.as_slice()))
            .collect(),
    };
    let reduced = dashvertex_gltf::load(&written.main, &files, limits).map_err(|e| {
        AppError::Output(format!("the loss report cannot read the output back: {e}"))
    })?;
    dashvertex_skin::loss_with(source, &reduced, anims, limits).map_err(|e| match e {
        e @ (dashvertex_skin::SkinError::NonFiniteInverseBind { .. }
        | dashvertex_skin::SkinError::NonFinitePosition { .. }
        | dashvertex_skin::SkinError::NonFiniteSkinning { .. }) => input_cause(input, e),
        e => AppError::Output(format!("the loss report cannot skin the model: {e}")),
    })
}

/// When the work budget cut the moments measured (spec/reduction.md §4), what was
/// measured, in words.
pub fn sampled(loss: &[dashvertex_skin::PrimitiveLoss]) -> Option<String> {
    let p = loss.iter().find(|p| p.moments < p.moments_full)?;
    if p.pose_set == dashvertex_skin::PoseSet::RangeOfMotion {
        return Some(format!(
            "measured at {} of the {} moments of the rest pose and the range-of-motion poses: the work budget, {} units per byte of the input, cuts the rest (spec/reduction.md \u{a7}4)",
            p.moments,
            p.moments_full,
            dashvertex_skin::WORK_PER_BYTE
        ));
    }
    Some(format!(
        "measured at {} of the {} moments the sampling rule takes (the rest pose, every keyframe and {} between each): the work budget, {} units per byte of the input, cuts the rest (spec/reduction.md \u{a7}4)",
        p.moments,
        p.moments_full,
        dashvertex_skin::INTERIOR_SAMPLES,
        dashvertex_skin::WORK_PER_BYTE
    ))
}

/// The largest displacement as a share of the diagonal of the primitive's skinned
/// rest-pose bounding box (the space the displacement is measured in); `None` when the
/// diagonal is 0 (every vertex at one place): the share is undefined.
pub fn share_of_diagonal(p: &dashvertex_skin::PrimitiveLoss) -> Option<f64> {
    (p.diagonal > 0.0).then(|| p.max / p.diagonal)
}

/// The animations the loss is measured over: the model's own, or those of a pose file
/// (`poses`: its name and its glTF, as `load_poses` reads it) moved onto the model's
/// nodes by name.
pub fn poses_for(
    input: &Path,
    model: &Gltf,
    poses: Option<(&Path, &Gltf)>,
    ctx: &Context,
) -> Result<Vec<dashvertex_skin::Animation>, AppError> {
    let limits = &ctx.limits;
    match poses {
        None => dashvertex_skin::animations(model, limits).map_err(|e| skin_err(input, model, e)),
        Some((path, other)) => {
            let anims =
                dashvertex_skin::animations(other, limits).map_err(|e| skin_err(path, other, e))?;
            if anims.is_empty() {
                return Err(input_error(path, "the pose file has no animation"));
            }
            dashvertex_skin::retarget(&anims, other, model).map_err(|e| skin_err(path, other, e))
        }
    }
}

/// Reads the pose file at `path` (glTF, its resources inside its folder).
#[cfg(feature = "fs")]
pub fn load_poses(path: &Path, ctx: &Context) -> Result<Gltf, AppError> {
    crate::input::must_exist(path)?;
    dashvertex_gltf::load_path_in(path, ctx.resource_dirs, &ctx.limits).map_err(|e| match e {
        // Not read (missing, a FIFO, a device): an I/O problem, as for the input.
        dashvertex_gltf::LoadError::Read(e) => AppError::from(e),
        e => input_cause(path, e),
    })
}

/// A skinning error of `file` as an input error, located at its line and column in the
/// JSON text when it names a member (a malformed animation).
fn skin_err(file: &Path, gltf: &Gltf, e: dashvertex_skin::SkinError) -> AppError {
    match &e {
        dashvertex_skin::SkinError::Animation { pointer, .. } => match gltf.line_col(pointer) {
            Some((line, column)) => input_error(file, format_args!("{line}:{column}: {e}")),
            None => input_cause(file, e),
        },
        _ => input_cause(file, e),
    }
}

/// The largest displacement over every primitive.
pub fn largest(loss: &[dashvertex_skin::PrimitiveLoss]) -> f64 {
    loss.iter().map(|p| p.max).fold(0.0, f64::max)
}

/// Why `max_error` cannot be met: the vertices that move most with every influence
/// `max_influences` allows, and when.
pub fn over_budget(
    budget: f64,
    kmax: usize,
    loss: &[dashvertex_skin::PrimitiveLoss],
    words: &dyn Wording,
) -> String {
    let mut worst: Vec<String> = Vec::new();
    for p in loss {
        for w in p.worst.iter().filter(|w| w.displacement > budget) {
            worst.push(format!(
                "mesh {} primitive {} vertex {} moves {:.6}{} {}",
                p.mesh,
                p.primitive,
                w.vertex,
                w.displacement,
                share(w.displacement, p),
                w.at.describe()
            ));
        }
    }
    let over = if loss
        .iter()
        .any(|p| p.pose_set == dashvertex_skin::PoseSet::RangeOfMotion)
    {
        format!(" over the {}", RANGE_OF_MOTION)
    } else {
        String::new()
    };
    format!(
        "nothing written: with {kmax} influence(s) per vertex ({}) vertices still move more than {} {budget}{over}: {}; allow more influences or a larger error",
        words.option(Opt::MaxInfluences),
        words.option(Opt::MaxError),
        worst.join("; ")
    )
}

/// The range-of-motion poses, in words (spec/reduction.md §4).
pub const RANGE_OF_MOTION: &str = "range-of-motion poses (no animation moves a joint: the rest pose, then each used joint turned \u{b1}45\u{b0} about its local X, Y and Z axes, one at a time; spec/reduction.md \u{a7}4)";

/// ` (2.761% of the skinned rest-pose diagonal)`: `d` as a share of `p`'s diagonal, or
/// nothing when the diagonal is 0.
fn share(d: f64, p: &dashvertex_skin::PrimitiveLoss) -> String {
    if p.diagonal > 0.0 {
        format!(
            " ({:.3}% of the skinned rest-pose diagonal)",
            100.0 * d / p.diagonal
        )
    } else {
        String::new()
    }
}

/// The terminal's summary of the loss report, one line per primitive.
pub fn loss_lines(loss: Option<&[dashvertex_skin::PrimitiveLoss]>) -> Vec<String> {
    let Some(loss) = loss else {
        return vec!["loss: weights only (displacement needs glTF input and output)".to_owned()];
    };
    loss.iter()
        .map(|p| {
            let share = match share_of_diagonal(p) {
                Some(s) => format!(
                    "{:.3}% of the skinned rest-pose bounding-box diagonal {:.6}",
                    100.0 * s,
                    p.diagonal
                ),
                None => "the skinned rest-pose bounding-box diagonal is 0: every vertex is at one place, so no share of it is defined".to_owned(),
            };
            let when = if p.pose_set == dashvertex_skin::PoseSet::RestPose || p.moments_full <= 1 {
                "at the rest pose (no animation moves a joint, and no joint carries weight)"
                    .to_owned()
            } else if p.pose_set == dashvertex_skin::PoseSet::RangeOfMotion {
                if p.moments < p.moments_full {
                    format!(
                        "over {} of the {} moments of the {} (the work budget cut the rest)",
                        p.moments, p.moments_full, RANGE_OF_MOTION
                    )
                } else {
                    format!("over {} moments of the {}", p.moments, RANGE_OF_MOTION)
                }
            } else if p.moments < p.moments_full {
                format!(
                    "over {} of the {} moments of the rest pose, every keyframe and {} between each (the work budget cut the rest)",
                    p.moments,
                    p.moments_full,
                    dashvertex_skin::INTERIOR_SAMPLES
                )
            } else if p.moments > p.keyframe_moments {
                format!(
                    "over {} moments (the rest pose, every keyframe and {} between each; {:.6} at the keyframes)",
                    p.moments,
                    dashvertex_skin::INTERIOR_SAMPLES,
                    p.max_at_keyframes
                )
            } else {
                format!("over {} moments (the rest pose and every keyframe)", p.moments)
            };
            let worst = p.worst.first().map_or(String::new(), |w| {
                let at = match (&w.at.pose, &w.at.animation, &w.at.name) {
                    (Some(pose), _, _) => pose.describe(),
                    (None, None, _) => "at the rest pose".to_owned(),
                    (None, Some(i), Some(n)) => {
                        format!("at animation {i} ({n:?}) t={:.3} s", w.at.time)
                    }
                    (None, Some(i), None) => format!("at animation {i} t={:.3} s", w.at.time),
                };
                format!("; worst vertex {} {at}", w.vertex)
            });
            format!(
                "loss, mesh {} primitive {}: max {:.6} ({share}), p99 {:.6}, mean {:.6} {when}{worst}",
                p.mesh, p.primitive, p.max, p.p99, p.mean
            )
        })
        .collect()
}
