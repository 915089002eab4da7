//! VEC4 elements read in place, without widening to `f64`: the bytes of one element or
//! of a run of them, and one element of integer or float components decoded. The typed
//! readers of influence sets (the set view, remap, fix) read joints and weights with
//! these where the storage is the usual one, and through [`AccessorData::get4`] where not.

use super::{AccessorData, size_of};
use crate::document::component;

impl AccessorData<'_> {
    /// The bytes of VEC4 element `i` (four components of `size` bytes, tightly packed
    /// within the element), read in place: `None` when the accessor is sparse, has no
    /// buffer view, is not a 4-component vector of that component size, or has no element
    /// `i`. The typed readers of influence sets decode these without widening to `f64`.
    #[inline]
    pub fn vec4_bytes(&self, i: usize, size: usize) -> Option<&[u8]> {
        if !self.sparse.is_empty()
            || i >= self.count
            || self.components != 4
            || self.rows != 4
            || size_of(self.component_type) != Some(size)
        {
            return None;
        }
        let at = usize::try_from(i as u64 * self.stride).ok()?;
        self.bytes?.get(at..at.checked_add(4 * size)?)
    }

    /// VEC4 element `i` of UNSIGNED_BYTE or UNSIGNED_SHORT components as the integers
    /// stored (whether or not the accessor is normalized), read in place; `None` for any
    /// other component type and where [`AccessorData::vec4_bytes`] gives none.
    #[inline]
    pub fn stored_u32x4(&self, i: usize) -> Option<[u32; 4]> {
        match self.component_type {
            component::U8 => self
                .vec4_bytes(i, 1)
                .and_then(|b| <[u8; 4]>::try_from(b).ok())
                .map(|b| b.map(u32::from)),
            component::U16 => self
                .vec4_bytes(i, 2)
                .and_then(|b| <[u8; 8]>::try_from(b).ok())
                .map(|b| u16x4_le(b).map(u32::from)),
            _ => None,
        }
    }

    /// VEC4 element `i` of FLOAT components, read in place; `None` for any other
    /// component type and where [`AccessorData::vec4_bytes`] gives none.
    #[inline]
    pub fn f32x4(&self, i: usize) -> Option<[f32; 4]> {
        if self.component_type != component::F32 {
            return None;
        }
        let b = <[u8; 16]>::try_from(self.vec4_bytes(i, 4)?).ok()?;
        Some(f32x4_le(b))
    }

    /// The bytes of VEC4 elements `start..start + n` (four components of `size` bytes,
    /// tightly packed within each element), read in place, with the stride between
    /// elements; the same conditions as [`AccessorData::vec4_bytes`].
    #[inline]
    pub fn vec4_run(&self, start: usize, n: usize, size: usize) -> Option<(&[u8], usize)> {
        if !self.sparse.is_empty()
            || start.checked_add(n)? > self.count
            || self.components != 4
            || self.rows != 4
            || size_of(self.component_type) != Some(size)
        {
            return None;
        }
        let stride = usize::try_from(self.stride).ok()?;
        let at = start.checked_mul(stride)?;
        Some((self.bytes?.get(at..)?, stride))
    }
}

/// Four FLOAT components from their little-endian bytes, as a VEC4 element stores them.
#[inline]
pub fn f32x4_le(b: [u8; 16]) -> [f32; 4] {
    let [
        a0,
        a1,
        a2,
        a3,
        b0,
        b1,
        b2,
        b3,
        c0,
        c1,
        c2,
        c3,
        d0,
        d1,
        d2,
        d3,
    ] = b;
    [
        f32::from_le_bytes([a0, a1, a2, a3]),
        f32::from_le_bytes([b0, b1, b2, b3]),
        f32::from_le_bytes([c0, c1, c2, c3]),
        f32::from_le_bytes([d0, d1, d2, d3]),
    ]
}

/// Four UNSIGNED_SHORT components from their little-endian bytes, as a VEC4 element
/// stores them.
#[inline]
pub fn u16x4_le(b: [u8; 8]) -> [u16; 4] {
    let [a0, a1, b0, b1, c0, c1, d0, d1] = b;
    [
        u16::from_le_bytes([a0, a1]),
        u16::from_le_bytes([b0, b1]),
        u16::from_le_bytes([c0, c1]),
        u16::from_le_bytes([d0, d1]),
    ]
}
