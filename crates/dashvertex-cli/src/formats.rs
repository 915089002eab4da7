//! The formats the commands read and write, over `dashvertex-formats` (the one
//! detector): command-line names, the note a contradicting name earns, and the wording of
//! load and save errors.

use std::path::Path;

use dashvertex_core::Limits;
pub use dashvertex_formats::{Format, Loaded, SaveOptions};
use dashvertex_formats::{LoadError, SaveError, ShapeLoss};

use crate::error::CliError;

/// A flag's parser over `names` (listed in the help, as possible values).
fn parser(names: &'static [&'static str]) -> impl clap::builder::TypedValueParser<Value = Format> {
    // The names are checked before the map: each is a format's name.
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(names.iter().copied())
        .map(|s: String| Format::from_name(&s).unwrap_or(Format::Json))
}

/// `--target ENGINE`: one of the engine targets of spec/targets.md.
pub fn target() -> impl clap::builder::TypedValueParser<Value = &'static dashvertex_core::Target> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(dashvertex_core::target::names())
        .try_map(|s: String| dashvertex_core::Target::named(&s).ok_or("no such target"))
}

/// `--from`/`--to` of `convert`, `inspect` and `reduce`, and `--input-format` of the
/// validator: any format.
pub fn any_format() -> impl clap::builder::TypedValueParser<Value = Format> {
    parser(&["json", "dmx", "raw", "gltf", "glb"])
}

/// The format to read `bytes` from a file named `path` as: the bytes' signature when the
/// name contradicts it (a note on standard error says so), else the name's format, else
/// a guess; JSON text with an `asset` member is glTF; what cannot be told is read as DMX,
/// so that its decoder says where it fails.
pub fn decide(path: &Path, bytes: &[u8]) -> Format {
    let d = Format::detect(path, bytes, bytes.len() as u64);
    // Text formats are told by their content when it is decisive (the validator's rule).
    let (format, by_text) = d.read_text(bytes);
    let read = format.unwrap_or(Format::Dmx);
    let contradicted = d.contradicted.or(by_text);
    if let Some(named) = contradicted {
        crate::common::note(format_args!(
            "{} is named as {} but holds {}: read as {}",
            path.display(),
            named.describe(),
            read.describe(),
            read.describe()
        ));
    }
    read
}

/// Decodes `bytes` (named `name` in errors) as `format`.
pub fn load(name: &str, bytes: &[u8], format: Format, limits: &Limits) -> Result<Loaded, CliError> {
    dashvertex_formats::load(bytes, format, limits).map_err(|e| CliError::Input {
        file: name.to_owned(),
        message: match e {
            LoadError::NotDashVertex(f) => format!(
                "{} is not DashVertex data; `dashvertex reduce` and `dashvertex validate` read glTF",
                f.describe()
            ),
            e => e.to_string(),
        },
    })
}

/// Encodes `loaded` as `format`, refusing to drop anything the target cannot hold but a
/// skeleton for raw records, which hold none: that is dropped with a note (the bone
/// indices keep their numbers).
pub fn save(loaded: &Loaded, format: Format, opts: &SaveOptions) -> Result<Vec<u8>, CliError> {
    let bones = loaded.document().skeleton.as_ref().map_or(0, |s| s.len());
    if format == Format::Raw && bones > 0 {
        let mut bare = loaded.clone();
        bare.document_mut().skeleton = None;
        crate::common::note(format_args!(
            "raw 48-byte records hold no skeleton: the {bones} bone(s) are not written (bone indices keep their numbers); write .json or .dmx to keep them"
        ));
        return save_as(&bare, format, opts);
    }
    save_as(loaded, format, opts)
}

fn save_as(loaded: &Loaded, format: Format, opts: &SaveOptions) -> Result<Vec<u8>, CliError> {
    dashvertex_formats::save(loaded, format, opts).map_err(|e| {
        CliError::Output(match e {
            SaveError::Unreferenced(n) => format!(
                "{n} non-zero bytes outside every section would be lost (use --drop-unreferenced)"
            ),
            SaveError::Shape { form, what } => {
                let name = if form == dashvertex_json::Form::Vertex {
                    "vertex"
                } else {
                    "array"
                };
                match what {
                    ShapeLoss::Skeleton(n) => format!(
                        "--form {name} cannot hold the skeleton ({n} bone(s)); use --form document"
                    ),
                    ShapeLoss::Members(m) => format!(
                        "--form {name} cannot hold the document member(s) {}; use --form document",
                        m.iter().map(|s| dashvertex_fs::short(s)).collect::<Vec<_>>().join(", ")
                    ),
                    ShapeLoss::VertexCount(n) => format!(
                        "--form vertex holds exactly one vertex, the input has {n}; use --form array"
                    ),
                    other => format!("--form {name} cannot hold {other}"),
                }
            }
            e => e.to_string(),
        })
    })
}
