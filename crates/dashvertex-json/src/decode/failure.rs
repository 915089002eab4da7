//! How a failed decode is reported. serde's errors carry only a message, so what the
//! decoder knows beyond it — the spec rule a check enforces, that a limit was hit, a
//! pointer other than the error's path — travels beside the error: the place that makes
//! the error records a [`Detail`] for this thread, and [`locate_error`] takes it back
//! when the error it gets is that one (same message), so a detail never attaches to
//! another error.

use std::cell::RefCell;
use std::fmt;

use dashvertex_core::Limits;
use serde::de::{self, DeserializeSeed, Deserializer};

use super::FileSeed;
use crate::error::{ErrorKind, JsonError};
use crate::locate::Locator;

/// What an error the decoder makes says beyond its message.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Detail {
    /// The message the error carries (serde's own copy), to recognise it.
    message: String,
    /// The spec rule the check enforces (`J4`).
    rule: Option<&'static str>,
    /// A decoder limit was exceeded.
    limit: bool,
    /// Where the error is, when that is not the path the decoder was at.
    pointer: Option<String>,
}

impl Detail {
    /// An error with nothing beyond its message.
    pub(super) fn plain(message: impl fmt::Display) -> Detail {
        Detail {
            message: message.to_string(),
            ..Detail::default()
        }
    }

    /// An error of the check of spec rule `rule`.
    pub(super) fn ruled(rule: &'static str, message: impl fmt::Display) -> Detail {
        Detail {
            rule: Some(rule),
            ..Detail::plain(message)
        }
    }

    /// The error: `E::custom(message)`, with the detail recorded for [`locate_error`].
    pub(super) fn fail<E: de::Error>(self) -> E {
        let e = E::custom(&self.message);
        LAST.with(|last| *last.borrow_mut() = Some(self));
        e
    }
}

thread_local! {
    /// The detail of the last error the decoder made on this thread.
    static LAST: RefCell<Option<Detail>> = const { RefCell::new(None) };
}

/// Takes the recorded detail.
fn take() -> Option<Detail> {
    LAST.with(|last| last.borrow_mut().take())
}

/// An error of the check of spec rule `rule`.
pub(super) fn ruled<E: de::Error>(rule: &'static str, message: impl fmt::Display) -> E {
    Detail::ruled(rule, message).fail()
}

/// A decoder limit exceeded.
pub(super) fn limit_error<E: de::Error>(e: dashvertex_core::LimitError) -> E {
    Detail {
        limit: true,
        ..Detail::plain(e)
    }
    .fail()
}

/// An error at `pointer` rather than where the decoder is.
pub(super) fn located<E: de::Error>(pointer: &str, message: impl fmt::Display) -> E {
    Detail {
        pointer: Some(pointer.to_owned()),
        ..Detail::plain(message)
    }
    .fail()
}

/// A seed that fails at the value it is asked to read, so the error's path names it.
pub(super) struct Fail(pub(super) Detail);

impl<'de> DeserializeSeed<'de> for Fail {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, _: D) -> Result<(), D::Error> {
        Err(self.0.fail())
    }
}

/// Re-runs the decoder with path tracking and turns its error into a [`JsonError`].
pub(super) fn locate_error(text: &str, limits: &Limits) -> JsonError {
    let mut de = serde_json::Deserializer::from_str(text);
    let mut track = serde_path_to_error::Track::new();
    // A detail left by the first pass would be this pass's too; start clean.
    drop(take());
    let result = FileSeed { limits }
        .deserialize(serde_path_to_error::Deserializer::new(&mut de, &mut track))
        .and_then(|_| de.end());
    let detail = take();
    let locator = Locator::new(text);
    match result {
        Ok(()) => JsonError {
            kind: ErrorKind::Syntax,
            pointer: String::new(),
            line: 1,
            column: 1,
            message: "the decoder failed once and then succeeded".to_owned(),
            rule: None,
        },
        Err(err) => {
            let mut pointer = crate::pointer::pointer_of(&track.path());
            let mut kind = match err.classify() {
                serde_json::error::Category::Data => ErrorKind::Structure,
                _ => ErrorKind::Syntax,
            };
            let full = err.to_string();
            let suffix = format!(" at line {} column {}", err.line(), err.column());
            let message = full.strip_suffix(&suffix).unwrap_or(&full).to_owned();
            let detail = detail.filter(|d| d.message == message).unwrap_or_default();
            if detail.limit {
                kind = ErrorKind::Limit;
            }
            let (line, column) = match &detail.pointer {
                Some(p) => {
                    pointer = p.clone();
                    locator.line_col(p).unwrap_or((
                        err.line().max(1),
                        locator.char_column(err.line(), err.column()).max(1),
                    ))
                }
                None if err.line() == 0 => (1, 1),
                None => (
                    err.line(),
                    locator.char_column(err.line(), err.column()).max(1),
                ),
            };
            JsonError {
                kind,
                pointer: dashvertex_core::text::cut_pointer(&pointer),
                line,
                column,
                message: dashvertex_core::text::cut_quoted(&message),
                rule: detail.rule.map(str::to_owned),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode;

    /// Decodes `text`, which must fail.
    fn error(text: &str, limits: &Limits) -> JsonError {
        match decode(text, limits) {
            Ok(_) => panic!("{text} decoded"),
            Err(e) => e,
        }
    }

    #[test]
    #[allow(clippy::panic)]
    fn the_rule_travels_beside_the_message() {
        let e = error(
            r#"{"x":0,"y":0,"z":0,"skinIndex":[0,1],"skinWeight":[1]}"#,
            &Limits::default(),
        );
        assert_eq!(e.rule.as_deref(), Some("J4"));
        assert_eq!(e.pointer, "/skinWeight");
        assert!(
            e.message.starts_with("`skinWeight` has length 1"),
            "{}",
            e.message
        );
        assert!(!e.message.chars().any(char::is_control), "{:?}", e.message);
    }

    #[test]
    #[allow(clippy::panic)]
    fn a_pointer_other_than_the_path_replaces_it() {
        let e = error(r#"{"type":"Other","vertex":[]}"#, &Limits::default());
        assert_eq!(e.pointer, "/type");
        assert_eq!((e.line, e.column), (1, 9));
        assert_eq!(e.rule, None);
        assert!(!e.message.chars().any(char::is_control), "{:?}", e.message);
    }

    #[test]
    #[allow(clippy::panic)]
    fn a_limit_makes_a_limit_error() {
        let limits = Limits {
            max_vertices: 1,
            ..Limits::default()
        };
        let e = error(r#"[{"x":0,"y":0,"z":0},{"x":0,"y":0,"z":0}]"#, &limits);
        assert_eq!(e.kind, ErrorKind::Limit);
        assert!(!e.message.chars().any(char::is_control), "{:?}", e.message);
    }

    #[test]
    fn a_detail_left_by_another_error_does_not_attach() {
        let _: serde_json::Error = Detail::ruled("J4", "an earlier error").fail();
        let e = locate_error("[", &Limits::default());
        assert_eq!(e.rule, None);
        assert_eq!(e.kind, ErrorKind::Syntax);
        assert_eq!(take(), None);
    }
}
