//! The glTF 2.0 document: the parts of its JSON that skinning touches, as lenient serde
//! types.
//!
//! Every field is optional or defaulted so that a file with problems still loads; the
//! checks that matter are made by the reader and the validator, which can then say what
//! is wrong instead of refusing the whole file. Unknown members (extensions, extras) are
//! ignored here and preserved by the writer, which edits the JSON value directly.

use serde::Deserialize;

/// The document root.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Root {
    /// Accessors.
    #[serde(default)]
    pub accessors: Vec<Accessor>,
    /// Buffer views.
    #[serde(default)]
    pub buffer_views: Vec<BufferView>,
    /// Buffers.
    #[serde(default)]
    pub buffers: Vec<Buffer>,
    /// Meshes.
    #[serde(default)]
    pub meshes: Vec<Mesh>,
    /// Nodes.
    #[serde(default)]
    pub nodes: Vec<Node>,
    /// Skins.
    #[serde(default)]
    pub skins: Vec<Skin>,
    /// Scenes.
    #[serde(default)]
    pub scenes: Vec<Scene>,
}

/// An accessor.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Accessor {
    /// The buffer view, if any (absent: zeros, unless sparse).
    pub buffer_view: Option<u64>,
    /// Offset within the buffer view.
    #[serde(default)]
    pub byte_offset: u64,
    /// 5120 i8, 5121 u8, 5122 i16, 5123 u16, 5125 u32, 5126 f32.
    #[serde(default)]
    pub component_type: u32,
    /// Integer values map to [0, 1] / [-1, 1].
    #[serde(default)]
    pub normalized: bool,
    /// Number of elements.
    #[serde(default)]
    pub count: u64,
    /// SCALAR, VEC2, VEC3, VEC4, MAT2, MAT3, MAT4.
    #[serde(rename = "type", default)]
    pub kind: String,
    /// Sparse substitution.
    pub sparse: Option<Sparse>,
}

/// Sparse storage.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sparse {
    /// Number of substituted elements.
    #[serde(default)]
    pub count: u64,
    /// Element indices.
    #[serde(default)]
    pub indices: SparseIndices,
    /// Element values.
    #[serde(default)]
    pub values: SparseValues,
}

/// Sparse indices.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SparseIndices {
    /// Buffer view.
    #[serde(default)]
    pub buffer_view: u64,
    /// Offset.
    #[serde(default)]
    pub byte_offset: u64,
    /// u8, u16 or u32.
    #[serde(default)]
    pub component_type: u32,
}

/// Sparse values.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SparseValues {
    /// Buffer view.
    #[serde(default)]
    pub buffer_view: u64,
    /// Offset.
    #[serde(default)]
    pub byte_offset: u64,
}

/// A buffer view.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BufferView {
    /// Buffer index.
    #[serde(default)]
    pub buffer: u64,
    /// Offset in the buffer.
    #[serde(default)]
    pub byte_offset: u64,
    /// Length.
    #[serde(default)]
    pub byte_length: u64,
    /// Stride between elements, when interleaved.
    pub byte_stride: Option<u64>,
}

/// A buffer.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Buffer {
    /// External file or data URI; absent for the GLB binary chunk.
    pub uri: Option<String>,
    /// Length in bytes.
    #[serde(default)]
    pub byte_length: u64,
}

/// A mesh.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct Mesh {
    /// Primitives.
    #[serde(default)]
    pub primitives: Vec<Primitive>,
    /// Name.
    pub name: Option<String>,
}

/// A primitive: attribute name → accessor, in file order.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct Primitive {
    /// Attributes.
    #[serde(default)]
    pub attributes: serde_json::Map<String, serde_json::Value>,
}

impl Primitive {
    /// The accessor of an attribute, when it is a valid index.
    pub fn attribute(&self, name: &str) -> Option<u64> {
        self.attributes
            .get(name)
            .and_then(serde_json::Value::as_u64)
    }
}

/// A node.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct Node {
    /// Name.
    pub name: Option<String>,
    /// Mesh.
    pub mesh: Option<u64>,
    /// Skin.
    pub skin: Option<u64>,
    /// Children.
    #[serde(default)]
    pub children: Vec<u64>,
    /// Local translation.
    pub translation: Option<[f64; 3]>,
    /// Local rotation quaternion (x, y, z, w).
    pub rotation: Option<[f64; 4]>,
    /// Local scale.
    pub scale: Option<[f64; 3]>,
}

/// A skin.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Skin {
    /// Joint nodes; their order is the joint index space.
    #[serde(default)]
    pub joints: Vec<u64>,
    /// Inverse bind matrices accessor.
    pub inverse_bind_matrices: Option<u64>,
    /// Skeleton root node.
    pub skeleton: Option<u64>,
    /// Name.
    pub name: Option<String>,
}

/// A scene.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct Scene {
    /// Root nodes.
    #[serde(default)]
    pub nodes: Vec<u64>,
}

/// Accessor component types.
pub mod component {
    /// BYTE.
    pub const I8: u32 = 5120;
    /// UNSIGNED_BYTE.
    pub const U8: u32 = 5121;
    /// SHORT.
    pub const I16: u32 = 5122;
    /// UNSIGNED_SHORT.
    pub const U16: u32 = 5123;
    /// UNSIGNED_INT.
    pub const U32: u32 = 5125;
    /// FLOAT.
    pub const F32: u32 = 5126;

    /// Size in bytes, for a known type.
    pub fn size(t: u32) -> Option<u64> {
        match t {
            I8 | U8 => Some(1),
            I16 | U16 => Some(2),
            U32 | F32 => Some(4),
            _ => None,
        }
    }

    /// The name the glTF specification uses.
    pub fn name(t: u32) -> String {
        match t {
            I8 => "BYTE".into(),
            U8 => "UNSIGNED_BYTE".into(),
            I16 => "SHORT".into(),
            U16 => "UNSIGNED_SHORT".into(),
            U32 => "UNSIGNED_INT".into(),
            F32 => "FLOAT".into(),
            other => format!("componentType {other}"),
        }
    }
}

/// True for a `byteStride` the glTF schema allows: a multiple of 4 in 4…252.
pub fn byte_stride_valid(stride: u64) -> bool {
    (4..=252).contains(&stride) && stride.is_multiple_of(4)
}

/// Number of components of an accessor type.
pub fn components(kind: &str) -> Option<u64> {
    match kind {
        "SCALAR" => Some(1),
        "VEC2" => Some(2),
        "VEC3" => Some(3),
        "VEC4" | "MAT2" => Some(4),
        "MAT3" => Some(9),
        "MAT4" => Some(16),
        _ => None,
    }
}

/// Where the components of one element lie: `(element size in bytes, column stride, rows)`.
/// Matrix columns start on 4-byte boundaries (glTF 2.0 §3.6.2.4: MAT2 and MAT3 of 1- and
/// 2-byte components carry padding after each column); other types are packed, a single
/// "column" of all their components.
pub(crate) fn element_layout(component_type: u32, kind: &str) -> Option<(u64, u64, u64)> {
    let size = component::size(component_type)?;
    let n = components(kind)?;
    let rows = match kind {
        "MAT2" => 2,
        "MAT3" => 3,
        "MAT4" => 4,
        _ => n,
    };
    let column = if kind.starts_with("MAT") {
        (size * rows).next_multiple_of(4)
    } else {
        size * rows
    };
    Some((column * (n / rows), column, rows))
}
