//! Reading accessor data, with every offset checked: no panic, no allocation beyond what
//! the buffers hold (or the configured limits for data-less accessors).

use dash_core::Limits;

use crate::error::AccessorError;
use crate::load::Gltf;
use crate::spec::{component, components};

/// An accessor's elements, each component widened to `f64` (exact for every glTF
/// component type: integers are raw, not normalized).
#[derive(Clone, Debug, PartialEq)]
pub struct AccessorData {
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
    /// `count × components` values, element-major; empty for an accessor without a buffer
    /// view, whose elements are zero except the `sparse` ones.
    pub values: Vec<f64>,
    /// Sparse elements of a data-less accessor, sorted by element: `(element, values)`.
    /// (With a buffer view, sparse values are applied to `values` directly.)
    pub sparse: Vec<(u64, Vec<f64>)>,
    /// Where element 0 starts in its buffer, and the buffer (none for data-less
    /// accessors).
    pub origin: Option<(u64, u64)>,
    /// Bytes between elements.
    pub stride: u64,
}

impl AccessorData {
    /// Component `c` of element `i`.
    pub fn get(&self, i: usize, c: usize) -> f64 {
        if self.values.is_empty() {
            return match self.sparse.binary_search_by_key(&(i as u64), |e| e.0) {
                Ok(k) => self
                    .sparse
                    .get(k)
                    .and_then(|e| e.1.get(c))
                    .copied()
                    .unwrap_or(0.0),
                Err(_) => 0.0,
            };
        }
        self.values
            .get(i * self.components + c)
            .copied()
            .unwrap_or(0.0)
    }

    /// Byte offset in its buffer of component `c` of element `i`.
    pub fn offset_of(&self, i: usize, c: usize) -> Option<u64> {
        let size = component::size(self.component_type)?;
        self.origin
            .map(|(start, _)| start + i as u64 * self.stride + c as u64 * size)
    }
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
        component::I8 => f64::from(a[0] as i8),
        component::U8 => f64::from(a[0]),
        component::I16 => f64::from(i16::from_le_bytes([a[0], a[1]])),
        component::U16 => f64::from(u16::from_le_bytes([a[0], a[1]])),
        component::U32 => f64::from(u32::from_le_bytes(a)),
        component::F32 => f64::from(f32::from_le_bytes(a)),
        _ => 0.0,
    }
}

/// The elements of an accessor in its buffer view (bounds checked by the caller).
struct Run<'b> {
    bytes: &'b [u8],
    start: u64,
    stride: u64,
    count: u64,
    comps: u64,
}

impl Run<'_> {
    /// Appends `count × comps` components of `N` bytes each, widened by `widen`; a
    /// component beyond the bytes (which the caller's checks rule out) reads as 0, as
    /// [`decode`] reads it.
    fn decode<const N: usize>(&self, out: &mut Vec<f64>, widen: impl Fn([u8; N]) -> f64) {
        let width = self.comps as usize * N;
        for i in 0..self.count {
            let at = usize::try_from(self.start + i * self.stride).unwrap_or(usize::MAX);
            let elem = self
                .bytes
                .get(at..)
                .map(|b| b.get(..width).unwrap_or(b))
                .unwrap_or_default();
            let mut got = 0;
            for c in elem.chunks_exact(N) {
                out.push(widen(<[u8; N]>::try_from(c).unwrap_or([0; N])));
                got += 1;
            }
            for _ in got..self.comps {
                out.push(0.0);
            }
        }
    }
}

/// A buffer view's bytes, its offset in the buffer, the buffer, and its stride.
struct View<'g> {
    bytes: &'g [u8],
    offset: u64,
    buffer: u64,
    stride: Option<u64>,
}

/// The bytes of buffer view `view`, checked against its buffer.
fn view_bytes(gltf: &Gltf, index: u64, view: u64) -> Result<View<'_>, AccessorError> {
    let bv = usize::try_from(view)
        .ok()
        .and_then(|v| gltf.root.buffer_views.get(v))
        .ok_or(AccessorError::NoView { index, view })?;
    let buf = usize::try_from(bv.buffer)
        .ok()
        .and_then(|b| gltf.buffers.get(b))
        .ok_or_else(|| AccessorError::Buffer {
            index,
            buffer: bv.buffer,
            why: "it does not exist".into(),
        })?
        .as_ref()
        .map_err(|why| AccessorError::Buffer {
            index,
            buffer: bv.buffer,
            why: why.clone(),
        })?;
    let end = bv.byte_offset.checked_add(bv.byte_length);
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

/// Reads accessor `index`.
pub fn read(gltf: &Gltf, index: u64, limits: &Limits) -> Result<AccessorData, AccessorError> {
    let a = usize::try_from(index)
        .ok()
        .and_then(|i| gltf.root.accessors.get(i))
        .ok_or(AccessorError::Missing(index))?;
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
    let count = a.count as usize;
    let elem = size * comps;
    let mut data = AccessorData {
        index,
        component_type: a.component_type,
        components: comps as usize,
        normalized: a.normalized,
        count,
        values: Vec::new(),
        sparse: Vec::new(),
        origin: None,
        stride: elem,
    };
    // Without a buffer view the elements are zeros: nothing is allocated for them (memory
    // never follows a declared count).
    if let Some(view) = a.buffer_view {
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
        data.values.reserve(count * comps as usize);
        let run = Run {
            bytes,
            start: a.byte_offset,
            stride,
            count: count as u64,
            comps,
        };
        let out = &mut data.values;
        match a.component_type {
            component::I8 => run.decode(out, |[b]: [u8; 1]| f64::from(b as i8)),
            component::U8 => run.decode(out, |[b]: [u8; 1]| f64::from(b)),
            component::I16 => run.decode(out, |b| f64::from(i16::from_le_bytes(b))),
            component::U16 => run.decode(out, |b| f64::from(u16::from_le_bytes(b))),
            component::U32 => run.decode(out, |b| f64::from(u32::from_le_bytes(b))),
            component::F32 => run.decode(out, |b| f64::from(f32::from_le_bytes(b))),
            // Unknown component types were refused above; like `decode`, they read as 0.
            _ => out.resize(count * comps as usize, 0.0),
        }
        data.origin = Some((view_offset + a.byte_offset, buffer));
        data.stride = stride;
    }
    if let Some(sp) = &a.sparse {
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
        for k in 0..n {
            let at = (k * isize_) as usize;
            let target = decode(
                ib.get(at..at + isize_ as usize).unwrap_or_default(),
                sp.indices.component_type,
            ) as u64;
            if target >= a.count {
                return Err(AccessorError::OutOfRange {
                    index,
                    what: format!("sparse index {target} is not below count {}", a.count),
                });
            }
            let values: Vec<f64> = (0..comps)
                .map(|c| {
                    let at = (k * elem + c * size) as usize;
                    decode(
                        vb.get(at..at + size as usize).unwrap_or_default(),
                        a.component_type,
                    )
                })
                .collect();
            if data.values.is_empty() {
                data.sparse.push((target, values));
            } else {
                for (c, v) in values.into_iter().enumerate() {
                    if let Some(slot) = data.values.get_mut(target as usize * comps as usize + c) {
                        *slot = v;
                    }
                }
            }
        }
        // Sorted by element, the last substitution of an element winning (the
        // specification requires increasing indices; this keeps bad files cheap).
        data.sparse.sort_by_key(|e| e.0);
        let mut deduped: Vec<(u64, Vec<f64>)> = Vec::with_capacity(data.sparse.len());
        for e in data.sparse.drain(..) {
            match deduped.last_mut() {
                Some(last) if last.0 == e.0 => *last = e,
                _ => deduped.push(e),
            }
        }
        data.sparse = deduped;
        // Sparse elements do not live at `origin + i × stride`.
        data.origin = None;
    }
    Ok(data)
}
