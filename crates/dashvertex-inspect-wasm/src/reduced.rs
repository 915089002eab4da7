//! Reduction and repair in the page. Reduction: the dropped files reduced to K influences per vertex and written
//! as a GLB, as `dashvertex reduce IN -o OUT.glb --max-influences K` writes it with its
//! defaults (no manifest file, so the file's joint order is kept; unit sums, as for any
//! glTF output; float weights; per-bone source attributes kept). Repair: as
//! `dashvertex fix IN -o OUT.glb` with its defaults. Either is checked by the validator
//! before it is handed over, as the commands check before they write.

use std::path::Path;

use dashvertex_app::Neutral;
use dashvertex_app::check::{Check, refused};
use dashvertex_app::settings::{Asked, fit_plan, keeps_order, pipeline_options, settings};
use dashvertex_core::Limits;
use dashvertex_formats::Format;
use dashvertex_gltf::export::BufferFiles;
use dashvertex_gltf::{Container, Gltf};
use dashvertex_reduce::fit::gltf::reduce_gltf_fitted;
use dashvertex_reduce::manifest::Manifest;
use dashvertex_reduce::pipeline::reduce_gltf;

/// The name the page's outputs are checked under.
const OUT: &str = "out.glb";

/// Why nothing can be handed over (a reduction or a repair).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReduceRefused(pub String);

impl std::fmt::Display for ReduceRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ReduceRefused {}

/// `gltf` reduced to `k` influences per vertex, as GLB bytes: the reduce job's own
/// settings for a GLB output without a manifest file (`dashvertex_app::settings`), and its
/// output check (`dashvertex_app::check`), so the page states no default of its own. With
/// `fit`, the fitted reduction of `dashvertex reduce --fit` (`spec/reduction.md` §6) over
/// the file's own animations and the range-of-motion poses.
pub fn reduce_to_glb(gltf: &Gltf, k: usize, fit: bool) -> Result<Vec<u8>, ReduceRefused> {
    let limits = Limits::default();
    readable(gltf, &limits)?;
    let prims = dashvertex_reduce::gltf::inputs(gltf, &limits)
        .map_err(|e| ReduceRefused(format!("the file cannot be reduced: {e}")))?;
    if prims.is_empty() {
        return Err(ReduceRefused(
            "no primitive has influences or per-bone weight attributes".into(),
        ));
    }
    let asked = Asked {
        max_influences: Some(k),
        ..Asked::default()
    };
    let config = settings(&asked, Path::new(OUT), None, None, &Neutral)
        .map_err(|e| ReduceRefused(e.to_string()))?;
    let keep_order = keeps_order(false, true, || true);
    let opts = pipeline_options(false, false, keep_order, false, &limits);
    let mut manifest = Manifest::default();
    let files = BufferFiles::Beside { stem: "out".into() };
    let cannot = |e: dashvertex_reduce::pipeline::PipelineError| {
        ReduceRefused(format!("the file cannot be reduced: {e}"))
    };
    let out = if fit {
        let anims = dashvertex_skin::animations(gltf, &limits)
            .map_err(|e| ReduceRefused(format!("the file's animations cannot be read: {e}")))?;
        let plan = fit_plan(gltf, &anims, &limits, true, None);
        let (out, _) = reduce_gltf_fitted(
            gltf,
            &prims,
            &mut manifest,
            &config,
            &opts,
            Container::Glb,
            &files,
            &plan,
        )
        .map_err(cannot)?;
        out
    } else {
        reduce_gltf(
            gltf,
            &prims,
            &mut manifest,
            &config,
            &opts,
            Container::Glb,
            &files,
        )
        .map_err(cannot)?
    };
    checked(out.written.main, &limits)
}

/// `gltf` repaired as `dashvertex fix IN -o OUT.glb` repairs it with its defaults for glTF
/// input (the glTF sum rule; bad weights zeroed; out-of-range joints, zero sums and a wrong
/// skinned flag refused; IBM tolerance 1e-4), as GLB bytes, validated first. A file with
/// nothing to repair is refused here (the command copies it).
pub fn fix_to_glb(gltf: &Gltf) -> Result<Vec<u8>, ReduceRefused> {
    use dashvertex_fix::policy::{Policy, SumRule};
    let limits = Limits::default();
    readable(gltf, &limits)?;
    let policy = Policy::for_rule(SumRule::Gltf);
    let fixed = dashvertex_fix::fix_gltf(gltf, &policy, &limits)
        .map_err(|e| ReduceRefused(format!("the file cannot be fixed: {e}")))?;
    let editor = fixed
        .editor
        .ok_or_else(|| ReduceRefused("nothing to fix: the influence data is valid".into()))?;
    let files = BufferFiles::Beside { stem: "out".into() };
    let written = editor
        .finish_files(Container::Glb, &files)
        .map_err(|e| ReduceRefused(format!("the fixed file cannot be written: {e}")))?;
    checked(written.main, &limits)
}

/// Refuses a file whose document the commands refuse to read (spec/validation.md §6.3),
/// with the same finding and words as they refuse it.
fn readable(gltf: &Gltf, limits: &Limits) -> Result<(), ReduceRefused> {
    match dashvertex_validate::refusal(gltf, limits) {
        None => Ok(()),
        Some(r) => Err(ReduceRefused(
            refused(Path::new("the file"), r, &Neutral).to_string(),
        )),
    }
}

/// `bytes` when the jobs' output check accepts them as GLB, else why not.
fn checked(bytes: Vec<u8>, limits: &Limits) -> Result<Vec<u8>, ReduceRefused> {
    Check::new(Path::new(OUT), Format::Glb, &[], limits)
        .owned(bytes)
        .map_err(|e| ReduceRefused(e.to_string()))
}
