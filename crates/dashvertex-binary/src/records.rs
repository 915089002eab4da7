//! The on-disk records as zerocopy views: little-endian fields with alignment 1, so any
//! byte slice of the right length can be viewed in place, without `unsafe`.

use zerocopy::little_endian::{F32, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

/// Header row 0.
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub(crate) struct RawHeader {
    /// Bytes 0x00–0x03: the magic, `DMX\0` in a container.
    pub magic: [u8; 4],
    /// Bytes 0x04–0x07: `versionMajor`, 2 in every file dash accepts.
    pub major: U32,
    /// Bytes 0x08–0x0B: `versionMinor`; any value is accepted.
    pub minor: U32,
    /// Bytes 0x0C–0x0F: `isSkinned`, 0 or 1.
    pub skinned: U32,
}

/// A section row.
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub(crate) struct RawRow {
    /// Row bytes 0x00–0x03: the section tag; four zero bytes in an empty slot.
    pub tag: [u8; 4],
    /// Row bytes 0x04–0x07: the number of records in the section.
    pub count: U32,
    /// Row bytes 0x08–0x0B: where the section starts, in bytes from the start of the file.
    pub offset: U32,
    /// Row bytes 0x0C–0x0F: the section's length in bytes; 0 means the section is absent.
    pub length: U32,
}

/// The 48-byte VERT record.
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct RawVertex {
    /// Bytes 0x00–0x03: `index`, which should equal the record's position in the section
    /// (§9); readers ignore it and writers write the position.
    pub index: U32,
    /// Bytes 0x04–0x0F: `x`, `y`, `z`.
    pub position: [F32; 3],
    /// Bytes 0x10–0x1F: `skinIndex[0..4]`, the bone indices of set 0.
    pub skin_index: [U32; 4],
    /// Bytes 0x20–0x2F: `skinWeight[0..4]`, the weights of set 0; slot `k` goes with
    /// `skin_index[k]`.
    pub skin_weight: [F32; 4],
}

/// The 16-byte unskinned VERT record.
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct RawCompactVertex {
    /// Bytes 0x00–0x03: `index`, which should equal the record's position in the section
    /// (§9); readers ignore it and writers write the position.
    pub index: U32,
    /// Bytes 0x04–0x0F: `x`, `y`, `z`.
    pub position: [F32; 3],
}

/// The 32-byte VSET record.
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct RawSet {
    /// Bytes 0x00–0x0F: `skinIndex[0..4]`, the bone indices of this set.
    pub skin_index: [U32; 4],
    /// Bytes 0x10–0x1F: `skinWeight[0..4]`, the weights of this set; slot `k` goes with
    /// `skin_index[k]`.
    pub skin_weight: [F32; 4],
}

/// The 80-byte SKEL record.
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct RawBone {
    /// Bytes 0x00–0x1F: `name`, UTF-8, NUL-terminated and zero-filled (rule B6;
    /// [`decode_name`](crate::decode_name) checks it).
    pub name: [u8; 32],
    /// Bytes 0x20–0x23: `index`, which should equal the record's position in the section
    /// (§9).
    pub index: U32,
    /// Bytes 0x24–0x27: `parentIndex`, the parent's bone index; `0xFFFFFFFF` for no
    /// parent, or 0 for bone 0 (§10.6, [`parent_from_raw`](crate::parent_from_raw)).
    pub parent: U32,
    /// Bytes 0x28–0x33: `position`, the local translation x, y, z.
    pub position: [F32; 3],
    /// Bytes 0x34–0x43: `rotation`, the local rotation quaternion x, y, z, w.
    pub rotation: [F32; 4],
    /// Bytes 0x44–0x4F: `scale`, the local scale x, y, z.
    pub scale: [F32; 3],
}

const _: () = assert!(size_of::<RawHeader>() == 16);
const _: () = assert!(size_of::<RawRow>() == 16);
const _: () = assert!(size_of::<RawVertex>() == 48);
const _: () = assert!(size_of::<RawCompactVertex>() == 16);
const _: () = assert!(size_of::<RawSet>() == 32);
const _: () = assert!(size_of::<RawBone>() == 80);

fn u32s<const N: usize>(a: &[U32; N]) -> [u32; N] {
    a.map(U32::get)
}

fn f32s<const N: usize>(a: &[F32; N]) -> [f32; N] {
    a.map(F32::get)
}

impl RawVertex {
    /// `x`, `y`, `z` as native `f32` values, every bit kept.
    pub fn position(&self) -> [f32; 3] {
        f32s(&self.position)
    }

    /// Set 0 (`skinIndex` / `skinWeight`) as a model set, every bit kept.
    pub fn set(&self) -> dashvertex_core::InfluenceSet {
        dashvertex_core::InfluenceSet {
            joints: u32s(&self.skin_index),
            weights: f32s(&self.skin_weight),
        }
    }

    /// The model vertex.
    pub fn vertex(&self) -> dashvertex_core::Vertex {
        dashvertex_core::Vertex {
            position: self.position(),
            skin: self.set(),
        }
    }
}

impl RawCompactVertex {
    /// The model vertex (no influences).
    pub fn vertex(&self) -> dashvertex_core::Vertex {
        dashvertex_core::Vertex::at(f32s(&self.position))
    }
}

impl RawSet {
    /// The influence set.
    pub fn set(&self) -> dashvertex_core::InfluenceSet {
        dashvertex_core::InfluenceSet {
            joints: u32s(&self.skin_index),
            weights: f32s(&self.skin_weight),
        }
    }
}

impl RawBone {
    /// The position, rotation and scale.
    pub fn transform(&self) -> ([f32; 3], [f32; 4], [f32; 3]) {
        (
            f32s(&self.position),
            f32s(&self.rotation),
            f32s(&self.scale),
        )
    }
}
