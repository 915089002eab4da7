//! The on-disk records as zerocopy views: little-endian fields with alignment 1, so any
//! byte slice of the right length can be viewed in place, without `unsafe`.

use zerocopy::little_endian::{F32, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

/// Header row 0.
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub(crate) struct RawHeader {
    /// `DMX\0`.
    pub magic: [u8; 4],
    /// `versionMajor`.
    pub major: U32,
    /// `versionMinor`.
    pub minor: U32,
    /// `isSkinned`.
    pub skinned: U32,
}

/// A section row.
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub(crate) struct RawRow {
    /// Tag.
    pub tag: [u8; 4],
    /// Record count.
    pub count: U32,
    /// Absolute offset.
    pub offset: U32,
    /// Length in bytes.
    pub length: U32,
}

/// The 48-byte VERT record.
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct RawVertex {
    /// `index`.
    pub index: U32,
    /// `x`, `y`, `z`.
    pub position: [F32; 3],
    /// `skinIndex[4]`.
    pub skin_index: [U32; 4],
    /// `skinWeight[4]`.
    pub skin_weight: [F32; 4],
}

/// The 16-byte unskinned VERT record.
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct RawCompactVertex {
    /// `index`.
    pub index: U32,
    /// `x`, `y`, `z`.
    pub position: [F32; 3],
}

/// The 32-byte VSET record.
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct RawSet {
    /// `skinIndex[4]`.
    pub skin_index: [U32; 4],
    /// `skinWeight[4]`.
    pub skin_weight: [F32; 4],
}

/// The 80-byte SKEL record.
#[derive(Clone, Copy, Debug, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct RawBone {
    /// `name[32]`.
    pub name: [u8; 32],
    /// `index`.
    pub index: U32,
    /// `parentIndex`.
    pub parent: U32,
    /// `position`.
    pub position: [F32; 3],
    /// `rotation`.
    pub rotation: [F32; 4],
    /// `scale`.
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
    /// The position.
    pub fn position(&self) -> [f32; 3] {
        f32s(&self.position)
    }

    /// Set 0.
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
