//! Located JSON errors.

use std::fmt;

/// What kind of problem a [`JsonError`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
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

/// A leaf error: the decoder found the fault in the text itself (serde's own error is
/// rendered into `message` and located by `pointer`, `line` and `column`).
impl std::error::Error for JsonError {}

/// An error writing JSON.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
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
