//! FBX read through [ufbx](https://github.com/ufbx/ufbx) (binary 6100–7700 and ASCII):
//! the only crate of dash that knows ufbx.
//!
//! - [`is_fbx`]: FBX told from its first bytes.
//! - [`load`]: the bytes read into a [`Scene`] within dash's limits, converted to glTF's
//!   metres and +Y up ([`Scene::conversion`] says from what).
//! - [`check`]: the skin checks ([`Check`]), located by FBX object and control point.
//! - [`to_glb`]: the scene as a skinned GLB (triangulated meshes, normals, UVs, base
//!   colour, skeleton with rest TRS and inverse bind matrices, baked animations), which
//!   every glTF reader of dash then reads.
//! - [`to_document`]: the skinned meshes as one DashVertex document, a vertex per control
//!   point with every influence, and the skeleton's rest pose.
//!
//! The mapping rules are in `spec/fbx.md`. A WebAssembly build has no ufbx (its C code
//! needs a C compiler and a libc for wasm32): there [`load`] refuses every file with
//! [`FbxError::Unavailable`].

#[cfg(not(target_family = "wasm"))]
mod bones;
#[cfg(not(target_family = "wasm"))]
mod buffer;
#[cfg(not(target_family = "wasm"))]
mod checks;
#[cfg(not(target_family = "wasm"))]
mod dash;
mod detect;
mod error;
mod findings;
#[cfg(not(target_family = "wasm"))]
mod glb;
#[cfg(not(target_family = "wasm"))]
mod glb_anim;
#[cfg(not(target_family = "wasm"))]
mod glb_mesh;
#[cfg(not(target_family = "wasm"))]
mod glb_texture;
mod output;
#[cfg(not(target_family = "wasm"))]
mod scene;
#[cfg(target_family = "wasm")]
mod wasm;

#[cfg(not(target_family = "wasm"))]
pub use checks::check;
#[cfg(not(target_family = "wasm"))]
pub use dash::to_document;
pub use detect::{BINARY_MAGIC, is_binary, is_fbx};
pub use error::FbxError;
pub use findings::{At, Check, CheckOptions, Report};
#[cfg(not(target_family = "wasm"))]
pub use glb::to_glb;
pub use output::{Converted, DashDocument};
#[cfg(not(target_family = "wasm"))]
pub use scene::{NODE_DEPTH_LIMIT, Scene, load};
#[cfg(target_family = "wasm")]
pub use wasm::{Scene, check, load, to_document, to_glb};

#[cfg(not(target_family = "wasm"))]
/// The weights of one control point of `skin` (an empty slice when its range is not in
/// the deformer's list).
pub(crate) fn weights_of<'s>(
    skin: &'s ufbx::SkinDeformer,
    v: &ufbx::SkinVertex,
) -> &'s [ufbx::SkinWeight] {
    let begin = v.weight_begin as usize;
    let end = begin.saturating_add(v.num_weights as usize);
    skin.weights.get(begin..end).unwrap_or_default()
}

#[cfg(not(target_family = "wasm"))]
/// The name of the bone cluster `index` of `skin` links to (the cluster's name when it
/// links to none).
pub(crate) fn cluster_bone_name(skin: &ufbx::SkinDeformer, index: u32) -> String {
    match skin.clusters.get(index as usize) {
        Some(c) => match c.bone_node.as_ref() {
            Some(n) => n.element.name.to_string(),
            None => c.element.name.to_string(),
        },
        None => format!("#{index}"),
    }
}
