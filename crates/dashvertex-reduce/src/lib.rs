//! Reduces skin influences to the strongest K per vertex and gives bones stable indices.
//!
//! - [`manifest`]: the append-only bone manifest (name → index).
//! - [`input`]: reducer input from influence sets, per-bone weight columns (Blender
//!   attributes) or a per-bone weights document ([`weights_doc`]).
//! - [`reduce`]: the algorithm of `spec/reduction.md`: merge, threshold, order by weight
//!   then bone index, keep K, normalize, quantize with exact integer sums, pad.
//! - [`pipeline`]: a whole run as one call — manifest update, every input reduced, a
//!   glTF file written back ([`pipeline::reduce_gltf`]).
//! - [`fit`]: fitted reduction — per vertex, the K bones and exact weights that move it
//!   least from its full-influence skinning over a pose set, never worse than plain
//!   top-K; and [`fit::precision`], the storage chosen by an error budget.
//! - [`document`]: a DashVertex document reduced whole, the weight it dropped measured.
//! - [`remap`]: a glTF file's joint order rewritten to a manifest's, no influence
//!   changed (`dashvertex remap`).
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
//! let cfg = Config::default().with_normalize(Normalize::Unit);
//! let out = dashvertex_reduce::reduce(&input, &map, None, &cfg)?;
//! assert_eq!(out.influences[0].joints, [1, 0, 0, 0]);
//! assert_eq!(out.influences[0].weights, [0.75, 0.25, 0.0, 0.0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod document;
pub mod fit;
pub mod gltf;
pub mod input;
/// The bone manifest (the `dashvertex-manifest` crate).
pub use dashvertex_manifest as manifest;
pub mod pipeline;
mod reduce;
pub mod remap;
pub mod weights_doc;

pub use reduce::{
    Config, ConfigError, Dropped, Empty, MAX_INFLUENCES, Normalize, Quantize, ReduceError, Reduced,
    Report, UnknownSetting, index_map, index_map_in, reduce, root_index, root_index_in,
};

use input::Input;
use manifest::Manifest;

/// The skeleton in manifest order, for DashVertex output: bone `i` is manifest entry `i`.
/// Retired bones (and bones the input does not have) keep their place with their name
/// and last known parent, so that no index moves, and the identity transform relative to
/// that parent. Input bones match entries by name or alias (an asset that still uses a
/// former name); transforms are copied from the `source` bone that answers to the entry.
///
/// DashVertex has one root, bone 0 (`spec/dashvertex.md` §7). Every other bone left
/// without a parent (bones of a file with several roots, per-bone attributes that match
/// no node, a placeholder whose parent is unknown) becomes a child of bone 0 with its rest
/// pose kept where it was: its transform becomes bone 0's inverse times its own
/// (`spec/reduction.md` §5).
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
    let mut skeleton = dashvertex_core::Skeleton { bones };
    adopt_roots(&mut skeleton);
    skeleton
}

/// Makes every bone after bone 0 that has no parent a child of bone 0 (when bone 0 is a
/// root), its rest pose unchanged in model space: its local transform becomes
/// `inverse(bone 0) × own`, decomposed (exact up to binary32 rounding when bone 0's scale
/// is uniform; left as it was when bone 0's transform cannot be inverted).
pub fn adopt_roots(skeleton: &mut dashvertex_core::Skeleton) {
    use dashvertex_core::math;
    let Some((first, rest)) = skeleton.bones.split_first_mut() else {
        return;
    };
    if first.parent.is_some() {
        return;
    }
    let m0 = math::from_trs(
        first.position.map(f64::from),
        first.rotation.map(f64::from),
        first.scale.map(f64::from),
    );
    let inv = if m0 == math::IDENTITY {
        None
    } else {
        math::inverse_affine(&m0)
    };
    for b in rest.iter_mut().filter(|b| b.parent.is_none()) {
        b.parent = Some(0);
        if let Some(inv) = &inv {
            let own = math::from_trs(
                b.position.map(f64::from),
                b.rotation.map(f64::from),
                b.scale.map(f64::from),
            );
            let (t, r, s) = math::decompose(&math::mul(inv, &own));
            // Rounded once to binary32, as every bone transform is stored.
            #[allow(clippy::cast_possible_truncation)]
            // `+ 0.0` writes a negative zero (from the inverse) as 0.
            let f = |x: f64| x as f32 + 0.0;
            b.position = t.map(f);
            b.rotation = r.map(f);
            b.scale = s.map(f);
        }
    }
}

#[cfg(test)]
mod tests {
    use dashvertex_core::{Bone, Skeleton};

    /// R5.4: a second root becomes a child of bone 0 and stays where it was in model space.
    // spec: R5.4
    #[test]
    fn an_adopted_root_keeps_its_model_space_rest_pose() {
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let mut root = Bone::new("root", None);
        root.position = [1.0, 2.0, 3.0];
        root.rotation = [0.0, 0.0, h, h];
        root.scale = [2.0; 3];
        let mut other = Bone::new("other", None);
        other.position = [-4.0, 0.5, 1.0];
        other.rotation = [h, 0.0, 0.0, h];
        let child = Bone::new("child", Some(1));
        let mut sk = Skeleton {
            bones: vec![root, other, child],
        };
        let before = sk.globals();
        super::adopt_roots(&mut sk);
        assert_eq!(sk.bones[1].parent, Some(0));
        assert_eq!(sk.bones[2].parent, Some(1));
        for (a, b) in sk.globals().iter().zip(&before) {
            for (x, y) in a.iter().zip(b) {
                assert!((x - y).abs() < 1e-5, "{a:?} != {b:?}");
            }
        }
    }
}
