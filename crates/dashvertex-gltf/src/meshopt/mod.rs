//! Buffer views compressed with `EXT_meshopt_compression` or `KHR_meshopt_compression`,
//! decoded in safe Rust (spec/security.md \[R3\]).
//!
//! When a document loads, every compressed view is decoded from its stream into its
//! fallback buffer (the `buffer`, `byteOffset` and `byteLength` of the view itself), so
//! every reader — and every rewrite, which then writes plain views — sees the decoded
//! data; the extension leaves the loaded JSON ([`crate::Gltf::value`]) for the views it
//! decoded. Before anything is allocated, each view's description is checked
//! ([`Params::of`]), its elements are charged to the element budget
//! (`count × ⌈byteStride / 16⌉`, in view order, against the allowance of \[L2\]) and its
//! stream must be at least as long as the shortest stream holding that many elements
//! ([`stream`]), so the decoded bytes are bounded by the input's size.
//!
//! A view that does not decode leaves its fallback buffer unavailable
//! ([`crate::BufferError::Compressed`]): no reader takes zeros or stale fallback bytes
//! for the compressed data, and a rewrite refuses the file by name.

pub mod filter;
pub mod stream;

use serde_json::Value;

pub use filter::Filter;

use crate::compressed::{KHR_MESHOPT, MESHOPT};

/// Why a stream does not decode.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The stream ended before its last element.
    #[error("the stream ends before its last element")]
    Truncated,
    /// The stream is shorter than the shortest that can hold its elements.
    #[error("the stream has {have} bytes, fewer than the {need} its elements need at least")]
    Short {
        /// Bytes in the stream.
        have: usize,
        /// The fewest that could hold them.
        need: usize,
    },
    /// Bytes are left between the last element and the tail.
    #[error("{0} bytes are left between the last element and the stream's tail")]
    Trailing(usize),
    /// The header byte names no codec (or a version the extension does not allow).
    #[error("header byte 0x{0:02x} names no codec version this extension allows")]
    Header(u8),
    /// A channel mode byte of a v1 attribute stream is invalid.
    #[error("channel mode byte 0x{0:02x} is invalid")]
    Channel(u8),
    /// A byte stride the mode does not allow.
    #[error("byteStride {0} is not allowed for this mode")]
    Stride(usize),
    /// A triangle count that is not a multiple of 3.
    #[error("count {0} is not a multiple of 3")]
    Count(usize),
    /// An output of a length that is not a whole number of elements.
    #[error("an output of {0} bytes holds no whole number of elements")]
    Output(usize),
}

/// The compression mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `ATTRIBUTES`.
    Attributes,
    /// `TRIANGLES`.
    Triangles,
    /// `INDICES`.
    Indices,
}

/// Decodes one stream: `count` elements of `stride` bytes in `mode`, then `filter`.
/// `khr` allows what only `KHR_meshopt_compression` has (attribute format v1, `COLOR`).
/// The stream is checked before the output is allocated: it is at most 1024 (attributes)
/// or 12 (indices) times the stream's length.
pub fn decode(
    data: &[u8],
    mode: Mode,
    filter: Filter,
    count: usize,
    stride: usize,
    khr: bool,
) -> Result<Vec<u8>, DecodeError> {
    check(data, mode, filter, count, stride, khr)?;
    let mut out = vec![0u8; count * stride];
    decode_into(data, mode, filter, stride, khr, &mut out)?;
    Ok(out)
}

/// What [`decode`] checks before it allocates: the mode's and filter's element size, the
/// stream's header and its length against the shortest that holds `count` elements.
pub fn check(
    data: &[u8],
    mode: Mode,
    filter: Filter,
    count: usize,
    stride: usize,
    khr: bool,
) -> Result<(), DecodeError> {
    if !filter.allows(stride)
        || (filter != Filter::None && mode != Mode::Attributes)
        || (filter == Filter::Color && !khr)
    {
        return Err(DecodeError::Stride(stride));
    }
    match mode {
        Mode::Attributes => stream::check_vertices(data, count, stride, khr).map(|_| ()),
        Mode::Triangles => stream::check_triangles(data, count, stride).map(|_| ()),
        Mode::Indices => stream::check_indices(data, count, stride),
    }
}

/// [`decode`] into `out`, whose length says the count (`out.len() / stride` elements).
pub fn decode_into(
    data: &[u8],
    mode: Mode,
    filter: Filter,
    stride: usize,
    khr: bool,
    out: &mut [u8],
) -> Result<(), DecodeError> {
    let count = out.len() / stride.max(1);
    check(data, mode, filter, count, stride, khr)?;
    match mode {
        Mode::Attributes => stream::decode_vertices(data, stride, khr, out)?,
        Mode::Triangles => stream::decode_triangles(data, stride, out)?,
        Mode::Indices => stream::decode_indices(data, stride, out)?,
    }
    filter.apply(out, stride);
    Ok(())
}

/// Why a compressed buffer view cannot be decoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ViewError {
    /// The extension object is not what the extension allows.
    #[error("{0}")]
    Invalid(String),
    /// Its stream's buffer is unavailable or too short.
    #[error("its stream is unavailable: {0}")]
    Stream(String),
    /// The decoded views would pass the element budget.
    #[error(
        "its {count} elements of {stride} bytes take the elements the compressed views declare to {total}, past the budget of {budget} (2^20 + 4 per byte of the {input_bytes}-byte input, each view charged count × ⌈byteStride / 16⌉; spec/security.md [L2])"
    )]
    Budget {
        /// The view's count.
        count: u64,
        /// Its stride.
        stride: u64,
        /// The charges through it.
        total: u64,
        /// The allowance.
        budget: u64,
        /// The input's bytes.
        input_bytes: u64,
    },
    /// The stream does not decode.
    #[error("its stream does not decode: {0}")]
    Decode(#[from] DecodeError),
}

/// A compressed view's checked description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Params {
    /// The buffer holding the stream.
    pub buffer: u64,
    /// The stream's offset in it.
    pub byte_offset: u64,
    /// The stream's length.
    pub byte_length: u64,
    /// Bytes per element.
    pub stride: usize,
    /// Elements.
    pub count: usize,
    /// Mode.
    pub mode: Mode,
    /// Filter.
    pub filter: Filter,
}

impl Params {
    /// Reads and checks the extension object `ext` of `extension` on a view whose own
    /// `byteLength` and `byteStride` are `view_length` and `view_stride`.
    pub fn of(
        ext: &Value,
        extension: &str,
        view_length: u64,
        view_stride: Option<u64>,
    ) -> Result<Params, ViewError> {
        let bad = |s: String| Err(ViewError::Invalid(s));
        let int = |k: &str, required: bool| -> Result<u64, ViewError> {
            match ext.get(k) {
                None if !required => Ok(0),
                Some(v) => v
                    .as_u64()
                    .ok_or_else(|| ViewError::Invalid(format!("`{k}` is not an unsigned integer"))),
                None => Err(ViewError::Invalid(format!("`{k}` is missing"))),
            }
        };
        let buffer = int("buffer", true)?;
        let byte_offset = int("byteOffset", false)?;
        let byte_length = int("byteLength", true)?;
        let stride_u = int("byteStride", true)?;
        let count_u = int("count", true)?;
        let mode = match ext.get("mode").and_then(Value::as_str) {
            Some("ATTRIBUTES") => Mode::Attributes,
            Some("TRIANGLES") => Mode::Triangles,
            Some("INDICES") => Mode::Indices,
            _ => return bad("`mode` is not ATTRIBUTES, TRIANGLES or INDICES".into()),
        };
        let filter = match ext.get("filter") {
            None => Filter::None,
            Some(f) => match f.as_str().and_then(Filter::from_name) {
                Some(Filter::Color) if extension != KHR_MESHOPT => {
                    return bad("the COLOR filter is KHR_meshopt_compression's only".into());
                }
                Some(f) => f,
                None => return bad("`filter` names no filter".into()),
            },
        };
        let (Ok(stride), Ok(count)) = (usize::try_from(stride_u), usize::try_from(count_u)) else {
            return bad(format!(
                "byteStride {stride_u} or count {count_u} is too large"
            ));
        };
        let fits = match mode {
            Mode::Attributes => stride.is_multiple_of(4) && (4..=256).contains(&stride),
            Mode::Triangles | Mode::Indices => stride == 2 || stride == 4,
        };
        if !fits {
            return bad(format!(
                "byteStride {stride} is not allowed in mode {mode:?}"
            ));
        }
        if mode == Mode::Triangles && !count.is_multiple_of(3) {
            return bad(format!("count {count} of TRIANGLES is not a multiple of 3"));
        }
        if filter != Filter::None && (mode != Mode::Attributes || !filter.allows(stride)) {
            return bad(format!(
                "filter {filter:?} is not allowed with mode {mode:?} and byteStride {stride}"
            ));
        }
        if stride_u.checked_mul(count_u) != Some(view_length) {
            return bad(format!(
                "the view's byteLength {view_length} is not byteStride {stride} × count {count}"
            ));
        }
        if mode == Mode::Attributes && view_stride.is_some_and(|s| s != stride_u) {
            return bad(format!(
                "the view's byteStride {} differs from the stream's {stride}",
                view_stride.unwrap_or(0)
            ));
        }
        Ok(Params {
            buffer,
            byte_offset,
            byte_length,
            stride,
            count,
            mode,
            filter,
        })
    }

    /// The elements this view is charged (`count × ⌈byteStride / 16⌉`).
    pub fn charge(&self) -> u64 {
        (self.count as u64).saturating_mul(self.stride.div_ceil(16) as u64)
    }
}

/// One compressed view of a document, checked and charged, not yet decoded.
#[derive(Clone, Debug)]
pub(crate) struct Planned {
    /// The view.
    pub(crate) view: usize,
    /// Its extension.
    pub(crate) extension: &'static str,
    /// Its fallback buffer.
    pub(crate) buffer: u64,
    /// Its offset there (the view's own `byteOffset`).
    pub(crate) offset: u64,
    /// Its decoded length (the view's own `byteLength`, `byteStride × count`).
    pub(crate) length: u64,
    /// Its stream, or why it may not be decoded.
    pub(crate) params: Result<Params, ViewError>,
}

impl Planned {
    /// Decodes the view from `stream`, the bytes of buffer `params.buffer` (or why they
    /// are unavailable), into `out` (its `byteLength` bytes).
    pub(crate) fn decode_into(
        &self,
        stream: Result<&[u8], String>,
        out: &mut [u8],
    ) -> Result<(), ViewError> {
        let p = self.params.as_ref().map_err(Clone::clone)?;
        let bytes = stream.map_err(ViewError::Stream)?;
        let data = p
            .byte_offset
            .checked_add(p.byte_length)
            .and_then(|end| {
                bytes.get(usize::try_from(p.byte_offset).ok()?..usize::try_from(end).ok()?)
            })
            .ok_or_else(|| {
                ViewError::Stream(format!(
                    "bytes {}..+{} lie outside buffer {} ({} bytes)",
                    p.byte_offset,
                    p.byte_length,
                    p.buffer,
                    bytes.len()
                ))
            })?;
        Ok(decode_into(
            data,
            p.mode,
            p.filter,
            p.stride,
            self.extension == KHR_MESHOPT,
            out,
        )?)
    }
}

/// The extension (and its object) on a buffer view, if any; an error when it has both.
fn extension_of(view: &Value) -> Option<Result<(&'static str, &Value), ViewError>> {
    let ext = view.get("extensions")?;
    match (ext.get(MESHOPT), ext.get(KHR_MESHOPT)) {
        (Some(_), Some(_)) => Some(Err(ViewError::Invalid(format!(
            "the view has both {MESHOPT} and {KHR_MESHOPT}"
        )))),
        (Some(e), None) => Some(Ok((MESHOPT, e))),
        (None, Some(e)) => Some(Ok((KHR_MESHOPT, e))),
        (None, None) => None,
    }
}

/// Checks every compressed view of `value` and charges it to the element budget of an
/// input of `input_bytes`, in view order; nothing is decoded or allocated for the data.
pub(crate) fn plan_document(value: &Value, input_bytes: u64) -> Vec<Planned> {
    let views = value
        .get("bufferViews")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let budget = crate::budget::allowance(input_bytes);
    let mut total = 0u64;
    let mut out = Vec::new();
    for (v, view) in views.iter().enumerate() {
        let Some(found) = extension_of(view) else {
            continue;
        };
        let extension = found.as_ref().map_or(MESHOPT, |(e, _)| *e);
        let member = |k: &str| view.get(k).and_then(Value::as_u64);
        let length = member("byteLength").unwrap_or(0);
        let params = found.and_then(|(extension, ext)| {
            let p = Params::of(ext, extension, length, member("byteStride"))?;
            // The shortest stream for its elements (format v1 for attributes, the
            // shortest) and where it lies: the fallback data allocated for it is at most
            // 1024 times its stream's length, inside a buffer the file holds.
            let need = match p.mode {
                Mode::Attributes => stream::min_vertex_len(p.count, p.stride, 1),
                Mode::Triangles => stream::min_triangle_len(p.count),
                Mode::Indices => stream::min_index_len(p.count),
            };
            if need.is_none_or(|n| (n as u64) > p.byte_length) {
                return Err(ViewError::Decode(DecodeError::Short {
                    have: usize::try_from(p.byte_length).unwrap_or(usize::MAX),
                    need: need.unwrap_or(usize::MAX),
                }));
            }
            let declared = usize::try_from(p.buffer)
                .ok()
                .and_then(|b| value.get("buffers")?.get(b)?.get("byteLength")?.as_u64());
            if p.byte_offset
                .checked_add(p.byte_length)
                .is_none_or(|end| declared.is_none_or(|d| end > d))
            {
                return Err(ViewError::Stream(format!(
                    "bytes {}..+{} lie outside buffer {}",
                    p.byte_offset, p.byte_length, p.buffer
                )));
            }
            total = total.saturating_add(p.charge());
            if total > budget {
                return Err(ViewError::Budget {
                    count: p.count as u64,
                    stride: p.stride as u64,
                    total,
                    budget,
                    input_bytes,
                });
            }
            Ok(p)
        });
        out.push(Planned {
            view: v,
            extension,
            buffer: member("buffer").unwrap_or(0),
            offset: member("byteOffset").unwrap_or(0),
            length,
            params,
        });
    }
    out
}

/// Takes `name` out of a view's or buffer's `extensions` (and the object when empty).
pub(crate) fn strip(o: &mut Value, name: &str) {
    let Some(obj) = o.as_object_mut() else { return };
    let Some(ext) = obj.get_mut("extensions").and_then(Value::as_object_mut) else {
        return;
    };
    ext.remove(name);
    if ext.is_empty() {
        obj.remove("extensions");
    }
}

/// Takes the meshopt names out of `extensionsUsed` and `extensionsRequired` (and a list
/// left empty) when no buffer view or buffer of `value` names them any more.
pub(crate) fn forget_if_unused(value: &mut Value) {
    for name in [MESHOPT, KHR_MESHOPT] {
        let used = ["bufferViews", "buffers"].iter().any(|k| {
            value.get(*k).and_then(Value::as_array).is_some_and(|a| {
                a.iter()
                    .any(|x| x.get("extensions").and_then(|e| e.get(name)).is_some())
            })
        });
        if used {
            continue;
        }
        let Some(o) = value.as_object_mut() else {
            return;
        };
        for key in ["extensionsUsed", "extensionsRequired"] {
            if let Some(names) = o.get_mut(key).and_then(Value::as_array_mut) {
                names.retain(|n| n.as_str() != Some(name));
                if names.is_empty() {
                    o.remove(key);
                }
            }
        }
    }
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss
)]
mod tests;
