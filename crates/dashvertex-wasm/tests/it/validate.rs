//! The validation report: the shape and content `dash-validate --format json` prints.

use dashvertex_wasm::validation::{ValidateOptions, report_json};

use crate::example;

#[test]
fn the_report_is_the_commands_json_report() {
    let opts = ValidateOptions::default();
    let text = report_json("examples/rig.dmx", &example("rig.dmx"), &opts).unwrap();
    let expected = serde_json::to_string_pretty(&dashvertex_validate::Report::new(vec![
        dashvertex_validate::validate_bytes(
            "examples/rig.dmx",
            &example("rig.dmx"),
            &dashvertex_validate::Options::default(),
        ),
    ]))
    .unwrap();
    assert_eq!(text, expected);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["version"], 1);
    assert_eq!(v["files"][0]["format"], "dmx");
    assert_eq!(v["files"][0]["valid"], true);
}

#[test]
fn options_are_the_flags() {
    let text = br#"[{"x": 0, "y": 0, "z": 0, "skinIndex": [0, 1], "skinWeight": [0.5, 0.25]}]"#;
    let opts = ValidateOptions::from_json(Some(r#"{"profile": "gltf", "bones": 2}"#)).unwrap();
    let v: serde_json::Value =
        serde_json::from_str(&report_json("mesh.json", text, &opts).unwrap()).unwrap();
    assert_eq!(v["files"][0]["valid"], false);
    assert_eq!(v["files"][0]["diagnostics"][0]["code"], "WEIGHT_SUM");
    let allowed = ValidateOptions::from_json(Some(
        r#"{"profile": "gltf", "bones": 2, "allow": ["WEIGHT_SUM"]}"#,
    ))
    .unwrap();
    let v: serde_json::Value =
        serde_json::from_str(&report_json("mesh.json", text, &allowed).unwrap()).unwrap();
    assert_eq!(v["files"][0]["valid"], true);
    for bad in [
        r#"{"profile": "strict"}"#,
        r#"{"deny": ["NO_SUCH_CODE"]}"#,
        r#"{"colour": true}"#,
        "[",
    ] {
        let e = ValidateOptions::from_json(Some(bad)).and_then(|o| o.to_options().map(|_| o));
        assert_eq!(e.unwrap_err().code, "OPTIONS_INVALID", "{bad}");
    }
}
