//! Runs the JSON conformance vectors of `spec/vectors/expected.json`.

use dashvertex_core::Limits;
use serde_json::Value;

#[test]
fn json_vectors_decode_as_the_manifest_says() {
    // spec: J1 J2 J3 J4 J5 J6 J7 J8 J9 N4 I3 I5 T1
    let root = crate::common::repo().join("spec/vectors");
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("expected.json")).unwrap())
            .unwrap();
    let schema = crate::common::schema_validator();
    let mut seen = 0;
    for v in manifest["vectors"].as_array().unwrap() {
        let file = v["file"].as_str().unwrap();
        if !file.starts_with("json/") {
            continue;
        }
        seen += 1;
        let bytes = std::fs::read(root.join(file)).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        let got = dashvertex_json::decode_bytes(&bytes, &Limits::default());
        let schema_ok = crate::common::schema_accepts(&schema, &text);
        match (&v["decode"], &got) {
            (Value::String(s), Ok(f)) if s == "ok" => {
                assert!(schema_ok, "{file}: decoder accepts but the schema rejects");
                let again = dashvertex_json::decode(
                    &dashvertex_json::encode(f).unwrap(),
                    &Limits::default(),
                )
                .unwrap();
                assert!(
                    again.document.bit_eq(&f.document),
                    "{file}: re-encoding changed it"
                );
            }
            (Value::Object(want), Err(e)) => {
                assert!(!schema_ok, "{file}: decoder rejects but the schema accepts");
                let got = serde_json::json!({
                    "kind": e.kind.as_str(), "pointer": e.pointer, "line": e.line, "column": e.column
                });
                assert_eq!(&got, &Value::Object(want.clone()), "{file}: {e}");
                assert!(!e.message.is_empty());
            }
            (want, got) => panic!("{file}: expected {want}, got {got:?}"),
        }
    }
    assert!(seen >= 30, "only {seen} JSON vectors");
}

#[test]
fn seed_example_decodes_validates_and_reencodes_to_the_same_values() {
    // The vertex of the original DMX page, verbatim.
    let text =
        std::fs::read_to_string(crate::common::repo().join("spec/vectors/json/seed-example.json"))
            .unwrap();
    assert!(crate::common::schema_accepts(
        &crate::common::schema_validator(),
        &text
    ));
    let file = dashvertex_json::decode(&text, &Limits::default()).unwrap();
    let out = dashvertex_json::encode(&file).unwrap();
    let a: Value = serde_json::from_str(&text).unwrap();
    let b: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(a, b);
}

#[test]
fn every_prefix_of_a_document_is_rejected_cleanly() {
    // spec: J1
    let text =
        std::fs::read_to_string(crate::common::repo().join("spec/vectors/json/document-full.json"))
            .unwrap();
    let trimmed = text.trim_end();
    for end in 0..trimmed.len() {
        let Some(prefix) = trimmed.get(..end) else {
            continue;
        };
        let err = dashvertex_json::decode(prefix, &Limits::default())
            .err()
            .unwrap_or_else(|| panic!("prefix of {end} bytes accepted"));
        assert!(err.line >= 1 && err.column >= 1);
    }
}

#[test]
fn limits_are_enforced_with_a_location() {
    let text = r#"{"type": "DashModelExchange", "vertex": [{"x":0,"y":0,"z":0},{"x":0,"y":0,"z":0},{"x":0,"y":0,"z":0}]}"#;
    let limits = Limits {
        max_vertices: 2,
        ..Limits::default()
    };
    let e = dashvertex_json::decode(text, &limits).unwrap_err();
    assert_eq!(e.kind, dashvertex_json::ErrorKind::Limit);
    assert_eq!(e.pointer, "/vertex");
    let sets = r#"{"x":0,"y":0,"z":0,"skinIndex":[0],"skinWeight":[1],"skinSets":[{"skinIndex":[],"skinWeight":[]},{"skinIndex":[],"skinWeight":[]}]}"#;
    let limits = Limits {
        max_sets: 2,
        ..Limits::default()
    };
    let e = dashvertex_json::decode(sets, &limits).unwrap_err();
    assert_eq!(
        (e.kind, e.pointer.as_str()),
        (dashvertex_json::ErrorKind::Limit, "/skinSets")
    );
    let limits = Limits {
        max_input_bytes: 10,
        ..Limits::default()
    };
    assert_eq!(
        dashvertex_json::decode(sets, &limits).unwrap_err().kind,
        dashvertex_json::ErrorKind::Limit
    );
}

#[test]
fn foreign_members_survive_verbatim_in_place() {
    // spec: J8
    let text =
        std::fs::read_to_string(crate::common::repo().join("spec/vectors/json/document-full.json"))
            .unwrap();
    let file = dashvertex_json::decode(&text, &Limits::default()).unwrap();
    let out = dashvertex_json::encode(&file).unwrap();
    for (key, raw) in &file.foreign {
        let needle = format!("{}: {}", serde_json::to_string(key).unwrap(), raw.get());
        assert!(out.contains(&needle), "{key} not written verbatim:\n{out}");
    }
    let keys = |t: &str| -> Vec<String> {
        let v: serde_json::Map<String, Value> = serde_json::from_str(t).unwrap();
        v.keys().cloned().collect()
    };
    assert_eq!(keys(&text), keys(&out));
    assert_eq!(
        out,
        dashvertex_json::encode(&dashvertex_json::decode(&out, &Limits::default()).unwrap())
            .unwrap()
    );
    assert_eq!(
        file.non_empty_foreign().collect::<Vec<_>>(),
        vec!["texture", "material", "face", "animation", "x-tool"]
    );
}

#[test]
fn repeated_keys_inside_a_verbatim_member_are_kept_but_rejected_elsewhere() {
    // spec: J8 (found by the json_schema_agreement fuzz target)
    let kept = r#"{"type": "DashModelExchange", "vertex": [], "face": [{"b": 1, "b": 2}]}"#;
    let file = dashvertex_json::decode(kept, &Limits::default()).unwrap();
    assert!(
        dashvertex_json::encode(&file)
            .unwrap()
            .contains(r#"[{"b": 1, "b": 2}]"#)
    );
    assert_eq!(dashvertex_json::find_duplicate_key(kept), None);
    let v = crate::common::schema_validator();
    assert!(crate::common::schema_accepts(&v, kept));
    for (text, pointer) in [
        (
            r#"{"type": "DashModelExchange", "vertex": [], "face": [], "face": []}"#,
            "/face",
        ),
        (r#"[{"x": 0, "y": 0, "z": 0, "x": 1}]"#, "/0/x"),
        (
            r#"{"type": "DashModelExchange", "vertex": [], "bone": [{"name": "a", "name": "b", "parentIndex": null}]}"#,
            "/bone/0/name",
        ),
    ] {
        assert_eq!(
            dashvertex_json::find_duplicate_key(text).as_deref(),
            Some(pointer)
        );
        assert!(!crate::common::schema_accepts(&v, text));
        assert!(
            dashvertex_json::decode(text, &Limits::default()).is_err(),
            "{text}"
        );
    }
}

#[test]
fn skin_data_of_an_unskinned_mesh_is_written_not_dropped() {
    // spec: T1 (found by the roundtrip fuzz target)
    let mut a = dashvertex_core::Vertex::at([1.0, 2.0, 3.0]);
    a.skin.joints[0] = 63;
    let mut b = dashvertex_core::Vertex::at([0.0, 0.0, 0.0]);
    b.skin.weights[1] = -0.0;
    for v in [a, b] {
        let mut mesh = dashvertex_core::Mesh::skinned(vec![v]);
        mesh.set_skinned(false);
        let doc = dashvertex_core::Document {
            mesh,
            skeleton: None,
        };
        let text = dashvertex_json::encode_document(&doc).unwrap();
        assert!(text.contains("\"skinIndex\""), "{text}");
        let back = dashvertex_json::decode(&text, &Limits::default()).unwrap();
        let mut expected = doc.mesh.clone();
        expected.set_skinned(true);
        assert!(back.document.mesh.bit_eq(&expected), "{text}");
    }
}

#[test]
fn non_finite_values_cannot_be_written() {
    // spec: N3
    let mut doc = dashvertex_core::Document::default();
    let mut v = dashvertex_core::Vertex::at([0.0, 0.0, 0.0]);
    v.skin.weights[2] = f32::NAN;
    doc.mesh = dashvertex_core::Mesh::skinned(vec![dashvertex_core::Vertex::default(), v]);
    let err = dashvertex_json::encode_document(&doc).unwrap_err();
    assert_eq!(
        err,
        dashvertex_json::EncodeError::NonFinite {
            pointer: "/vertex/1/skinWeight/2".into(),
            value: "NaN".into()
        }
    );
}

#[test]
fn a_byte_order_mark_is_refused_by_name() {
    // spec: J11
    let text = "\u{feff}[{\"x\": 0, \"y\": 0, \"z\": 0}]";
    let e = dashvertex_json::decode(text, &Limits::default()).unwrap_err();
    assert_eq!((e.line, e.column, e.pointer.as_str()), (1, 1, ""));
    assert!(e.message.contains("byte order mark"), "{}", e.message);
    assert_eq!(e.rule.as_deref(), Some("J11"));
    // The same text without it decodes.
    assert!(dashvertex_json::decode(&text[3..], &Limits::default()).is_ok());
}

#[test]
fn long_member_names_are_cut_in_messages_and_pointers() {
    let name = "A".repeat(100_000);
    let text = format!(r#"[{{"x": 0, "y": 0, "z": 0, "{name}": 1}}]"#);
    let e = dashvertex_json::decode(&text, &Limits::default()).unwrap_err();
    assert!(e.message.len() < 300, "{}", e.message);
    assert!(e.message.contains("(100000 bytes)"), "{}", e.message);
    assert!(e.pointer.len() < 100, "{}", e.pointer);
    assert!(e.pointer.starts_with("/0/AAAA"), "{}", e.pointer);
}
