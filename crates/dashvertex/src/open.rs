//! Any supported file, by path or as bytes, read into one model.

use dashvertex_core::{Bone, Document, Limits};
use dashvertex_formats::Format;

/// A skinned file read into the dash model: its skinned primitives, each a
/// [`Document`] (positions, influence sets, skeleton).
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// The format the bytes were read as.
    pub format: Format,
    /// One per skinned glTF primitive (with influence sets or per-bone weight
    /// attributes), in mesh then primitive order; one for a DashVertex or FBX file.
    pub primitives: Vec<Primitive>,
    /// What reading converted that a caller should know (FBX units and axes).
    pub notes: Vec<String>,
}

/// One skinned primitive: its vertices, their influences and the bones they name.
#[derive(Clone, Debug, PartialEq)]
pub struct Primitive {
    /// `mesh 0 primitive 1` for glTF; the file's name otherwise.
    pub name: String,
    /// The vertices with every influence set, and the skeleton (for glTF, the skin's
    /// joints: bone `i` is joint `i`).
    pub document: Document,
}

impl Primitive {
    /// The bones the influences' indices refer to (empty without a skeleton).
    pub fn bones(&self) -> &[Bone] {
        self.document
            .skeleton
            .as_ref()
            .map_or(&[], |s| s.bones.as_slice())
    }

    /// The number of vertices.
    pub fn len(&self) -> usize {
        self.document.mesh.len()
    }

    /// Whether the primitive has no vertex.
    pub fn is_empty(&self) -> bool {
        self.document.mesh.is_empty()
    }

    /// Vertex `v`'s weighted influences across all its sets, as `(bone, weight)` in set
    /// then slot order (zero weights left out; a bone may appear in two sets).
    pub fn influences(&self, v: usize) -> Vec<(u32, f32)> {
        self.document
            .mesh
            .sets_of(v)
            .flat_map(|s| s.pairs())
            .filter(|&(_, w)| w != 0.0)
            .collect()
    }

    /// The name of bone `bone`, when the primitive has that bone.
    pub fn bone_name(&self, bone: u32) -> Option<&str> {
        self.bones().get(bone as usize).map(|b| b.name.as_str())
    }
}

/// Why a file could not be opened.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OpenError {
    /// The file could not be read (missing, not a regular file, over the size limit).
    #[cfg(feature = "fs")]
    #[error(transparent)]
    Read(#[from] dashvertex_fs::FsError),
    /// The bytes are no format dash reads.
    #[error("{name}: not DashVertex JSON, DMX, raw records, glTF, GLB or FBX")]
    Unknown {
        /// The name the bytes were given.
        name: String,
    },
    /// A DashVertex or FBX decoder refused the bytes (located in the message).
    #[error("{name}: {source}")]
    Decode {
        /// The name the bytes were given.
        name: String,
        /// Why, with the byte offset or JSON Pointer.
        #[source]
        source: dashvertex_formats::DecodeError,
    },
    /// The glTF container or JSON could not be read (located in the message).
    #[error("{name}: {source}")]
    Gltf {
        /// The name the bytes were given.
        name: String,
        /// Why, with the byte offset or JSON Pointer and line:column.
        #[source]
        source: dashvertex_gltf::LoadError,
    },
    /// A glTF accessor or attribute cannot be imported.
    #[error("{name}: {source}")]
    Import {
        /// The name the bytes were given.
        name: String,
        /// Why, with the JSON Pointer.
        #[source]
        source: dashvertex_gltf::import::ImportError,
    },
    /// glTF support is not compiled in (the `gltf` feature).
    #[error("{name}: reading glTF needs the `gltf` feature")]
    NoGltf {
        /// The name the bytes were given.
        name: String,
    },
}

/// Opens the file at `path` with the default [`Limits`]: its format told from its bytes
/// (the name decides only what the bytes cannot), a glTF file's buffer files read from
/// its folder.
#[cfg(feature = "fs")]
pub fn open(path: impl AsRef<std::path::Path>) -> Result<Model, OpenError> {
    open_with(path, &Limits::default())
}

/// [`open`] within `limits`.
#[cfg(feature = "fs")]
pub fn open_with(path: impl AsRef<std::path::Path>, limits: &Limits) -> Result<Model, OpenError> {
    let path = path.as_ref();
    let bytes = dashvertex_fs::read_input(path, limits.max_input_bytes)?;
    let resolver = dashvertex_gltf::FsResolver::for_file(path, &[], limits.max_input_bytes)?;
    decode(&path.display().to_string(), &bytes, &resolver, limits)
}

/// Reads `bytes` with the default [`Limits`]; `name` labels messages and decides the
/// format only where the bytes cannot (raw records). A glTF file that names buffer
/// files cannot be read from bytes alone ([`read_with`] takes a resolver).
pub fn read(bytes: &[u8], name: &str) -> Result<Model, OpenError> {
    read_with(bytes, name, &dashvertex_gltf::NoFiles, &Limits::default())
}

/// [`read`] with a glTF file's buffer files from `resolver` (for instance
/// [`dashvertex_gltf::MemoryFiles`]) and within `limits`.
pub fn read_with(
    bytes: &[u8],
    name: &str,
    resolver: &dyn dashvertex_gltf::Resolver,
    limits: &Limits,
) -> Result<Model, OpenError> {
    decode(name, bytes, resolver, limits)
}

fn decode(
    name: &str,
    bytes: &[u8],
    resolver: &dyn dashvertex_gltf::Resolver,
    limits: &Limits,
) -> Result<Model, OpenError> {
    let head = bytes.get(..64).unwrap_or(bytes);
    let detected = Format::detect(std::path::Path::new(name), head, bytes.len() as u64);
    let format = detected
        .read_text(bytes)
        .0
        .ok_or_else(|| OpenError::Unknown { name: name.into() })?;
    match format {
        Format::Gltf | Format::Glb => gltf(name, format, bytes, resolver, limits),
        _ => {
            let (loaded, notes) =
                dashvertex_formats::load_noted(bytes, format, limits).map_err(|source| {
                    OpenError::Decode {
                        name: name.into(),
                        source,
                    }
                })?;
            let document = match loaded {
                dashvertex_formats::Loaded::Json(f) => f.document,
                dashvertex_formats::Loaded::Binary(f) => f.document,
            };
            let name = name.to_owned();
            Ok(Model {
                format,
                primitives: vec![Primitive { name, document }],
                notes,
            })
        }
    }
}

#[cfg(feature = "gltf")]
fn gltf(
    name: &str,
    format: Format,
    bytes: &[u8],
    resolver: &dyn dashvertex_gltf::Resolver,
    limits: &Limits,
) -> Result<Model, OpenError> {
    let g = dashvertex_gltf::load(bytes, resolver, limits).map_err(|source| OpenError::Gltf {
        name: name.into(),
        source,
    })?;
    let imported =
        dashvertex_gltf::import::import(&g, limits).map_err(|source| OpenError::Import {
            name: name.into(),
            source,
        })?;
    let primitives = imported
        .into_iter()
        .map(|p| Primitive {
            name: format!("mesh {} primitive {}", p.mesh, p.primitive),
            document: p.document,
        })
        .collect();
    Ok(Model {
        format,
        primitives,
        notes: Vec::new(),
    })
}

#[cfg(not(feature = "gltf"))]
fn gltf(
    name: &str,
    _: Format,
    _: &[u8],
    _: &dyn dashvertex_gltf::Resolver,
    _: &Limits,
) -> Result<Model, OpenError> {
    Err(OpenError::NoGltf { name: name.into() })
}
