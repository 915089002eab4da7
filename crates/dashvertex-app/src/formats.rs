//! The formats the jobs read and write, over `dashvertex-formats` (the one detector): the
//! note a contradicting name earns, and the wording of load and save errors.

use std::path::Path;

use dashvertex_core::Limits;
use dashvertex_formats::{DecodeError, SaveError, ShapeLoss};
pub use dashvertex_formats::{Format, Loaded, SaveOptions};

use crate::Context;
use crate::error::AppError;
use crate::words::{Job, Level, Log, Opt};

/// The format to read `bytes` from a file named `path` as: the bytes' signature when the
/// name contradicts it (a note on standard error says so), else the name's format, else
/// a guess; JSON text with an `asset` member is glTF; what cannot be told is read as DMX,
/// so that its decoder says where it fails.
pub fn decide(path: &Path, bytes: &[u8], log: &dyn Log) -> Format {
    let d = Format::detect(path, bytes, bytes.len() as u64);
    // Text formats are told by their content when it is decisive (the validator's rule).
    let (format, by_text) = d.read_text(bytes);
    let read = format.unwrap_or(Format::Dmx);
    let contradicted = d.contradicted.or(by_text);
    if let Some(named) = contradicted {
        log.log(
            Level::Note,
            &format_args!(
                "{} is named as {} but holds {}: read as {}",
                path.display(),
                named.describe(),
                read.describe(),
                read.describe()
            ),
        );
    }
    read
}

/// Decodes `bytes` (named `name` in errors) as `format`.
pub fn load(
    name: &str,
    bytes: &[u8],
    format: Format,
    limits: &Limits,
    ctx: &Context,
) -> Result<Loaded, AppError> {
    let loaded = dashvertex_formats::load_noted(bytes, format, limits).map(|(l, notes)| {
        // FBX converted to DashVertex says how (spec/fbx.md §4).
        if !notes.is_empty() {
            ctx.note(format_args!(
                "{name}: read as DashVertex: {}",
                notes.join("; ")
            ));
        }
        l
    });
    loaded.map_err(|e| AppError::Input {
        message: match &e {
            DecodeError::NotDashVertex(f) => format!(
                "{} is not DashVertex data; `{}` and `{}` read glTF",
                f.describe(),
                ctx.job(Job::Reduce),
                ctx.job(Job::Validate)
            ),
            e => e.to_string(),
        },
        file: name.to_owned(),
        source: Some(Box::new(e)),
    })
}

/// Encodes `loaded` as `format`, refusing to drop anything the target cannot hold but a
/// skeleton for raw records, which hold none: that is dropped with a note (the bone
/// indices keep their numbers).
pub fn save(
    loaded: &Loaded,
    format: Format,
    opts: &SaveOptions,
    ctx: &Context,
) -> Result<Vec<u8>, AppError> {
    let bones = loaded.document().skeleton.as_ref().map_or(0, |s| s.len());
    if format == Format::Raw && bones > 0 {
        let mut bare = loaded.clone();
        bare.document_mut().skeleton = None;
        ctx.note(format_args!(
            "raw 48-byte records hold no skeleton: the {bones} bone(s) are not written (bone indices keep their numbers); write .json or .dmx to keep them"
        ));
        return save_as(&bare, format, opts, ctx);
    }
    save_as(loaded, format, opts, ctx)
}

fn save_as(
    loaded: &Loaded,
    format: Format,
    opts: &SaveOptions,
    ctx: &Context,
) -> Result<Vec<u8>, AppError> {
    let flag = ctx.opt(Opt::Form);
    dashvertex_formats::save(loaded, format, opts).map_err(|e| {
        AppError::Output(match e {
            SaveError::Unreferenced(n) => format!(
                "{n} non-zero bytes outside every section would be lost (use {})",
                ctx.opt(Opt::DropUnreferenced)
            ),
            SaveError::Shape { form, what } => {
                let name = if form == dashvertex_json::Form::Vertex {
                    "vertex"
                } else {
                    "array"
                };
                match what {
                    ShapeLoss::Skeleton(n) => format!(
                        "{flag} {name} cannot hold the skeleton ({n} bone(s)); use {flag} document"
                    ),
                    ShapeLoss::Members(m) => format!(
                        "{flag} {name} cannot hold the document member(s) {}; use {flag} document",
                        m.iter().map(|s| dashvertex_core::text::short(s)).collect::<Vec<_>>().join(", ")
                    ),
                    ShapeLoss::VertexCount(n) => format!(
                        "{flag} vertex holds exactly one vertex, the input has {n}; use {flag} array"
                    ),
                    other => format!("{flag} {name} cannot hold {other}"),
                }
            }
            e => e.to_string(),
        })
    })
}
