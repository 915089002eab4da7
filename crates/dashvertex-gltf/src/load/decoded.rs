//! Meshopt-compressed buffer views decoded while a document loads (`crate::meshopt`):
//! each view in place, its fallback buffer given the data, the extension taken out of the
//! loaded JSON, so that every reader and every rewrite sees plain views.

use super::*;

/// Decodes every meshopt-compressed buffer view ([`crate::meshopt`]) where its data goes:
/// each view is checked and charged first (nothing allocated), then, per fallback buffer,
/// its views are decoded one at a time straight into their place. A fallback buffer
/// without data that only compressed views use is appended to buffer 0 (when that has
/// data; at a 16-byte boundary) and leaves the document, its views moved there, so that a
/// rewrite writes one file with plain views where the streams were; one with data is
/// overwritten in place; one without data used otherwise gets zeros of its `byteLength`
/// when that is no more than its views' data and their alignment. The views decoded and
/// their buffer lose the extension in `value`. A buffer with a view that does not decode
/// becomes unavailable, saying which and why ([`BufferError::Compressed`]). True when a
/// buffer changed.
pub(super) fn decode_meshopt(
    value: &mut serde_json::Value,
    root: &mut Root,
    buffers: &mut Vec<Result<BufferData, BufferError>>,
    file: &[u8],
    input_bytes: u64,
) -> bool {
    use crate::meshopt::Planned;
    use std::collections::BTreeMap;
    if !has_compressed_views(value) {
        return false;
    }
    let mut by_buffer: BTreeMap<u64, Vec<Planned>> = BTreeMap::new();
    for d in crate::meshopt::plan_document(value, input_bytes) {
        by_buffer.entry(d.buffer).or_default().push(d);
    }
    let single = by_buffer.len() == 1;
    let mut removed = Vec::new();
    for (b, views) in by_buffer {
        let Some(bi) = usize::try_from(b).ok().filter(|&i| i < buffers.len()) else {
            continue; // a view on a buffer that does not exist: reported as a view range
        };
        let refuse = |d: &Planned, why: String| BufferError::Compressed {
            view: d.view as u64,
            extension: d.extension,
            pointer: format!("/bufferViews/{}/extensions/{}", d.view, d.extension),
            why,
        };
        let byte_length = root.buffers.get(bi).map_or(0, |x| x.byte_length);
        let has_data = buffers.get(bi).is_some_and(Result::is_ok);
        if let Some((d, why)) = invalid_view(&views, b, has_data, byte_length) {
            if let Some(slot) = buffers.get_mut(bi) {
                *slot = Err(refuse(d, why));
            }
            continue;
        }
        let only_these = root
            .buffer_views
            .iter()
            .enumerate()
            .all(|(v, bv)| bv.buffer != b || views.iter().any(|d| d.view == v));
        let merge =
            bi != 0 && !has_data && only_these && buffers.first().is_some_and(Result::is_ok);
        // The streams in buffer 0 are all it holds, and no other fallback buffer reads
        // them: the decoded data takes their place instead of following them.
        let replace = merge && single && root.buffer_views.iter().all(|bv| bv.buffer != 0);
        let len = usize::try_from(byte_length).unwrap_or(0);
        // The bytes the views are decoded into, and where buffer `b`'s start in them.
        let (mut dest, base, old_len) = if replace {
            (vec![0u8; len], 0, 0)
        } else if merge {
            let Some(zero) = owned(buffers, 0, file) else {
                continue;
            };
            let mut zero = std::mem::take(zero);
            let old_len = zero.len();
            let base = old_len.next_multiple_of(16);
            zero.resize(base.saturating_add(len), 0);
            (zero, base, old_len)
        } else if has_data {
            let Some(v) = owned(buffers, bi, file) else {
                continue;
            };
            (std::mem::take(v), 0, 0)
        } else {
            (vec![0u8; len], 0, 0)
        };
        let outcome = decode_views(
            &views,
            &mut dest,
            base,
            old_len,
            merge && !replace,
            buffers,
            file,
        );
        let target = if merge { 0 } else { bi };
        if let Err((d, why)) = outcome {
            if merge && !replace {
                dest.truncate(old_len);
                if let Some(slot) = buffers.get_mut(0) {
                    *slot = Ok(BufferData::Bytes(dest));
                }
            }
            if let Some(slot) = buffers.get_mut(bi) {
                *slot = Err(refuse(d, why));
            }
            continue;
        }
        if let Some(slot) = buffers.get_mut(target) {
            *slot = Ok(BufferData::Bytes(dest));
        }
        mark_decoded(value, root, &views, b, merge.then_some(base));
        if merge {
            let len = owned(buffers, 0, file).map_or(0, |z| z.len() as u64);
            set_buffer_zero_length(value, root, len);
            removed.push(bi);
        }
    }
    remove_buffers(value, root, buffers, &removed);
    crate::meshopt::forget_if_unused(value);
    // Every buffer a compressed view names was filled, grown or refused.
    true
}

/// Whether any buffer view of `value` carries a meshopt compression extension.
fn has_compressed_views(value: &serde_json::Value) -> bool {
    value
        .get("bufferViews")
        .and_then(serde_json::Value::as_array)
        .is_some_and(|vs| {
            vs.iter().any(|v| {
                v.get("extensions").is_some_and(|e| {
                    e.get(crate::compressed::MESHOPT).is_some()
                        || e.get(crate::compressed::KHR_MESHOPT).is_some()
                })
            })
        })
}

/// The first of fallback buffer `b`'s compressed `views` that cannot be decoded, and
/// why: its parameters are wrong, its stream lies in `b` itself, or `b` has no data
/// (`has_data` false) and declares more bytes (`byte_length`) than the views decode to.
fn invalid_view(
    views: &[crate::meshopt::Planned],
    b: u64,
    has_data: bool,
    byte_length: u64,
) -> Option<(&crate::meshopt::Planned, String)> {
    let data_len = views
        .iter()
        .map(|d| d.length.saturating_add(64))
        .fold(64, u64::saturating_add);
    views.iter().find_map(|d| match &d.params {
        Err(e) => Some((d, e.to_string())),
        Ok(p) if p.buffer == b => Some((
            d,
            format!("its stream lies in its own fallback buffer {b}"),
        )),
        Ok(_) if !has_data && byte_length > data_len => Some((
            d,
            format!(
                "its fallback buffer {b} has no data and declares {byte_length} bytes, more than its compressed views decode to"
            ),
        )),
        Ok(_) => None,
    })
}

/// Takes the compression extension out of the decoded `views` and of their fallback
/// buffer `b` in `value`; with `merged_at`, the views now lie in buffer 0 from that
/// offset, in `value` and `root` alike.
fn mark_decoded(
    value: &mut serde_json::Value,
    root: &mut Root,
    views: &[crate::meshopt::Planned],
    b: u64,
    merged_at: Option<usize>,
) {
    use serde_json::json;
    for d in views {
        let Some(v) = value.pointer_mut(&format!("/bufferViews/{}", d.view)) else {
            continue;
        };
        crate::meshopt::strip(v, d.extension);
        if let Some(base) = merged_at
            && let (Some(o), Some(bv)) = (v.as_object_mut(), root.buffer_views.get_mut(d.view))
        {
            bv.buffer = 0;
            bv.byte_offset = bv.byte_offset.saturating_add(base as u64);
            o.insert("buffer".into(), json!(0));
            o.insert("byteOffset".into(), json!(bv.byte_offset));
        }
    }
    if let Some(buf) = value.pointer_mut(&format!("/buffers/{b}")) {
        crate::meshopt::strip(buf, crate::compressed::MESHOPT);
        crate::meshopt::strip(buf, crate::compressed::KHR_MESHOPT);
    }
}

/// Sets buffer 0's `byteLength` to `len` in `root` and `value` (after decoded views were
/// appended to it).
fn set_buffer_zero_length(value: &mut serde_json::Value, root: &mut Root, len: u64) {
    if let Some(b0) = root.buffers.first_mut() {
        b0.byte_length = len;
    }
    if let Some(o) = value
        .pointer_mut("/buffers/0")
        .and_then(serde_json::Value::as_object_mut)
    {
        o.insert("byteLength".into(), serde_json::json!(len));
    }
}

/// Decodes `views` (of one fallback buffer) into `dest`, each at `base` + its offset, in
/// parallel; with `head`, the streams of buffer 0 are `dest[..old_len]` (buffer 0 being
/// `dest`, grown). The first view (in view order) that fails, and why.
fn decode_views<'v>(
    views: &'v [crate::meshopt::Planned],
    dest: &mut [u8],
    base: usize,
    old_len: usize,
    head: bool,
    buffers: &[Result<BufferData, BufferError>],
    file: &[u8],
) -> Result<(), (&'v crate::meshopt::Planned, String)> {
    use dashvertex_core::par::prelude::*;
    let (zero, rest) = dest.split_at_mut(base.min(dest.len()));
    let zero: &[u8] = zero.get(..old_len).unwrap_or_default();
    // Disjoint places, in offset order; a view outside the buffer or over another fails.
    let mut order: Vec<&crate::meshopt::Planned> = views.iter().collect();
    order.sort_by_key(|d| (d.offset, d.view));
    let mut slots: Vec<(&crate::meshopt::Planned, &mut [u8])> = Vec::with_capacity(order.len());
    let mut left = rest;
    let mut at = 0u64;
    for d in order {
        let fits = d
            .offset
            .checked_sub(at)
            .and_then(|gap| usize::try_from(gap).ok())
            .zip(usize::try_from(d.length).ok())
            .filter(|(gap, len)| gap.checked_add(*len).is_some_and(|e| e <= left.len()));
        let Some((gap, len)) = fits else {
            return Err((
                d,
                "the view does not lie inside its fallback buffer, or overlaps another compressed view"
                    .to_owned(),
            ));
        };
        let (_, tail) = std::mem::take(&mut left).split_at_mut(gap);
        let (mine, tail) = tail.split_at_mut(len);
        slots.push((d, mine));
        left = tail;
        at = d.offset.saturating_add(d.length);
    }
    let stream = |b: u64| -> Result<&[u8], String> {
        if head && b == 0 {
            Ok(zero)
        } else {
            buffer_bytes(buffers, file, b)
        }
    };
    let failed: Vec<(&crate::meshopt::Planned, String)> = slots
        .into_par_iter()
        .filter_map(|(d, out)| {
            let from = d.params.as_ref().map_or(0, |p| p.buffer);
            d.decode_into(stream(from), out)
                .err()
                .map(|e| (d, e.to_string()))
        })
        .collect();
    match failed.into_iter().min_by_key(|(d, _)| d.view) {
        Some(f) => Err(f),
        None => Ok(()),
    }
}

/// Buffer `b`'s bytes as a stream source, or why they are unavailable.
fn buffer_bytes<'a>(
    buffers: &'a [Result<BufferData, BufferError>],
    file: &'a [u8],
    b: u64,
) -> Result<&'a [u8], String> {
    match usize::try_from(b).ok().and_then(|i| buffers.get(i)) {
        None => Err(format!("buffer {b} does not exist")),
        Some(Ok(BufferData::Bytes(v))) => Ok(v.as_slice()),
        Some(Ok(BufferData::File(r))) => Ok(file.get(r.clone()).unwrap_or_default()),
        Some(Err(e)) => Err(format!("buffer {b}: {e}")),
    }
}

/// Buffer `b`'s bytes, made its own allocation (a range of the GLB file is copied), when
/// it has data.
fn owned<'a>(
    buffers: &'a mut [Result<BufferData, BufferError>],
    b: usize,
    file: &[u8],
) -> Option<&'a mut Vec<u8>> {
    let slot = buffers.get_mut(b)?;
    if let Ok(BufferData::File(r)) = slot {
        *slot = Ok(BufferData::Bytes(
            file.get(r.clone()).unwrap_or_default().to_vec(),
        ));
    }
    match slot {
        Ok(BufferData::Bytes(v)) => Some(v),
        _ => None,
    }
}

/// Removes the buffers `removed` (fallback buffers whose data joined buffer 0) from the
/// document, renumbering the views of later buffers.
fn remove_buffers(
    value: &mut serde_json::Value,
    root: &mut Root,
    buffers: &mut Vec<Result<BufferData, BufferError>>,
    removed: &[usize],
) {
    let mut removed = removed.to_vec();
    removed.sort_unstable();
    // Last first, so that each index still names its buffer.
    for &bi in removed.iter().rev() {
        if bi < buffers.len() {
            drop(buffers.remove(bi));
        }
        if bi < root.buffers.len() {
            root.buffers.remove(bi);
        }
        if let Some(a) = value
            .get_mut("buffers")
            .and_then(serde_json::Value::as_array_mut)
            .filter(|a| bi < a.len())
        {
            a.remove(bi);
        }
        let shift = |n: u64| if n > bi as u64 { n - 1 } else { n };
        for bv in &mut root.buffer_views {
            bv.buffer = shift(bv.buffer);
        }
        for v in value
            .get_mut("bufferViews")
            .and_then(serde_json::Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            if let Some(n) = v.get("buffer").and_then(serde_json::Value::as_u64)
                && let Some(o) = v.as_object_mut()
            {
                o.insert("buffer".into(), serde_json::json!(shift(n)));
            }
        }
    }
}
