//! Reading accessor data, with every offset checked: no panic, no allocation beyond what
//! the buffers hold. Views outside their buffer (checked at load) and accessors past the
//! element budget ([`crate::budget`]), both decided when the document loaded, are refused
//! here, so no declared count drives the work of whoever reads the elements.

use dashvertex_core::Limits;

use crate::document::{Accessor, Sparse, component, components};
use crate::error::AccessorError;
use crate::load::Gltf;

mod vec4;
pub use vec4::{f32x4_le, u16x4_le};

/// An accessor read where it lies: its elements are decoded from the buffer on access
/// (every range was checked once, when the view was made), never copied or widened into
/// a separate array. Integers are raw, not normalized; every component type converts to
/// `f64` exactly.
#[derive(Clone, Debug, PartialEq)]
pub struct AccessorData<'g> {
    /// Accessor index.
    pub index: u64,
    /// componentType.
    pub component_type: u32,
    /// Components per element.
    pub components: usize,
    /// The `normalized` flag.
    pub normalized: bool,
    /// Number of elements.
    pub count: usize,
    /// The buffer view's bytes from element 0 on (`None` for an accessor without a
    /// buffer view, whose elements are zero except the `sparse` ones). Element `i` starts
    /// at `i × stride` and fits: checked when the view was made.
    bytes: Option<&'g [u8]>,
    /// Sparse substitutions, sorted by element, one per element (the last one written
    /// wins): `(element, k)`, the element's values being the `k`-th of
    /// [`AccessorData::sparse_values`]. Their number is bounded by the sparse data's
    /// bytes and the element budget.
    sparse: Vec<(u64, usize)>,
    /// The sparse values' bytes, one element (`stride`-free, as the specification lays
    /// them out) after another.
    sparse_values: &'g [u8],
    /// Where element 0 starts in its buffer, and the buffer (none for data-less or
    /// sparse accessors, whose elements do not all lie at `origin + i × stride`).
    pub origin: Option<(u64, u64)>,
    /// Bytes between elements.
    pub stride: u64,
    /// Bytes between matrix columns (4-aligned), and rows per column: component `c`
    /// lies at `(c / rows) × column + (c % rows) × size` within its element.
    column: usize,
    rows: usize,
    /// Bytes of one element (its columns padded), as the sparse values hold them.
    sparse_elem: usize,
}

impl AccessorData<'_> {
    /// Component `c` of element `i` (0 beyond the accessor).
    #[inline]
    pub fn get(&self, i: usize, c: usize) -> f64 {
        if i >= self.count || c >= self.components {
            return 0.0;
        }
        let size = size_of(self.component_type).unwrap_or(0);
        if !self.sparse.is_empty()
            && let Ok(k) = self.sparse.binary_search_by_key(&(i as u64), |e| e.0)
        {
            let k = self.sparse.get(k).map_or(0, |e| e.1);
            let at = k * self.sparse_elem + self.within(c, size);
            return decode(
                self.sparse_values.get(at..at + size).unwrap_or_default(),
                self.component_type,
            );
        }
        let Some(bytes) = self.bytes else {
            return 0.0;
        };
        // Past any slice when it does not fit a usize: 0, as beyond the accessor.
        let Ok(at) = usize::try_from(i as u64 * self.stride) else {
            return 0.0;
        };
        let at = at + self.within(c, size);
        decode(
            bytes.get(at..at + size).unwrap_or_default(),
            self.component_type,
        )
    }

    /// Byte offset of component `c` within an element (matrix columns are padded).
    #[inline]
    fn within(&self, c: usize, size: usize) -> usize {
        // Scalars and vectors (one column): no division.
        if c < self.rows {
            return c * size;
        }
        let rows = self.rows.max(1);
        (c / rows) * self.column + (c % rows) * size
    }

    /// The first four components of element `i` (zeros past the last component), as
    /// [`AccessorData::get`] gives them, with the component type decided once.
    #[inline]
    pub fn get4(&self, i: usize) -> [f64; 4] {
        if !self.sparse.is_empty()
            || self.bytes.is_none()
            || i >= self.count
            || self.rows != self.components
        {
            return std::array::from_fn(|c| self.get(i, c));
        }
        let bytes = self.bytes.unwrap_or_default();
        let n = self.components.min(4);
        // Past any slice when it does not fit a usize: zeros, as `get` gives.
        let Ok(at) = usize::try_from(i as u64 * self.stride) else {
            return [0.0; 4];
        };
        let mut out = [0.0; 4];
        // VEC4 (every JOINTS_n and WEIGHTS_n): the four lanes read from one fixed-size
        // array, no loop; shorter elements lane by lane.
        macro_rules! lanes {
            ($t:ty) => {{
                const N: usize = std::mem::size_of::<$t>();
                let lane = |c: &[u8]| {
                    f64::from(<$t>::from_le_bytes(
                        <[u8; N]>::try_from(c).unwrap_or([0; N]),
                    ))
                };
                if n == 4 {
                    if let Some(e) = bytes
                        .get(at..at + 4 * N)
                        .and_then(|e| <&[u8; 4 * N]>::try_from(e).ok())
                    {
                        let (a, rest) = e.split_at(N);
                        let (b, rest) = rest.split_at(N);
                        let (c, d) = rest.split_at(N);
                        out = [lane(a), lane(b), lane(c), lane(d)];
                    }
                } else if let Some(e) = bytes.get(at..at + n * N) {
                    for (o, c) in out.iter_mut().zip(e.chunks_exact(N)) {
                        *o = lane(c);
                    }
                }
            }};
        }
        match self.component_type {
            component::I8 => lanes!(i8),
            component::U8 => lanes!(u8),
            component::I16 => lanes!(i16),
            component::U16 => lanes!(u16),
            component::U32 => lanes!(u32),
            component::F32 => lanes!(f32),
            _ => {}
        }
        out
    }

    /// Calls `f` with each element from `from` on and its first four components (as
    /// [`AccessorData::get4`] gives them), in order, until `f` returns `false`. The
    /// component type and layout are decided once, not per element: for checks that walk
    /// a whole accessor (bounds, non-finite values, index ranges).
    pub fn for_each4(&self, from: usize, mut f: impl FnMut(usize, [f64; 4]) -> bool) {
        let plain = self.sparse.is_empty() && self.rows == self.components;
        let (Some(bytes), true, Ok(stride)) = (self.bytes, plain, usize::try_from(self.stride))
        else {
            for i in from..self.count {
                if !f(i, self.get4(i)) {
                    return;
                }
            }
            return;
        };
        let n = self.components.min(4);
        macro_rules! walk {
            ($t:ty) => {{
                const N: usize = std::mem::size_of::<$t>();
                for i in from..self.count {
                    let mut out = [0.0; 4];
                    if let Some(e) = i
                        .checked_mul(stride)
                        .and_then(|at| bytes.get(at..at.checked_add(n * N)?))
                    {
                        for (o, c) in out.iter_mut().zip(e.chunks_exact(N)) {
                            *o = f64::from(<$t>::from_le_bytes(
                                <[u8; N]>::try_from(c).unwrap_or([0; N]),
                            ));
                        }
                    }
                    if !f(i, out) {
                        return;
                    }
                }
            }};
        }
        match self.component_type {
            component::I8 => walk!(i8),
            component::U8 => walk!(u8),
            component::I16 => walk!(i16),
            component::U16 => walk!(u16),
            component::U32 => walk!(u32),
            component::F32 => walk!(f32),
            _ => {
                for i in from..self.count {
                    if !f(i, self.get4(i)) {
                        return;
                    }
                }
            }
        }
    }

    /// Byte offset in its buffer of component `c` of element `i`.
    pub fn offset_of(&self, i: usize, c: usize) -> Option<u64> {
        let size = size_of(self.component_type)?;
        self.origin.map(|(start, _)| {
            start
                .saturating_add((i as u64).saturating_mul(self.stride))
                .saturating_add(self.within(c, size) as u64)
        })
    }
}

/// [`component::size`] as a `usize`.
fn size_of(component_type: u32) -> Option<usize> {
    component::size(component_type).and_then(|s| usize::try_from(s).ok())
}

/// `x` as a `usize`, or an error naming `what` of accessor `index` where it does not fit
/// (on targets with narrow pointers).
fn fits(index: u64, what: &str, x: u64) -> Result<usize, AccessorError> {
    usize::try_from(x).map_err(|_| AccessorError::OutOfRange {
        index,
        what: format!("{what} {x} does not fit in this platform's address space"),
    })
}

/// An accessor value (or any JSON number) as the binary32 the model stores.
#[allow(clippy::cast_possible_truncation)]
#[inline]
pub(crate) fn to_f32(x: f64) -> f32 {
    // f64 → f32 rounds to the nearest binary32 (±infinity beyond its range): no truncation.
    x as f32
}

fn decode(bytes: &[u8], t: u32) -> f64 {
    let arr = |n: usize| -> [u8; 4] {
        let mut a = [0u8; 4];
        for (d, s) in a.iter_mut().zip(bytes.iter().take(n)) {
            *d = *s;
        }
        a
    };
    let a = arr(4);
    match t {
        component::I8 => f64::from(i8::from_le_bytes([a[0]])),
        component::U8 => f64::from(a[0]),
        component::I16 => f64::from(i16::from_le_bytes([a[0], a[1]])),
        component::U16 => f64::from(u16::from_le_bytes([a[0], a[1]])),
        component::U32 => f64::from(u32::from_le_bytes(a)),
        component::F32 => f64::from(f32::from_le_bytes(a)),
        _ => 0.0,
    }
}

/// A sparse index (UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT) from its bytes, as
/// [`decode`] reads it but as an integer.
fn decode_index(bytes: &[u8], t: u32) -> u64 {
    let mut a = [0u8; 4];
    for (d, s) in a.iter_mut().zip(bytes.iter().take(4)) {
        *d = *s;
    }
    match t {
        component::U8 => u64::from(a[0]),
        component::U16 => u64::from(u16::from_le_bytes([a[0], a[1]])),
        component::U32 => u64::from(u32::from_le_bytes(a)),
        _ => 0,
    }
}

/// A buffer view's bytes, its offset in the buffer, the buffer, and its stride.
struct View<'g> {
    bytes: &'g [u8],
    offset: u64,
    buffer: u64,
    stride: Option<u64>,
}

fn as_usize(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// The bytes of buffer view `view`, checked against its buffer.
fn view_bytes(gltf: &Gltf, index: u64, view: u64) -> Result<View<'_>, AccessorError> {
    let bv = usize::try_from(view)
        .ok()
        .and_then(|v| gltf.root.buffer_views.get(v))
        .ok_or(AccessorError::NoView { index, view })?;
    if let Some(e) = usize::try_from(view).ok().and_then(|v| gltf.view_range(v)) {
        return Err(AccessorError::ViewRange {
            index,
            source: e.clone(),
        });
    }
    let buf = usize::try_from(bv.buffer)
        .ok()
        .and_then(|b| gltf.buffer(b))
        .ok_or_else(|| AccessorError::Buffer {
            index,
            buffer: bv.buffer,
            why: "it does not exist".into(),
        })?
        .map_err(|why| match gltf.compressed_view(view) {
            // A meshopt view that does not decode: the buffer says why (`GLTF_BUFFER`).
            _ if matches!(why, crate::BufferError::Compressed { .. }) => AccessorError::Buffer {
                index,
                buffer: bv.buffer,
                why: why.to_string(),
            },
            // A meshopt view's fallback buffer without data: the bytes are in the stream.
            Some((extension, pointer)) => AccessorError::Compressed {
                index,
                extension,
                pointer: pointer.to_owned(),
            },
            None => AccessorError::Buffer {
                index,
                buffer: bv.buffer,
                why: why.to_string(),
            },
        })?;
    let end = bv.byte_offset.checked_add(bv.byte_length);
    if let Some(e) = end
        && gltf.is_unread(as_usize(bv.buffer), bv.byte_offset, e)
    {
        return Err(AccessorError::Buffer {
            index,
            buffer: bv.buffer,
            why: format!("buffer view {view} was not read (the job carries it unchanged)"),
        });
    }
    let bytes = end
        .and_then(|e| buf.get(usize::try_from(bv.byte_offset).ok()?..usize::try_from(e).ok()?))
        .ok_or_else(|| AccessorError::OutOfRange {
            index,
            what: format!(
                "buffer view {view} (offset {}, length {}) lies outside buffer {} ({} bytes)",
                bv.byte_offset,
                bv.byte_length,
                bv.buffer,
                buf.len()
            ),
        })?;
    Ok(View {
        bytes,
        offset: bv.byte_offset,
        buffer: bv.buffer,
        stride: bv.byte_stride,
    })
}

/// Makes the view of accessor `index`: every range its elements and sparse data need is
/// checked here, once.
pub fn read<'g>(
    gltf: &'g Gltf,
    index: u64,
    limits: &Limits,
) -> Result<AccessorData<'g>, AccessorError> {
    let a = usize::try_from(index)
        .ok()
        .and_then(|i| gltf.root.accessors.get(i))
        .ok_or(AccessorError::Missing(index))?;
    gltf.budget_check(index)?;
    let size = component::size(a.component_type).ok_or(AccessorError::Unknown {
        index,
        what: "componentType",
    })?;
    let comps = components(&a.kind).ok_or(AccessorError::Unknown {
        index,
        what: "type",
    })?;
    if a.count > limits.max_vertices {
        return Err(AccessorError::Limit {
            index,
            count: a.count,
            limit: limits.max_vertices,
        });
    }
    let count = fits(index, "count", a.count)?;
    let (elem, column, rows) = crate::document::element_layout(a.component_type, &a.kind)
        .unwrap_or((size * comps, size * comps, comps));
    let mut data = AccessorData {
        index,
        component_type: a.component_type,
        components: fits(index, "components", comps)?,
        normalized: a.normalized,
        count,
        bytes: None,
        sparse: Vec::new(),
        sparse_values: &[],
        origin: None,
        stride: elem,
        column: fits(index, "column stride", column)?,
        rows: fits(index, "rows", rows)?,
        sparse_elem: fits(index, "element size", elem)?,
    };
    // Without a buffer view the elements are zeros: nothing is allocated for them (memory
    // never follows a declared count). Unless a compressed primitive names the accessor:
    // its elements are in that stream, and zeros would be wrong.
    if a.buffer_view.is_none()
        && let Some((extension, pointer)) = gltf.compressed_accessor(index)
    {
        return Err(AccessorError::Compressed {
            index,
            extension,
            pointer: pointer.to_owned(),
        });
    }
    if let Some(view) = a.buffer_view {
        place_elements(gltf, a, view, &mut data)?;
    }
    if let Some(sp) = &a.sparse {
        let (substitutions, values) = sparse_substitutions(gltf, a, sp, index, elem)?;
        data.sparse = substitutions;
        data.sparse_values = values;
        // Sparse elements do not live at `origin + i × stride`.
        data.origin = None;
    }
    Ok(data)
}

/// Points `data` (accessor `a`, its element size in `data.stride`) at its elements in
/// buffer view `view`, checking that the view holds every element at the view's stride
/// and that the stride is at least an element.
fn place_elements<'g>(
    gltf: &'g Gltf,
    a: &Accessor,
    view: u64,
    data: &mut AccessorData<'g>,
) -> Result<(), AccessorError> {
    let (index, count, elem) = (data.index, data.count, data.stride);
    let View {
        bytes,
        offset: view_offset,
        buffer,
        stride,
    } = view_bytes(gltf, index, view)?;
    let stride = stride.unwrap_or(elem);
    let need = if count == 0 {
        0
    } else {
        a.byte_offset
            .saturating_add((count as u64 - 1).saturating_mul(stride))
            .saturating_add(elem)
    };
    if need > bytes.len() as u64 || stride < elem {
        return Err(AccessorError::OutOfRange {
            index,
            what: if stride < elem {
                format!("byteStride {stride} is smaller than an element ({elem} bytes)")
            } else {
                format!(
                    "{count} elements from byte {} need {need} bytes of buffer view {view}, which has {}",
                    a.byte_offset,
                    bytes.len()
                )
            },
        });
    }
    data.bytes = Some(
        bytes
            .get(usize::try_from(a.byte_offset).unwrap_or(usize::MAX)..)
            .unwrap_or_default(),
    );
    data.origin = Some((view_offset.saturating_add(a.byte_offset), buffer));
    data.stride = stride;
    Ok(())
}

/// Sparse substitutions: `(element, k)`, the `k`th sparse value replacing the element.
type Substitutions = Vec<(u64, usize)>;

/// The sparse substitutions `sp` of accessor `a` (`index`, elements of `elem` bytes):
/// `(element, k)` for the `k`th sparse value, sorted by element with the last
/// substitution of an element winning, and the values' bytes. Refused when the indices'
/// type is not an unsigned integer, the data lies outside its views, or an index is not
/// below the accessor's count.
fn sparse_substitutions<'g>(
    gltf: &'g Gltf,
    a: &Accessor,
    sp: &Sparse,
    index: u64,
    elem: u64,
) -> Result<(Substitutions, &'g [u8]), AccessorError> {
    let isize_ = component::size(sp.indices.component_type)
        .filter(|_| {
            matches!(
                sp.indices.component_type,
                component::U8 | component::U16 | component::U32
            )
        })
        .ok_or(AccessorError::Unknown {
            index,
            what: "sparse indices componentType",
        })?;
    let n = sp.count;
    let ib = view_bytes(gltf, index, sp.indices.buffer_view)?.bytes;
    let vb = view_bytes(gltf, index, sp.values.buffer_view)?.bytes;
    let ib = ib
        .get(usize::try_from(sp.indices.byte_offset).unwrap_or(usize::MAX)..)
        .unwrap_or_default();
    let vb = vb
        .get(usize::try_from(sp.values.byte_offset).unwrap_or(usize::MAX)..)
        .unwrap_or_default();
    if n.saturating_mul(isize_) > ib.len() as u64 || n.saturating_mul(elem) > vb.len() as u64 {
        return Err(AccessorError::OutOfRange {
            index,
            what: format!("sparse data for {n} elements lies outside its buffer views"),
        });
    }
    let index_size = fits(index, "index size", isize_)?;
    let n = fits(index, "sparse count", n)?;
    let mut sparse = Vec::with_capacity(n);
    for k in 0..n {
        let at = k * index_size;
        let target = decode_index(
            ib.get(at..at + index_size).unwrap_or_default(),
            sp.indices.component_type,
        );
        if target >= a.count {
            return Err(AccessorError::OutOfRange {
                index,
                what: format!("sparse index {target} is not below count {}", a.count),
            });
        }
        sparse.push((target, k));
    }
    // Sorted by element, the last substitution of an element winning (the
    // specification requires increasing indices; this keeps bad files cheap). The
    // sort is stable: equal elements keep their order, and the last one stays.
    sparse.sort_by_key(|e| e.0);
    let mut deduped: Vec<(u64, usize)> = Vec::with_capacity(sparse.len());
    for e in sparse {
        match deduped.last_mut() {
            Some(last) if last.0 == e.0 => *last = e,
            _ => deduped.push(e),
        }
    }
    Ok((deduped, vb))
}

/// The view agrees with an independent reader that widens every component to `f64` the
/// straightforward way (the reader this module had before views): on generated accessors
/// of every component type, shape, stride and sparse layout, and on every accessor of the
/// real models in `fixtures/corpus/gltf`.
#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]
mod oracle {
    use super::*;
    use crate::NoFiles;
    use base64::Engine;
    use proptest::prelude::*;

    /// Every component of accessor `index`, element-major, or `None` where the view
    /// refuses it.
    fn widened(gltf: &Gltf, index: u64) -> Option<Vec<f64>> {
        let a = gltf.root.accessors.get(index as usize)?;
        let size = component::size(a.component_type)?;
        let comps = components(&a.kind)?;
        // Matrix columns start on 4-byte boundaries (glTF 2.0 §3.6.2.4).
        let rows = match a.kind.as_str() {
            "MAT2" => 2,
            "MAT3" => 3,
            "MAT4" => 4,
            _ => comps,
        };
        let column = if a.kind.starts_with("MAT") {
            (size * rows).div_ceil(4) * 4
        } else {
            size * rows
        };
        let at_c = |c: u64| (c / rows) * column + (c % rows) * size;
        let (count, elem) = (a.count, column * (comps / rows));
        let mut out = vec![0.0; (count * comps) as usize];
        if let Some(v) = a.buffer_view {
            let bv = gltf.root.buffer_views.get(v as usize)?;
            let buf = gltf.buffer(bv.buffer as usize)?.ok()?;
            let stride = bv.byte_stride.unwrap_or(elem);
            for i in 0..count {
                for c in 0..comps {
                    let at = bv.byte_offset + a.byte_offset + i * stride + at_c(c);
                    let end = at + size;
                    if end > bv.byte_offset + bv.byte_length {
                        return None;
                    }
                    let b = buf.get(at as usize..end as usize)?;
                    out[(i * comps + c) as usize] = decode(b, a.component_type);
                }
            }
        }
        if let Some(sp) = &a.sparse {
            let ib = gltf
                .root
                .buffer_views
                .get(sp.indices.buffer_view as usize)?;
            let vb = gltf.root.buffer_views.get(sp.values.buffer_view as usize)?;
            let ibuf = gltf.buffer(ib.buffer as usize)?.ok()?;
            let vbuf = gltf.buffer(vb.buffer as usize)?.ok()?;
            let isize_ = component::size(sp.indices.component_type)?;
            for k in 0..sp.count {
                let at = ib.byte_offset + sp.indices.byte_offset + k * isize_;
                let target = decode(
                    ibuf.get(at as usize..(at + isize_) as usize)?,
                    sp.indices.component_type,
                ) as u64;
                if target >= count {
                    return None;
                }
                for c in 0..comps {
                    let at = vb.byte_offset + sp.values.byte_offset + k * elem + at_c(c);
                    out[(target * comps + c) as usize] = decode(
                        vbuf.get(at as usize..(at + size) as usize)?,
                        a.component_type,
                    );
                }
            }
        }
        Some(out)
    }

    fn agree(gltf: &Gltf, index: u64) -> Result<(), String> {
        let view = read(gltf, index, &Limits::UNLIMITED);
        let Some(expected) = widened(gltf, index) else {
            return Ok(()); // Refused by the oracle: the view may refuse or read zeros.
        };
        let view = view.map_err(|e| format!("accessor {index}: view refused: {e}"))?;
        let comps = view.components;
        for i in 0..view.count {
            for c in 0..comps {
                let (got, want) = (view.get(i, c), expected[i * comps + c]);
                if got.to_bits() != want.to_bits() && !(got.is_nan() && want.is_nan()) {
                    return Err(format!(
                        "accessor {index} [{i}][{c}]: view {got}, oracle {want}"
                    ));
                }
            }
            let four = view.get4(i);
            for (c, &x) in four.iter().enumerate() {
                let want = if c < comps {
                    expected[i * comps + c]
                } else {
                    0.0
                };
                if x.to_bits() != want.to_bits() && !(x.is_nan() && want.is_nan()) {
                    return Err(format!("accessor {index} get4[{i}][{c}]: {x} vs {want}"));
                }
            }
        }
        // for_each4 gives every element get4 gives, in order, from any start.
        for from in [0, view.count / 2] {
            let mut next = from;
            let mut wrong = None;
            view.for_each4(from, |i, four| {
                let same = i == next
                    && four
                        .iter()
                        .zip(view.get4(i))
                        .all(|(a, b)| a.to_bits() == b.to_bits());
                if !same {
                    wrong = Some(i);
                }
                next += 1;
                same
            });
            if let Some(i) = wrong {
                return Err(format!(
                    "accessor {index} for_each4 from {from}: element {i}"
                ));
            }
            if next != view.count.max(from) {
                return Err(format!(
                    "accessor {index} for_each4 from {from}: stopped at {next}"
                ));
            }
        }
        Ok(())
    }

    const TYPES: [(&str, u64); 7] = [
        ("SCALAR", 1),
        ("VEC2", 2),
        ("VEC3", 3),
        ("VEC4", 4),
        ("MAT2", 4),
        ("MAT3", 9),
        ("MAT4", 16),
    ];
    const COMPONENTS: [u32; 6] = [5120, 5121, 5122, 5123, 5125, 5126];

    #[derive(Debug, Clone)]
    struct Case {
        component: u32,
        kind: usize,
        count: u64,
        offset: u64,
        extra_stride: Option<u64>,
        sparse: Vec<u64>,
        sparse_type: u32,
        with_view: bool,
        seed: Vec<u8>,
    }

    fn case() -> impl Strategy<Value = Case> {
        (
            proptest::sample::select(&COMPONENTS[..]),
            0usize..7,
            0u64..40,
            0u64..4,
            proptest::option::of(0u64..3),
            proptest::collection::vec(0u64..60, 0..6),
            proptest::sample::select(&[5121u32, 5123, 5125][..]),
            proptest::bool::weighted(0.8),
            proptest::collection::vec(any::<u8>(), 64),
        )
            .prop_map(
                |(
                    component,
                    kind,
                    count,
                    offset,
                    extra_stride,
                    sparse,
                    sparse_type,
                    with_view,
                    seed,
                )| Case {
                    component,
                    kind,
                    count,
                    offset,
                    extra_stride,
                    sparse,
                    sparse_type,
                    with_view,
                    seed,
                },
            )
    }

    /// A document with one accessor as the case describes, its data in a data URI.
    fn document(c: &Case) -> Vec<u8> {
        let size = component::size(c.component).unwrap();
        let (kind, _) = TYPES[c.kind];
        let (elem, _, _) = crate::document::element_layout(c.component, kind).unwrap();
        let offset = c.offset * size;
        let stride = c.extra_stride.map(|e| (elem + e * 4).div_ceil(4) * 4);
        let step = stride.unwrap_or(elem);
        let data_len = if c.count == 0 {
            0
        } else {
            offset + (c.count - 1) * step + elem
        };
        let mut bin: Vec<u8> = (0..data_len)
            .map(|i| c.seed[(i % 64) as usize] ^ (i as u8))
            .collect();
        let mut views = Vec::new();
        let mut accessor = serde_json::json!({
            "componentType": c.component, "count": c.count, "type": kind, "byteOffset": offset,
        });
        if c.with_view {
            let mut v = serde_json::json!({"buffer": 0, "byteOffset": 0, "byteLength": data_len});
            if let Some(s) = stride {
                v["byteStride"] = s.into();
            }
            views.push(v);
            accessor["bufferView"] = 0.into();
        } else {
            accessor.as_object_mut().unwrap().remove("byteOffset");
        }
        let targets: Vec<u64> = c.sparse.iter().filter(|&&t| t < c.count).copied().collect();
        if !targets.is_empty() {
            let isize_ = component::size(c.sparse_type).unwrap();
            while !bin.len().is_multiple_of(4) {
                bin.push(0);
            }
            let istart = bin.len() as u64;
            for &t in &targets {
                bin.extend_from_slice(&t.to_le_bytes()[..isize_ as usize]);
            }
            while !bin.len().is_multiple_of(4) {
                bin.push(0);
            }
            let vstart = bin.len() as u64;
            for k in 0..targets.len() as u64 * elem {
                bin.push(c.seed[(k % 64) as usize].wrapping_mul(7));
            }
            views.push(serde_json::json!({"buffer": 0, "byteOffset": istart, "byteLength": vstart - istart}));
            views.push(serde_json::json!({"buffer": 0, "byteOffset": vstart, "byteLength": bin.len() as u64 - vstart}));
            let n = views.len();
            accessor["sparse"] = serde_json::json!({
                "count": targets.len(),
                "indices": {"bufferView": n - 2, "componentType": c.sparse_type},
                "values": {"bufferView": n - 1},
            });
        }
        let uri = format!(
            "data:application/octet-stream;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&bin)
        );
        let mut doc = serde_json::json!({
            "asset": {"version": "2.0"},
            "buffers": [{"byteLength": bin.len(), "uri": uri}],
            "accessors": [accessor],
        });
        if !views.is_empty() {
            doc["bufferViews"] = views.into();
        }
        serde_json::to_vec(&doc).unwrap()
    }

    proptest! {
        #[test]
        fn views_agree_with_the_widening_reader(c in case()) {
            let bytes = document(&c);
            let gltf = crate::load(&bytes, &NoFiles, &Limits::default()).unwrap();
            prop_assert_eq!(agree(&gltf, 0), Ok(()));
        }
    }

    #[test]
    fn matrix_columns_are_read_past_their_padding() {
        // MAT2 UNSIGNED_BYTE: each 2-byte column padded to 4 (glTF 2.0 §3.6.2.4).
        let bin = [1u8, 2, 0, 0, 3, 4, 0, 0];
        let doc = serde_json::json!({
            "asset": {"version": "2.0"},
            "buffers": [{"byteLength": 8, "uri": format!(
                "data:application/octet-stream;base64,{}",
                base64::engine::general_purpose::STANDARD.encode(bin)
            )}],
            "bufferViews": [{"buffer": 0, "byteLength": 8}],
            "accessors": [{"bufferView": 0, "componentType": 5121, "count": 1, "type": "MAT2"}],
        });
        let bytes = serde_json::to_vec(&doc).unwrap();
        let gltf = crate::load(&bytes, &NoFiles, &Limits::default()).unwrap();
        let a = read(&gltf, 0, &Limits::default()).unwrap();
        let got: Vec<f64> = (0..4).map(|c| a.get(0, c)).collect();
        assert_eq!(got, [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(a.get4(0), [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(a.offset_of(0, 2), Some(4));
    }

    #[test]
    fn views_agree_on_every_corpus_accessor() {
        let root =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/corpus/gltf");
        let mut stack = vec![root];
        let (mut files, mut accessors) = (0, 0);
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                    continue;
                }
                let ext = p.extension().and_then(|e| e.to_str()).unwrap_or_default();
                if !matches!(ext, "gltf" | "glb") {
                    continue;
                }
                let Ok(gltf) = crate::load_path(&p, &Limits::default()) else {
                    continue;
                };
                files += 1;
                for i in 0..gltf.root.accessors.len() as u64 {
                    accessors += 1;
                    if let Err(e) = agree(&gltf, i) {
                        panic!("{}: {e}", p.display());
                    }
                }
            }
        }
        assert!(
            files >= 15 && accessors >= 100,
            "{files} files, {accessors} accessors"
        );
    }
}
