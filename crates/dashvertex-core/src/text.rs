//! User text in messages: names, keys and references from a file can be megabytes long
//! and hold control characters, so a message quotes a short, escaped prefix of them.

use std::fmt::Write as _;

/// Characters of user text a message quotes before cutting it.
pub const QUOTED_CHARS: usize = 64;

/// Quotes `text` for a message: escaped like a Rust string and cut after
/// [`QUOTED_CHARS`] characters, with the full length in bytes after the cut.
pub fn short(text: &str) -> String {
    let mut out = String::from("\"");
    for (n, c) in text.chars().enumerate() {
        if n == QUOTED_CHARS {
            let _ = write!(out, "\"… ({} bytes)", text.len());
            return out;
        }
        out.extend(c.escape_debug());
    }
    out.push('"');
    out
}

/// Cuts every run of more than [`QUOTED_CHARS`] characters between backticks in a
/// message (serde quotes member names that way: "unknown field `…`"), keeping the rest.
pub fn cut_quoted(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(1024));
    let mut parts = message.split('`');
    if let Some(first) = parts.next() {
        out.push_str(first);
    }
    for (i, part) in parts.enumerate() {
        out.push('`');
        let inside = i % 2 == 0;
        if inside && part.chars().count() > QUOTED_CHARS {
            out.extend(part.chars().take(QUOTED_CHARS));
            let _ = write!(out, "… ({} bytes)", part.len());
        } else {
            out.push_str(part);
        }
    }
    out
}

/// Cuts each token of a JSON Pointer longer than [`QUOTED_CHARS`] characters. The
/// result locates nothing past the cut, but a pointer built from a 10 MB member name
/// would otherwise be printed whole.
pub fn cut_pointer(pointer: &str) -> String {
    if pointer.len() <= QUOTED_CHARS {
        return pointer.to_owned();
    }
    let mut out = String::new();
    for (i, token) in pointer.split('/').enumerate() {
        if i > 0 {
            out.push('/');
        }
        if token.chars().count() > QUOTED_CHARS {
            out.extend(token.chars().take(QUOTED_CHARS));
            let _ = write!(out, "…({} bytes)", token.len());
        } else {
            out.push_str(token);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_quotes_escapes_and_cuts() {
        assert_eq!(short("a\u{0}b"), "\"a\\0b\"");
        let s = short(&"x".repeat(10_000));
        assert!(s.len() < 100, "{s}");
        assert!(s.ends_with("(10000 bytes)"));
    }

    #[test]
    fn only_long_quoted_runs_are_cut() {
        let long = "A".repeat(5000);
        let m = cut_quoted(&format!("unknown field `{long}`, expected `x` or `y`"));
        assert!(m.len() < 150, "{m}");
        assert!(m.starts_with("unknown field `AAAA"));
        assert!(m.ends_with("… (5000 bytes)`, expected `x` or `y`"), "{m}");
        assert_eq!(cut_quoted("a `b` c"), "a `b` c");
        assert_eq!(cut_quoted("odd ` quote"), "odd ` quote");
    }

    #[test]
    fn pointer_tokens_are_cut_one_by_one() {
        let p = format!("/vertex/0/{}", "B".repeat(300));
        let c = cut_pointer(&p);
        assert!(
            c.starts_with("/vertex/0/BBB") && c.ends_with("…(300 bytes)"),
            "{c}"
        );
        assert_eq!(cut_pointer("/a/b"), "/a/b");
    }
}
