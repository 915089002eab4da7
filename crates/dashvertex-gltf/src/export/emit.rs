//! The last phase of writing: the output files. The views' and buffers' JSON takes the
//! layout's offsets and lengths, each buffer goes where the container and
//! [`BufferFiles`] say (the GLB binary chunk, a file beside the output, or a data URI),
//! removed buffers leave the JSON, and the main file is framed as `.gltf` text or GLB.

use base64::Engine;
use serde_json::{Value, json};

use super::place::{Layout, Origin};
use super::plan::Plan;
use super::refs::{remap, renumber, visit_index};
use super::{BufferFiles, ExportError, NewView, Written, arr};
use crate::load::{Container, Gltf};

/// Where the buffers of the output go (buffers numbered as in the source).
#[derive(Debug, Default)]
struct Destinations {
    /// The buffer carried by the GLB binary chunk.
    bin: Option<usize>,
    /// Buffers written as files beside the output, with their file names.
    outside: Vec<(usize, String)>,
    /// Buffers embedded as data URIs.
    embedded: Vec<usize>,
}

/// Writes `value` (planned and applied) with the buffers laid out by `layout`.
pub(super) fn emit(
    gltf: &Gltf,
    mut value: Value,
    new_views: Vec<NewView>,
    plan: &Plan,
    layout: &Layout,
    container: Container,
    files: &BufferFiles,
) -> Result<Written, ExportError> {
    write_views(&mut value, plan, layout, &new_views);
    let removed_buf = layout.removed_buffers(plan.prune);
    let buf_map = renumber(layout.keeps.len(), |b| {
        removed_buf.get(b).copied().unwrap_or(false)
    });
    let buffers = arr(&mut value, "buffers")?;
    if buffers.is_empty() && layout.has_new() {
        buffers.push(json!({"byteLength": 0}));
    }
    let dest = destinations(
        gltf,
        buffers,
        layout,
        &removed_buf,
        &buf_map,
        container,
        files,
    );
    let mut pending: Vec<Option<NewView>> = new_views.into_iter().map(Some).collect();
    for b in &dest.embedded {
        let data = layout.bytes(*b, gltf, &mut pending)?;
        let uri = format!(
            "data:application/octet-stream;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&data)
        );
        if let Some(o) = buffers.get_mut(*b).and_then(Value::as_object_mut) {
            o.insert("uri".into(), Value::String(uri));
        }
    }
    let files_out: Vec<(String, Vec<u8>)> = dest
        .outside
        .into_iter()
        .map(|(b, name)| Ok((name, layout.bytes(b, gltf, &mut pending)?)))
        .collect::<Result<_, ExportError>>()?;
    if removed_buf.iter().any(|&r| r) {
        drop_buffers(&mut value, &removed_buf, &buf_map);
    }
    let mut holes = Vec::new();
    let main = match container {
        Container::Gltf => {
            let mut t = serde_json::to_string_pretty(&value)
                .map_err(|e| ExportError::Shape(e.to_string()))?;
            t.push('\n');
            t.into_bytes()
        }
        Container::Glb => glb(gltf, &value, layout, dest.bin, &mut pending, &mut holes)?,
    };
    // The source's accessors come first in the edited JSON, and the plan removed only
    // replaced ones: those it kept are carried, with their bytes, in order.
    let n_src = gltf.root.accessors.len();
    let removed_src = plan.removed_acc.iter().filter(|&&i| i < n_src).count();
    Ok(Written {
        main,
        files: files_out,
        carried: (n_src - removed_src) as u64,
        notes: Vec::new(),
        #[cfg(feature = "fs")]
        holes: dashvertex_fs::Holes {
            source: (!holes.is_empty())
                .then(|| gltf.unread_source(0).map(|(s, _)| s.clone()))
                .flatten(),
            holes,
        },
    })
}

/// Gives every placed view its offset and length (and a new view its target), then
/// removes the removed views from the array.
fn write_views(value: &mut Value, plan: &Plan, layout: &Layout, new_views: &[NewView]) {
    let Some(views) = value.get_mut("bufferViews").and_then(Value::as_array_mut) else {
        return;
    };
    for p in &layout.placed {
        if let Some(o) = views.get_mut(p.view).and_then(Value::as_object_mut) {
            o.insert("byteOffset".into(), json!(p.offset));
            if let Origin::Source(_, len) = p.from {
                o.insert("byteLength".into(), json!(len));
            }
            if let Origin::New(k) = p.from {
                let nv = new_views.get(k);
                o.insert("byteLength".into(), json!(nv.map_or(0, |n| n.bytes.len())));
                if let Some(t) = nv.and_then(|n| n.target) {
                    o.insert("target".into(), json!(t));
                }
            }
        }
    }
    let mut v = 0;
    views.retain(|_| {
        let keep = !plan.view_removed(v);
        v += 1;
        keep
    });
}

/// Sets each kept buffer's `byteLength` and `uri` and says where its bytes go: a GLB's
/// buffer 0 (or a `.gltf`'s buffer without a URI, when written as GLB) into the binary
/// chunk, buffers that were files into `STEM.bin`/`STEM_N.bin` beside the output when
/// `files` asks for it, the others into data URIs.
fn destinations(
    gltf: &Gltf,
    buffers: &mut [Value],
    layout: &Layout,
    removed_buf: &[bool],
    buf_map: &[Option<u64>],
    container: Container,
    files: &BufferFiles,
) -> Destinations {
    let src_uri = |b: usize| gltf.root.buffers.get(b).and_then(|x| x.uri.clone());
    let glb_bin = |b: usize| b == 0 && (src_uri(0).is_none() || container == Container::Glb);
    let mut dest = Destinations::default();
    for (b, entry) in buffers.iter_mut().enumerate() {
        if removed_buf.get(b).copied().unwrap_or(false) {
            continue;
        }
        let Some(o) = entry.as_object_mut() else {
            continue;
        };
        let named = buf_map.get(b).copied().flatten().unwrap_or(b as u64);
        o.insert(
            "byteLength".into(),
            json!(layout.sizes.get(b).copied().unwrap_or(0)),
        );
        let data_uri = src_uri(b).is_some_and(|u| u.starts_with("data:"));
        if container == Container::Glb && glb_bin(b) {
            o.remove("uri");
            dest.bin = Some(b);
        } else {
            match files {
                BufferFiles::Beside { stem } if !data_uri => {
                    let name = if named == 0 {
                        format!("{stem}.bin")
                    } else {
                        format!("{stem}_{named}.bin")
                    };
                    o.insert("uri".into(), Value::String(percent_encode(&name)));
                    dest.outside.push((b, name));
                }
                _ => dest.embedded.push(b),
            }
        }
    }
    dest
}

/// Removes the buffers `removed_buf` marks and renumbers the views' `buffer`.
fn drop_buffers(value: &mut Value, removed_buf: &[bool], buf_map: &[Option<u64>]) {
    if let Some(buffers) = value.get_mut("buffers").and_then(Value::as_array_mut) {
        let mut b = 0;
        buffers.retain(|_| {
            let keep = !removed_buf.get(b).copied().unwrap_or(false);
            b += 1;
            keep
        });
    }
    if let Some(views) = value.get_mut("bufferViews").and_then(Value::as_array_mut) {
        for v in views {
            visit_index(v.get_mut("buffer"), &mut |i| remap(i, buf_map));
        }
    }
}

/// The GLB file: the compact JSON and, when a buffer goes there, the binary chunk,
/// framed with checked 32-bit lengths and built in one zeroed allocation of the final
/// size (the binary chunk is filled in place; ranges a sparse load left unread become
/// `holes`, untouched zeros).
fn glb(
    gltf: &Gltf,
    value: &Value,
    layout: &Layout,
    bin: Option<usize>,
    pending: &mut [Option<NewView>],
    holes: &mut Vec<dashvertex_core::file::Hole>,
) -> Result<Vec<u8>, ExportError> {
    let text = serde_json::to_vec(value).map_err(|e| ExportError::Shape(e.to_string()))?;
    let bin_len = match bin {
        Some(b) => layout.size(b)?,
        None => 0,
    };
    let frame = crate::glb::Frame::new(text.len(), bin.map(|_| bin_len))
        .map_err(|_| ExportError::TooLarge)?;
    let mut head = Vec::with_capacity(text.len() + 32);
    frame.start(&mut head, &text);
    let mut out = vec![0u8; frame.total as usize];
    out.get_mut(..head.len())
        .ok_or(ExportError::TooLarge)?
        .copy_from_slice(&head);
    if let Some(b) = bin {
        layout.fill(&mut out, head.len(), b, gltf, pending, Some(holes))?;
    }
    Ok(out)
}

/// A file name as a URI reference: the characters RFC 3986 allows in a path segment
/// are kept, the others percent-encoded.
fn percent_encode(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
