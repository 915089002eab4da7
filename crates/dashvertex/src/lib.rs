//! Skinned-vertex data for tool authors.
//!
//! One call opens any file dash reads — glTF, GLB, DashVertex JSON, DMX, raw records,
//! FBX — into a [`Model`]: its skinned primitives, each with its bones and every
//! vertex's influences across all its sets. The same model is validated by the rules
//! of `spec/validation.md`, reduced to K influences per vertex with exact integer
//! sums, and given bone indices that stay stable across files through a bone manifest.
//!
//! ```
//! # #[cfg(all(feature = "validate", feature = "reduce"))] {
//! let text = br#"[{"x": 0, "y": 0, "z": 0, "skinIndex": [0, 1, 2], "skinWeight": [0.5, 0.3, 0.2]}]"#;
//! let model = dashvertex::read(text, "mesh.json")?;
//! let p = &model.primitives[0];
//! assert_eq!(p.influences(0), [(0, 0.5), (1, 0.3), (2, 0.2)]);
//!
//! let report = dashvertex::validate(&p.document, &dashvertex::validate::Options::new());
//! assert!(report.valid, "{:?}", report.diagnostics);
//!
//! use dashvertex::reduce::{Config, Quantize};
//! let cfg = Config::default().with_max_influences(2).with_quantize(Quantize::Unorm8);
//! let reduced = dashvertex::reduce::reduce_document(&p.document, &cfg)?;
//! let kept = reduced.run.reduced[0].integers.as_ref().map(|q| q[0]);
//! assert_eq!(kept, Some([159, 96, 0, 0])); // 0.5 and 0.3 as shares of 255, summing to 255
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Features: `fs` ([`open`] by path), `gltf`, `validate`, `reduce` (the default);
//! `fix` (repair, `dashvertex::fix`), `split` (parts of at most N joints,
//! `dashvertex::split`) and
//! `parallel` (rayon's thread pool) on request. Without `fs` nothing reads the
//! filesystem ([`read`] takes bytes), and without `parallel` nothing starts a thread.
//!
//! The `examples/` folder of this crate holds four programs of at most 15 lines:
//! `print_influences`, `validate_file`, `reduce_lists` and `stable_indices`
//! (`cargo run -p dashvertex --example print_influences -- FILE`).

mod open;
#[cfg(feature = "reduce")]
pub mod reduce;

pub use dashvertex_core::{
    Bone, Document, InfluenceSet, LimitError, Limits, Mesh, SLOTS, Skeleton, Vertex,
};
pub use dashvertex_formats::Format;
pub use open::{Model, OpenError, Primitive, read, read_with};
#[cfg(feature = "fs")]
pub use open::{open, open_with};

/// Validation: the options, the report and the stable diagnostic codes.
#[cfg(feature = "validate")]
pub mod validate {
    #[cfg(feature = "fs")]
    pub use dashvertex_validate::validate_path as validate_file;
    pub use dashvertex_validate::{
        Code, Counts, Diagnostic, FileReport, JointOrder, Level, Location, Options, Profile,
        Severity, UnknownName, validate_bytes,
    };
}

/// Validates `document` (every vertex's influences across its sets, the skeleton, the
/// limits); the report's diagnostics locate vertices, bones, sets and slots.
#[cfg(feature = "validate")]
pub fn validate(document: &Document, opts: &validate::Options) -> validate::FileReport {
    dashvertex_validate::validate_document("document", document, opts)
}

/// Writes `document` as DashVertex JSON, a DMX container or raw records; what the
/// format cannot hold (a skeleton in raw records) is refused, never dropped.
pub fn write(
    document: &Document,
    format: Format,
) -> Result<Vec<u8>, dashvertex_formats::SaveError> {
    let loaded =
        dashvertex_formats::Loaded::Binary(dashvertex_binary::BinaryFile::new(document.clone()));
    dashvertex_formats::save(&loaded, format, &dashvertex_formats::SaveOptions::default())
}

/// Repair of influence data: the rules of `dashvertex fix`.
#[cfg(feature = "fix")]
pub use dashvertex_fix as fix;
/// Meshes cut into parts of at most N joints: `dashvertex split`.
#[cfg(feature = "split")]
pub use dashvertex_split as split;
