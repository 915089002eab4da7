//! The binary buffer of a GLB being written: buffer views and accessors appended in order.

use serde_json::{Value, json};

/// `ARRAY_BUFFER`: a view of vertex attributes.
pub(crate) const VERTICES: u32 = 34962;
/// `ELEMENT_ARRAY_BUFFER`: a view of indices.
pub(crate) const INDICES: u32 = 34963;
/// `FLOAT`.
pub(crate) const FLOAT: u32 = 5126;
/// `UNSIGNED_SHORT`.
pub(crate) const UNSIGNED_SHORT: u32 = 5123;
/// `UNSIGNED_INT`.
pub(crate) const UNSIGNED_INT: u32 = 5125;

/// The buffer, its views and accessors.
#[derive(Default)]
pub(crate) struct Buffer {
    pub bin: Vec<u8>,
    pub views: Vec<Value>,
    pub accessors: Vec<Value>,
}

impl Buffer {
    /// Appends `bytes` as a view (4-byte aligned) with an optional `target`.
    fn view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let mut v = json!({ "buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len() });
        if let (Some(t), Some(o)) = (target, v.as_object_mut()) {
            o.insert("target".into(), json!(t));
        }
        self.bin.extend_from_slice(bytes);
        self.views.push(v);
        self.views.len() - 1
    }

    /// Appends `bytes` as a view of their own (an image), giving its index.
    pub(crate) fn raw(&mut self, bytes: &[u8]) -> usize {
        self.view(bytes, None)
    }

    /// Appends an accessor of `count` elements of `kind` (`VEC3`, …) over a new view.
    fn accessor(
        &mut self,
        bytes: &[u8],
        target: Option<u32>,
        component: u32,
        kind: &str,
        count: usize,
        extra: Option<(Value, Value)>,
    ) -> usize {
        let view = self.view(bytes, target);
        let mut a =
            json!({ "bufferView": view, "componentType": component, "count": count, "type": kind });
        if let (Some((min, max)), Some(o)) = (extra, a.as_object_mut()) {
            o.insert("min".into(), min);
            o.insert("max".into(), max);
        }
        self.accessors.push(a);
        self.accessors.len() - 1
    }

    /// FLOAT elements of `N` components; with their bounds when `bounds` (POSITION and
    /// animation input need them).
    pub fn floats<const N: usize>(
        &mut self,
        data: &[[f32; N]],
        target: Option<u32>,
        bounds: bool,
    ) -> usize {
        let kind = match N {
            1 => "SCALAR",
            2 => "VEC2",
            3 => "VEC3",
            4 => "VEC4",
            _ => "MAT4",
        };
        let bytes: Vec<u8> = data
            .iter()
            .flatten()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let extra = bounds.then(|| {
            let mut min = [f32::INFINITY; N];
            let mut max = [f32::NEG_INFINITY; N];
            for e in data {
                for ((lo, hi), x) in min.iter_mut().zip(max.iter_mut()).zip(e) {
                    *lo = lo.min(*x);
                    *hi = hi.max(*x);
                }
            }
            (json!(min.to_vec()), json!(max.to_vec()))
        });
        self.accessor(&bytes, target, FLOAT, kind, data.len(), extra)
    }

    /// UNSIGNED_SHORT VEC4 (joints).
    pub fn joints(&mut self, data: &[[u16; 4]]) -> usize {
        let bytes: Vec<u8> = data
            .iter()
            .flatten()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        self.accessor(
            &bytes,
            Some(VERTICES),
            UNSIGNED_SHORT,
            "VEC4",
            data.len(),
            None,
        )
    }

    /// UNSIGNED_INT SCALAR (indices).
    pub fn indices(&mut self, data: &[u32]) -> usize {
        let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.accessor(
            &bytes,
            Some(INDICES),
            UNSIGNED_INT,
            "SCALAR",
            data.len(),
            None,
        )
    }
}

/// The GLB container of `json` and `bin`.
pub(crate) fn glb(json: &Value, bin: &[u8]) -> Vec<u8> {
    let mut text = json.to_string().into_bytes();
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let mut bin_chunk = bin.to_vec();
    while !bin_chunk.len().is_multiple_of(4) {
        bin_chunk.push(0);
    }
    let has_bin = !bin_chunk.is_empty();
    let total = 12 + 8 + text.len() + if has_bin { 8 + bin_chunk.len() } else { 0 };
    let mut out = Vec::with_capacity(total);
    let u32le = |n: usize| u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes();
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&u32le(total));
    out.extend_from_slice(&u32le(text.len()));
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    if has_bin {
        out.extend_from_slice(&u32le(bin_chunk.len()));
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&bin_chunk);
    }
    out
}
