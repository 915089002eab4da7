//! The skinning structure of a document: which primitives carry influence sets, which
//! nodes and skins use which meshes, the node hierarchy.

use crate::document::Root;

/// One `JOINTS_n` / `WEIGHTS_n` pair of a primitive (either may be missing).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetRef {
    /// The set number `n`.
    pub n: u32,
    /// The `JOINTS_n` accessor.
    pub joints: Option<u64>,
    /// The `WEIGHTS_n` accessor.
    pub weights: Option<u64>,
}

/// The influence attributes of one primitive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrimitiveSets {
    /// Mesh index.
    pub mesh: usize,
    /// Primitive index within the mesh.
    pub primitive: usize,
    /// Sets, sorted by `n`.
    pub sets: Vec<SetRef>,
    /// Attribute names that look like JOINTS/WEIGHTS but are malformed (`JOINTS_01`,
    /// `WEIGHTS_x`).
    pub malformed: Vec<String>,
    /// Every attribute (name, accessor) in file order.
    pub attributes: Vec<(String, Option<u64>)>,
}

impl PrimitiveSets {
    /// `/meshes/m/primitives/p`.
    pub fn pointer(&self) -> String {
        format!("/meshes/{}/primitives/{}", self.mesh, self.primitive)
    }

    /// `/meshes/m/primitives/p/attributes/NAME`.
    pub fn attribute_pointer(&self, name: &str) -> String {
        let mut p = format!("{}/attributes", self.pointer());
        dashvertex_json::pointer::push_token(&mut p, name);
        p
    }
}

/// Parses `PREFIX_n` where n has no leading zero. `Some(Err(()))` for a malformed suffix.
fn set_number(name: &str, prefix: &str) -> Option<Result<u32, ()>> {
    let rest = name.strip_prefix(prefix)?;
    let ok = !rest.is_empty()
        && rest.bytes().all(|b| b.is_ascii_digit())
        && !(rest.len() > 1 && rest.starts_with('0'));
    Some(if ok {
        rest.parse().map_err(|_| ())
    } else {
        Err(())
    })
}

/// The influence attributes of every primitive that has any.
pub fn primitive_sets(root: &Root) -> Vec<PrimitiveSets> {
    let mut out = Vec::new();
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            let mut sets: Vec<SetRef> = Vec::new();
            let mut malformed = Vec::new();
            let mut attributes = Vec::new();
            for (name, value) in &prim.attributes {
                attributes.push((name.clone(), value.as_u64()));
                for (prefix, joints) in [("JOINTS_", true), ("WEIGHTS_", false)] {
                    match set_number(name, prefix) {
                        Some(Ok(n)) => {
                            let i = match sets.iter().position(|s| s.n == n) {
                                Some(i) => i,
                                None => {
                                    sets.push(SetRef {
                                        n,
                                        joints: None,
                                        weights: None,
                                    });
                                    sets.len() - 1
                                }
                            };
                            if let Some(s) = sets.get_mut(i) {
                                if joints {
                                    s.joints = value.as_u64();
                                } else {
                                    s.weights = value.as_u64();
                                }
                            }
                        }
                        Some(Err(())) => malformed.push(name.clone()),
                        None => {}
                    }
                }
            }
            if sets.is_empty() && malformed.is_empty() {
                continue;
            }
            sets.sort_by_key(|s| s.n);
            out.push(PrimitiveSets {
                mesh: m,
                primitive: p,
                sets,
                malformed,
                attributes,
            });
        }
    }
    out
}

/// The parent of each node (`None` for roots). A node listed as the child of several
/// nodes (invalid: `GLTF_NODE_HIERARCHY`) keeps the first.
pub fn parents(root: &Root) -> Vec<Option<u64>> {
    let mut parents = vec![None; root.nodes.len()];
    for (i, n) in root.nodes.iter().enumerate() {
        for &c in &n.children {
            if let Some(slot @ None) = usize::try_from(c).ok().and_then(|c| parents.get_mut(c)) {
                *slot = Some(i as u64);
            }
        }
    }
    parents
}

/// The parent of node `n` in `parents` ([`parents`]), `None` for a root or a node the
/// file does not have.
pub(crate) fn parent_of(parents: &[Option<u64>], n: u64) -> Option<u64> {
    usize::try_from(n)
        .ok()
        .and_then(|c| parents.get(c))
        .copied()
        .flatten()
}

/// Node `n` and its ancestors, nearest first (a cycle is cut where it closes).
pub(crate) fn ancestors_or_self(parents: &[Option<u64>], n: u64) -> Vec<u64> {
    let mut out = vec![n];
    let mut seen = std::collections::HashSet::from([n]);
    let mut cur = n;
    while let Some(p) = parent_of(parents, cur) {
        if !seen.insert(p) {
            break;
        }
        out.push(p);
        cur = p;
    }
    out
}

/// For each node of `starts`, the value `marked` gives its nearest ancestor in
/// `marked` (the node itself included when `or_self`). Paths already walked are
/// remembered, so the whole call is linear in the nodes visited, whatever the depth or
/// the number of starts; a cycle ends a walk with `None`.
pub(crate) fn nearest_marked(
    parents: &[Option<u64>],
    marked: &std::collections::HashMap<u64, usize>,
    starts: &[u64],
    or_self: bool,
) -> Vec<Option<usize>> {
    let mut memo: std::collections::HashMap<u64, Option<usize>> = std::collections::HashMap::new();
    starts
        .iter()
        .map(|&j| {
            let mut path = Vec::new();
            let mut cur = if or_self {
                Some(j)
            } else {
                parent_of(parents, j)
            };
            let found = loop {
                let Some(c) = cur else { break None };
                if let Some(&k) = marked.get(&c) {
                    break Some(k);
                }
                if let Some(&m) = memo.get(&c) {
                    break m;
                }
                if path.len() > parents.len() {
                    break None;
                }
                path.push(c);
                cur = parent_of(parents, c);
            };
            for p in path {
                memo.insert(p, found);
            }
            found
        })
        .collect()
}

/// The nodes that are an ancestor-or-self of every joint of a skin, nearest first.
/// Linear in the nodes visited (no quadratic walk on deep or wide hierarchies).
pub fn common_ancestors(parents: &[Option<u64>], joints: &[u64]) -> Vec<u64> {
    let Some((&first, rest)) = joints.split_first() else {
        return Vec::new();
    };
    let chain = ancestors_or_self(parents, first);
    let rank: std::collections::HashMap<u64, usize> =
        chain.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    let mut cut = 0usize;
    for r in nearest_marked(parents, &rank, rest, true) {
        match r {
            Some(k) => cut = cut.max(k),
            None => return Vec::new(),
        }
    }
    chain.get(cut..).map(<[u64]>::to_vec).unwrap_or_default()
}

/// The bone name of node `j` as a skin's joint: the node's `name`, else `node<j>` (the
/// names a skeleton imported from the skin has, and what a bone manifest matches).
pub fn joint_name(root: &Root, j: u64) -> String {
    usize::try_from(j)
        .ok()
        .and_then(|i| root.nodes.get(i))
        .and_then(|n| n.name.clone())
        .unwrap_or_else(|| format!("node{j}"))
}

/// The bone names of skin `s`'s joints, in joint order ([`joint_name`]); empty when
/// there is no skin `s`.
pub fn joint_names(root: &Root, s: usize) -> Vec<String> {
    root.skins
        .get(s)
        .map(|skin| skin.joints.iter().map(|&j| joint_name(root, j)).collect())
        .unwrap_or_default()
}

/// For each mesh, the nodes that instantiate it.
pub fn mesh_nodes(root: &Root) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); root.meshes.len()];
    for (i, n) in root.nodes.iter().enumerate() {
        if let Some(list) = n
            .mesh
            .and_then(|m| usize::try_from(m).ok())
            .and_then(|m| out.get_mut(m))
        {
            list.push(i);
        }
    }
    out
}

/// The smallest joint count among the skins of the nodes that use `mesh` (the limiting
/// skin of the bone-range check), with that skin's index.
pub fn limiting_skin(root: &Root, users: &[usize]) -> Option<(usize, usize)> {
    users
        .iter()
        .filter_map(|&n| root.nodes.get(n)?.skin)
        .filter_map(|s| {
            let s = usize::try_from(s).ok()?;
            Some((s, root.skins.get(s)?.joints.len()))
        })
        .min_by_key(|&(s, len)| (len, s))
}
