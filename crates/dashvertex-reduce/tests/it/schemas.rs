//! The checked-in manifest and weights-document schemas equal the generated ones.
//! Regenerate with: `BLESS=1 cargo test -p dashvertex-reduce --test it schemas`

use std::path::PathBuf;

fn check(name: &str, schema: schemars::Schema) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../schemas")
        .join(name);
    let mut generated = serde_json::to_string_pretty(&schema).unwrap();
    generated.push('\n');
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    assert!(
        std::fs::read_to_string(&path).unwrap_or_default() == generated,
        "schemas/{name} differs from the types; regenerate with\n    BLESS=1 cargo test -p dashvertex-reduce --test it schemas\nand commit the result"
    );
}

#[test]
fn checked_in_schemas_match_the_types() {
    check(
        "manifest.schema.json",
        dashvertex_reduce::manifest::schema(),
    );
    check(
        "bone-weights.schema.json",
        dashvertex_reduce::weights_doc::schema(),
    );
}

#[test]
fn example_documents_validate_against_their_schemas() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    for (schema, doc) in [
        (
            "schemas/bone-weights.schema.json",
            "examples/arm.weights.json",
        ),
        ("schemas/manifest.schema.json", "examples/arm.manifest.json"),
    ] {
        let s: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(root.join(schema)).unwrap()).unwrap();
        let d: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(root.join(doc)).unwrap()).unwrap();
        let v = jsonschema::draft202012::new(&s).unwrap();
        let errors: Vec<String> = v.iter_errors(&d).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{doc}: {errors:?}");
    }
}
