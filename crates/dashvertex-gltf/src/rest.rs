//! Bones from the node tree: which bone is each bone's parent, and each bone's rest
//! transform relative to it (`spec/reduction.md` §5).
//!
//! A bone's local transform is the product of the local transforms of the nodes from just
//! below its parent bone's node down to its own node, so nodes between two bones (an
//! armature object, a `Z_UP` node above the root bone) are folded into the bone below
//! them and the bones' global rest matrices equal their nodes'. A bone whose node has a
//! TRS transform and no such node above it keeps the node's values exactly; otherwise the
//! product is decomposed (glTF requires node matrices to be decomposable).
//!
//! DashVertex has no bind matrices: a reader binds each vertex at the bones' rest pose.
//! So when a skin's inverse bind matrices disagree with its joints' rest pose (CesiumMan
//! binds at another pose than its nodes stand in), the bones take the bind pose the
//! matrices give instead ([`bind_pose`]), and skinning the DashVertex file at its rest
//! pose gives the vertices back.

use std::collections::HashMap;

use dashvertex_core::Bone;
use dashvertex_core::math::{self, Mat4};

use crate::accessor::to_f32;
use crate::load::Gltf;
use crate::skinning;

/// Node `i`'s local matrix: its `matrix` when it has a finite 16-number one, else its TRS
/// (`None` for a node the file does not have).
pub fn node_matrix(gltf: &Gltf, i: usize) -> Option<Mat4> {
    let node = gltf.root.nodes.get(i)?;
    if let Some(m) = stored_matrix(gltf, i) {
        return Some(m);
    }
    Some(math::from_trs(
        node.translation.unwrap_or([0.0; 3]),
        node.rotation.unwrap_or([0.0, 0.0, 0.0, 1.0]),
        node.scale.unwrap_or([1.0; 3]),
    ))
}

/// Node `i`'s `matrix` member, when it is 16 finite numbers.
pub fn stored_matrix(gltf: &Gltf, i: usize) -> Option<Mat4> {
    let a = gltf
        .value
        .get("nodes")?
        .as_array()?
        .get(i)?
        .get("matrix")?
        .as_array()?;
    if a.len() != 16 {
        return None;
    }
    let mut m = [0.0; 16];
    for (slot, x) in m.iter_mut().zip(a) {
        *slot = x.as_f64().filter(|x| x.is_finite())?;
    }
    Some(m)
}

/// Bones for `nodes` (node indices, bone `k` = `nodes[k]`), named `names[k]`: each bone's
/// parent is the nearest ancestor node that is also a bone (the first bone of a node
/// listed twice), and its transform is relative to that parent, or to the scene for a
/// bone without one. Linear in the nodes visited: the product above each node is
/// computed once, and a cycle ends a walk.
pub fn bones(gltf: &Gltf, nodes: &[u64], names: Vec<String>) -> Vec<Bone> {
    let parents = skinning::parents(&gltf.root);
    let position: HashMap<u64, usize> = nodes
        .iter()
        .enumerate()
        .rev()
        .map(|(i, &j)| (j, i))
        .collect();
    let bone_parents = skinning::nearest_marked(&parents, &position, nodes, false);
    // The product of the local matrices from below the nearest bone ancestor (exclusive)
    // down to each walked node (inclusive); `None` = identity (no node in between).
    let mut above: HashMap<u64, Option<Mat4>> = HashMap::new();
    nodes
        .iter()
        .zip(bone_parents)
        .zip(names)
        .enumerate()
        .map(|(k, ((&j, parent), name))| {
            let parent = parent
                .filter(|&p| p != k)
                .and_then(|p| u32::try_from(p).ok());
            let mut bone = Bone::new(name, parent);
            let idx = usize::try_from(j).ok();
            let up = skinning::parent_of(&parents, j)
                .and_then(|p| product_above(gltf, &parents, &position, &mut above, p));
            let own = idx.and_then(|i| gltf.root.nodes.get(i).map(|n| (i, n)));
            match (up, own) {
                (None, Some((i, n))) if stored_matrix(gltf, i).is_none() => {
                    if let Some(t) = n.translation {
                        bone.position = t.map(to_f32);
                    }
                    if let Some(r) = n.rotation {
                        bone.rotation = r.map(to_f32);
                    }
                    if let Some(s) = n.scale {
                        bone.scale = s.map(to_f32);
                    }
                }
                (up, Some((i, _))) => {
                    let local = node_matrix(gltf, i).unwrap_or(math::IDENTITY);
                    let m = match up {
                        Some(u) => math::mul(&u, &local),
                        None => local,
                    };
                    set_trs(&mut bone, &m);
                }
                (_, None) => {}
            }
            bone
        })
        .collect()
}

/// Sets a bone's transform to the decomposition of `m`, rounded once to binary32.
pub fn set_trs(bone: &mut Bone, m: &Mat4) {
    let (t, r, s) = math::decompose(m);
    // `+ 0.0` writes a negative zero (from an inverse) as 0.
    let f = |x: f64| to_f32(x) + 0.0;
    bone.position = t.map(f);
    bone.rotation = r.map(f);
    bone.scale = s.map(f);
}

/// The product of local matrices from below the nearest bone at or above `start`
/// (exclusive) down to `start` (inclusive); `None` when `start` is itself a bone.
/// Memoized in `above`; the walk stops at a remembered node, a bone, a root or a cycle.
fn product_above(
    gltf: &Gltf,
    parents: &[Option<u64>],
    bones: &HashMap<u64, usize>,
    above: &mut HashMap<u64, Option<Mat4>>,
    start: u64,
) -> Option<Mat4> {
    let mut path = Vec::new();
    let mut cur = Some(start);
    let mut base: Option<Mat4> = None;
    while let Some(c) = cur {
        if bones.contains_key(&c) {
            break;
        }
        if let Some(m) = above.get(&c) {
            base = *m;
            break;
        }
        if path.len() > parents.len() {
            break;
        }
        path.push(c);
        cur = skinning::parent_of(parents, c);
    }
    // Down the path from the top: each node's product is its parent's times its own.
    for &n in path.iter().rev() {
        let local = usize::try_from(n)
            .ok()
            .and_then(|i| node_matrix(gltf, i))
            .unwrap_or(math::IDENTITY);
        let m = match base {
            Some(b) => math::mul(&b, &local),
            None => local,
        };
        let m = (m != math::IDENTITY).then_some(m);
        above.insert(n, m);
        base = m;
    }
    if bones.contains_key(&start) {
        return None;
    }
    above.get(&start).copied().flatten()
}

/// How far two matrices may differ and still be the same rest pose: the inverse bind
/// matrices of an exporter are the joints' global rest matrices inverted and rounded to
/// binary32, so they agree to about 1e-7 of the model's size.
const SAME_POSE: f64 = 1e-4;

/// Replaces the bones' transforms by the bind pose of `inverse_binds` (one per bone,
/// column-major) when it differs from their rest pose: bone `k`'s global matrix becomes
/// `inverse(inverse_binds[k])`, and its local one its parent's global inverted times that.
/// Left alone when the two poses agree (to `SAME_POSE`, relative to the size of the
/// translations) or when a bind matrix cannot be inverted.
pub fn bind_pose(bones: &mut [Bone], inverse_binds: &[Mat4]) {
    if bones.len() != inverse_binds.len() {
        return;
    }
    let Some(binds) = inverse_binds
        .iter()
        .map(math::inverse_affine)
        .collect::<Option<Vec<Mat4>>>()
    else {
        return;
    };
    let globals = dashvertex_core::globals_of(bones);
    let size = binds
        .iter()
        .chain(&globals)
        .flat_map(|m| [m[12], m[13], m[14]])
        .fold(1.0f64, |a, x| a.max(x.abs()));
    let same = globals.iter().zip(&binds).all(|(g, b)| {
        g.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= SAME_POSE * size)
    });
    if same {
        return;
    }
    for i in 0..bones.len() {
        let Some(bind) = binds.get(i) else { continue };
        let parent = bones
            .get(i)
            .and_then(|b| b.parent)
            .and_then(|p| usize::try_from(p).ok())
            .and_then(|p| binds.get(p));
        let local = match parent.and_then(math::inverse_affine) {
            Some(inv) => math::mul(&inv, bind),
            None => *bind,
        };
        if let Some(b) = bones.get_mut(i) {
            set_trs(b, &local);
        }
    }
}

/// The global rest matrix of each of `nodes` in the scene (ancestors' locals × its own).
/// Every walked node's product is remembered, so the call is linear in the nodes
/// visited; a cycle ends a walk (the validator reports it).
pub fn node_globals(gltf: &Gltf, nodes: &[u64]) -> Vec<Mat4> {
    let parents = skinning::parents(&gltf.root);
    let mut memo: HashMap<u64, Mat4> = HashMap::new();
    nodes
        .iter()
        .map(|&n| {
            let mut path = Vec::new();
            let mut cur = Some(n);
            let mut base = math::IDENTITY;
            while let Some(c) = cur {
                if let Some(m) = memo.get(&c) {
                    base = *m;
                    break;
                }
                if path.len() > parents.len() {
                    break;
                }
                path.push(c);
                cur = skinning::parent_of(&parents, c);
            }
            for &p in path.iter().rev() {
                let local = usize::try_from(p)
                    .ok()
                    .and_then(|i| node_matrix(gltf, i))
                    .unwrap_or(math::IDENTITY);
                base = math::mul(&base, &local);
                memo.insert(p, base);
            }
            memo.get(&n).copied().unwrap_or(base)
        })
        .collect()
}
