//! Reduction and repair in the page. Reduction: the dropped files reduced to K influences per vertex and written
//! as a GLB, as `dashvertex reduce IN -o OUT.glb --max-influences K` writes it with its
//! defaults (no manifest file, so the file's joint order is kept; unit sums, as for any
//! glTF output; float weights; per-bone source attributes kept). Repair: as
//! `dashvertex fix IN -o OUT.glb` with its defaults. Either is checked by the validator
//! before it is handed over, as the commands check before they write.

use dashvertex_core::Limits;
use dashvertex_gltf::export::BufferFiles;
use dashvertex_gltf::{Container, Gltf};
use dashvertex_reduce::manifest::Manifest;
use dashvertex_reduce::pipeline::{Options, reduce_gltf};
use dashvertex_reduce::{Config, Normalize};
use dashvertex_validate::{Format, Severity};

/// Why nothing can be handed over (a reduction or a repair).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReduceRefused(pub String);

impl std::fmt::Display for ReduceRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ReduceRefused {}

/// `gltf` reduced to `k` influences per vertex, as GLB bytes.
pub fn reduce_to_glb(gltf: &Gltf, k: usize) -> Result<Vec<u8>, ReduceRefused> {
    let limits = Limits::default();
    readable(gltf, &limits)?;
    let prims = dashvertex_reduce::gltf::inputs(gltf, &limits)
        .map_err(|e| ReduceRefused(format!("the file cannot be reduced: {e}")))?;
    if prims.is_empty() {
        return Err(ReduceRefused(
            "no primitive has influences or per-bone weight attributes".into(),
        ));
    }
    let config = Config {
        max_influences: k,
        normalize: Normalize::Unit,
        ..Config::default()
    };
    let opts = Options {
        locked: false,
        max_bones: Some(limits.max_bones),
        require_names: false,
        keep_order: true,
        keep_source_attributes: true,
    };
    let mut manifest = Manifest::default();
    let files = BufferFiles::Beside { stem: "out".into() };
    let out = reduce_gltf(
        gltf,
        &prims,
        &mut manifest,
        &config,
        &opts,
        Container::Glb,
        &files,
    )
    .map_err(|e| ReduceRefused(format!("the file cannot be reduced: {e}")))?;
    checked(out.written.main)
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
    checked(written.main)
}

/// Refuses a file whose document the commands refuse to read (spec/validation.md §6.3),
/// with the same finding.
fn readable(gltf: &Gltf, limits: &Limits) -> Result<(), ReduceRefused> {
    match dashvertex_validate::refusal(gltf, limits) {
        None => Ok(()),
        Some(r) => Err(ReduceRefused(format!(
            "nothing to download: {} at {}: {} ({} such error(s) in the file's document; the tool that wrote it must write it again)",
            r.first.code.as_str(),
            r.first.location,
            r.first.message,
            r.errors
        ))),
    }
}

/// `bytes` when the validator finds no error in them as GLB, else why not.
fn checked(bytes: Vec<u8>) -> Result<Vec<u8>, ReduceRefused> {
    let check = dashvertex_validate::Options::new()
        .with_format(Format::Glb)
        .with_max_diagnostics(1000);
    let report = dashvertex_validate::validate_bytes("out.glb", &bytes, &check);
    match report
        .diagnostics
        .iter()
        .find(|d| d.severity == Severity::Error)
    {
        None if report.counts.errors == 0 => Ok(bytes),
        first => Err(ReduceRefused(format!(
            "nothing to download: the file would not be valid ({})",
            first.map_or_else(
                || "an error past the first 1000 diagnostics".to_owned(),
                |d| format!("{}: {} at {}", d.code.as_str(), d.message, d.location)
            )
        ))),
    }
}
