//! Reduction to K influences per vertex, and bone indices kept stable by a manifest.
//!
//! - [`reduce_lists`]: per-vertex influence lists ([`InfluenceLists`]) reduced, the
//!   bones keeping the indices the lists gave them.
//! - [`reduce_document`]: a document reduced, its bones kept in the file's order.
//! - [`index_document`]: a document reduced with every bone numbered by a [`Manifest`],
//!   which gains the bones it did not have: the same bone has the same index in every
//!   file reduced with the same manifest.

use dashvertex_core::Document;
pub use dashvertex_manifest::{BoneRef, Changes, Manifest, ManifestError};
pub use dashvertex_reduce::document::{DroppedWeight, ReducedDocument, reduce_document};
pub use dashvertex_reduce::input::{InfluenceLists, Input, InputError};
pub use dashvertex_reduce::pipeline::{PipelineError, Run};
pub use dashvertex_reduce::{
    Config, ConfigError, Empty, MAX_INFLUENCES, Normalize, Quantize, ReduceError, Reduced, Report,
    UnknownSetting,
};

/// Reduces `lists` by `config`; bone `i` of the output is bone `i` of the lists.
///
/// ```
/// use dashvertex::reduce::{BoneRef, Config, InfluenceLists, Quantize, reduce_lists};
/// let bones = ["a", "b", "c"].map(|n| BoneRef { name: n.into(), parent: None });
/// let mut lists = InfluenceLists::new(bones.to_vec());
/// lists.vertex([(2, 0.2), (0, 0.7), (1, 0.1)]);
/// let cfg = Config::default().with_max_influences(2).with_quantize(Quantize::Unorm8);
/// let out = reduce_lists(lists, &cfg)?;
/// assert_eq!(out.influences[0].joints, [0, 2, 0, 0]);
/// assert_eq!(out.integers.unwrap()[0], [198, 57, 0, 0]);
/// # Ok::<(), dashvertex::reduce::PipelineError>(())
/// ```
pub fn reduce_lists(lists: InfluenceLists, config: &Config) -> Result<Reduced, PipelineError> {
    let input = lists.build()?;
    let opts = dashvertex_reduce::pipeline::Options {
        keep_order: true,
        ..Default::default()
    };
    let mut manifest = Manifest::new();
    let run = dashvertex_reduce::pipeline::reduce_all(&[&input], &mut manifest, config, &opts)?;
    Ok(run.reduced.into_iter().next().unwrap_or(Reduced {
        sets: 1,
        influences: Vec::new(),
        integers: None,
        report: Report::default(),
    }))
}

/// Why a manifest file could not be read.
#[cfg(feature = "fs")]
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ManifestFileError {
    /// The file exists but could not be read.
    #[error(transparent)]
    Read(#[from] dashvertex_fs::FsError),
    /// The file is not a manifest this version reads.
    #[error("{path}: {source}")]
    Invalid {
        /// The file.
        path: std::path::PathBuf,
        /// Why, with the JSON Pointer.
        #[source]
        source: Box<ManifestError>,
    },
}

/// The manifest in the file at `path`, or a new empty one when there is no file yet.
#[cfg(feature = "fs")]
pub fn read_manifest(path: impl AsRef<std::path::Path>) -> Result<Manifest, ManifestFileError> {
    let path = path.as_ref();
    if !path.exists() {
        return Ok(Manifest::new());
    }
    let limit = dashvertex_core::Limits::default().max_input_bytes;
    let bytes = dashvertex_fs::read_input(path, limit)?;
    let text = String::from_utf8_lossy(&bytes);
    Manifest::from_json(&text).map_err(|source| ManifestFileError::Invalid {
        path: path.to_path_buf(),
        source: Box::new(source),
    })
}

/// Reduces `document` by `config` with bone indices from `manifest`, which gains the
/// document's bones it did not have (by name; a renamed bone keeps its index through an
/// alias). The result's skeleton is in manifest order: bone `i` is manifest entry `i`.
/// A document without a skeleton has no bone names to index and is refused.
pub fn index_document(
    document: &Document,
    manifest: &mut Manifest,
    config: &Config,
) -> Result<Document, PipelineError> {
    let bones = document
        .skeleton
        .as_ref()
        .map(dashvertex_reduce::input::bone_refs)
        .unwrap_or_default();
    let input = Input::from_mesh(&document.mesh, bones)?;
    let positions: Vec<[f32; 3]> = document
        .mesh
        .vertices()
        .iter()
        .map(|v| v.position)
        .collect();
    let opts = dashvertex_reduce::pipeline::Options {
        require_names: true,
        ..Default::default()
    };
    let (doc, _) = dashvertex_reduce::document::reduce_to_document(
        &input,
        document.skeleton.as_ref(),
        &positions,
        manifest,
        config,
        &opts,
    )?;
    Ok(doc)
}
