//! The split of a whole document: which skinned nodes exceed the budget, each (mesh,
//! skin) pair they draw read, repaired when asked, partitioned and written, and the
//! report.

use std::collections::BTreeMap;

use dashvertex_core::Limits;
use dashvertex_gltf::Gltf;
use dashvertex_gltf::export::Editor;
use dashvertex_gltf::skinning::{self, PrimitiveSets};
use dashvertex_skin::Animation;

use crate::partition::{self, Part, Rows, Shape, TableFull};
use crate::read::{self, Read, Stored};
use crate::report::{Added, PartReport, PrimitiveReport, Reduced, Report};
use crate::write::{self, Cut, Pair, Tree};
use crate::{Options, Refused, SplitError, budget, measure, refit, refs, repair, stats};

/// A split: the edit (none when every skin is within the budget) and what it did.
pub struct Split<'g> {
    /// The edited document, to be written with [`Editor::finish_files`].
    pub editor: Option<Editor<'g>>,
    /// The figures.
    pub report: Report,
}

/// A primitive read and split.
struct Done {
    sets: PrimitiveSets,
    read: Read,
    parts: Vec<Part>,
    whole: bool,
    report: PrimitiveReport,
}

/// An element of `read` in the terms of a refusal.
fn refused(gltf: &Gltf, read: &Read, skin: usize, element: usize, joints: Vec<u32>) -> Refused {
    let nodes = gltf.root.skins.get(skin).map(|s| s.joints.as_slice());
    Refused {
        arity: read.arity,
        element,
        vertices: read
            .indices
            .get(element * read.arity..(element + 1) * read.arity)
            .unwrap_or_default()
            .to_vec(),
        names: joints
            .iter()
            .map(|&j| {
                nodes.and_then(|n| n.get(j as usize)).map_or_else(
                    || format!("joint {j}"),
                    |&n| skinning::joint_name(&gltf.root, n),
                )
            })
            .collect(),
        joints,
    }
}

/// Checks the extensions of split node `node`, which gets `added` nodes beside it
/// (spec/split.md [SP11]): each is carried ([`write::carry`]), or refused. With
/// [`Options::allow_unknown_extensions`] an unknown one is copied unchanged, and the
/// warning that says so is returned.
fn node_extensions(
    gltf: &Gltf,
    node: usize,
    added: usize,
    opts: &Options,
) -> Result<Vec<String>, SplitError> {
    let mut warnings = Vec::new();
    let exts = gltf
        .value
        .pointer(&format!("/nodes/{node}/extensions"))
        .and_then(serde_json::Value::as_object);
    for name in exts.into_iter().flat_map(serde_json::Map::keys) {
        let pointer = format!("/nodes/{node}/extensions/{}", budget::escape(name));
        let refuse = |why| SplitError::NodeExtension {
            node,
            extension: name.clone(),
            pointer: pointer.clone(),
            why,
        };
        match write::carry(name) {
            write::Carry::Copy | write::Carry::Stay => {}
            write::Carry::Refuse(why) => return Err(refuse(why)),
            write::Carry::Unknown if opts.allow_unknown_extensions => warnings.push(format!(
                "{pointer}: unknown node extension {name} copied unchanged to the {added} node(s) added beside node {node}"
            )),
            write::Carry::Unknown => return Err(refuse(crate::ExtensionRefusal::Unknown)),
        }
    }
    Ok(warnings)
}

/// Reads, repairs (with `reduce`) and partitions one primitive, the primitives split
/// before it having made `earlier` parts (counted against [`Options::max_parts`]).
fn split_primitive(
    gltf: &Gltf,
    sets: &PrimitiveSets,
    skin: usize,
    opts: &Options,
    earlier: usize,
    anims: &[Animation],
    limits: &Limits,
) -> Result<Done, SplitError> {
    let max = opts.max_joints;
    let skin_joints = gltf.root.skins.get(skin).map_or(0, |s| s.joints.len());
    let mut read = read::read(gltf, sets, skin_joints, limits)?;
    let (mesh, primitive) = (sets.mesh, sets.primitive);
    // A primitive whose tables would pass u32::MAX entries is refused, located.
    let too_large = |e: TableFull| SplitError::Unsupported {
        mesh,
        primitive,
        pointer: sets.pointer(),
        what: e.to_string(),
    };
    // Per vertex and per element, the joints used: built once, and again only after a
    // repair changed the influences.
    let tables = |read: &Read| -> Result<(Rows<u16>, Rows<u16>), SplitError> {
        let vj = read.stored.vertex_joints().map_err(too_large)?;
        let shape = Shape {
            arity: read.arity,
            indices: &read.indices,
            vertex_joints: &vj,
            joints: skin_joints,
        };
        let ej = partition::element_joints(&shape).map_err(too_large)?;
        Ok((vj, ej))
    };
    // The vertex → element table needs only the indices (a repair keeps them): it is
    // built beside the joint tables.
    let (joint_tables, adj) = partition::join(
        read.indices.len() >= partition::PARALLEL_FROM,
        || tables(&read),
        || partition::elements_of_vertices(read.arity, &read.indices, read.vertices),
    );
    let (mut vj, mut ej) = joint_tables?;
    let adj = adj.map_err(too_large)?;
    let mut reduced = None;
    if let Some(bad) = partition::infeasible(&ej, max) {
        if !opts.reduce {
            return Err(SplitError::TooManyJoints {
                mesh,
                primitive,
                max,
                count: bad.count,
                first: bad
                    .first
                    .into_iter()
                    .map(|(e, j)| refused(gltf, &read, skin, e, j))
                    .collect(),
                needed: ej.widest(),
            });
        }
        // Not needed while the repair runs; rebuilt after it.
        drop((vj, ej));
        reduced = Some(reduce(gltf, sets, skin, &mut read, opts, anims, limits)?);
        (vj, ej) = tables(&read)?;
    }
    let shape = Shape {
        arity: read.arity,
        indices: &read.indices,
        vertex_joints: &vj,
        joints: skin_joints,
    };
    let budget = opts.max_parts.saturating_sub(earlier);
    let parts = partition::partition_within(&shape, &ej, &adj, max, budget).map_err(|b| {
        SplitError::TooManyParts {
            mesh,
            primitive,
            max_joints: max,
            max_parts: opts.max_parts,
            parts: b.parts,
            at_least: b.at_least,
            earlier,
        }
    })?;
    drop(ej);
    let mut report = primitive_report(&shape, read.vertices, &parts, &adj, max);
    drop(adj);
    (report.mesh, report.primitive, report.skin) = (mesh, primitive, skin);
    report.reduced = reduced;
    let whole = report.kept_whole;
    drop(vj);
    Ok(Done {
        sets: sets.clone(),
        read,
        parts,
        whole,
        report,
    })
}

/// Repairs `read` with `reduce` so that every element fits `opts.max_joints` joints, and
/// measures how far that moves its vertices at `anims`' moments: the figures of the
/// repair. Refused when an element cannot be repaired, or when a vertex moves further
/// than [`Options::max_error`].
fn reduce(
    gltf: &Gltf,
    sets: &PrimitiveSets,
    skin: usize,
    read: &mut Read,
    opts: &Options,
    anims: &[Animation],
    limits: &Limits,
) -> Result<Reduced, SplitError> {
    let (mesh, primitive, max) = (sets.mesh, sets.primitive, opts.max_joints);
    let before = read.stored.clone();
    let rep = repair::repair(read, max).map_err(|u| SplitError::Unfixable {
        mesh,
        primitive,
        max,
        element: refused(gltf, read, skin, u.element, u.joints.clone()),
    })?;
    let positions = sets
        .attributes
        .iter()
        .find(|(n, _)| n == "POSITION")
        .and_then(|(_, a)| *a);
    let measure = |after: &Stored| {
        measure::moved(
            gltf,
            skin,
            positions,
            &before,
            after,
            &rep.vertices,
            anims,
            limits,
        )
    };
    // With the fit: the renormalized weights measured first, for the report.
    let plain = if opts.fit {
        let plain = measure(&read.stored)?.max;
        let fitted = refit::refit(
            gltf,
            skin,
            positions,
            &before,
            &mut read.stored,
            &rep.vertices,
            anims,
            limits,
        )?;
        Some((plain, fitted.vertices))
    } else {
        None
    };
    let moved = measure(&read.stored)?;
    if let (Some(bound), Some(v)) = (opts.max_error, moved.vertex)
        && moved.max > bound
    {
        return Err(SplitError::MaxError {
            mesh,
            primitive,
            max,
            vertex: v,
            displacement: moved.max,
            at: moved.at.clone().unwrap_or_default(),
            max_error: bound,
        });
    }
    Ok(Reduced {
        vertices: rep.vertices.len(),
        influences_removed: rep.removed,
        max_weight_lost: rep.max_weight_lost,
        max_displacement: moved.max,
        worst_vertex: moved.vertex,
        worst_at: moved.at,
        moments: moved.moments,
        moments_full: moved.moments_full,
        pose_set: moved
            .pose_set
            .unwrap_or(dashvertex_skin::PoseSet::Animations)
            .name()
            .to_owned(),
        fitted_vertices: plain.map(|p| p.1),
        max_displacement_plain: plain.map(|p| p.0),
    })
}

/// The figures of a primitive of `vertices` vertices split into `parts` of at most `max`
/// joints: vertices used and duplicated, joints used, palette fill and seam edges (`adj`
/// is its vertex → element table). Mesh, primitive, skin and the repair's figures are
/// left for the caller (0 and none).
fn primitive_report(
    shape: &Shape<'_>,
    vertices: usize,
    parts: &[Part],
    adj: &Rows,
    max: usize,
) -> PrimitiveReport {
    let mut referenced = vec![false; vertices];
    for &v in shape.indices {
        if let Some(r) = referenced.get_mut(v as usize) {
            *r = true;
        }
    }
    let used_vertices = referenced.iter().filter(|r| **r).count();
    let mut joint_seen = vec![false; shape.joints];
    for p in parts {
        for &j in &p.joints {
            if let Some(s) = joint_seen.get_mut(j as usize) {
                *s = true;
            }
        }
    }
    let joints_used = joint_seen.iter().filter(|s| **s).count();
    let mut owner = vec![0u32; shape.elements()];
    let mut mark = vec![0u32; vertices];
    let mut part_vertices = Vec::with_capacity(parts.len());
    for (k, p) in parts.iter().enumerate() {
        let stamp = u32::try_from(k + 1).unwrap_or(u32::MAX);
        for &e in &p.elements {
            if let Some(o) = owner.get_mut(e as usize) {
                *o = stamp;
            }
        }
        part_vertices.push(stats::part_vertex_count(shape, p, &mut mark, stamp));
    }
    let seam_edges = stats::seam_edges(shape, adj, &owner);
    let total: usize = part_vertices.iter().sum();
    let fills: Vec<f64> = parts
        .iter()
        .map(|p| p.joints.len() as f64 / max as f64)
        .collect();
    PrimitiveReport {
        mesh: 0,
        primitive: 0,
        skin: 0,
        elements: shape.elements(),
        vertices: used_vertices,
        unreferenced_vertices: vertices - used_vertices,
        joints_used,
        lower_bound: joints_used.div_ceil(max),
        parts: parts
            .iter()
            .zip(&part_vertices)
            .map(|(p, &v)| PartReport {
                mesh: 0,
                primitive: 0,
                skin: 0,
                elements: p.elements.len(),
                vertices: v,
                joints: p.joints.len(),
                skin_joints: 0,
            })
            .collect(),
        kept_whole: parts.len() == 1 && used_vertices == vertices,
        duplicated_vertices: total.saturating_sub(used_vertices),
        duplication_ratio: if used_vertices == 0 {
            1.0
        } else {
            total as f64 / used_vertices as f64
        },
        palette_fill_min: fills.iter().copied().fold(f64::INFINITY, f64::min).min(1.0),
        palette_fill_mean: if fills.is_empty() {
            0.0
        } else {
            fills.iter().sum::<f64>() / fills.len() as f64
        },
        palette_fill_max: fills.iter().copied().fold(0.0, f64::max),
        seam_edges,
        reduced: None,
    }
}

/// The (mesh, skin) pairs a split cuts, in node order.
struct Selected {
    /// Each pair over the joint budget, with the nodes that draw it.
    pairs: Vec<((usize, usize), Vec<usize>)>,
    /// Skinned-mesh skins within the budget.
    within: usize,
    /// How many nodes draw each mesh (skinned or not).
    users_of_mesh: BTreeMap<usize, usize>,
}

/// Finds, in node order, the (mesh, skin) pairs whose skin has more than `max` joints
/// and whose mesh has skinned primitives (`by_mesh`), with the nodes that draw them.
fn select_pairs(
    root: &dashvertex_gltf::document::Root,
    by_mesh: &BTreeMap<usize, Vec<&PrimitiveSets>>,
    max: usize,
) -> Selected {
    let mut pairs: Vec<((usize, usize), Vec<usize>)> = Vec::new();
    let mut pair_of: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    let mut within = std::collections::BTreeSet::new();
    let mut users_of_mesh: BTreeMap<usize, usize> = BTreeMap::new();
    for (i, n) in root.nodes.iter().enumerate() {
        let Some(m) = n.mesh.and_then(|m| usize::try_from(m).ok()) else {
            continue;
        };
        *users_of_mesh.entry(m).or_default() += 1;
        let Some(s) = n.skin.and_then(|s| usize::try_from(s).ok()) else {
            continue;
        };
        let (Some(skin), true) = (root.skins.get(s), by_mesh.contains_key(&m)) else {
            continue;
        };
        if skin.joints.len() <= max {
            within.insert(s);
            continue;
        }
        let k = *pair_of.entry((m, s)).or_insert_with(|| {
            pairs.push(((m, s), Vec::new()));
            pairs.len() - 1
        });
        if let Some(p) = pairs.get_mut(k) {
            p.1.push(i);
        }
    }
    Selected {
        pairs,
        within: within.len(),
        users_of_mesh,
    }
}

/// Checks the extensions at the root and on what `pairs` split that could name what the
/// split multiplies: each known, or refused before any work ([SP13]); the warnings for
/// those copied unchanged.
fn check_extensions(
    gltf: &Gltf,
    pairs: &[((usize, usize), Vec<usize>)],
    by_mesh: &BTreeMap<usize, Vec<&PrimitiveSets>>,
    opts: &Options,
) -> Result<Vec<String>, SplitError> {
    let split_meshes: std::collections::BTreeSet<usize> = pairs.iter().map(|p| p.0.0).collect();
    let split_skins: std::collections::BTreeSet<usize> = pairs.iter().map(|p| p.0.1).collect();
    let split_prims: std::collections::BTreeSet<(usize, usize)> = split_meshes
        .iter()
        .filter_map(|m| by_mesh.get(m))
        .flatten()
        .map(|p| (p.mesh, p.primitive))
        .collect();
    refs::check(gltf, &split_meshes, &split_skins, &split_prims, opts)
}

/// What the split adds to the document, against its output budget ([SP12]).
struct OutputBudget {
    /// The bytes the split may add.
    limit: u64,
    /// The bytes the pairs written so far added.
    added: u64,
}

impl OutputBudget {
    /// Counts `cost`, what writing pair `pair` adds, refusing it (with what the earlier
    /// pairs added) when it would take the total past the limit.
    fn charge(
        &mut self,
        gltf: &Gltf,
        pair: &Pair<'_>,
        max_joints: usize,
        cost: budget::Cost,
    ) -> Result<(), SplitError> {
        if self.added.saturating_add(cost.bytes) > self.limit {
            return Err(SplitError::OutputBudget {
                mesh: pair.mesh,
                skin: pair.skin,
                max_joints,
                bytes: cost.bytes,
                earlier: self.added,
                budget: self.limit,
                input_bytes: gltf.input_bytes(),
                largest: cost.largest,
            });
        }
        self.added = self.added.saturating_add(cost.bytes);
        Ok(())
    }
}

/// Records in `report` and `multiplied` what writing mesh `m`'s primitives `done` did:
/// the objects added, the meshes and nodes the pair now spans, and where each part went.
fn record_written(
    report: &mut Report,
    multiplied: &mut refs::Multiplied,
    m: usize,
    done: Vec<Done>,
    written: write::Written,
) {
    let added = written.added;
    report.added.meshes += added[0];
    report.added.nodes += added[1];
    report.added.skins += added[2];
    report.added.channels += added[3];
    multiplied.mesh(m, &written.meshes);
    for &(u, n) in &written.nodes {
        multiplied.node(u, n);
    }
    for (d, places) in done.into_iter().zip(written.placed) {
        let mut r = d.report;
        for (part, at) in r.parts.iter_mut().zip(places) {
            if let Some(at) = at {
                part.mesh = at.mesh;
                part.primitive = at.primitive;
                part.skin = at.skin;
                part.vertices = at.vertices;
                part.skin_joints = at.skin_joints;
            }
        }
        report.primitives.push(r);
    }
}

/// What writing `pair` (its primitives `done`, cut as `cuts` into `groups`) adds to the
/// document: the copies [`budget::pair_cost`] counts, and the extension references
/// naming the mesh or its nodes, once per added copy.
fn pair_cost(
    gltf: &Gltf,
    pair: &Pair<'_>,
    done: &[Done],
    cuts: &[Cut<'_>],
    groups: &[write::Group],
    tree: &Tree,
    references: &refs::References,
) -> budget::Cost {
    let vertices: Vec<Vec<usize>> = done
        .iter()
        .map(|d| d.report.parts.iter().map(|p| p.vertices).collect())
        .collect();
    let at = budget::PairRef {
        mesh: pair.mesh,
        skin: pair.skin,
        users: pair.users,
    };
    let mut cost = budget::pair_cost(gltf, &at, cuts, &vertices, groups, tree);
    let groups_n = u64::try_from(groups.len()).unwrap_or(u64::MAX);
    cost.join(references.cost(
        pair.mesh,
        groups_n.saturating_sub(u64::from(pair.reuse_mesh)),
        pair.users,
        groups_n.saturating_sub(1),
    ));
    cost
}

/// Splits every skinned node of `gltf` whose skin has more than `opts.max_joints`
/// joints. `anims` are the moments `reduce`'s displacement is measured at (the file's
/// own animations, usually).
pub fn split_gltf<'g>(
    gltf: &'g Gltf,
    opts: &Options,
    anims: &[Animation],
    limits: &Limits,
) -> Result<Split<'g>, SplitError> {
    let max = opts.max_joints;
    if max == 0 {
        return Err(SplitError::Config(
            "a part needs at least one joint: the joint budget must be 1 or more".into(),
        ));
    }
    let sets = skinning::primitive_sets(&gltf.root);
    let mut by_mesh: BTreeMap<usize, Vec<&PrimitiveSets>> = BTreeMap::new();
    for s in &sets {
        by_mesh.entry(s.mesh).or_default().push(s);
    }
    let Selected {
        pairs,
        within,
        users_of_mesh,
    } = select_pairs(&gltf.root, &by_mesh, max);
    let mut report = Report {
        max_joints: max,
        warnings: Vec::new(),
        nodes_split: pairs.iter().map(|p| p.1.len()).sum(),
        skins_within: within,
        added: Added::default(),
        primitives: Vec::new(),
    };
    if pairs.is_empty() {
        return Ok(Split {
            editor: None,
            report,
        });
    }
    report
        .warnings
        .extend(check_extensions(gltf, &pairs, &by_mesh, opts)?);
    let references = refs::References::new(&gltf.value);
    let mut multiplied = refs::Multiplied::default();
    let mut ed = Editor::new(gltf)?;
    let tree = Tree::new(gltf);
    let mut mesh_taken = std::collections::BTreeSet::new();
    let mut skin_taken = std::collections::BTreeSet::new();
    // Parts made so far: the budget is the document's, checked as each primitive is cut
    // and before anything is written for it.
    let mut made = 0usize;
    let mut checked_nodes = std::collections::BTreeSet::new();
    let mut output = OutputBudget {
        limit: budget::output_budget(gltf.input_bytes()),
        added: 0,
    };
    for ((m, s), users) in &pairs {
        let mut done = Vec::new();
        for p in by_mesh.get(m).into_iter().flatten() {
            let d = split_primitive(gltf, p, *s, opts, made, anims, limits)?;
            made = made.saturating_add(d.parts.len());
            done.push(d);
        }
        let cuts: Vec<Cut<'_>> = done
            .iter()
            .map(|d| Cut {
                sets: &d.sets,
                read: &d.read,
                parts: &d.parts,
                whole: d.whole,
            })
            .collect();
        let groups = write::group(&cuts, max);
        // Nodes beside the split ones are added only for a second group: then each
        // split node's extensions must be known to be carried (once per node).
        if groups.len() > 1 {
            for &u in users.iter().filter(|&&u| checked_nodes.insert(u)) {
                let warnings = node_extensions(gltf, u, groups.len() - 1, opts)?;
                report.warnings.extend(warnings);
            }
        }
        // The mesh's place goes to the first pair when only split nodes draw it.
        let split_users: usize = pairs
            .iter()
            .filter(|((pm, _), _)| pm == m)
            .map(|p| p.1.len())
            .sum();
        let reuse_mesh =
            users_of_mesh.get(m).copied() == Some(split_users) && mesh_taken.insert(*m);
        let reuse_skin = skin_taken.insert(*s);
        let pair = Pair {
            mesh: *m,
            skin: *s,
            users,
            reuse_mesh,
            reuse_skin,
        };
        // What writing the pair adds, counted before anything is written for it.
        let cost = pair_cost(gltf, &pair, &done, &cuts, &groups, &tree, &references);
        output.charge(gltf, &pair, max, cost)?;
        let written = write::write_pair(&mut ed, gltf, &pair, &cuts, &groups, &tree)?;
        record_written(&mut report, &mut multiplied, *m, done, written);
    }
    // Every reference to a mesh or node the split multiplied names each part ([SP13]).
    refs::rewrite(ed.json_mut(), &multiplied);
    report
        .primitives
        .sort_by_key(|p| (p.mesh, p.primitive, p.skin));
    Ok(Split {
        editor: Some(ed),
        report,
    })
}
