//! Reduces skin influences to the strongest K per vertex and gives bones stable indices.
//!
//! - [`manifest`]: the append-only bone manifest (name → index).
//! - [`input`]: reducer input from influence sets, per-bone weight columns (Blender
//!   attributes) or a per-bone weights document ([`weights_doc`]).
//! - [`reduce`]: the algorithm of `spec/reduction.md`: merge, threshold, order by weight
//!   then bone index, keep K, normalize, quantize with exact integer sums, pad.
//! - [`pipeline`]: a whole run as one call — manifest update, every input reduced, a
//!   glTF file written back ([`pipeline::reduce_gltf`]).
//! - [`remap`]: a glTF file's joint order rewritten to a manifest's, no influence
//!   changed (`dash remap`).
//!
//! ```
//! use dashvertex_reduce::{Config, Normalize, input::Input, manifest::{BoneRef, Manifest}};
//! use dashvertex_core::{InfluenceSet, Mesh, Vertex};
//! let bones = vec![
//!     BoneRef { name: "root".into(), parent: None },
//!     BoneRef { name: "arm".into(), parent: Some("root".into()) },
//! ];
//! let v = Vertex { position: [0.0; 3], skin: InfluenceSet::from_pairs(&[(1, 0.6), (0, 0.2)]).unwrap() };
//! let input = Input::from_mesh(&Mesh::skinned(vec![v]), bones.clone())?;
//! let manifest = Manifest::init(&bones)?;
//! let map = dashvertex_reduce::index_map(&input, &manifest)?;
//! let cfg = Config { normalize: Normalize::Unit, ..Config::default() };
//! let out = dashvertex_reduce::reduce(&input, &map, None, &cfg)?;
//! assert_eq!(out.influences[0].joints, [1, 0, 0, 0]);
//! assert_eq!(out.influences[0].weights, [0.75, 0.25, 0.0, 0.0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap
)]

pub mod gltf;
pub mod input;
/// The bone manifest (the `dashvertex-manifest` crate).
pub use dashvertex_manifest as manifest;
pub mod pipeline;
mod reduce;
pub mod remap;
pub mod weights_doc;

pub use reduce::{
    Config, Dropped, Empty, Normalize, Quantize, ReduceError, Reduced, Report, index_map,
    index_map_in, reduce, root_index, root_index_in,
};

use input::Input;
use manifest::Manifest;

/// The skeleton in manifest order, for DashVertex output: bone `i` is manifest entry `i`.
/// Retired bones (and bones the input does not have) keep their place with their name
/// and last known parent, so that no index moves. Input bones match entries by name or
/// alias (an asset that still uses a former name); transforms are copied from the
/// `source` bone that answers to the entry.
pub fn manifest_skeleton(
    source: Option<&dashvertex_core::Skeleton>,
    input: &Input,
    manifest: &Manifest,
) -> dashvertex_core::Skeleton {
    let lookup = manifest.lookup();
    // Per entry: the input's parent name and the source bone that answer to it.
    let mut input_parent: Vec<Option<&Option<String>>> = vec![None; manifest.len()];
    for b in &input.bones {
        if let Some(slot) = lookup
            .position(&b.name)
            .and_then(|p| input_parent.get_mut(p))
        {
            *slot = Some(&b.parent);
        }
    }
    let mut source_bone: Vec<Option<&dashvertex_core::Bone>> = vec![None; manifest.len()];
    for b in source.map_or(&[][..], |s| &s.bones[..]) {
        if let Some(slot) = lookup
            .position(&b.name)
            .and_then(|p| source_bone.get_mut(p))
        {
            slot.get_or_insert(b);
        }
    }
    let bones = manifest
        .bones
        .iter()
        .zip(input_parent.into_iter().zip(source_bone))
        .map(|(e, (input_parent, src))| {
            let parent_name = input_parent.map_or(e.parent.clone(), Clone::clone);
            let parent = parent_name
                .and_then(|p| lookup.index_of(&p))
                .filter(|&p| p != e.index);
            let mut bone = dashvertex_core::Bone::new(e.name.clone(), parent);
            if let Some(src) = src {
                bone.position = src.position;
                bone.rotation = src.rotation;
                bone.scale = src.scale;
            }
            bone
        })
        .collect();
    dashvertex_core::Skeleton { bones }
}
