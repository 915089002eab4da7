//! JSON Schema generation.
//!
//! The files in `schemas/` are the output of [`all`]; a test compares them with the
//! checked-in copies (`BLESS=1 cargo test -p dashvertex-json --test it schemas` rewrites them).

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema};

use crate::wire::{JsonDocument, JsonText, JsonVertex};

fn generate<T: JsonSchema>(id: &str) -> Schema {
    let mut schema = SchemaSettings::draft2020_12()
        .for_deserialize()
        .into_generator()
        .into_root_schema_for::<T>();
    schema.insert(
        "$id".into(),
        serde_json::Value::String(format!("https://dash.invalid/schemas/{id}")),
    );
    schema
}

/// The schema of any DashVertex JSON text (vertex, array or document).
pub fn dashvertex() -> Schema {
    generate::<JsonText>("dashvertex.schema.json")
}

/// The schema of a single vertex.
pub(crate) fn vertex() -> Schema {
    generate::<JsonVertex>("vertex.schema.json")
}

/// The schema of a DMX document.
pub(crate) fn document() -> Schema {
    generate::<JsonDocument>("document.schema.json")
}

/// Every schema this crate owns, with its file name in `schemas/`.
pub fn all() -> Vec<(&'static str, Schema)> {
    vec![
        ("dashvertex.schema.json", dashvertex()),
        ("vertex.schema.json", vertex()),
        ("document.schema.json", document()),
    ]
}

/// Renders a schema the way the checked-in files are written (2-space indent, trailing
/// newline).
pub fn render(schema: &Schema) -> String {
    let mut s = serde_json::to_string_pretty(schema).unwrap_or_default();
    s.push('\n');
    s
}
