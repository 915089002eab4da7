//! The glTF 2.0 bridge.
//!
//! - [`load`] reads `.gltf` (external or embedded buffers) and `.glb` files into a
//!   [`Gltf`]: the JSON value (for writing back), lenient typed views ([`document`]) and the
//!   buffers. Nothing here panics on bad input; the `gltf` crate's `read_joints` is not
//!   used because it panics on FLOAT joints.
//! - [`accessor::read`] decodes any accessor with every range checked: buffer views
//!   against their buffers once at load ([`ranges`]), and every element a document
//!   declares against a budget tied to its size ([`budget`]).
//! - [`from_dash`] writes a DashVertex document as a new glTF file (bones, skin, sets).
//! - [`rest`] gives bones their parents and rest transforms from the node tree.
//! - [`skinning`] finds influence sets, node hierarchy and skins.
//! - [`import`] turns influence sets, skin joints and per-bone `_NAME` attributes into
//!   the dash model; [`export`] writes influence sets back into a copy of the file.

pub mod accessor;
pub mod budget;
pub mod compressed;
pub mod document;
mod error;
pub mod export;
pub mod from_dash;
pub mod glb;
pub mod import;
mod load;
pub mod meshopt;
pub mod ranges;
pub mod rest;
pub mod skinning;
pub mod sparse;

pub use error::{AccessorError, BufferError, LoadError};
pub use load::{
    Container, FsResolver, Gltf, MemoryFiles, NoFiles, Resolver, load, load_owned, load_path,
    load_path_in, percent_decode,
};
