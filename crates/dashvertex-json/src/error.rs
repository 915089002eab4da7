//! Located JSON errors.

use std::fmt;

/// What kind of problem a [`JsonError`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The text is not JSON (including truncated input).
    Syntax,
    /// The JSON does not have the DashVertex shape (`spec/dashvertex.md` §3): a wrong type,
    /// length, field, or a number out of range.
    Structure,
    /// A configured [`dashvertex_core::Limits`] value was exceeded.
    Limit,
}

impl ErrorKind {
    /// A stable lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Syntax => "syntax",
            ErrorKind::Structure => "structure",
            ErrorKind::Limit => "limit",
        }
    }
}

/// A decoding error with its location: a JSON Pointer and a 1-based line and column
/// (the column counts Unicode scalar values).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonError {
    /// The kind of problem.
    pub kind: ErrorKind,
    /// JSON Pointer (RFC 6901) of the offending value; empty for the root.
    pub pointer: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// One-line description.
    pub message: String,
    /// The specification rule the error enforces, when it is a specific one (`"J4"`).
    pub rule: Option<String>,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ptr = if self.pointer.is_empty() {
            "(root)"
        } else {
            &self.pointer
        };
        write!(
            f,
            "{}:{}: {} (at {ptr})",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for JsonError {}

/// An error writing JSON.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// A NaN or infinite value cannot be written as JSON.
    #[error("{pointer}: {value} cannot be written as JSON (only finite numbers can)")]
    NonFinite {
        /// Where the value would go.
        pointer: String,
        /// The value, as text ("NaN", "inf", "-inf").
        value: String,
    },
}

/// The JSON Pointer of a `serde_path_to_error` path.
pub fn pointer_of(path: &serde_path_to_error::Path) -> String {
    let mut pointer = String::new();
    for seg in path.iter() {
        match seg {
            serde_path_to_error::Segment::Seq { index } => {
                push_token(&mut pointer, &index.to_string())
            }
            serde_path_to_error::Segment::Map { key } => push_token(&mut pointer, key),
            serde_path_to_error::Segment::Enum { variant } => push_token(&mut pointer, variant),
            serde_path_to_error::Segment::Unknown => {}
        }
    }
    pointer
}

/// Appends one reference token to a JSON Pointer, escaping `~` and `/`.
pub fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    for c in token.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}
