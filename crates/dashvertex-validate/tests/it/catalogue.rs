//! The rule catalogue, `spec/validation.md` and the report schema agree.

use dashvertex_testkit::repo;

use dashvertex_validate::Code;

#[test]
fn rules_table_matches_the_catalogue() {
    let text = std::fs::read_to_string(repo().join("spec/validation.md")).unwrap();
    let rows: Vec<(String, String, String)> = text
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (
                cells[1].trim_matches('`').to_owned(),
                cells[2].to_owned(),
                cells[4].to_owned(),
            )
        })
        .collect();
    let names: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    let codes: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(
        names, codes,
        "spec/validation.md §5 and the Code catalogue differ"
    );
    for (name, severity, gltf) in &rows {
        let code = Code::parse(name).unwrap();
        assert_eq!(severity, code.severity().as_str(), "{name}: severity");
        let want = if code.gltf().is_empty() {
            "—".to_owned()
        } else {
            code.gltf()
                .split(", ")
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        assert_eq!(gltf, &want, "{name}: official code");
    }
}

#[test]
fn checked_in_report_schema_matches_the_types() {
    // Regenerate with: BLESS=1 cargo test -p dashvertex-validate --test it catalogue
    let path = repo().join("schemas/validation-report.schema.json");
    let mut generated = serde_json::to_string_pretty(&dashvertex_validate::schema()).unwrap();
    generated.push('\n');
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == generated,
        "schemas/validation-report.schema.json differs from the report types; regenerate it with\n    BLESS=1 cargo test -p dashvertex-validate --test it catalogue\nand commit the result"
    );
}
