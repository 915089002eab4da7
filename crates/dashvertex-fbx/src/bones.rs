//! The bones of a scene's skins: every node a cluster links to, with its ancestors,
//! ordered parents first (by depth, then by ufbx's node order: linear after one sort).

use std::collections::HashMap;

/// The nodes the skins use, parents first, with each one's parent position in the list.
pub(crate) struct Bones<'s> {
    /// The nodes, parents before children.
    pub nodes: Vec<&'s ufbx::Node>,
    /// Parent of each (its index in `nodes`), `None` for a top-level node.
    pub parents: Vec<Option<u32>>,
    /// Position in `nodes` by ufbx element id.
    pub index: HashMap<u32, u32>,
}

/// The first skin deformer of each skinned mesh (the one converted).
pub(crate) fn skinned_meshes(s: &ufbx::Scene) -> Vec<(&ufbx::Mesh, &ufbx::SkinDeformer)> {
    s.meshes
        .iter()
        .filter_map(|m| m.skin_deformers.first().map(|d| (&**m, &**d)))
        .collect()
}

/// The bones of `skins` and their ancestors below the scene's root.
pub(crate) fn bones<'s>(skins: &[(&'s ufbx::Mesh, &'s ufbx::SkinDeformer)]) -> Bones<'s> {
    let mut found: HashMap<u32, &'s ufbx::Node> = HashMap::new();
    for (_, skin) in skins {
        for c in &skin.clusters {
            // Each node's chain is walked until a node already found: linear overall.
            let mut at = c.bone_node.as_deref();
            while let Some(n) = at {
                if n.is_root || found.insert(n.element.element_id, n).is_some() {
                    break;
                }
                at = n.parent.as_deref();
            }
        }
    }
    let mut nodes: Vec<&ufbx::Node> = found.into_values().collect();
    nodes.sort_by_key(|n| (n.node_depth, n.element.typed_id));
    let index: HashMap<u32, u32> = nodes
        .iter()
        .enumerate()
        .filter_map(|(i, n)| Some((n.element.element_id, u32::try_from(i).ok()?)))
        .collect();
    let parents = nodes
        .iter()
        .map(|n| {
            n.parent
                .as_ref()
                .and_then(|p| index.get(&p.element.element_id).copied())
        })
        .collect();
    Bones {
        nodes,
        parents,
        index,
    }
}
