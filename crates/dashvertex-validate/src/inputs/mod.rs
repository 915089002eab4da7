//! One module per input format: each decodes (or streams) its format and runs the shared
//! rules with locations of its own kind.

pub mod binary;
pub mod fbx;
pub mod gltf;
mod gltf_checks;
mod gltf_floats;
pub mod json;
