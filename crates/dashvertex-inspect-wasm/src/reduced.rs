//! Reduction in the page: the dropped files reduced to K influences per vertex and written
//! as a GLB, as `dashvertex reduce IN -o OUT.glb --max-influences K` writes it with its
//! defaults (no manifest file, so the file's joint order is kept; unit sums, as for any
//! glTF output; float weights; per-bone source attributes kept), and checked by the
//! validator before it is handed over, as the command checks before it writes.

use dashvertex_core::Limits;
use dashvertex_gltf::export::BufferFiles;
use dashvertex_gltf::{Container, Gltf};
use dashvertex_reduce::manifest::Manifest;
use dashvertex_reduce::pipeline::{Options, reduce_gltf};
use dashvertex_reduce::{Config, Normalize};
use dashvertex_validate::{Format, Severity};

/// Why nothing can be handed over.
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
    let bytes = out.written.main;
    let check = dashvertex_validate::Options {
        format: Some(Format::Glb),
        max_diagnostics: 1000,
        ..dashvertex_validate::Options::default()
    };
    let report = dashvertex_validate::validate_bytes("reduced.glb", &bytes, &check);
    match report
        .diagnostics
        .iter()
        .find(|d| d.severity == Severity::Error)
    {
        None if report.counts.errors == 0 => Ok(bytes),
        first => Err(ReduceRefused(format!(
            "nothing to download: the reduced file would not be valid ({})",
            first.map_or_else(
                || "an error past the first 1000 diagnostics".to_owned(),
                |d| format!("{}: {} at {}", d.code.as_str(), d.message, d.location)
            )
        ))),
    }
}
