//! The reduce job's searches for the fewest influences within an error budget:
//! `--max-error` alone ([`reduce_within`], measured by the loss report over the
//! animations) and with `--quantize auto` (each K's storage chosen by the fit's pose set,
//! spec/reduction.md \[RQ1\]).

use dashvertex_gltf::Gltf;
use dashvertex_reduce::Config;
use dashvertex_reduce::gltf::PrimitiveInput;
use dashvertex_reduce::manifest::Manifest;
use dashvertex_reduce::pipeline::{GltfOutput, PipelineError};

use crate::error::{AppError, input_error};
use crate::loss::{largest, loss_of, over_budget, sampled};
use crate::reduce::{ReduceJob, pipeline_failed};
use crate::words::Opt;

/// The search of `max_error`: the smallest K up to `job.config.max_influences` whose
/// reduction keeps every vertex within `budget` over `anims` (each K reduced from
/// `start`, the manifest before the run). Gives the K, its manifest, its output and its
/// loss; refuses when even the largest K moves a vertex further.
///
/// A job with `max_error` runs it, planned by [`crate::reduce::plan`] (here by path, with
/// `reduce::run`):
///
/// ```no_run
/// # fn main() -> Result<(), dashvertex_app::AppError> {
/// use dashvertex_app::{Collect, Context, Neutral, reduce};
/// let log = Collect::default();
/// let ctx = Context { limits: Default::default(), resource_dirs: &[], wait: true, words: &Neutral, log: &log };
/// let (input, output) = ("rig.glb".as_ref(), "rig.k.glb".as_ref());
/// // the fewest influences, up to 8, that keep every vertex within 1 mm at every keyframe
/// let job = reduce::ReduceJob {
///     config: dashvertex_reduce::Config::default().with_max_influences(8),
///     max_error: Some(0.001),
///     ..reduce::ReduceJob::new(input, output, &ctx)
/// };
/// let done = reduce::run(&job)?;
/// println!("K = {}", done.max_influences);
/// # Ok(()) }
/// ```
#[allow(clippy::too_many_arguments)]
pub fn reduce_within<'g>(
    job: &ReduceJob,
    gltf: &'g Gltf,
    prims: &[PrimitiveInput<'g>],
    start: &Manifest,
    anims: &[dashvertex_skin::Animation],
    budget: f64,
    run: &dyn Fn(
        &Config,
        &mut Manifest,
    ) -> Result<dashvertex_reduce::pipeline::GltfOutput, AppError>,
) -> Result<
    (
        usize,
        Manifest,
        dashvertex_reduce::pipeline::GltfOutput,
        Vec<dashvertex_skin::PrimitiveLoss>,
    ),
    AppError,
> {
    let ctx = job.ctx;
    let max_error = ctx.opt(Opt::MaxError);
    // Without an animation that moves a joint, the loss is measured over the
    // range-of-motion poses (spec/reduction.md §4), so the budget still constrains K.
    let kmax = job.config.max_influences;
    // The last K tried: the first within the budget, else max_influences.
    let mut last = None;
    for k in 1..=kmax {
        let mut m = start.clone();
        let cfg = job.config.with_max_influences(k);
        let out = run(&cfg, &mut m)?;
        let loss = loss_of(job.input, gltf, &out.written, anims, &ctx.limits)?;
        if loss.len() < prims.len() {
            return Err(input_error(
                job.input,
                format!(
                    "{max_error}: a reduced primitive has no skin, so how far its vertices move cannot be measured"
                ),
            ));
        }
        let worst = largest(&loss);
        ctx.detail(format_args!(
            "{max_error} {budget}: {k} influence(s) move a vertex by at most {worst:.6}"
        ));
        last = Some((k, m, out, loss));
        if worst <= budget {
            break;
        }
    }
    let Some((k, m, out, loss)) = last else {
        return Err(AppError::Usage(format!(
            "{} must be at least 1",
            ctx.opt(Opt::MaxInfluences)
        )));
    };
    let worst = largest(&loss);
    if worst > budget {
        return Err(AppError::Output(over_budget(
            budget, kmax, &loss, ctx.words,
        )));
    }
    ctx.info(format_args!(
        "{max_error} {budget}: {k} influence(s) per vertex keep every vertex within it (largest displacement {worst:.6})"
    ));
    if loss
        .iter()
        .any(|p| p.pose_set == dashvertex_skin::PoseSet::RangeOfMotion)
    {
        ctx.note(format_args!(
            "{max_error} {budget}: measured over the {} (give animations with {} FILE to measure those instead)",
            crate::loss::RANGE_OF_MOTION,
            ctx.opt(Opt::Poses)
        ));
    }
    if let Some(cut) = sampled(&loss) {
        ctx.note(format_args!("{max_error} {budget}: {cut}"));
    }
    Ok((k, m, out, loss))
}

/// `--quantize auto --max-error E`: the fewest influences per vertex, up to
/// `job.config.max_influences`, for which every primitive has a weight storage within
/// `budget` (`run` refuses a K with `PipelineError::OverBudget` when one has none), and
/// that run: its K, manifest and output (spec/reduction.md \[RQ1\]).
pub(crate) fn auto_within(
    job: &ReduceJob,
    start: &Manifest,
    budget: f64,
    run: &dyn Fn(&Config, &mut Manifest) -> Result<GltfOutput, PipelineError>,
) -> Result<(usize, Manifest, GltfOutput), AppError> {
    let ctx = job.ctx;
    let kmax = job.config.max_influences;
    for k in 1..=kmax {
        let mut m = start.clone();
        let cfg = job.config.with_max_influences(k);
        match run(&cfg, &mut m) {
            Ok(out) => {
                ctx.info(format_args!(
                    "{} {budget}: {k} influence(s) per vertex are the fewest some storage keeps within it",
                    ctx.opt(Opt::MaxError)
                ));
                return Ok((k, m, out));
            }
            Err(PipelineError::OverBudget {
                mesh,
                primitive,
                best,
                ..
            }) if k < kmax => {
                ctx.detail(format_args!(
                    "{} {budget}: with {k} influence(s), mesh {mesh} primitive {primitive} moves a vertex by at least {best:.6} in any storage",
                    ctx.opt(Opt::MaxError)
                ));
            }
            Err(e) => return Err(pipeline_failed(job, e)),
        }
    }
    Err(AppError::Usage(format!(
        "{} must be at least 1",
        ctx.opt(Opt::MaxInfluences)
    )))
}
