//! Checks of the glTF document beyond the influence data: references, required members,
//! buffer URIs, node transforms. Each reads the JSON value once, linearly, and touches no
//! accessor data (the influence checks in [`super::gltf`] read that).

pub(crate) mod accessors;
pub(crate) mod animations;
pub(crate) mod attribute_formats;
pub(crate) mod attributes;
pub(crate) mod bounds;
pub(crate) mod buffer_views;
pub(crate) mod buffers;
pub(crate) mod colors;
pub(crate) mod compression;
pub(crate) mod extensions;
pub(crate) mod morph;
pub(crate) mod nodes;
pub(crate) mod primitives;
pub(crate) mod references;
pub(crate) mod required;
pub(crate) mod texcoords;
pub(crate) mod unit_vectors;
pub(crate) mod vertex_views;

use dashvertex_json::Members;
use serde_json::Value;

/// The elements of the top-level array `key` (none when absent or not an array).
pub(crate) fn array<'a>(root: &'a Value, key: &str) -> &'a [Value] {
    root.member(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// Whether the document lists `extension` in `extensionsUsed`.
pub(crate) fn uses(root: &Value, extension: &str) -> bool {
    array(root, "extensionsUsed")
        .iter()
        .any(|e| e.as_str() == Some(extension))
}

/// The elements of member `key` of `v` when it is an array (none otherwise).
pub(crate) fn members<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    array(v, key)
}

/// Reports `code` at `pointer` as the one official code `khronos` of those the catalogue
/// maps it to (the diagnostic's `khronos` names what this finding is, not every code the
/// rule covers).
pub(crate) fn push_as(
    doc: &crate::inputs::gltf::Doc,
    sink: &mut crate::sink::Sink,
    code: crate::codes::Code,
    khronos: &'static str,
    pointer: &str,
    message: impl FnOnce() -> String,
) {
    sink.push(code, || {
        let mut d = crate::diagnostic::Diagnostic::new(code, message(), doc.at(pointer));
        d.khronos = vec![khronos];
        d
    });
}

/// The accessor object `i` of the document, when it exists.
pub(crate) fn accessor(root: &Value, i: u64) -> Option<&Value> {
    array(root, "accessors").get(usize::try_from(i).ok()?)
}

/// Whether accessor object `a`'s buffer view has a `byteStride`.
pub(crate) fn strided(root: &Value, a: &Value) -> bool {
    a.member("bufferView")
        .is_some_and(|v| view_strided(root, v))
}

/// Whether the buffer view a `bufferView` value names has a `byteStride`.
pub(crate) fn view_strided(root: &Value, view: &Value) -> bool {
    view.as_u64()
        .and_then(|v| array(root, "bufferViews").get(usize::try_from(v).ok()?))
        .is_some_and(|v| v.member("byteStride").is_some())
}

/// A JSON Pointer held as a chain of tokens on the stack, spelled only when a finding
/// needs it: the checks walk every element of the document, and most documents have no
/// finding, so spelling each element's pointer up front cost more than the checks.
#[derive(Clone, Copy)]
pub(crate) struct Ptr<'a> {
    parent: Option<&'a Ptr<'a>>,
    token: Tok<'a>,
}

/// One reference token of a JSON Pointer: of a [`Ptr`], or of a walk that keeps its own
/// parent links (the extensions walk).
#[derive(Clone, Copy)]
pub(crate) enum Tok<'a> {
    Root,
    Key(&'a str),
    Index(usize),
}

impl<'a> Ptr<'a> {
    /// The whole document (the pointer "").
    pub(crate) const ROOT: Ptr<'static> = Ptr {
        parent: None,
        token: Tok::Root,
    };

    /// Member `key` of the value this points at.
    pub(crate) fn key(&'a self, key: &'a str) -> Ptr<'a> {
        Ptr {
            parent: Some(self),
            token: Tok::Key(key),
        }
    }

    /// Element `i` of the array this points at.
    pub(crate) fn index(&'a self, i: usize) -> Ptr<'a> {
        Ptr {
            parent: Some(self),
            token: Tok::Index(i),
        }
    }

    /// The pointer's text (RFC 6901, `~` and `/` escaped).
    pub(crate) fn spell(&self) -> String {
        let mut tokens = Vec::new();
        let mut at = Some(self);
        while let Some(p) = at {
            tokens.push(p.token);
            at = p.parent;
        }
        tokens.reverse();
        spell(&tokens)
    }
}

/// The text of the JSON Pointer made of `tokens`, root first (RFC 6901, `~` and `/`
/// escaped; [`Tok::Root`] adds nothing).
pub(crate) fn spell(tokens: &[Tok]) -> String {
    let mut out = String::new();
    for t in tokens {
        match t {
            Tok::Root => {}
            Tok::Key(k) => dashvertex_json::pointer::push_token(&mut out, k),
            Tok::Index(i) => dashvertex_json::pointer::push_token(&mut out, &i.to_string()),
        }
    }
    out
}
