//! `--fit` and `--quantize auto` in the reduce job (spec/reduction.md §6): the glTF run
//! through [`dashvertex_reduce::fit::gltf::reduce_gltf_fitted`], what it did said in words
//! and in the report, and, for the loss report, the plain reduction measured beside it.

use std::cell::RefCell;

use dashvertex_gltf::export::BufferFiles;
use dashvertex_gltf::{Container, Gltf};
use dashvertex_reduce::Config;
use dashvertex_reduce::fit::gltf::{GltfFit, PrimitiveFit, reduce_gltf_fitted};
use dashvertex_reduce::gltf::PrimitiveInput;
use dashvertex_reduce::manifest::Manifest;
use dashvertex_reduce::pipeline::{GltfOutput, Options, PipelineError, reduce_gltf};

use crate::error::AppError;
use crate::reduce::ReduceJob;
use crate::report::{FitPrimitive, FitSection, StorageCost};

/// How a reduce job's glTF runs go: plain, or fitted (the last run's records kept).
pub(crate) struct Fitting<'a> {
    plan: Option<GltfFit<'a>>,
    last: RefCell<Vec<PrimitiveFit>>,
}

/// What the fit and the storage choice did, for the terminal and the report.
#[derive(Clone, Debug)]
pub(crate) struct Fitted {
    /// The report's section.
    pub(crate) section: FitSection,
}

fn storage(q: dashvertex_reduce::Quantize) -> &'static str {
    match q {
        dashvertex_reduce::Quantize::F32 => "f32",
        dashvertex_reduce::Quantize::Unorm16 => "unorm16",
        dashvertex_reduce::Quantize::Unorm8 => "unorm8",
    }
}

impl<'a> Fitting<'a> {
    /// The runs of job `a` on `g` with the poses of `anims` (plain unless `--fit` or
    /// `--quantize auto`).
    pub(crate) fn new(
        a: &'a ReduceJob<'a>,
        g: &Gltf,
        anims: &'a [dashvertex_skin::Animation],
    ) -> Self {
        let plan = (a.fit || a.quantize_auto).then(|| {
            crate::settings::fit_plan(
                g,
                anims,
                &a.ctx.limits,
                a.fit,
                a.max_error.filter(|_| a.quantize_auto),
                a.fit_motion_weight,
            )
        });
        Fitting {
            plan,
            last: RefCell::new(Vec::new()),
        }
    }

    /// One glTF run with `cfg` (the `--max-error` search calls it once per K).
    #[allow(clippy::too_many_arguments, reason = "reduce_gltf's arguments")]
    pub(crate) fn run(
        &self,
        g: &Gltf,
        prims: &[PrimitiveInput<'_>],
        m: &mut Manifest,
        cfg: &Config,
        opts: &Options,
        container: Container,
        files: &BufferFiles,
    ) -> Result<GltfOutput, PipelineError> {
        match &self.plan {
            None => reduce_gltf(g, prims, m, cfg, opts, container, files),
            Some(plan) => {
                let (out, fits) =
                    reduce_gltf_fitted(g, prims, m, cfg, opts, container, files, plan)?;
                *self.last.borrow_mut() = fits;
                Ok(out)
            }
        }
    }

    /// What the last fitted run did; with a loss report (`measured`), the plain
    /// reduction's displacement beside it, measured the same way.
    #[allow(clippy::too_many_arguments, reason = "a plain run's arguments")]
    pub(crate) fn finish(
        &self,
        a: &ReduceJob,
        g: &Gltf,
        prims: &[PrimitiveInput<'_>],
        manifest: &Manifest,
        opts: &Options,
        (container, files): (Container, &BufferFiles),
        (cfg, anims): (&Config, &[dashvertex_skin::Animation]),
        measured: bool,
    ) -> Result<Option<Fitted>, AppError> {
        if self.plan.is_none() {
            return Ok(None);
        }
        let displacement_plain = if measured && a.fit {
            // The plain run numbers bones from the same manifest as the fitted one did.
            let mut m = manifest.clone();
            let plain = reduce_gltf(g, prims, &mut m, cfg, opts, container, files)
                .map_err(|e| crate::error::input_cause(a.input, e))?;
            let loss = crate::loss::loss_of(a.input, g, &plain.written, anims, &a.ctx.limits)?;
            Some(crate::report::Displacement::of(&loss))
        } else {
            None
        };
        let primitives = self
            .last
            .borrow()
            .iter()
            .map(|f| FitPrimitive {
                mesh: f.mesh,
                primitive: f.primitive,
                fit: f.fit.clone(),
                quantize: storage(f.quantize).to_owned(),
                costs: f
                    .costs
                    .iter()
                    .map(|c| StorageCost {
                        quantize: storage(c.quantize).to_owned(),
                        max: c.max,
                        vertex: c.vertex,
                    })
                    .collect(),
                poses_animation: f.poses.0,
                poses_range_of_motion: f.poses.1,
                poses_full: f.poses.2,
            })
            .collect();
        Ok(Some(Fitted {
            section: FitSection {
                primitives,
                displacement_plain,
            },
        }))
    }
}

impl Fitted {
    /// The terminal's lines: per primitive what the fit did and what storage was chosen,
    /// and the plain reduction's loss beside the fitted one.
    pub(crate) fn lines(&self, a: &ReduceJob) -> Vec<String> {
        let mut out = Vec::new();
        let fit_opt = a.ctx.opt(crate::words::Opt::Fit);
        let q_opt = a.ctx.opt(crate::words::Opt::Quantize);
        for p in &self.section.primitives {
            let at = format!("mesh {} primitive {}", p.mesh, p.primitive);
            if let Some(f) = &p.fit {
                out.push(format!(
                    "{fit_opt}, {at}: {} of {} vertices that lost weight refitted ({} on the greedy support, {} influence(s) left at 0); squared displacement summed over {} poses ({}, {} range of motion{}{}): plain {:.6}, fitted {:.6}",
                    f.fitted,
                    f.considered,
                    f.greedy_support,
                    f.left_out,
                    f.poses,
                    if p.poses_animation > 1 {
                        format!("{} from the animations", p.poses_animation)
                    } else {
                        "the rest pose".to_owned()
                    },
                    p.poses_range_of_motion,
                    if f.poses < f.poses_given || (p.poses_animation + p.poses_range_of_motion) < p.poses_full {
                        format!("; {} without the work budget", p.poses_full)
                    } else {
                        String::new()
                    },
                    match f.pose_group_weights.as_slice() {
                        [_, w] => format!(", the range of motion weighed {w:.3}x"),
                        // Without an animation the poses are one group (spec RF1): a
                        // weight given for the range of motion has nothing to scale.
                        [] if a.fit_motion_weight != 1.0 => format!(
                            ", every pose weighed 1: no animation for {} to weigh the range of motion against",
                            a.ctx.opt(crate::words::Opt::FitMotionWeight)
                        ),
                        _ => String::new(),
                    },
                    f.objective_plain,
                    f.objective_fitted
                ));
            }
            if !p.costs.is_empty() {
                let costs: Vec<String> = p
                    .costs
                    .iter()
                    .map(|c| format!("{} {:.6}", c.quantize, c.max))
                    .collect();
                out.push(format!(
                    "{q_opt} auto, {at}: {} (largest displacement over the pose set: {})",
                    p.quantize,
                    costs.join(", ")
                ));
            }
        }
        if let Some(d) = &self.section.displacement_plain {
            for p in &d.primitives {
                out.push(format!(
                    "loss without {fit_opt}, mesh {} primitive {}: max {:.6}, p99 {:.6}, mean {:.6}",
                    p.mesh, p.primitive, p.max, p.p99, p.mean
                ));
            }
        }
        out
    }
}
