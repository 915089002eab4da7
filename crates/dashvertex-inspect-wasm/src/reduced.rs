//! Reduction and repair in the page. Reduction: the dropped files reduced to K influences
//! per vertex and written as a GLB by the reduce job itself (`dashvertex_app::reduce::plan_gltf`,
//! what `dashvertex reduce IN -o OUT.glb --max-influences K` runs with its defaults: no
//! manifest file, so the file's joint order is kept; unit sums, as for any glTF output;
//! float weights; the per-bone source attributes dropped), checked by the job's own output
//! check. Repair: as `dashvertex fix IN -o OUT.glb` with its defaults, checked the same way.
//! Either is refused, as the commands refuse it, when the file's document is broken for
//! the job's work ([`Opened::refused`]: a rewrite, or skinning for the fit).

use std::path::Path;

use dashvertex_app::reduce::{ReduceJob, plan_gltf};
use dashvertex_app::settings::{Asked, settings};
use dashvertex_app::{Collect, Context, Neutral, Source};
use dashvertex_core::Limits;
use dashvertex_gltf::Gltf;
use dashvertex_validate::Work;

/// The name the page's outputs are checked under.
const OUT: &str = "out.glb";

/// The name the page's input is called by in messages.
const INPUT: &str = "the file";

/// Why nothing can be handed over (a reduction or a repair).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReduceRefused(pub String);

impl std::fmt::Display for ReduceRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ReduceRefused {}

/// A glTF document opened as the jobs open their input, checked for the work each job
/// does with it: a rewrite (fix, and a plain reduction to GLB), whose errors outside the
/// influences are carried into the output, and skinning (the fitted reduction), which
/// needs sound transforms and animations.
pub struct Opened {
    source: Source,
    /// Why the commands refuse to rewrite it, if they do.
    refusal: Option<String>,
    /// Why they refuse to skin it, if they do.
    refusal_skinning: Option<String>,
}

impl Opened {
    /// `gltf` as a job's input: the refusals the commands would give it are kept, for the
    /// page still shows what it can.
    pub fn new(mut gltf: Gltf) -> Opened {
        let log = Collect::default();
        let ctx = context(&log);
        let name = Path::new(INPUT);
        let refusal = dashvertex_app::input::check_gltf_for(name, &mut gltf, &ctx, Work::Rewrite)
            .err()
            .map(|e| e.to_string());
        // Skinning refuses what a rewrite refuses, and the errors a rewrite carries that
        // touch skinning: only when one is carried is the file checked again, to locate
        // it. Otherwise the errors carried are the rewrite's.
        let skinning_refuses = refusal.is_none()
            && gltf
                .carried_errors
                .keys()
                .filter_map(|c| c.parse::<dashvertex_validate::Code>().ok())
                .any(|c| Work::Skin.refused_by(c));
        let refusal_skinning = if skinning_refuses {
            dashvertex_validate::verdict(&gltf, &ctx.limits, Work::Skin)
                .refusal
                .map(|r| dashvertex_app::check::refused(name, r, &Neutral).to_string())
        } else {
            None
        };
        Opened {
            source: Source::Gltf(Box::new(gltf)),
            refusal,
            refusal_skinning,
        }
    }

    /// The document.
    pub fn gltf(&self) -> Option<&Gltf> {
        match &self.source {
            Source::Gltf(g) => Some(g),
            _ => None,
        }
    }

    /// Why the commands refuse this document for a job that skins it (`skinning`) or
    /// rewrites it, if they do.
    pub fn refused(&self, skinning: bool) -> Result<(), ReduceRefused> {
        let refusal = if skinning {
            self.refusal.as_ref().or(self.refusal_skinning.as_ref())
        } else {
            self.refusal.as_ref()
        };
        match refusal {
            None => Ok(()),
            Some(r) => Err(ReduceRefused(r.clone())),
        }
    }
}

/// The page's job context: default limits, no folder to read from, messages kept.
fn context(log: &Collect) -> Context<'_> {
    Context {
        limits: Limits::default(),
        resource_dirs: &[],
        wait: false,
        words: &Neutral,
        log,
    }
}

/// The opened document reduced to `k` influences per vertex, as GLB bytes: the reduce job
/// with its settings for a GLB output without a manifest file, so the page states no
/// default of its own. With `fit`, the fitted reduction of `dashvertex reduce --fit`
/// (`spec/reduction.md` §6) over the file's own animations and the range-of-motion poses.
pub fn reduce_to_glb(opened: &Opened, k: usize, fit: bool) -> Result<Vec<u8>, ReduceRefused> {
    opened.refused(fit)?;
    let log = Collect::default();
    let ctx = context(&log);
    let asked = Asked {
        max_influences: Some(k),
        ..Asked::default()
    };
    let output = Path::new(OUT);
    let refused = |e: dashvertex_app::AppError| ReduceRefused(e.to_string());
    let job = ReduceJob {
        config: settings(&asked, output, None, None, &Neutral).map_err(refused)?,
        fit,
        ..ReduceJob::new(Path::new(INPUT), output, &ctx)
    };
    let mut planned = plan_gltf(&job, &opened.source, None, None).map_err(refused)?;
    let main = std::mem::take(&mut planned.written.main);
    planned.check().owned(main).map_err(refused)
}

/// The opened document repaired by the fix job as `dashvertex fix IN -o OUT.glb` repairs
/// it with its defaults ([`dashvertex_app::fix::Asked::default`]: for glTF input the glTF
/// sum rule; bad weights zeroed; out-of-range joints, zero sums and a wrong skinned flag
/// refused; IBM tolerance 1e-4), as GLB bytes, checked by the job's output check. A file
/// with nothing to repair is refused here (the command copies it).
pub fn fix_to_glb(opened: &Opened) -> Result<Vec<u8>, ReduceRefused> {
    use dashvertex_app::fix::{Asked, FixJob, FixOutput, plan_gltf, policy};
    opened.refused(false)?;
    let log = Collect::default();
    let ctx = context(&log);
    let refused = |e: dashvertex_app::AppError| ReduceRefused(e.to_string());
    let (input, output) = (Path::new(INPUT), Path::new(OUT));
    let job = FixJob {
        // The page's input is glTF: named by the output's name, the policy follows the
        // glTF sum rule, as for the command's `.glb` input.
        policy: policy(&Asked::default(), output, None, &ctx).map_err(refused)?,
        ..FixJob::new(input, output, &ctx)
    };
    let gltf = opened
        .gltf()
        .ok_or_else(|| ReduceRefused("nothing opened".into()))?;
    let mut planned = plan_gltf(&job, gltf).map_err(refused)?;
    match std::mem::replace(&mut planned.output, FixOutput::Unchanged) {
        FixOutput::Gltf(w) => planned.checked(w.main, &w.files).map_err(refused),
        _ => Err(ReduceRefused(
            "nothing to fix: the influence data is valid".into(),
        )),
    }
}
