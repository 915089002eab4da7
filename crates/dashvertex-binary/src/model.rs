//! What a decoded binary file holds.

use dashvertex_core::{Bone, Document, InfluenceSet, Mesh, Skeleton, Vertex};

use crate::format::{NO_PARENT, Tag, tag_name};
use crate::table::VertexLayout;

/// Whether the bytes were a container or bare records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// A DMX container (`DMX\0` magic).
    Container,
    /// Bare 48-byte VERT records.
    Raw,
}

/// A section dash does not model, kept byte for byte.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForeignSection {
    /// The four tag bytes from its row, NUL padding included; [`ForeignSection::name`]
    /// gives them as text.
    pub tag: Tag,
    /// Its count cell.
    pub count: u32,
    /// The section's `length` bytes exactly as read, written back unchanged; empty when
    /// the row's length was 0.
    pub bytes: Vec<u8>,
    /// Where it was in the file it was read from (for the TEX relocation rule).
    pub source_offset: Option<u64>,
}

impl ForeignSection {
    /// The tag as text.
    pub fn name(&self) -> String {
        tag_name(&self.tag)
    }
}

/// A decoded binary DashVertex file.
#[derive(Clone, Debug, PartialEq)]
pub struct BinaryFile {
    /// Container or raw records.
    pub kind: FileKind,
    /// `versionMinor` as read (0 for raw files).
    pub minor: u32,
    /// The VERT record layout that was read.
    pub vertex_layout: VertexLayout,
    /// The modelled content.
    pub document: Document,
    /// Sections dash does not model, in table order.
    pub foreign: Vec<ForeignSection>,
    /// Number of non-zero bytes that belong to no section.
    pub unreferenced: u64,
}

impl BinaryFile {
    /// A new container holding `document`.
    pub fn new(document: Document) -> Self {
        BinaryFile {
            kind: FileKind::Container,
            minor: 0,
            vertex_layout: VertexLayout::Full,
            document,
            foreign: Vec::new(),
            unreferenced: 0,
        }
    }

    /// Bit-exact equality of everything decoded.
    pub fn bit_eq(&self, other: &Self) -> bool {
        self.kind == other.kind
            && self.minor == other.minor
            && self.vertex_layout == other.vertex_layout
            && self.document.bit_eq(&other.document)
            && self.foreign == other.foreign
            && self.unreferenced == other.unreferenced
    }
}

/// The parent a SKEL `parentIndex` value means for bone `i` (§10.6).
pub fn parent_from_raw(i: usize, raw: u32) -> Option<u32> {
    if raw == NO_PARENT || (i == 0 && raw == 0) {
        None
    } else {
        Some(raw)
    }
}

/// The `parentIndex` value written for bone `i`.
pub fn parent_to_raw(i: usize, parent: Option<u32>) -> u32 {
    match parent {
        Some(p) => p,
        None if i == 0 => 0,
        None => NO_PARENT,
    }
}

/// A bone from its decoded fields.
pub fn bone(
    i: usize,
    name: String,
    parent: u32,
    (position, rotation, scale): ([f32; 3], [f32; 4], [f32; 3]),
) -> Bone {
    Bone {
        name,
        parent: parent_from_raw(i, parent),
        position,
        rotation,
        scale,
    }
}

/// A raw record file: skinned when any record carries influence data (§10.1).
pub fn raw_file(vertices: Vec<Vertex>) -> BinaryFile {
    let mut document = document(false, vertices, Vec::new(), None);
    let skinned = document.mesh.has_skin_data();
    document.mesh.set_skinned(skinned);
    BinaryFile {
        kind: FileKind::Raw,
        minor: 0,
        vertex_layout: VertexLayout::Full,
        document,
        foreign: Vec::new(),
        unreferenced: 0,
    }
}

/// Builds the document from decoded parts. `sets` holds sets 1.. set-major, flattened.
pub fn document(
    skinned: bool,
    vertices: Vec<Vertex>,
    sets: Vec<InfluenceSet>,
    bones: Option<Vec<Bone>>,
) -> Document {
    let n = vertices.len();
    let extra: Vec<Vec<InfluenceSet>> = if n == 0 {
        Vec::new()
    } else {
        sets.chunks(n).map(<[InfluenceSet]>::to_vec).collect()
    };
    Document {
        mesh: Mesh::from_parts(skinned, vertices, extra).unwrap_or_default(),
        skeleton: bones.map(|bones| Skeleton { bones }),
    }
}
