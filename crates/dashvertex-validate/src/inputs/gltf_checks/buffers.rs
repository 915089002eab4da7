//! Buffers: whether each buffer's data could be read, and what its `uri` is.
//!
//! - A buffer without `uri` in a `.gltf` (or past the first in a GLB) is a placeholder:
//!   it carries no data, the accessors on it are not read, and the file stays valid
//!   (`GLTF_BUFFER_PLACEHOLDER`, a note), as the official validator treats it.
//! - A `uri` with a scheme other than `data:` (`https:`) is not read (spec/security.md)
//!   and is reported as the official validator does, a warning (`GLTF_BUFFER_NOT_RELATIVE`).
//! - A `uri` that is no URI (an empty scheme, a malformed data URI) or a data URI whose
//!   media type is not a buffer's is an error (`GLTF_URI`).
//! - Otherwise data that cannot be read, or are shorter than `byteLength`, are
//!   `GLTF_BUFFER`.

use dashvertex_gltf::{BufferError, Container, Gltf};

use super::array;
use crate::codes::Code;
use crate::diagnostic::{Diagnostic, Location};
use crate::inputs::gltf::Doc;
use crate::sink::Sink;
use dashvertex_json::Members;

/// What is wrong with a `uri` as a URI reference, with the official code for it.
fn uri_problem(uri: &str) -> Option<(&'static str, String)> {
    if let Some(rest) = uri.strip_prefix("data:") {
        let Some((head, _)) = rest.split_once(',') else {
            return Some((
                "INVALID_URI",
                "a data URI without a comma before its data".into(),
            ));
        };
        let mut parts = head.split(';');
        let media = parts.next().unwrap_or_default();
        let params: Vec<&str> = parts.collect();
        for (k, p) in params.iter().enumerate() {
            let last_base64 = k + 1 == params.len() && *p == "base64";
            if !last_base64 && p.split_once('=').is_none_or(|(a, _)| a.is_empty()) {
                return Some((
                    "INVALID_URI",
                    format!("data URI parameter {:?} is not name=value", p),
                ));
            }
        }
        let media_lc = media.to_ascii_lowercase();
        if media_lc != "application/octet-stream" && media_lc != "application/gltf-buffer" {
            return Some((
                "BUFFER_DATA_URI_MIME_TYPE_INVALID",
                format!(
                    "data URI media type {media:?} is not application/octet-stream or application/gltf-buffer"
                ),
            ));
        }
        return None;
    }
    let scheme_end = uri.find(':')?;
    if uri
        .find(['/', '?', '#'])
        .is_some_and(|first| first < scheme_end)
    {
        return None; // a ':' in a path, not a scheme
    }
    let scheme = uri.get(..scheme_end).unwrap_or_default();
    let valid = scheme
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    (!valid).then(|| ("INVALID_URI", format!("{uri:?} has an invalid scheme")))
}

/// True for a URI reference with a scheme (not a relative file reference).
fn has_scheme(uri: &str) -> bool {
    uri.find(':')
        .is_some_and(|colon| uri.find(['/', '?', '#']).is_none_or(|first| colon < first))
}

fn push(
    doc: &Doc,
    sink: &mut Sink,
    code: Code,
    pointer: &str,
    khronos: Option<&'static str>,
    message: String,
) {
    sink.push(code, || {
        let mut d = Diagnostic::new(code, message, doc.at(pointer));
        if let Some(k) = khronos {
            d.khronos = vec![k];
        }
        d
    });
}

/// Reports each buffer as the module comment says, and extra bytes after a GLB's
/// declared length.
pub(crate) fn check_all(gltf: &Gltf, doc: &Doc, sink: &mut Sink) {
    if gltf.glb_extra_bytes > 0 {
        let code = Code::GLTF_GLB_EXTRA_DATA;
        let n = gltf.glb_extra_bytes;
        sink.push(code, || {
            Diagnostic::new(
                code,
                format!("{n} byte(s) after the length the GLB header declares"),
                Location {
                    offset: Some(8),
                    ..Location::default()
                },
            )
        });
    }
    let declared = array(&gltf.value, "buffers");
    for (i, data) in gltf.buffers().enumerate() {
        let base = format!("/buffers/{i}");
        let uri = declared
            .get(i)
            .and_then(|b| b.member("uri"))
            .and_then(serde_json::Value::as_str);
        if let Some(uri) = uri {
            let at = format!("{base}/uri");
            if let Some((khronos, why)) = uri_problem(uri) {
                push(
                    doc,
                    sink,
                    Code::GLTF_URI,
                    &at,
                    Some(khronos),
                    format!("buffer {i}: {why}"),
                );
                continue;
            }
            if !uri.starts_with("data:") && has_scheme(uri) {
                push(
                    doc,
                    sink,
                    Code::GLTF_BUFFER_NOT_RELATIVE,
                    &at,
                    None,
                    format!(
                        "buffer {i}: {uri:?} is not a relative reference; dash reads no such resource, so the data on it are not checked"
                    ),
                );
                continue;
            }
        }
        let Err(why) = data else { continue };
        match why {
            BufferError::NoSource if gltf.container == Container::Glb && i == 0 => push(
                doc,
                sink,
                Code::GLTF_BUFFER,
                &base,
                Some("BUFFER_MISSING_GLB_DATA"),
                format!("buffer {i} stands for the GLB binary chunk, and the file has none"),
            ),
            BufferError::NoSource => push(
                doc,
                sink,
                Code::GLTF_BUFFER_PLACEHOLDER,
                &base,
                None,
                format!(
                    "buffer {i} has no uri: a placeholder without data; the accessors on it are not checked"
                ),
            ),
            BufferError::Short { .. } => push(
                doc,
                sink,
                Code::GLTF_BUFFER,
                &base,
                Some(if uri.is_some_and(|u| !u.starts_with("data:")) {
                    "BUFFER_EXTERNAL_BYTELENGTH_MISMATCH"
                } else {
                    "BUFFER_BYTE_LENGTH_MISMATCH"
                }),
                format!("buffer {i} is unavailable: {why}"),
            ),
            BufferError::Resource(_) => push(
                doc,
                sink,
                Code::GLTF_BUFFER,
                &format!("{base}/uri"),
                Some("IO_ERROR"),
                format!("buffer {i} is unavailable: {why}"),
            ),
            _ => push(
                doc,
                sink,
                Code::GLTF_BUFFER,
                &base,
                None,
                format!("buffer {i} is unavailable: {why}"),
            ),
        }
    }
}
