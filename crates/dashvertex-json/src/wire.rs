//! The JSON spec types: what a DashVertex JSON text may contain, field by field.
//!
//! These types are the single source of the JSON Schema in `schemas/` (generated with
//! schemars, see [`crate::schema`]) and of the decoder, which deserializes into them.
//! They mirror the text closely; [`crate::decode`] turns them into the
//! [`dashvertex_core`] model.

use std::borrow::Cow;
use std::collections::BTreeMap;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;

use crate::number::{BoneIndex, F32};

/// The value of a DMX document's `type` member.
pub const DOCUMENT_TYPE: &str = "DashModelExchange";

/// Up to four values of one influence set, in slot order (shorter arrays are padded with
/// zeros, `spec/dashvertex.md` §5).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct SkinArray<T> {
    /// Number of values present in the text (0 to 4).
    pub len: u8,
    /// The values; slots at `len` and beyond are zero.
    pub values: [T; 4],
}

/// `skinIndex`: up to four bone indices.
pub type SkinIndex = SkinArray<BoneIndex>;
/// `skinWeight`: up to four weights.
pub type SkinWeight = SkinArray<F32>;

impl<T: JsonSchema> JsonSchema for SkinArray<T> {
    fn schema_name() -> Cow<'static, str> {
        format!("SkinArray_{}", T::schema_name()).into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let items = generator.subschema_for::<T>();
        json_schema!({
            "description": "One value per slot of an influence set: at most four; shorter arrays are padded with zeros.",
            "type": "array",
            "items": items,
            "maxItems": 4
        })
    }
}

/// The `anyOf` that requires `skinIndex` and `skinWeight` to have equal lengths.
fn equal_lengths() -> serde_json::Value {
    let branches: Vec<serde_json::Value> = (0..=4)
        .map(|n| {
            serde_json::json!({
                "properties": {
                    "skinIndex": { "minItems": n, "maxItems": n },
                    "skinWeight": { "minItems": n, "maxItems": n }
                }
            })
        })
        .collect();
    serde_json::Value::Array(branches)
}

fn add_equal_lengths(schema: &mut Schema) {
    schema.insert("anyOf".into(), equal_lengths());
}

/// One extra influence set (sets 1, 2, …), an element of `skinSets`.
#[derive(Clone, Copy, Debug, PartialEq, Default, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(
    rename = "DashInfluenceSet",
    transform = add_equal_lengths,
    description = "Four more influences. Slot k of skinIndex pairs with slot k of skinWeight; both arrays have the same length."
)]
pub struct JsonSet {
    /// Bone indices of this set.
    pub skin_index: SkinIndex,
    /// Weights of this set.
    pub skin_weight: SkinWeight,
}

/// One vertex (`spec/dashvertex.md` §3.3): the seed's `{x, y, z, skinIndex, skinWeight}`
/// plus `skinSets` for influences beyond four.
#[derive(Clone, Debug, PartialEq, Default, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(
    rename = "DashVertex",
    transform = add_equal_lengths,
    extend("dependentRequired" = {
        "skinIndex": ["skinWeight"],
        "skinWeight": ["skinIndex"],
        "skinSets": ["skinIndex", "skinWeight"]
    })
)]
pub struct JsonVertex {
    /// Position x.
    pub x: F32,
    /// Position y.
    pub y: F32,
    /// Position z.
    pub z: F32,
    /// Bone indices of set 0. Absent on an unskinned vertex (together with skinWeight).
    #[serde(default)]
    #[schemars(with = "SkinIndex")]
    pub skin_index: Option<SkinIndex>,
    /// Weights of set 0, one per skinIndex entry.
    #[serde(default)]
    #[schemars(with = "SkinWeight")]
    pub skin_weight: Option<SkinWeight>,
    /// Sets 1, 2, … for vertices with more than four influences.
    #[serde(default)]
    #[schemars(with = "Vec<JsonSet>")]
    pub skin_sets: Option<Vec<JsonSet>>,
}

/// A position or scale vector.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Vec3 {
    /// x.
    pub x: F32,
    /// y.
    pub y: F32,
    /// z.
    pub z: F32,
}

/// A rotation quaternion.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Quat {
    /// x.
    pub x: F32,
    /// y.
    pub y: F32,
    /// z.
    pub z: F32,
    /// w.
    pub w: F32,
}

/// One bone of a DMX document's `bone` array (`spec/dashvertex.md` §7).
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(rename = "DashBone")]
pub struct JsonBone {
    /// Unique bone name (at most 31 UTF-8 bytes to fit the binary record).
    pub name: String,
    /// Index of the parent bone; `null` or absent for the root.
    #[serde(default)]
    pub parent_index: Option<BoneIndex>,
    /// Local translation; default (0, 0, 0).
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "Vec3")]
    pub position: Option<Vec3>,
    /// Local rotation; default (0, 0, 0, 1).
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "Quat")]
    pub rotation: Option<Quat>,
    /// Local scale; default (1, 1, 1).
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "Vec3")]
    pub scale: Option<Vec3>,
}

/// An optional member that, when present, must hold a value (not `null`): the schema
/// says the same.
fn present<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(d).map(Some)
}

/// The constant `"DashModelExchange"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DocumentType;

impl JsonSchema for DocumentType {
    fn schema_name() -> Cow<'static, str> {
        "DocumentType".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "const": DOCUMENT_TYPE })
    }
}

/// Vertex members are not allowed at document level (a document is never also a vertex).
fn forbid_vertex_members(schema: &mut Schema) {
    if let Some(props) = schema
        .get_mut("properties")
        .and_then(serde_json::Value::as_object_mut)
    {
        for name in ["x", "y", "z", "skinIndex", "skinWeight", "skinSets"] {
            props.insert(name.to_owned(), serde_json::Value::Bool(false));
        }
    }
}

/// A DMX document (`spec/dashvertex.md` §3.4). Members other than `type`, `vertex` and
/// `bone` (material, face, texture, animation, anything else) are not modelled by dash;
/// they are kept verbatim.
#[derive(Clone, Debug, JsonSchema)]
#[schemars(rename = "DashModelExchange", transform = forbid_vertex_members)]
#[allow(
    dead_code,
    reason = "the schema's model of a document: the decoder reads documents member by member"
)]
pub struct JsonDocument {
    /// Always `"DashModelExchange"`.
    #[serde(rename = "type")]
    pub kind: DocumentType,
    /// The vertices.
    pub vertex: Vec<JsonVertex>,
    /// The skeleton, when present.
    #[serde(default)]
    pub bone: Vec<JsonBone>,
    /// Every other member, preserved verbatim.
    #[serde(flatten)]
    pub other: BTreeMap<String, serde_json::Value>,
}

/// Any DashVertex JSON text: a single vertex, an array of vertices, or a DMX document.
#[derive(Clone, Debug, JsonSchema)]
#[serde(untagged)]
#[schemars(rename = "DashVertexJson")]
#[allow(
    dead_code,
    reason = "the schema's root (any of the three shapes); the decoder picks the shape itself"
)]
pub enum JsonText {
    /// A single vertex.
    Vertex(JsonVertex),
    /// An array of vertices.
    Array(Vec<JsonVertex>),
    /// A DMX document.
    Document(JsonDocument),
}
