//! The skin inspector's WebAssembly module (the page in `web/`): a `.gltf` with its
//! buffer files, or a `.glb`, given as several files at once, then
//!
//! - validated by `dashvertex-validate` with the buffers from those files: the report is
//!   the text `dash-validate --format json` prints for the same files ([`files`]);
//! - decoded for drawing: positions, indices, joints and weights of every set, skins,
//!   the node hierarchy and animations, as typed arrays ([`scene`]);
//! - previewed for reduction: the weight the dash reducer would drop per vertex at K
//!   influences ([`dropped`]);
//! - reduced or repaired: the GLB `dashvertex reduce -o OUT.glb --max-influences K` or
//!   `dashvertex fix -o OUT.glb` writes, checked by the validator first ([`reduced`]).
//!
//! A module of its own beside `dashvertex-wasm`, so that the loader's decode + validate
//! module keeps its size budget; this one has its own (`tools/web-build.sh`).
//! [`bindings`] only converts; the work is in plain Rust, tested natively.

pub mod bindings;
pub mod dropped;
pub mod files;
pub mod reduced;
pub mod scene;
