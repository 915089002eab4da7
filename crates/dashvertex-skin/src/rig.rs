//! The node hierarchy: parents, rest transforms, an order with parents first, and global
//! matrices for a pose.

use dashvertex_gltf::Gltf;

use crate::math::{IDENTITY, Mat4, from_trs, mul};

/// A node's local transform.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Local {
    /// Translation, rotation (x, y, z, w) and scale: the form animations drive.
    Trs {
        /// Translation.
        t: [f64; 3],
        /// Rotation quaternion, x y z w.
        r: [f64; 4],
        /// Scale.
        s: [f64; 3],
    },
    /// A `matrix` (column-major); glTF does not animate such nodes.
    Matrix(Mat4),
}

impl Local {
    /// The matrix of this transform.
    pub fn matrix(&self) -> Mat4 {
        match self {
            Local::Trs { t, r, s } => from_trs(*t, *r, *s),
            Local::Matrix(m) => *m,
        }
    }
}

/// Every node's local transform at one moment.
#[derive(Clone, Debug, PartialEq)]
pub struct Pose {
    /// By node index.
    pub local: Vec<Local>,
}

/// A document's node hierarchy.
#[derive(Clone, Debug)]
pub struct Rig {
    /// Each node's parent, as the evaluator uses it: a node listed as the child of two
    /// nodes keeps the first, and a cycle is broken where the walk from the roots meets it
    /// (the validator reports both as `GLTF_NODE_HIERARCHY`).
    parents: Vec<Option<usize>>,
    /// Parents before children; every node once.
    order: Vec<usize>,
    rest: Pose,
}

impl Rig {
    /// The hierarchy of `gltf`: linear in the number of nodes and children, no recursion.
    pub fn new(gltf: &Gltf) -> Rig {
        let nodes = &gltf.root.nodes;
        let n = nodes.len();
        let mut parent: Vec<Option<usize>> = vec![None; n];
        for (p, node) in nodes.iter().enumerate() {
            for &c in &node.children {
                if let Some(slot) = usize::try_from(c).ok().and_then(|c| parent.get_mut(c))
                    && slot.is_none()
                {
                    *slot = Some(p);
                }
            }
        }
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (c, p) in parent.iter().enumerate() {
            if let Some(list) = p.and_then(|p| children.get_mut(p)) {
                list.push(c);
            }
        }
        let mut seen = vec![false; n];
        let mut order = Vec::with_capacity(n);
        let mut used: Vec<Option<usize>> = vec![None; n];
        // Roots first; then whatever a cycle kept from being reached, as a root.
        let starts: Vec<usize> = (0..n)
            .filter(|&i| parent.get(i).copied().flatten().is_none())
            .chain(0..n)
            .collect();
        let mut stack = Vec::new();
        for s in starts {
            if seen.get(s).copied().unwrap_or(true) {
                continue;
            }
            stack.push(s);
            while let Some(i) = stack.pop() {
                match seen.get_mut(i) {
                    Some(s) if !*s => *s = true,
                    _ => continue,
                }
                order.push(i);
                for &c in children.get(i).map_or(&[][..], Vec::as_slice).iter().rev() {
                    if !seen.get(c).copied().unwrap_or(true) {
                        if let Some(u) = used.get_mut(c) {
                            *u = Some(i);
                        }
                        stack.push(c);
                    }
                }
            }
        }
        let matrices = gltf.value.get("nodes").and_then(|v| v.as_array());
        let rest = Pose {
            local: nodes
                .iter()
                .enumerate()
                .map(|(i, node)| {
                    let matrix = matrices
                        .and_then(|a| a.get(i))
                        .and_then(|v| v.get("matrix"))
                        .and_then(matrix_of);
                    match matrix {
                        Some(m) => Local::Matrix(m),
                        None => Local::Trs {
                            t: node.translation.unwrap_or([0.0; 3]),
                            r: node.rotation.unwrap_or([0.0, 0.0, 0.0, 1.0]),
                            s: node.scale.unwrap_or([1.0; 3]),
                        },
                    }
                })
                .collect(),
        };
        Rig {
            parents: used,
            order,
            rest,
        }
    }

    /// The rest pose: every node's own transform.
    pub fn rest(&self) -> &Pose {
        &self.rest
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.parents.len()
    }

    /// Whether the document has no nodes.
    pub fn is_empty(&self) -> bool {
        self.parents.is_empty()
    }

    /// The parent node `i` is evaluated under (see [`Rig`]'s `parents`).
    pub fn parent(&self, i: usize) -> Option<usize> {
        self.parents.get(i).copied().flatten()
    }

    /// The nodes `joints` name and every ancestor of theirs, parents first (the order of
    /// [`Rig::globals`]): the only nodes whose global matrices skinning needs. Linear in
    /// the nodes and joints: each node is marked once, and a walk up stops at a marked
    /// node. Indices past the last node are left out.
    pub fn needed(&self, joints: impl IntoIterator<Item = usize>) -> Vec<usize> {
        let mut marked = vec![false; self.parents.len()];
        for j in joints {
            let mut at = Some(j);
            while let Some(i) = at {
                match marked.get_mut(i) {
                    Some(m) if !*m => *m = true,
                    _ => break,
                }
                at = self.parent(i);
            }
        }
        self.order
            .iter()
            .copied()
            .filter(|&i| marked.get(i).copied().unwrap_or(false))
            .collect()
    }

    /// Each node's global matrix in `pose` (parent × local, from the roots down).
    pub fn globals(&self, pose: &Pose) -> Vec<Mat4> {
        let mut g = vec![IDENTITY; self.parents.len()];
        for &i in &self.order {
            let local = pose.local.get(i).map_or(IDENTITY, Local::matrix);
            let m = match self.parents.get(i).copied().flatten() {
                Some(p) => mul(g.get(p).unwrap_or(&IDENTITY), &local),
                None => local,
            };
            if let Some(slot) = g.get_mut(i) {
                *slot = m;
            }
        }
        g
    }
}

/// A node's `matrix` member: 16 finite numbers, or nothing.
fn matrix_of(v: &serde_json::Value) -> Option<Mat4> {
    let a = v.as_array()?;
    if a.len() != 16 {
        return None;
    }
    let mut m = [0.0; 16];
    for (slot, x) in m.iter_mut().zip(a) {
        *slot = x.as_f64().filter(|x| x.is_finite())?;
    }
    Some(m)
}
