//! The checked-in schemas in `schemas/` must equal the generated ones.
//!
//! Regenerate with: `BLESS=1 cargo test -p dashvertex-json --test it schemas`

use std::path::PathBuf;

fn schemas_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../schemas")
}

#[test]
fn checked_in_schemas_match_the_types() {
    let bless = std::env::var_os("BLESS").is_some();
    let mut stale = Vec::new();
    for (name, schema) in dashvertex_json::schema::all() {
        let path = schemas_dir().join(name);
        let generated = dashvertex_json::schema::render(&schema);
        if bless {
            std::fs::write(&path, &generated).unwrap();
            continue;
        }
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        if on_disk != generated {
            stale.push(name);
        }
    }
    assert!(
        stale.is_empty(),
        "schemas/{:?} differ from the types in dashvertex-json; regenerate them with\n    BLESS=1 cargo test -p dashvertex-json --test it schemas\nand commit the result",
        stale
    );
}

#[test]
fn checked_in_schemas_are_valid_draft_2020_12() {
    for (name, _) in dashvertex_json::schema::all() {
        let text = std::fs::read_to_string(schemas_dir().join(name)).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        jsonschema::draft202012::meta::validate(&value)
            .unwrap_or_else(|e| panic!("{name} is not a valid schema: {e}"));
    }
}
