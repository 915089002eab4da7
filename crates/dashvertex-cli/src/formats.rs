//! File formats, detection, loading and saving.

use std::path::Path;

use dashvertex_binary::{BinaryFile, Expect, FileKind, WriteOptions};
use dashvertex_core::{Document, Limits};
use dashvertex_json::{Form, JsonFile};

use crate::error::CliError;

/// A file format the CLI reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// DashVertex JSON (a vertex, an array of vertices, or a DMX document).
    Json,
    /// The binary DMX container.
    Dmx,
    /// Bare 48-byte vertex records.
    Raw,
}

impl Format {
    /// The format a file name implies.
    pub fn from_path(path: &Path) -> Option<Format> {
        match path
            .extension()?
            .to_string_lossy()
            .to_ascii_lowercase()
            .as_str()
        {
            "json" => Some(Format::Json),
            "dmx" => Some(Format::Dmx),
            "raw" => Some(Format::Raw),
            _ => None,
        }
    }

    /// The format to read `bytes` from a file named `path` as: the bytes' signature (the
    /// DMX magic, or JSON text) when the name contradicts it — then a note on standard
    /// error says so — else the name's format, else what the bytes look like. Raw records
    /// carry no signature, so a `.raw` name is trusted.
    pub fn decide(path: &Path, bytes: &[u8]) -> Format {
        // The signatures are the validator's: one list of what bytes prove.
        let signature = match dashvertex_validate::InputFormat::signature(bytes) {
            Some(dashvertex_validate::InputFormat::Dmx) => Some(Format::Dmx),
            Some(
                dashvertex_validate::InputFormat::Json | dashvertex_validate::InputFormat::Gltf,
            ) => Some(Format::Json),
            _ => None,
        };
        match (Format::from_path(path), signature) {
            (Some(named), Some(held)) if named != held => {
                crate::common::note(format_args!(
                    "{} is named as {} but holds {}: read as {}",
                    path.display(),
                    named.name(),
                    held.name(),
                    held.name()
                ));
                held
            }
            (Some(named), _) => named,
            (None, _) => Format::sniff(bytes),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Format::Json => "DashVertex JSON",
            Format::Dmx => "a DMX container",
            Format::Raw => "raw records",
        }
    }

    /// The format of some bytes: JSON if the first non-blank byte opens an object or an
    /// array, otherwise whatever binary kind the bytes are.
    pub fn sniff(bytes: &[u8]) -> Format {
        match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'{' | b'[') => Format::Json,
            _ => match dashvertex_binary::detect(bytes, bytes.len() as u64) {
                Ok(FileKind::Raw) => Format::Raw,
                _ => Format::Dmx,
            },
        }
    }
}

/// A loaded input, with everything its format carries.
#[derive(Debug)]
pub enum Loaded {
    /// JSON text.
    Json(JsonFile),
    /// A binary file.
    Binary(BinaryFile),
}

impl Loaded {
    /// The modelled content.
    pub fn document(&self) -> &Document {
        match self {
            Loaded::Json(f) => &f.document,
            Loaded::Binary(f) => &f.document,
        }
    }
}

/// Decodes `bytes` as `format`.
pub fn load(name: &str, bytes: &[u8], format: Format, limits: &Limits) -> Result<Loaded, CliError> {
    let input = |message: String| CliError::Input {
        file: name.to_owned(),
        message,
    };
    match format {
        Format::Json => dashvertex_json::decode_bytes(bytes, limits)
            .map(Loaded::Json)
            .map_err(|e| {
                input(format!(
                    "{}:{}: {} (at {})",
                    e.line,
                    e.column,
                    e.message,
                    if e.pointer.is_empty() {
                        "/"
                    } else {
                        &e.pointer
                    }
                ))
            }),
        Format::Dmx | Format::Raw => {
            let expect = if format == Format::Dmx {
                Expect::Container
            } else {
                Expect::Raw
            };
            let r = match expect {
                Expect::Raw => dashvertex_binary::decode_raw(bytes, limits),
                _ => dashvertex_binary::decode_container(bytes, limits),
            };
            r.map(Loaded::Binary)
                .map_err(|e| input(format!("offset 0x{:X}: {}", e.offset, e.kind)))
        }
    }
}

/// How to write.
#[derive(Clone, Copy, Debug, Default)]
pub struct SaveOptions {
    /// JSON shape to write (default: the input's, or a document for binary input).
    pub form: Option<Form>,
    /// Binary writer options.
    pub binary: WriteOptions,
}

/// Encodes `loaded` as `format`, refusing to drop anything the target cannot hold.
pub fn save(loaded: &Loaded, format: Format, opts: &SaveOptions) -> Result<Vec<u8>, CliError> {
    let output = |m: String| CliError::Output(m);
    match format {
        Format::Json => {
            let mut file = match loaded {
                Loaded::Json(f) => f.clone(),
                Loaded::Binary(b) => {
                    let lost: Vec<String> = b
                        .foreign
                        .iter()
                        .filter(|f| f.count > 0 || !f.bytes.is_empty())
                        .map(|f| f.name())
                        .collect();
                    if !lost.is_empty() {
                        return Err(output(format!(
                            "binary section(s) {} cannot be written as JSON: dash does not model them",
                            lost.join(", ")
                        )));
                    }
                    if b.unreferenced > 0 && !opts.binary.drop_unreferenced {
                        return Err(output(format!(
                            "{} non-zero bytes outside every section would be lost (use --drop-unreferenced)",
                            b.unreferenced
                        )));
                    }
                    let bare = matches!(opts.form, Some(Form::Array | Form::Vertex))
                        || (opts.form.is_none() && b.kind == FileKind::Raw);
                    if bare {
                        JsonFile {
                            form: opts.form.unwrap_or(Form::Array),
                            document: b.document.clone(),
                            foreign: Vec::new(),
                            order: Vec::new(),
                        }
                    } else {
                        JsonFile::new_document(b.document.clone())
                    }
                }
            };
            if let Some(form) = opts.form {
                honour_form(&mut file, form)?;
            }
            dashvertex_json::encode(&file)
                .map(String::into_bytes)
                .map_err(|e| output(e.to_string()))
        }
        Format::Dmx | Format::Raw => {
            let file = match loaded {
                Loaded::Binary(b) => b.clone(),
                Loaded::Json(j) => {
                    let lost: Vec<&str> = j.non_empty_foreign().collect();
                    if !lost.is_empty() {
                        return Err(output(format!(
                            "JSON member(s) {} cannot be written to the binary form: dash does not model them",
                            lost.join(", ")
                        )));
                    }
                    BinaryFile::new(j.document.clone())
                }
            };
            let r = if format == Format::Raw {
                if file
                    .foreign
                    .iter()
                    .any(|f| f.count > 0 || !f.bytes.is_empty())
                {
                    return Err(output(
                        "raw records cannot hold the file's other sections".to_owned(),
                    ));
                }
                dashvertex_binary::encode_raw(&file.document)
            } else {
                dashvertex_binary::encode(&file, &opts.binary)
            };
            r.map_err(|e| output(e.to_string()))
        }
    }
}

/// Sets the JSON shape the user asked for, or says why it cannot hold the file: a
/// requested shape is never silently replaced by another.
fn honour_form(file: &mut JsonFile, form: Form) -> Result<(), CliError> {
    let output = |m: String| Err(CliError::Output(m));
    if form != Form::Document {
        let name = if form == Form::Vertex {
            "vertex"
        } else {
            "array"
        };
        if let Some(s) = &file.document.skeleton {
            return output(format!(
                "--form {name} cannot hold the skeleton ({} bone(s)); use --form document",
                s.bones.len()
            ));
        }
        let lost: Vec<String> = file.non_empty_foreign().map(dashvertex_fs::short).collect();
        if !lost.is_empty() {
            return output(format!(
                "--form {name} cannot hold the document member(s) {}; use --form document",
                lost.join(", ")
            ));
        }
        if form == Form::Vertex && file.document.mesh.len() != 1 {
            return output(format!(
                "--form vertex holds exactly one vertex, the input has {}; use --form array",
                file.document.mesh.len()
            ));
        }
        // Only empty `material`/`face`-style arrays remain: the bare shapes have no place
        // for them and lose nothing by leaving them out.
        file.foreign.clear();
        file.order.clear();
    }
    file.form = form;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use dashvertex_core::{Bone, InfluenceSet, Mesh, Skeleton, Vertex};
    use proptest::prelude::*;

    fn finite() -> impl Strategy<Value = f32> {
        any::<u32>()
            .prop_map(f32::from_bits)
            .prop_filter("finite", |v| v.is_finite())
    }

    fn document() -> impl Strategy<Value = Document> {
        (1usize..8, 1usize..4, any::<bool>(), 0usize..4).prop_flat_map(
            |(n, sets, skinned, bones)| {
                let sets = if skinned { sets } else { 1 };
                (
                    proptest::collection::vec(
                        (
                            [finite(), finite(), finite()],
                            any::<[u32; 4]>(),
                            [finite(), finite(), finite(), finite()],
                        ),
                        n,
                    ),
                    proptest::collection::vec(
                        proptest::collection::vec(
                            (any::<[u32; 4]>(), [finite(), finite(), finite(), finite()]),
                            n,
                        ),
                        sets - 1,
                    ),
                    proptest::collection::vec("[a-z]{1,10}", bones),
                    Just(skinned),
                )
                    .prop_map(|(v, extra, names, skinned)| {
                        let vertices = v
                            .into_iter()
                            .map(|(position, joints, weights)| Vertex {
                                position,
                                skin: if skinned {
                                    InfluenceSet { joints, weights }
                                } else {
                                    InfluenceSet::ZERO
                                },
                            })
                            .collect();
                        let extra = extra
                            .into_iter()
                            .map(|s| {
                                s.into_iter()
                                    .map(|(joints, weights)| InfluenceSet { joints, weights })
                                    .collect()
                            })
                            .collect();
                        let skeleton = (!names.is_empty()).then(|| Skeleton {
                            bones: names
                                .into_iter()
                                .enumerate()
                                .map(|(i, n)| Bone::new(n, i.checked_sub(1).map(|p| p as u32)))
                                .collect(),
                        });
                        Document {
                            mesh: Mesh::from_parts(skinned, vertices, extra).unwrap_or_default(),
                            skeleton,
                        }
                    })
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

        /// JSON → binary → JSON gives the same text, and binary → JSON → binary the same
        /// bytes, for any finite data.
        #[test]
        fn json_and_binary_convert_losslessly(doc in document()) {
            // spec: N2 N5 T1 T2
            let limits = Limits::default();
            let json = dashvertex_json::encode_document(&doc).unwrap_or_default();
            let loaded = load("a.json", json.as_bytes(), Format::Json, &limits).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let dmx = save(&loaded, Format::Dmx, &SaveOptions::default()).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let back = load("a.dmx", &dmx, Format::Dmx, &limits).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert!(back.document().bit_eq(&doc));
            let json2 = save(&back, Format::Json, &SaveOptions::default()).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(String::from_utf8_lossy(&json2), json.as_str());
            let dmx2 = save(&load("b.json", &json2, Format::Json, &limits).map_err(|e| TestCaseError::fail(e.to_string()))?, Format::Dmx, &SaveOptions::default()).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(dmx2, dmx);
        }
    }
}
