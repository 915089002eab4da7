//! The skinning structure of a document: which primitives carry influence sets, which
//! nodes and skins use which meshes, the node hierarchy.

use dashvertex_core::{LimitError, Limits};

use crate::document::Root;

/// A primitive names more influence sets than [`Limits::max_sets`] allows.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{pointer}: {limit}")]
pub struct SetLimitError {
    /// JSON Pointer of the primitive's `attributes`.
    pub pointer: String,
    /// The count and the limit.
    pub limit: LimitError,
}

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
    /// The number of influence sets `limits` allows a primitive ([`Limits::max_sets`]),
    /// checked before anything is sized by the number of sets: `Err` names the
    /// primitive's `attributes` (`/meshes/m/primitives/p/attributes`) and the limit.
    /// Every set a `JOINTS_n` or `WEIGHTS_n` attribute names counts, gaps or not.
    pub fn check_limit(&self, limits: &Limits) -> Result<(), SetLimitError> {
        limits
            .check_sets(self.sets.len() as u64)
            .map_err(|limit| SetLimitError {
                pointer: format!("{}/attributes", self.pointer()),
                limit,
            })
    }

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

/// The influence attributes of every primitive that has any. Linear in the attributes:
/// each `JOINTS_n` / `WEIGHTS_n` finds its set by a hash lookup on `n` (a search through
/// the sets found so far was quadratic: 80,000 sets took seconds). Nothing here is sized
/// by a number the file declares; readers check [`PrimitiveSets::check_limit`] before
/// they size anything by the number of sets.
pub fn primitive_sets(root: &Root) -> Vec<PrimitiveSets> {
    let mut out = Vec::new();
    let mut index: std::collections::HashMap<SetNo, usize> = std::collections::HashMap::new();
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            let mut sets: Vec<SetRef> = Vec::new();
            let mut malformed = Vec::new();
            let mut attributes = Vec::with_capacity(prim.attributes.len());
            index.clear();
            for (name, value) in &prim.attributes {
                attributes.push((name.clone(), value.as_u64()));
                for (prefix, joints) in [("JOINTS_", true), ("WEIGHTS_", false)] {
                    match set_number(name, prefix) {
                        Some(Ok(n)) => {
                            probe::count();
                            let i = *index.entry(SetNo(n)).or_insert_with(|| {
                                sets.push(SetRef {
                                    n,
                                    joints: None,
                                    weights: None,
                                });
                                sets.len() - 1
                            });
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

/// A set number as [`primitive_sets`] keys its sets: the comparisons its hash table
/// makes are the ones the tests count.
#[derive(Clone, Copy, Eq)]
struct SetNo(u32);

impl PartialEq for SetNo {
    fn eq(&self, other: &Self) -> bool {
        probe::count();
        self.0 == other.0
    }
}

impl std::hash::Hash for SetNo {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.0.hash(h);
    }
}

/// Counts set lookups and set-number comparisons on this thread, in tests only, so
/// that a test can hold set handling to linear work by counting, not by timing.
pub(crate) mod probe {
    #[cfg(test)]
    thread_local! {
        static COUNT: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    /// One lookup or comparison.
    #[inline(always)]
    pub(crate) fn count() {
        #[cfg(test)]
        COUNT.with(|c| c.set(c.get() + 1));
    }

    /// The count so far, set back to zero.
    #[cfg(test)]
    pub(crate) fn take() -> u64 {
        COUNT.with(|c| c.replace(0))
    }
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
/// names a skeleton imported from the skin has, and what a bone manifest matches). A
/// name that is empty or only whitespace names nothing (no manifest entry may have it,
/// spec/reduction.md §5): such a node is unnamed too.
pub fn joint_name(root: &Root, j: u64) -> String {
    usize::try_from(j)
        .ok()
        .and_then(|i| root.nodes.get(i))
        .and_then(|n| n.name.clone())
        .filter(|name| !name.trim().is_empty())
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

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation
)]
mod tests {
    use super::*;

    /// A document whose one primitive names `n` sets, `JOINTS_k` and `WEIGHTS_k` for every
    /// `k` a multiple of `step` (a step above 1 leaves gaps), all of them accessors 0 and 1.
    fn root(n: u32, step: u32) -> Root {
        let mut attributes = serde_json::Map::new();
        attributes.insert("POSITION".into(), 2.into());
        for k in 0..n {
            attributes.insert(format!("JOINTS_{}", k * step), 0.into());
            attributes.insert(format!("WEIGHTS_{}", k * step), 1.into());
        }
        let value = serde_json::json!({
            "meshes": [{"primitives": [{"attributes": attributes}]}],
        });
        serde_json::from_value(value).unwrap()
    }

    /// The set lookups and set-number comparisons finding a document's sets takes.
    fn work(root: &Root) -> (u64, Vec<PrimitiveSets>) {
        probe::take();
        let sets = primitive_sets(root);
        (probe::take(), sets)
    }

    /// Issue: each attribute searched the sets found so far, so 80,000 sets took 5.5 s
    /// where 10,000 took 0.12 s. Counted, not timed: 8× the sets may take at most 8× the
    /// work (and a little), with gaps between the set numbers or without.
    #[test]
    fn sets_are_found_in_linear_work() {
        let n = 2_000;
        for step in [1, 3] {
            let (small, sets) = work(&root(n, step));
            assert_eq!(sets[0].sets.len(), n as usize);
            assert!(
                sets[0]
                    .sets
                    .iter()
                    .enumerate()
                    .all(|(i, s)| s.n == i as u32 * step
                        && s.joints == Some(0)
                        && s.weights == Some(1))
            );
            let (large, sets) = work(&root(8 * n, step));
            assert_eq!(sets[0].sets.len(), 8 * n as usize);
            assert!(
                small >= 2 * u64::from(n),
                "every attribute is looked up: {small}"
            );
            assert!(
                large <= 8 * small + 1_000,
                "step {step}: {n} sets took {small} comparisons, {} took {large}",
                8 * n
            );
        }
    }

    #[test]
    fn the_set_limit_names_the_primitive_attributes() {
        let sets = primitive_sets(&root(65, 2));
        let limits = Limits::default();
        let e = sets[0].check_limit(&limits).unwrap_err();
        assert_eq!(e.pointer, "/meshes/0/primitives/0/attributes");
        assert_eq!((e.limit.value, e.limit.limit), (65, 64));
        assert!(primitive_sets(&root(64, 1))[0].check_limit(&limits).is_ok());
    }
}
