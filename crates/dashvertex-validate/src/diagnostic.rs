//! A located finding.

use serde::Serialize;

use crate::codes::{Code, Severity};

/// Where a finding is. Every field that applies is set: always the vertex (or bone) for
/// per-vertex rules; the byte offset for binary files; the JSON Pointer and line/column
/// for JSON and glTF.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Location {
    /// The FBX object (`Geometry::Body`, `Cluster::Hips`, `Deformer::Skin`) of an FBX
    /// finding; its `vertex` is then a control point of that geometry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// Vertex number (position in the vertex list), counted from 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vertex: Option<u64>,
    /// Influence set (0 = skinIndex/skinWeight or JOINTS_0/WEIGHTS_0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub set: Option<u32>,
    /// Slot within the set (0 to 3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slot: Option<u32>,
    /// Bone number, for skeleton rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bone: Option<u64>,
    /// Byte offset of the field in a binary file (or in a glTF buffer, with `pointer`
    /// naming the accessor).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// JSON Pointer (RFC 6901) of the value in a JSON or glTF file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
    /// 1-based line of `pointer`'s value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// 1-based column (in characters) of `pointer`'s value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u64>,
}

impl std::fmt::Display for Location {
    /// `vertex 3, set 0 slot 1, /meshes/0/primitives/0 (12:5), byte 96` — the parts that
    /// are set, or `the whole file`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut parts = Vec::new();
        if let Some(o) = &self.object {
            parts.push(o.clone());
        }
        if let Some(v) = self.vertex {
            parts.push(format!("vertex {v}"));
        }
        if let Some(b) = self.bone {
            parts.push(format!("bone {b}"));
        }
        match (self.set, self.slot) {
            (Some(s), Some(k)) => parts.push(format!("set {s} slot {k}")),
            (Some(s), None) => parts.push(format!("set {s}")),
            _ => {}
        }
        if let Some(p) = &self.pointer {
            match (self.line, self.column) {
                (Some(l), Some(c)) => parts.push(format!("{p} ({l}:{c})")),
                _ => parts.push(p.clone()),
            }
        }
        if let Some(o) = self.offset {
            parts.push(format!("byte {o}"));
        }
        if parts.is_empty() {
            f.write_str("the whole file")
        } else {
            f.write_str(&parts.join(", "))
        }
    }
}

/// One finding of a rule: its code, the severity it is reported at, a message, an
/// optional hint, and where it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Diagnostic {
    /// The rule that found it, written as its name (`WEIGHT_NEGATIVE`): the name
    /// `--deny`, `--warn` and `--allow` accept, and a row of `spec/validation.md` §5.
    pub code: Code,
    /// Severity (after `--deny warnings`, the code's default).
    pub severity: Severity,
    /// What is wrong, in one line with the values involved, as text output prints it after
    /// the code (`vertex 3: weight -0.25 in set 0 slot 1 is negative`).
    pub message: String,
    /// How to fix it, when a hint helps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// The official Khronos glTF-Validator code(s) this finding corresponds to, when one
    /// maps (`spec/validation.md`), so that reports can be compared with its output.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub khronos: Vec<&'static str>,
    /// Where it is.
    pub location: Location,
}

impl Diagnostic {
    /// A diagnostic with the code's default severity and help.
    pub fn new(code: Code, message: impl Into<String>, location: Location) -> Self {
        Diagnostic {
            code,
            severity: code.severity(),
            message: message.into(),
            help: code.help().map(str::to_owned),
            khronos: code.khronos().collect(),
            location,
        }
    }

    /// Replaces the help text.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

impl std::fmt::Display for Diagnostic {
    /// `error[WEIGHT_SUM] vertex 0, /0/skinWeight (1:40): the weights sum to 0.75`: the
    /// severity, the code, where, and the message, on one line (the help is left out).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}[{}] {}: {}",
            self.severity, self.code, self.location, self.message
        )
    }
}
