//! Data dash cannot read (`GLTF_EXTENSION_UNSUPPORTED`): a required extension it does not
//! understand, a Draco primitive whose accessors have no buffer view (their elements are
//! in the Draco stream, not zeros). Each is reported once, where it is; the element reads
//! of those accessors fail ([`dashvertex_gltf::AccessorError::Compressed`]) and are not
//! reported again, so no rule runs on zeros that are not the file's data.
//!
//! Meshopt-compressed buffer views (`EXT_meshopt_compression`,
//! `KHR_meshopt_compression`) are decoded when the file loads and checked as plain data;
//! one that does not decode makes its fallback buffer unavailable, which `buffers.rs`
//! reports (`GLTF_BUFFER`, saying why).

use std::collections::BTreeSet;

use dashvertex_gltf::Gltf;
use dashvertex_gltf::compressed::{DECODED_EXTENSIONS, understood, what_to_do};

use super::array;
use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use crate::inputs::gltf::Doc;
use crate::sink::Sink;

fn push(doc: &Doc, sink: &mut Sink, pointer: &str, message: impl FnOnce() -> String) {
    let code = Code::GLTF_EXTENSION_UNSUPPORTED;
    sink.push(code, || Diagnostic::new(code, message(), doc.at(pointer)));
}

/// Runs the checks of the module comment.
pub(crate) fn check_all(gltf: &Gltf, doc: &Doc, sink: &mut Sink) {
    let root = &gltf.value;
    for (k, name) in array(root, "extensionsRequired").iter().enumerate() {
        let Some(name) = name.as_str() else { continue };
        if !understood(name) && !DECODED_EXTENSIONS.contains(&name) {
            push(doc, sink, &format!("/extensionsRequired/{k}"), || {
                format!(
                    "the file requires {}, which dash does not read; {}",
                    dashvertex_core::text::short(name),
                    what_to_do(name)
                )
            });
        }
    }
    // Each compressed primitive once, at its extension, with the accessors it holds.
    let mut seen = BTreeSet::new();
    for (i, _) in array(root, "accessors").iter().enumerate() {
        let Some((extension, pointer)) = gltf.compressed_accessor(i as u64) else {
            continue;
        };
        if seen.insert(pointer.to_owned()) {
            push(doc, sink, pointer, || {
                format!(
                    "the primitive keeps accessor {i} (and its other data without a buffer view) in the {extension} stream, which dash cannot decode: its influences, positions and indices are not checked, and no command reads them; {}",
                    what_to_do(extension)
                )
            });
        }
    }
}
