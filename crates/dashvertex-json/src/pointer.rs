//! JSON Pointers (RFC 6901), the way every dash diagnostic names a value: built token by
//! token ([`push_token`]) or from a serde path ([`pointer_of`]), and found in the text as
//! a line and column ([`Locator`], which indexes the text once and answers each lookup
//! without re-parsing). The glTF bridge, the validator and the reducer locate their
//! findings with this kit.

pub use crate::locate::Locator;

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
