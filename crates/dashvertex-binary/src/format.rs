//! Constants of the binary form (`spec/dashvertex.md` §10): magic, tags, sizes, offsets.

/// The container magic `DMX\0`.
pub(crate) const MAGIC: [u8; 4] = *b"DMX\0";
/// The only supported `versionMajor`.
pub(crate) const VERSION_MAJOR: u32 = 2;
/// `versionMinor` of files that use only DMX v2 features.
pub(crate) const MINOR_PLAIN: u32 = 0;
/// `versionMinor` of files that use a dash extension (VSET, 16-byte VERT records).
pub(crate) const MINOR_EXTENDED: u32 = 1;

/// Size of a header row.
pub(crate) const ROW: u64 = 16;
/// Offset of the first section row.
pub(crate) const TABLE_START: u64 = 16;

/// A four-byte section tag.
pub type Tag = [u8; 4];

/// Textures (DMX; not modelled).
pub(crate) const TEX: Tag = *b"TEX\0";
/// Materials (DMX; not modelled).
pub(crate) const MAT: Tag = *b"MAT\0";
/// Vertices (§10.4): 48-byte records, or 16-byte ones in an unskinned file.
pub(crate) const VERT: Tag = *b"VERT";
/// Faces (DMX; not modelled).
pub(crate) const FACE: Tag = *b"FACE";
/// Bones (§10.6): 80-byte records.
pub(crate) const SKEL: Tag = *b"SKEL";
/// Animations (DMX; not modelled).
pub(crate) const ANIM: Tag = *b"ANIM";
/// Influence sets 1.. (dash extension).
pub(crate) const VSET: Tag = *b"VSET";

/// The DMX v2 rows, in the order writers emit them.
pub(crate) const DMX_ROWS: [Tag; 6] = [TEX, MAT, VERT, FACE, SKEL, ANIM];

/// Size of the full VERT record.
pub(crate) const VERTEX_SIZE: u64 = 48;
/// Size of the unskinned (compact) VERT record.
pub(crate) const COMPACT_SIZE: u64 = 16;
/// Size of a VSET record.
pub const SET_SIZE: u64 = 32;
/// Size of a SKEL record.
pub const BONE_SIZE: u64 = 80;
/// Size of the bone name field.
pub const NAME_SIZE: usize = 32;
/// `parentIndex` of a bone without parent.
pub(crate) const NO_PARENT: u32 = u32::MAX;

/// Offsets of the VERT record fields.
pub mod vertex {
    /// `index` (u32): should equal the record's position in the section (§9); readers
    /// ignore the stored value.
    pub const INDEX: u64 = 0x00;
    /// `x`, then `y` at +4 and `z` at +8.
    pub const POSITION: u64 = 0x04;
    /// `skinIndex[0]`; slot k at +4k.
    pub const SKIN_INDEX: u64 = 0x10;
    /// `skinWeight[0]`; slot k at +4k.
    pub const SKIN_WEIGHT: u64 = 0x20;
}

/// Offsets of the VSET record fields.
pub mod set {
    /// `skinIndex[0]`; slot k at +4k.
    pub const SKIN_INDEX: u64 = 0x00;
    /// `skinWeight[0]`; slot k at +4k.
    pub const SKIN_WEIGHT: u64 = 0x10;
}

/// Offsets of the SKEL record fields.
pub mod bone {
    /// `name` (32 bytes): UTF-8, NUL-terminated, zero-filled (rule B6).
    pub const NAME: u64 = 0x00;
    /// `index` (u32): should equal the record's position in the section (§9).
    pub const INDEX: u64 = 0x20;
    /// `parentIndex` (u32): the parent's bone index; `0xFFFFFFFF` for no parent, or 0 for
    /// bone 0 (§10.6).
    pub const PARENT: u64 = 0x24;
    /// `position` (3 × f32): the local translation x, y, z.
    pub const POSITION: u64 = 0x28;
    /// `rotation` (4 × f32): the local rotation quaternion x, y, z, w.
    pub const ROTATION: u64 = 0x34;
    /// `scale` (3 × f32): the local scale x, y, z.
    pub const SCALE: u64 = 0x44;
}

/// The tag as text for messages (`"TEX"`, `"VERT"`, or hex for non-ASCII tags).
pub fn tag_name(tag: &Tag) -> String {
    let trimmed: &[u8] = match tag.iter().position(|&b| b == 0) {
        Some(n) if tag.get(n..).is_some_and(|r| r.iter().all(|&b| b == 0)) => {
            tag.get(..n).unwrap_or(tag)
        }
        _ => tag,
    };
    if !trimmed.is_empty() && trimmed.iter().all(|b| b.is_ascii_graphic()) {
        String::from_utf8_lossy(trimmed).into_owned()
    } else {
        format!("0x{:08X}", u32::from_le_bytes(*tag))
    }
}

/// The record stride of a known modelled tag.
pub(crate) fn stride(tag: &Tag) -> Option<u64> {
    match *tag {
        SKEL => Some(BONE_SIZE),
        VSET => Some(SET_SIZE),
        _ => None,
    }
}
