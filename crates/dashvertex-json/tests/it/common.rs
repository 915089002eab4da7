//! Helpers shared by the dashvertex-json integration tests.

pub use dashvertex_testkit::repo;

/// A compiled validator for the checked-in DashVertex schema.
pub fn schema_validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(repo().join("schemas/dashvertex.schema.json")).unwrap();
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    jsonschema::draft202012::new(&schema).unwrap()
}

/// The schema's verdict on a text: well-formed JSON without repeated member names that
/// the schema accepts.
pub fn schema_accepts(v: &jsonschema::Validator, text: &str) -> bool {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(value) => dashvertex_json::find_duplicate_key(text).is_none() && v.is_valid(&value),
        Err(_) => false,
    }
}
