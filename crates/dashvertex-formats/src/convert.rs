//! DashVertex documents loaded from and saved to JSON, DMX and raw records, losslessly:
//! what the target cannot hold is refused, never dropped.

use dashvertex_binary::{BinaryError, BinaryFile, FileKind, WriteError, WriteOptions};
use dashvertex_core::{Document, Limits};
use dashvertex_json::{EncodeError, Form, JsonError, JsonFile};

use crate::Format;

/// A loaded DashVertex file, with everything its format carries beside the document
/// (JSON members and binary sections dash does not model, kept for writing back).
#[derive(Clone, Debug)]
pub enum Loaded {
    /// DashVertex JSON in any of its three shapes (the file's `form` says which), with
    /// the unmodelled members of a DMX document and their source text.
    Json(JsonFile),
    /// A DMX container or raw records.
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

    /// The modelled content, to edit before saving (what the file held besides it, such
    /// as foreign sections or the JSON shape, is kept).
    pub fn document_mut(&mut self) -> &mut Document {
        match self {
            Loaded::Json(f) => &mut f.document,
            Loaded::Binary(f) => &mut f.document,
        }
    }
}

/// Why a DashVertex (or FBX) file could not be decoded; glTF's loader has its own,
/// `dashvertex_gltf::LoadError`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The JSON decoder refused it (located by line, column and JSON Pointer).
    #[error("{}:{}: {} (at {})", .0.line, .0.column, .0.message,
            if .0.pointer.is_empty() { "/" } else { &.0.pointer })]
    Json(#[source] JsonError),
    /// A binary decoder refused it (located by byte offset).
    #[error("offset 0x{:X}: {}", .0.offset, .0.kind)]
    Binary(#[source] BinaryError),
    /// The format holds no DashVertex document (glTF is read by `dashvertex-gltf`).
    #[error("{} is not a DashVertex format", .0.describe())]
    NotDashVertex(Format),
    /// FBX that ufbx refused, or whose skeleton DashVertex cannot hold.
    #[error(transparent)]
    Fbx(#[from] dashvertex_fbx::FbxError),
}

/// Decodes `bytes` as `format` within `limits`.
pub fn load(bytes: &[u8], format: Format, limits: &Limits) -> Result<Loaded, DecodeError> {
    load_noted(bytes, format, limits).map(|(l, _)| l)
}

/// [`load`], with what a conversion did that the reader should know: for FBX, the units
/// and axes converted and which vertices are which mesh's control points
/// ([`dashvertex_fbx::to_document`]); nothing for the DashVertex formats.
pub fn load_noted(
    bytes: &[u8],
    format: Format,
    limits: &Limits,
) -> Result<(Loaded, Vec<String>), DecodeError> {
    if format == Format::Fbx {
        let scene = dashvertex_fbx::load(bytes, limits)?;
        let d = dashvertex_fbx::to_document(&scene)?;
        return Ok((Loaded::Binary(BinaryFile::new(d.document)), d.notes));
    }
    load_dash(bytes, format, limits).map(|l| (l, Vec::new()))
}

fn load_dash(bytes: &[u8], format: Format, limits: &Limits) -> Result<Loaded, DecodeError> {
    match format {
        Format::Json => dashvertex_json::decode_bytes(bytes, limits)
            .map(Loaded::Json)
            .map_err(DecodeError::Json),
        Format::Dmx => dashvertex_binary::decode_container(bytes, limits)
            .map(Loaded::Binary)
            .map_err(DecodeError::Binary),
        Format::Raw => dashvertex_binary::decode_raw(bytes, limits)
            .map(Loaded::Binary)
            .map_err(DecodeError::Binary),
        other => Err(DecodeError::NotDashVertex(other)),
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

/// Why a document could not be written as asked without losing something.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SaveError {
    /// Binary sections dash does not model have no place in JSON.
    #[error("binary section(s) {} cannot be written as JSON: dash does not model them", names(.0))]
    ForeignSections(Vec<String>),
    /// Non-zero bytes outside every section would be lost (allowed with
    /// [`WriteOptions::drop_unreferenced`]).
    #[error("{0} non-zero bytes outside every section would be lost")]
    Unreferenced(u64),
    /// JSON members dash does not model have no place in the binary form.
    #[error("JSON member(s) {} cannot be written to the binary form: dash does not model them", names(.0))]
    ForeignMembers(Vec<String>),
    /// Raw records hold vertices only.
    #[error("raw records cannot hold the file's other sections")]
    RawSections,
    /// The JSON shape asked for cannot hold part of the file.
    #[error("a JSON {} cannot hold {what}", if *.form == Form::Vertex { "vertex" } else { "array" })]
    Shape {
        /// The shape asked for.
        form: Form,
        /// What it cannot hold.
        what: ShapeLoss,
    },
    /// The JSON encoder refused (a non-finite number, say).
    #[error(transparent)]
    Json(#[from] EncodeError),
    /// The binary writer refused.
    #[error(transparent)]
    Binary(#[from] WriteError),
    /// The format holds no DashVertex document.
    #[error("{} is not a DashVertex format", .0.describe())]
    NotDashVertex(Format),
    /// dash reads FBX but does not write it.
    #[error(
        "dash does not write FBX: write glTF (.glb, .gltf), which Blender, Maya and the engines import, or DashVertex (.json, .dmx)"
    )]
    FbxOutput,
}

/// Names listed in a message: the first few, each shortened, and how many more, so that a
/// file with 160,000 members makes a message of a line, not of megabytes.
fn names(all: &[String]) -> String {
    const LISTED: usize = 8;
    let mut out: Vec<String> = all
        .iter()
        .take(LISTED)
        .map(|n| dashvertex_core::text::short(n))
        .collect();
    if all.len() > LISTED {
        out.push(format!("and {} more", all.len() - LISTED));
    }
    out.join(", ")
}

/// What a bare JSON shape (a vertex, an array) cannot hold.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShapeLoss {
    /// The skeleton, of this many bones.
    Skeleton(usize),
    /// Document members, by name.
    Members(Vec<String>),
    /// More or fewer vertices than one (a single vertex shape), this many.
    VertexCount(usize),
}

impl std::fmt::Display for ShapeLoss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShapeLoss::Skeleton(n) => write!(f, "the skeleton ({n} bone(s))"),
            ShapeLoss::Members(m) => write!(f, "the document member(s) {}", names(m)),
            ShapeLoss::VertexCount(n) => write!(f, "{n} vertices (it holds exactly one)"),
        }
    }
}

/// Encodes `loaded` as `format`, refusing to drop anything the target cannot hold.
pub fn save(loaded: &Loaded, format: Format, opts: &SaveOptions) -> Result<Vec<u8>, SaveError> {
    match format {
        Format::Json => {
            let mut file = match loaded {
                Loaded::Json(f) => f.clone(),
                Loaded::Binary(b) => json_of_binary(b, opts)?,
            };
            if let Some(form) = opts.form {
                set_form(&mut file, form)?;
            }
            Ok(dashvertex_json::encode(&file)?.into_bytes())
        }
        Format::Dmx | Format::Raw => {
            let file = match loaded {
                Loaded::Binary(b) => b.clone(),
                Loaded::Json(j) => {
                    let lost: Vec<String> = j.non_empty_foreign().map(str::to_owned).collect();
                    if !lost.is_empty() {
                        return Err(SaveError::ForeignMembers(lost));
                    }
                    BinaryFile::new(j.document.clone())
                }
            };
            if format == Format::Raw {
                if file
                    .foreign
                    .iter()
                    .any(|f| f.count > 0 || !f.bytes.is_empty())
                {
                    return Err(SaveError::RawSections);
                }
                Ok(dashvertex_binary::encode_raw(&file.document)?)
            } else {
                Ok(dashvertex_binary::encode(&file, &opts.binary)?)
            }
        }
        Format::Fbx => Err(SaveError::FbxOutput),
        other => Err(SaveError::NotDashVertex(other)),
    }
}

/// [`save`] that drops, instead of refusing, the content dash does not model that
/// `format` cannot hold — JSON members in the binary forms, binary sections in JSON or
/// raw records, non-zero bytes outside every section — and names each thing dropped, for
/// a caller that asked for the loss. Everything else [`save`] refuses (a JSON shape that
/// cannot hold the skeleton, a raw file with several sets) it refuses too. The three
/// writers share this policy: [`save`] refuses any loss, this drops only what it lists,
/// and `encode_document` (JSON and binary) writes a new file from the model alone, which
/// holds nothing else to lose.
///
/// ```
/// use dashvertex_core::Limits;
/// use dashvertex_formats::{Format, SaveOptions, load, save, save_dropping};
/// let text = br#"{"type": "DashModelExchange", "material": [{"name": "skin"}],
///   "vertex": [{"x": 0, "y": 0, "z": 0, "skinIndex": [0], "skinWeight": [1]}]}"#;
/// let loaded = load(text, Format::Json, &Limits::default())?;
/// assert!(save(&loaded, Format::Dmx, &SaveOptions::default()).is_err());
/// let (dmx, dropped) = save_dropping(&loaded, Format::Dmx, &SaveOptions::default())?;
/// assert_eq!(dropped, ["JSON member material"]);
/// let back = load(&dmx, Format::Dmx, &Limits::default())?;
/// assert!(back.document().bit_eq(loaded.document()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn save_dropping(
    loaded: &Loaded,
    format: Format,
    opts: &SaveOptions,
) -> Result<(Vec<u8>, Vec<String>), SaveError> {
    let mut dropped = Vec::new();
    let kept = match loaded {
        Loaded::Json(j) if matches!(format, Format::Dmx | Format::Raw) => {
            let members = j.non_empty_foreign().map(|m| format!("JSON member {m}"));
            dropped.extend(members);
            Loaded::Binary(BinaryFile::new(j.document.clone()))
        }
        Loaded::Json(_) => loaded.clone(),
        Loaded::Binary(b) => {
            let mut b = b.clone();
            if matches!(format, Format::Json | Format::Raw) {
                let held =
                    |f: &dashvertex_binary::ForeignSection| f.count > 0 || !f.bytes.is_empty();
                let lost = b.foreign.iter().filter(|f| held(f));
                dropped.extend(lost.map(|f| format!("binary section {}", f.name())));
                b.foreign.clear();
            }
            if b.unreferenced > 0 {
                dropped.push(format!(
                    "{} non-zero bytes outside every section",
                    b.unreferenced
                ));
                b.unreferenced = 0;
            }
            Loaded::Binary(b)
        }
    };
    save(&kept, format, opts).map(|bytes| (bytes, dropped))
}

/// A binary file as JSON: refused when it has sections JSON cannot hold or (unless
/// allowed) unreferenced bytes; bare shapes for raw records, a document otherwise.
fn json_of_binary(b: &BinaryFile, opts: &SaveOptions) -> Result<JsonFile, SaveError> {
    let lost: Vec<String> = b
        .foreign
        .iter()
        .filter(|f| f.count > 0 || !f.bytes.is_empty())
        .map(|f| f.name())
        .collect();
    if !lost.is_empty() {
        return Err(SaveError::ForeignSections(lost));
    }
    if b.unreferenced > 0 && !opts.binary.drop_unreferenced {
        return Err(SaveError::Unreferenced(b.unreferenced));
    }
    let bare = matches!(opts.form, Some(Form::Array | Form::Vertex))
        || (opts.form.is_none() && b.kind == FileKind::Raw);
    Ok(if bare {
        JsonFile {
            form: opts.form.unwrap_or(Form::Array),
            document: b.document.clone(),
            foreign: Vec::new(),
            order: Vec::new(),
        }
    } else {
        JsonFile::new_document(b.document.clone())
    })
}

/// Sets the JSON shape asked for, or says why it cannot hold the file: a requested shape
/// is never silently replaced by another.
fn set_form(file: &mut JsonFile, form: Form) -> Result<(), SaveError> {
    if form != Form::Document {
        let loss = |what| Err(SaveError::Shape { form, what });
        if let Some(s) = &file.document.skeleton {
            return loss(ShapeLoss::Skeleton(s.bones.len()));
        }
        let lost: Vec<String> = file.non_empty_foreign().map(str::to_owned).collect();
        if !lost.is_empty() {
            return loss(ShapeLoss::Members(lost));
        }
        if form == Form::Vertex && file.document.mesh.len() != 1 {
            return loss(ShapeLoss::VertexCount(file.document.mesh.len()));
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
#[allow(clippy::cast_possible_truncation)]
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
            let loaded = load(json.as_bytes(), Format::Json, &limits).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let dmx = save(&loaded, Format::Dmx, &SaveOptions::default()).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let back = load(&dmx, Format::Dmx, &limits).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert!(back.document().bit_eq(&doc));
            let json2 = save(&back, Format::Json, &SaveOptions::default()).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(String::from_utf8_lossy(&json2), json.as_str());
            let dmx2 = save(&load(&json2, Format::Json, &limits).map_err(|e| TestCaseError::fail(e.to_string()))?, Format::Dmx, &SaveOptions::default()).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(dmx2, dmx);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod names_tests {
    #[test]
    fn a_message_lists_a_few_names_and_counts_the_rest() {
        let many: Vec<String> = (0..160_000).map(|i| format!("m{i}")).collect();
        let text = super::SaveError::ForeignMembers(many).to_string();
        assert!(text.len() < 400, "{} bytes", text.len());
        assert!(text.contains("and 159992 more"), "{text}");
        let few = super::SaveError::ForeignMembers(vec!["extra".into()]).to_string();
        assert!(few.contains("extra") && !few.contains("more"), "{few}");
    }
}
