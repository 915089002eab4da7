//! Building blocks for edits that add objects rather than change influence data: a new
//! accessor holding chosen elements of a source accessor (a primitive cut into parts),
//! an index accessor, and access to the JSON for the meshes, nodes and skins that refer
//! to them. The bytes go into new buffer views of buffer 0, as every edit's do.

use serde_json::{Value, json};

use super::{Editor, ExportError, arr};
use crate::document::{component, components};

/// ARRAY_BUFFER, the target of vertex attribute views.
const ARRAY_BUFFER: u32 = 34962;
/// ELEMENT_ARRAY_BUFFER, the target of index views.
const ELEMENT_ARRAY_BUFFER: u32 = 34963;

/// Component `x` (an exact value of `ctype`, as [`crate::accessor::AccessorData::get`]
/// gives it) appended to `out` in `ctype`'s little-endian encoding.
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "x was decoded from ctype, so it is a whole number in ctype's range (or an f32)"
)]
fn encode(out: &mut Vec<u8>, ctype: u32, x: f64) {
    match ctype {
        component::I8 => out.push((x as i8).to_le_bytes()[0]),
        component::U8 => out.push(x as u8),
        component::I16 => out.extend_from_slice(&(x as i16).to_le_bytes()),
        component::U16 => out.extend_from_slice(&(x as u16).to_le_bytes()),
        component::U32 => out.extend_from_slice(&(x as u32).to_le_bytes()),
        _ => out.extend_from_slice(&(x as f32).to_le_bytes()),
    }
}

impl Editor<'_> {
    /// The document's JSON as the edit has it, for adding or changing meshes, nodes,
    /// skins and animation channels. Accessors and buffer views are added through the
    /// editor's methods, which also give their bytes.
    pub fn json_mut(&mut self) -> &mut Value {
        &mut self.value
    }

    /// Marks source accessor `index` as no longer wanted by the edit: when nothing refers
    /// to it at the end, it is pruned with the views only it used.
    pub fn mark_replaced(&mut self, index: u64) {
        if let Ok(i) = usize::try_from(index) {
            self.replaced.insert(i);
        }
    }

    /// Appends `object` to the root array `key` ("meshes", "nodes", "skins"); returns its
    /// index.
    pub fn push(&mut self, key: &str, object: Value) -> Result<usize, ExportError> {
        let a = arr(&mut self.value, key)?;
        a.push(object);
        Ok(a.len() - 1)
    }

    /// Adds an accessor holding the elements `rows` of source accessor `src`, in that
    /// order, with its component type, type and `normalized` flag; `min`/`max` are
    /// computed over the rows when the source declares them. Values are copied exactly
    /// (sparse substitutions applied). A `vertex` accessor's elements are padded to 4
    /// bytes (with `byteStride`) as vertex attributes must be. Returns the new index.
    pub fn gather(&mut self, src: u64, rows: &[u32], vertex: bool) -> Result<usize, ExportError> {
        let gltf = self.gltf;
        let data = crate::accessor::read(gltf, src, &dashvertex_core::Limits::UNLIMITED)
            .map_err(|e| ExportError::Shape(e.to_string()))?;
        let a = usize::try_from(src)
            .ok()
            .and_then(|i| gltf.root.accessors.get(i))
            .ok_or_else(|| ExportError::Missing(format!("accessor {src} does not exist")))?;
        let ctype = a.component_type;
        let size = component::size(ctype)
            .and_then(|s| usize::try_from(s).ok())
            .ok_or_else(|| ExportError::Shape(format!("accessor {src}: unknown componentType")))?;
        let comps = components(&a.kind)
            .and_then(|c| usize::try_from(c).ok())
            .ok_or_else(|| ExportError::Shape(format!("accessor {src}: unknown type")))?;
        if a.kind.starts_with("MAT") && size < 4 {
            return Err(ExportError::Shape(format!(
                "accessor {src}: {} of {}-byte components cannot be copied element by element",
                a.kind, size
            )));
        }
        let elem = size * comps;
        let stride = if vertex {
            elem.next_multiple_of(4)
        } else {
            elem
        };
        let mut bytes = Vec::with_capacity(rows.len().saturating_mul(stride));
        let declared = |k: &str| {
            gltf.value
                .pointer(&format!("/accessors/{src}/{k}"))
                .and_then(Value::as_array)
                .is_some()
        };
        let bounds = declared("min") && declared("max");
        let mut lo = vec![f64::INFINITY; comps];
        let mut hi = vec![f64::NEG_INFINITY; comps];
        for &r in rows {
            let i = usize::try_from(r).unwrap_or(usize::MAX);
            if i >= data.count {
                return Err(ExportError::Shape(format!(
                    "accessor {src} has {} elements; element {r} was asked for",
                    data.count
                )));
            }
            for c in 0..comps {
                let x = data.get(i, c);
                encode(&mut bytes, ctype, x);
                if bounds {
                    if let Some(l) = lo.get_mut(c) {
                        *l = l.min(x);
                    }
                    if let Some(h) = hi.get_mut(c) {
                        *h = h.max(x);
                    }
                }
            }
            bytes.resize(bytes.len() + (stride - elem), 0);
        }
        let target = vertex.then_some(ARRAY_BUFFER);
        let view = self.view(bytes, target)?;
        if stride != elem
            && let Some(v) = self
                .value
                .pointer_mut(&format!("/bufferViews/{view}"))
                .and_then(Value::as_object_mut)
        {
            v.insert("byteStride".into(), json!(stride));
        }
        let acc = self.accessor(view, ctype, &a.kind, rows.len(), a.normalized)?;
        if bounds
            && !rows.is_empty()
            && let Some(o) = self
                .value
                .pointer_mut(&format!("/accessors/{acc}"))
                .and_then(Value::as_object_mut)
        {
            #[allow(
                clippy::cast_possible_truncation,
                reason = "an integer component is a whole number within i64"
            )]
            let num = |x: f64| {
                if ctype == component::F32 {
                    json!(x)
                } else {
                    json!(x as i64)
                }
            };
            o.insert(
                "min".into(),
                Value::Array(lo.into_iter().map(num).collect()),
            );
            o.insert(
                "max".into(),
                Value::Array(hi.into_iter().map(num).collect()),
            );
        }
        Ok(acc)
    }

    /// Adds an index accessor over `indices`: `ctype` (UNSIGNED_BYTE, _SHORT or _INT)
    /// when every index fits it, else the narrowest of UNSIGNED_SHORT and UNSIGNED_INT
    /// that fits. Returns the new index.
    pub fn add_indices(&mut self, indices: &[u32], ctype: u32) -> Result<usize, ExportError> {
        let max = indices.iter().copied().max().unwrap_or(0);
        let fits = |t: u32| match t {
            component::U8 => max < 255,
            component::U16 => max < 65535,
            component::U32 => max < u32::MAX,
            _ => false,
        };
        let t = [ctype, component::U16, component::U32]
            .into_iter()
            .find(|&t| fits(t))
            .ok_or_else(|| ExportError::Shape(format!("index {max} does not fit an index")))?;
        let mut bytes = Vec::with_capacity(indices.len() * 4);
        for &i in indices {
            encode(&mut bytes, t, f64::from(i));
        }
        let view = self.view(bytes, Some(ELEMENT_ARRAY_BUFFER))?;
        self.accessor(view, t, "SCALAR", indices.len(), false)
    }

    /// Adds a FLOAT vertex-attribute accessor of `kind` ("VEC3", "VEC4", …) holding
    /// `values`, element after element, tightly packed in a new view (every FLOAT element
    /// is a multiple of 4 bytes); with `bounds`, its `min`/`max` are computed over the
    /// values. Returns the new index; a length that is no multiple of the type's
    /// components is refused.
    pub fn add_floats(
        &mut self,
        kind: &str,
        values: &[f32],
        bounds: bool,
    ) -> Result<usize, ExportError> {
        let comps = components(kind)
            .and_then(|c| usize::try_from(c).ok())
            .filter(|&c| c > 0 && values.len().is_multiple_of(c))
            .ok_or_else(|| {
                ExportError::Shape(format!(
                    "{} values do not make {kind} elements",
                    values.len()
                ))
            })?;
        let bytes: Vec<u8> = values.iter().flat_map(|x| x.to_le_bytes()).collect();
        let view = self.view(bytes, Some(ARRAY_BUFFER))?;
        let acc = self.accessor(view, component::F32, kind, values.len() / comps, false)?;
        if bounds
            && !values.is_empty()
            && let Some(o) = self
                .value
                .pointer_mut(&format!("/accessors/{acc}"))
                .and_then(Value::as_object_mut)
        {
            let mut lo = vec![f32::INFINITY; comps];
            let mut hi = vec![f32::NEG_INFINITY; comps];
            for element in values.chunks_exact(comps) {
                for ((l, h), &x) in lo.iter_mut().zip(hi.iter_mut()).zip(element) {
                    *l = l.min(x);
                    *h = h.max(x);
                }
            }
            let num = |v: Vec<f32>| Value::Array(v.into_iter().map(|x| json!(x)).collect());
            o.insert("min".into(), num(lo));
            o.insert("max".into(), num(hi));
        }
        Ok(acc)
    }
}
