//! SARIF 2.1.0 output: the interchange format code-scanning views read.
//!
//! One run per report. Its tool lists every code of the catalogue as a rule (default
//! level, summary, help, the spec section, and the Khronos glTF-Validator codes it maps
//! to); each diagnostic becomes one result pointing at its file and, where the finding
//! has one, a line and column (JSON text) or a byte offset (binary files). The vertex,
//! set, slot, bone and JSON Pointer are kept as result properties, and the vertex leads
//! the message, so a reader needs nothing but the SARIF file.

use serde_json::{Map, Value, json};

use crate::codes::{Code, Severity};
use crate::diagnostic::Diagnostic;
use crate::report::{FileReport, Report};

/// The schema the output declares, and the version it follows.
pub const SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// The report as a SARIF 2.1.0 log, each rule's help the catalogue's.
pub fn log(report: &Report) -> Value {
    log_with(report, &|c: Code| c.help().map(str::to_owned))
}

/// [`log`] with each rule's help given by `help` (a front end's wording of the advice;
/// the results keep the help their diagnostics carry).
pub fn log_with(report: &Report, help: &dyn Fn(Code) -> Option<String>) -> Value {
    let rules: Vec<Value> = Code::ALL.iter().map(|c| rule(*c, help(*c))).collect();
    let mut results = Vec::new();
    let mut artifacts = Vec::new();
    let mut notes = Vec::new();
    for f in &report.files {
        let artifact = artifact_location(f, artifacts.len());
        artifacts.push(json!({
            "location": artifact.clone(),
            "sourceLanguage": f.format.as_deref().unwrap_or("unknown"),
        }));
        for d in &f.diagnostics {
            results.push(result(f, d, &artifact));
        }
        if !f.not_checked.is_empty() {
            notes.push(json!({
                "level": "note",
                "message": {"text": format!(
                    "{}: {}",
                    f.file,
                    crate::render::not_checked_note(&f.not_checked)
                )},
                "locations": [{"physicalLocation": {"artifactLocation": artifact.clone()}}],
                "properties": {"notChecked": f.not_checked},
            }));
        }
        if f.truncated {
            let shown = f.diagnostics.len() as u64;
            let total: u64 = f.codes.values().sum();
            notes.push(json!({
                "level": "note",
                "message": {"text": format!(
                    "{}: {} more finding(s) not listed (at most {shown} kept per file)",
                    f.file,
                    total.saturating_sub(shown)
                )},
                "locations": [{"physicalLocation": {"artifactLocation": artifact}}],
            }));
        }
    }
    json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "dash-validate",
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "invocations": [{
                "executionSuccessful": !report.files.iter().any(FileReport::io_failed),
                "toolExecutionNotifications": notes,
            }],
            "columnKind": "unicodeCodePoints",
            "artifacts": artifacts,
            "results": results,
        }],
    })
}

/// A code's rule metadata.
fn rule(c: Code, help: Option<String>) -> Value {
    let mut r = json!({
        "id": c.as_str(),
        "name": pascal(c.as_str()),
        "shortDescription": {"text": c.summary()},
        "defaultConfiguration": {"level": level(c.severity())},
        "properties": {
            "spec": c.spec(),
            "khronos": c.khronos().collect::<Vec<_>>(),
        },
    });
    if let (Some(h), Value::Object(m)) = (help, &mut r) {
        m.insert("help".into(), json!({"text": h}));
    }
    r
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// `WEIGHT_SUM` → `WeightSum` (SARIF rule names are identifiers, not codes).
fn pascal(code: &str) -> String {
    code.split('_')
        .map(|w| {
            let mut cs = w.chars();
            cs.next()
                .map(|f| f.to_ascii_uppercase().to_string() + &cs.as_str().to_ascii_lowercase())
                .unwrap_or_default()
        })
        .collect()
}

/// Where a file is: a relative URI reference for a path, a description for standard
/// input (which has none).
fn artifact_location(f: &FileReport, index: usize) -> Value {
    if f.file == "<stdin>" {
        json!({"index": index, "description": {"text": "standard input"}})
    } else {
        let uri = f.path.as_deref().map_or_else(|| uri(&f.file), path_uri);
        json!({"uri": uri, "index": index})
    }
}

/// A path as a URI reference from its raw bytes: on Unix a name need not be UTF-8 (and
/// `\` is a character of it), so each byte is percent-encoded as it is and the URI names
/// the very file.
fn path_uri(path: &std::path::Path) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        encode(path.as_os_str().as_bytes())
    }
    #[cfg(not(unix))]
    {
        uri(&path.to_string_lossy())
    }
}

/// A path as a URI reference: `/` separators (`\` taken for one), then [`encode`].
fn uri(path: &str) -> String {
    encode(path.replace('\\', "/").as_bytes())
}

/// Every byte outside the unreserved set and `/` percent-encoded, so a name with spaces,
/// `#` or `?` stays one path; an absolute path becomes a `file://` URI.
fn encode(path: &[u8]) -> String {
    let mut out = String::with_capacity(path.len());
    for &b in path {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    if path.starts_with(b"/") {
        format!("file://{out}")
    } else {
        out
    }
}

fn result(f: &FileReport, d: &Diagnostic, artifact: &Value) -> Value {
    let l = &d.location;
    let mut physical = Map::new();
    physical.insert("artifactLocation".into(), artifact.clone());
    // A glTF offset is into a buffer, not the file; a GLB's lines are those of its JSON
    // chunk: neither is a region of the file as stored, so only the pointer says where.
    let glb = f.format.as_deref() == Some("glb");
    match (l.line, l.column, l.offset) {
        (Some(line), Some(col), _) if !glb => {
            physical.insert(
                "region".into(),
                json!({"startLine": line.max(1), "startColumn": col.max(1)}),
            );
        }
        (_, _, Some(off)) if l.pointer.is_none() => {
            physical.insert("region".into(), json!({"byteOffset": off}));
        }
        _ => {}
    }
    let mut location = Map::new();
    location.insert("physicalLocation".into(), Value::Object(physical));
    if let Some(p) = &l.pointer {
        location.insert(
            "logicalLocations".into(),
            json!([{"fullyQualifiedName": p, "kind": "element"}]),
        );
    } else if let Some(o) = &l.object {
        location.insert(
            "logicalLocations".into(),
            json!([{"fullyQualifiedName": o, "kind": "object"}]),
        );
    }
    let mut text = d.message.clone();
    if let Some(v) = l.vertex
        && !text.starts_with("vertex ")
    {
        text = format!("vertex {v}: {text}");
    }
    if let Some(h) = &d.help {
        text = format!("{text} (help: {h})");
    }
    let mut props = Map::new();
    for (k, v) in [
        ("vertex", l.vertex),
        ("set", l.set.map(u64::from)),
        ("slot", l.slot.map(u64::from)),
        ("bone", l.bone),
        ("offset", l.offset),
    ] {
        if let Some(v) = v {
            props.insert(k.into(), json!(v));
        }
    }
    if let Some(p) = &l.pointer {
        props.insert("pointer".into(), json!(p));
    }
    if !d.khronos.is_empty() {
        props.insert("khronos".into(), json!(d.khronos));
    }
    let index = Code::ALL.iter().position(|c| *c == d.code).unwrap_or(0);
    json!({
        "ruleId": d.code.as_str(),
        "ruleIndex": index,
        "level": level(d.severity),
        "message": {"text": text},
        "locations": [Value::Object(location)],
        "properties": Value::Object(props),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_keep_one_path() {
        assert_eq!(uri("a b/c#d?.json"), "a%20b/c%23d%3F.json");
        assert_eq!(uri("/abs/x.glb"), "file:///abs/x.glb");
        assert_eq!(uri("dir\\x.dmx"), "dir/x.dmx");
        // A name that is not UTF-8 keeps its bytes.
        assert_eq!(encode(b"d/caf\xe9.gltf"), "d/caf%E9.gltf");
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let p = std::path::Path::new(std::ffi::OsStr::from_bytes(b"m/\xff.glb"));
            assert_eq!(path_uri(p), "m/%FF.glb");
        }
    }

    #[test]
    fn rule_names_are_identifiers() {
        assert_eq!(pascal("WEIGHT_SUM"), "WeightSum");
        assert_eq!(pascal("IO_ERROR"), "IoError");
    }
}
