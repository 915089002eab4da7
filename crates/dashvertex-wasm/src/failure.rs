//! Why a call failed: a stable code, a message and a location, which the bindings turn
//! into a JavaScript `Error` carrying the same three.

use dashvertex_validate::Location;

/// A failed decode, validation, reduction or encoding.
///
/// `code` is a validator code (`spec/validation.md`) when the input itself is at fault
/// (`JSON_SYNTAX`, `BINARY_STRUCTURE`, `LIMIT_EXCEEDED`, `FORMAT_UNKNOWN`, …), so an
/// exception names the same fault as `dash-validate` reports; the calls' own faults have
/// codes of their own ([`Failure::OPTIONS`], [`Failure::REDUCE`], [`Failure::ENCODE`],
/// [`Failure::NOT_DASHVERTEX`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{code}: {message} ({location})")]
pub struct Failure {
    /// Stable upper-case code.
    pub code: String,
    /// One-line description.
    pub message: String,
    /// Where, with the fields that apply (as in a validation report's diagnostics);
    /// boxed to keep `Result<_, Failure>` small.
    pub location: Box<Location>,
}

impl Failure {
    /// Options that are not JSON of the documented shape, or hold a value out of range.
    pub const OPTIONS: &'static str = "OPTIONS_INVALID";
    /// The reducer refused the input or the settings.
    pub const REDUCE: &'static str = "REDUCE_FAILED";
    /// The document cannot be written in the format asked without losing part of it.
    pub const ENCODE: &'static str = "ENCODE_FAILED";
    /// The file is glTF or GLB, which this module does not read.
    pub const NOT_DASHVERTEX: &'static str = "NOT_DASHVERTEX";

    /// A failure with no particular location.
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Self {
        Failure {
            code: code.into(),
            message: message.into(),
            location: Box::default(),
        }
    }

    /// Bad options.
    pub fn options(message: impl std::fmt::Display) -> Self {
        Failure::new(Failure::OPTIONS, message.to_string())
    }

    /// The location as JSON text (the shape of a report diagnostic's `location`).
    pub fn location_json(&self) -> String {
        serde_json::to_string(&self.location).unwrap_or_else(|_| "{}".to_owned())
    }
}
