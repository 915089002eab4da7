//! Tests of `dashvertex-fix`: properties over generated documents (the output passes the
//! validator; a second fix is a no-op; a valid vertex is never touched), one test per
//! step, and the checked-in report schema.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod attributes;
mod gltf;
mod properties;
mod steps;
mod untouched;

#[test]
fn checked_in_fix_report_schema_matches_the_types() {
    // Regenerate with: BLESS=1 cargo test -p dashvertex-fix --test it schema
    let path = dashvertex_testkit::repo().join("schemas/fix-report.schema.json");
    let mut generated = serde_json::to_string_pretty(&dashvertex_fix::schema()).unwrap();
    generated.push('\n');
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == generated,
        "schemas/fix-report.schema.json differs from the report types; regenerate it with\n    BLESS=1 cargo test -p dashvertex-fix --test it schema\nand commit the result"
    );
}
