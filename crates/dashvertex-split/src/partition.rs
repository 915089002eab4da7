//! The split itself, over the elements (triangles, lines or points) of one primitive and
//! the joints each vertex uses: parts are grown over elements that share a vertex,
//! cheapest first, then merged while their joints fit (`spec/split.md` §2).
//!
//! Everything here is in index order with explicit tie-breaks, so the same input gives
//! the same parts; the work is bounded by a budget proportional to the input (past it
//! the growth falls back to filling parts in index order, which is linear).

use std::cmp::Reverse;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};

pub use crate::rows::{Rows, TableFull};

/// One primitive as the split sees it.
#[derive(Clone, Copy, Debug)]
pub struct Shape<'a> {
    /// Vertices per element: 3 for triangles, 2 for lines, 1 for points.
    pub arity: usize,
    /// The elements' vertex indices, `arity` per element (each below `vertex_joints`'
    /// row count).
    pub indices: &'a [u32],
    /// Per vertex, the joints it uses (non-zero weight), sorted and distinct (a joint
    /// index is a glTF `JOINTS_n` value, so it fits 16 bits).
    pub vertex_joints: &'a Rows<u16>,
    /// Joints of the skin (every joint index is below it).
    pub joints: usize,
}

impl Shape<'_> {
    /// Number of elements.
    pub fn elements(&self) -> usize {
        self.indices.len().checked_div(self.arity).unwrap_or(0)
    }

    /// The vertices of element `e`.
    pub fn element(&self, e: usize) -> &[u32] {
        let a = e * self.arity;
        self.indices.get(a..a + self.arity).unwrap_or_default()
    }
}

/// A part: elements (ascending) and the joints they use (ascending).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Part {
    /// Element indices in the primitive.
    pub elements: Vec<u32>,
    /// Joint indices of the skin.
    pub joints: Vec<u32>,
}

/// Elements that use more joints than a part may hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Infeasible {
    /// How many elements do.
    pub count: usize,
    /// The first of them (at most [`Infeasible::SHOWN`]), with their joints.
    pub first: Vec<(usize, Vec<u32>)>,
}

impl Infeasible {
    /// How many elements a refusal lists.
    pub const SHOWN: usize = 3;
}

/// Work units the growth may take per element-vertex incidence before it falls back to
/// filling parts in index order (spec/split.md §2.4).
pub const WORK_PER_INCIDENCE: u64 = 64;

/// Candidate parts one part is compared with when parts are merged.
pub const MERGE_CANDIDATES: usize = 64;

/// Per element, the joints its vertices use together, sorted and distinct.
pub fn element_joints(shape: &Shape<'_>) -> Result<Rows<u16>, TableFull> {
    let n = shape.elements();
    let mut out = Rows::with_capacity(n, n.saturating_mul(4));
    let mut scratch: Vec<u16> = Vec::new();
    for e in 0..n {
        // A handful of joints per element: kept sorted and distinct by insertion, which
        // beats a general sort at this size. Neighbouring vertices mostly use the same
        // joints: a vertex whose row is the one gathered so far adds nothing.
        scratch.clear();
        for &v in shape.element(e) {
            let row = shape.vertex_joints.row(v as usize);
            if row == scratch.as_slice() {
                continue;
            }
            if scratch.is_empty() {
                scratch.extend_from_slice(row);
                continue;
            }
            for &j in row {
                let at = scratch.partition_point(|&x| x < j);
                if scratch.get(at) != Some(&j) {
                    scratch.insert(at, j);
                }
            }
        }
        out.push(scratch.iter().copied())?;
    }
    Ok(out)
}

/// The elements that need more than `max` joints (none when every element fits).
pub fn infeasible(ej: &Rows<u16>, max: usize) -> Option<Infeasible> {
    let mut count = 0;
    let mut first = Vec::new();
    for e in 0..ej.len() {
        let row = ej.row(e);
        if row.len() > max {
            count += 1;
            if first.len() < Infeasible::SHOWN {
                first.push((e, row.iter().map(|&j| u32::from(j)).collect()));
            }
        }
    }
    (count > 0).then_some(Infeasible { count, first })
}

/// Per vertex, the elements that use it (ascending; an element using a vertex twice is
/// listed twice).
pub fn vertex_elements(shape: &Shape<'_>) -> Result<Rows, TableFull> {
    elements_of_vertices(shape.arity, shape.indices, shape.vertex_joints.len())
}

/// [`vertex_elements`] of elements of `arity` vertices given by `indices`, over
/// `vertices` vertices (what it needs of a [`Shape`], so that it can be built before the
/// shape's joint tables are).
pub fn elements_of_vertices(
    arity: usize,
    indices: &[u32],
    vertices: usize,
) -> Result<Rows, TableFull> {
    if u32::try_from(indices.len()).is_err() {
        return Err(TableFull);
    }
    let shape = Shape {
        arity,
        indices,
        vertex_joints: &Rows::new(),
        joints: 0,
    };
    let n = vertices;
    let mut count = vec![0u32; n + 1];
    for &v in shape.indices {
        if let Some(c) = count.get_mut(v as usize + 1) {
            *c += 1;
        }
    }
    for i in 1..count.len() {
        let prev = count.get(i - 1).copied().unwrap_or(0);
        if let Some(c) = count.get_mut(i) {
            *c += prev;
        }
    }
    let start = count.clone();
    let mut items = vec![0u32; shape.indices.len()];
    let mut fill = count;
    for e in 0..shape.elements() {
        for &v in shape.element(e) {
            if let Some(at) = fill.get_mut(v as usize) {
                if let Some(slot) = items.get_mut(*at as usize) {
                    *slot = u32::try_from(e).unwrap_or(u32::MAX);
                }
                *at += 1;
            }
        }
    }
    Ok(Rows { start, items })
}

const NONE: u32 = u32::MAX;

/// Below this many element-vertex incidences a primitive is split on the calling thread
/// alone: handing work to another thread costs more than the work.
pub const PARALLEL_FROM: usize = 1 << 15;

/// `dashvertex_core::par::join` of `a` and `b` when `parallel`, else `a` then `b` on this thread. The
/// callers' results do not depend on which.
pub(crate) fn join<A, B, RA, RB>(parallel: bool, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    if parallel {
        dashvertex_core::par::join(a, b)
    } else {
        (a(), b())
    }
}

/// How many elements a part's fill looks at between two looks at its stop flag.
const STOP_STRIDE: usize = 1 << 14;

/// Splits `shape` into parts of at most `max` joints each. Every element must fit
/// ([`infeasible`] says which do not): an element that does not is put in a part of its
/// own, over the budget, for the caller to have refused first.
///
/// Three growths are tried — over neighbours only, over neighbours and then every later
/// element that fits, and in index order only (no neighbours) — each followed by the
/// merge; the one with the fewest parts, then the fewest vertices written, then the
/// earliest tried, is kept. `ej` is [`element_joints`] of `shape` (the caller has it
/// already, from [`infeasible`]) and `adj` its [`vertex_elements`] (built once for the
/// growths and the seam count).
///
/// The fill runs beside the other two (one after the other) when the thread pool has a
/// second thread; which growth is kept does not depend on it, so the parts
/// are the same at any thread count.
pub fn partition(shape: &Shape<'_>, ej: &Rows<u16>, adj: &Rows, max: usize) -> Vec<Part> {
    partition_within(shape, ej, adj, max, usize::MAX).unwrap_or_default()
}

/// More parts than a budget allows ([`partition_within`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartBudget {
    /// The fewest parts found: of the growths made, or, when `at_least`, the lower
    /// bound below which no split can go (then no part was grown): ⌈joints used / N⌉,
    /// or more when elements fill a part each with joints of their own (see `floor`).
    pub parts: usize,
    /// Whether `parts` is that lower bound.
    pub at_least: bool,
}

/// [`partition`], refused when it needs more than `max_parts` parts
/// (`spec/split.md` \[SP10\]).
///
/// The parts are counted before they are made and as they are chosen: when a lower
/// bound found in linear time (the distinct joint sets of elements that fill a part
/// alone, plus ⌈the other joints / max⌉; at least ⌈joints used / max⌉) already passes
/// `max_parts` nothing is grown; otherwise the fewest parts
/// of the merged growths is compared with the budget before anything is built for them
/// (a growth's count before its merge says nothing: the merge may join any number of
/// parts whose joints fit together). A growth's parts hold only their elements and
/// joints (each at least one element, its joints at most its elements'), so what the
/// partition allocates is bounded by the primitive whatever the budget; what grows
/// with the parts' number, their accessors, meshes, nodes and skins, comes after.
pub fn partition_within(
    shape: &Shape<'_>,
    ej: &Rows<u16>,
    adj: &Rows,
    max: usize,
    max_parts: usize,
) -> Result<Vec<Part>, PartBudget> {
    // What no growth can beat: the lower bound on parts, each vertex written once. A
    // growth reaching both ends the search (a later one could only tie, and ties keep the
    // earliest), so a primitive that splits cleanly is grown once.
    let floor = floor(shape, ej, max);
    if floor.0 > max_parts {
        return Err(PartBudget {
            parts: floor.0,
            at_least: true,
        });
    }
    let input = Input {
        shape,
        ej,
        adj,
        max,
    };
    let stop = AtomicBool::new(false);
    let stopped = || stop.load(Ordering::Relaxed);
    // Over neighbours then in index order on one side, the fill on the other: the fill
    // takes about as long as the other two together.
    let ((adjacent, index_order), fill) = join(
        shape.indices.len() >= PARALLEL_FROM,
        || {
            let mut scratch = None;
            let never = AtomicBool::new(false);
            let adjacent = attempt(input, Growth::ADJACENT, &never, &mut scratch);
            if adjacent.as_ref().is_some_and(|t| t.rank() <= floor) {
                stop.store(true, Ordering::Relaxed);
                return (adjacent, None);
            }
            if stopped() {
                return (adjacent, None);
            }
            let index_order = attempt(input, Growth::INDEX_ORDER, &stop, &mut scratch);
            (adjacent, index_order)
        },
        || {
            let fill = attempt(input, Growth::FILL, &stop, &mut None);
            if fill.as_ref().is_some_and(|t| t.rank() <= floor) {
                stop.store(true, Ordering::Relaxed);
            }
            fill
        },
    );
    // Whichever reached the floor first stopped the later ones, which it beats or ties.
    let mut best: Option<Tried> = None;
    for t in [adjacent, fill, index_order].into_iter().flatten() {
        if best.as_ref().is_none_or(|b| t.rank() < b.rank()) {
            best = Some(t);
        }
    }
    let mut parts = best.map(|b| b.parts).unwrap_or_default();
    if parts.len() > max_parts {
        return Err(PartBudget {
            parts: parts.len(),
            at_least: false,
        });
    }
    ascending(&mut parts, shape.elements());
    parts.sort_by_key(|p| p.elements.first().copied());
    Ok(parts)
}

/// The parts one growth and its merge made, with the vertices they write.
struct Tried {
    parts: Vec<Part>,
    written: usize,
}

impl Tried {
    /// What the choice between growths compares: fewer parts, then fewer vertices.
    fn rank(&self) -> (usize, usize) {
        (self.parts.len(), self.written)
    }
}

/// What every growth of one primitive reads: the shape, its [`element_joints`] and
/// [`vertex_elements`], and the budget.
#[derive(Clone, Copy)]
struct Input<'a> {
    shape: &'a Shape<'a>,
    ej: &'a Rows<u16>,
    adj: &'a Rows,
    max: usize,
}

/// Grows `shape` as `how` says and merges the parts; `None` when `stop` was raised on
/// the way. `scratch` holds the growth's tables from one attempt to the next on the
/// same thread (made at the first): allocating them afresh cost as much in page faults
/// as clearing them costs in writes, twice over.
fn attempt(
    input: Input<'_>,
    how: Growth,
    stop: &AtomicBool,
    scratch: &mut Option<Scratch>,
) -> Option<Tried> {
    let Input { shape, ej, max, .. } = input;
    let s = scratch.get_or_insert_with(|| Scratch::new(shape, max.min(ej.widest())));
    let mut parts = grow(input, how, stop, s)?;
    merge(&mut parts, shape.joints, max);
    parts.retain(|p| !p.elements.is_empty());
    for p in &mut parts {
        p.elements.shrink_to_fit();
    }
    // Vertices written: once per part that uses them, counted with the vertex marks the
    // growth no longer needs.
    let mark = &mut s.vertex_mark;
    mark.fill(0);
    let mut written = 0;
    for (k, p) in parts.iter().enumerate() {
        let stamp = u32::try_from(k + 1).unwrap_or(NONE);
        for &e in &p.elements {
            for &v in shape.element(e as usize) {
                if let Some(m) = mark.get_mut(v as usize)
                    && *m != stamp
                {
                    *m = stamp;
                    written += 1;
                }
            }
        }
    }
    Some(Tried { parts, written })
}

/// Puts each part's elements in ascending order with one pass over the `n` elements
/// (every element is in exactly one part), where sorting each part took a few percent of
/// a large split.
fn ascending(parts: &mut [Part], n: usize) {
    let mut owner = vec![NONE; n];
    for (k, p) in parts.iter().enumerate() {
        let k = u32::try_from(k).unwrap_or(NONE);
        for &e in &p.elements {
            if let Some(o) = owner.get_mut(e as usize) {
                *o = k;
            }
        }
    }
    for p in parts.iter_mut() {
        // Capacity kept: the pushes below never reallocate.
        p.elements.clear();
    }
    for (e, &k) in owner.iter().enumerate() {
        if let Some(p) = parts.get_mut(k as usize) {
            p.elements.push(u32::try_from(e).unwrap_or(NONE));
        }
    }
}

/// The fewest parts and vertices written any split of `shape` can have: `(parts,
/// vertices used)`, found in linear time.
///
/// The parts: an element whose joints fill a part (exactly `max`) shares it only with
/// elements whose joints are among its own, so `D` distinct full joint sets need `D`
/// parts, none holding a joint outside its set; the joints used outside every full set
/// need ⌈those / max⌉ more. This is at least ⌈joints used / max⌉ (the `D` sets hold at
/// most `D × max` joints), and far above it when many elements fill a part each with
/// joints of its own (a strip of random joints), so such a primitive is refused by the
/// part budget before any part is grown.
fn floor(shape: &Shape<'_>, ej: &Rows<u16>, max: usize) -> (usize, usize) {
    let max = max.max(1);
    let mut mark = vec![false; shape.vertex_joints.len()];
    let mut seen = vec![false; shape.joints];
    let mut joints: usize = 0;
    for &j in ej.items() {
        if let Some(s) = seen.get_mut(j as usize)
            && !*s
        {
            *s = true;
            joints += 1;
        }
    }
    // Distinct full joint sets, and the joints they hold (`seen` turned off).
    let mut full: std::collections::HashSet<&[u16]> = std::collections::HashSet::new();
    let mut covered: usize = 0;
    for e in 0..ej.len() {
        let row = ej.row(e);
        if row.len() == max && full.insert(row) {
            for &j in row {
                if let Some(s) = seen.get_mut(j as usize)
                    && *s
                {
                    *s = false;
                    covered += 1;
                }
            }
        }
    }
    let parts = full
        .len()
        .saturating_add(joints.saturating_sub(covered).div_ceil(max))
        .max(joints.div_ceil(max));
    let mut vertices = 0;
    for &v in shape.indices {
        if let Some(m) = mark.get_mut(v as usize)
            && !*m
        {
            *m = true;
            vertices += 1;
        }
    }
    (parts, vertices)
}

/// How parts grow.
#[derive(Clone, Copy, Debug)]
struct Growth {
    /// Over elements sharing a vertex, cheapest first.
    adjacent: bool,
    /// Then over every later element that fits, in index order.
    fill: bool,
}

impl Growth {
    const ADJACENT: Growth = Growth {
        adjacent: true,
        fill: false,
    };
    const FILL: Growth = Growth {
        adjacent: true,
        fill: true,
    };
    const INDEX_ORDER: Growth = Growth {
        adjacent: false,
        fill: true,
    };
}

/// The candidate elements of a growing part, least cost first and, at equal cost, in the
/// order they were offered: one queue per cost (a cost is the joints an element would add,
/// at most the widest element's joints), so offering and taking are O(1) amortized.
struct Candidates {
    by_cost: Vec<VecDeque<u32>>,
    /// No queue below this one holds anything.
    least: usize,
}

impl Candidates {
    fn new(widest: usize) -> Candidates {
        Candidates {
            by_cost: (0..=widest).map(|_| VecDeque::new()).collect(),
            least: 0,
        }
    }

    /// Offers element `e` at `cost` (clamped to the widest: never more is asked).
    fn push(&mut self, cost: usize, e: u32) {
        let c = cost.min(self.by_cost.len().saturating_sub(1));
        if let Some(q) = self.by_cost.get_mut(c) {
            q.push_back(e);
            self.least = self.least.min(c);
        }
    }

    /// The cheapest candidate offered first, with its cost.
    fn pop(&mut self) -> Option<(usize, u32)> {
        while let Some(q) = self.by_cost.get_mut(self.least) {
            if let Some(e) = q.pop_front() {
                return Some((self.least, e));
            }
            self.least += 1;
        }
        None
    }

    fn clear(&mut self) {
        for q in &mut self.by_cost {
            q.clear();
        }
        self.least = 0;
    }
}

/// The tables of a growth, kept from one growth to the next on a thread.
struct Scratch {
    /// Per element, the part it is in ([`NONE`] while in none).
    owner: Vec<u32>,
    /// Per joint, the stamp of the last part that took it.
    joint_mark: Vec<u32>,
    /// Per vertex, the stamp of the last part that offered its elements.
    vertex_mark: Vec<u32>,
    /// Per element, whether the candidates of a part held it at cost 0. Such an element
    /// is taken when popped (its joints are all the part's, and the part fits), and an
    /// element's cost only falls as its part grows, so offering it again changes
    /// nothing: the offer is skipped. A part ends with no candidate left, so a marked
    /// element is either a candidate of the growing part or in a part: the mark needs no
    /// clearing between parts. On a mesh most neighbours of a growing part are offered
    /// at cost 0 several times, once per shared vertex.
    free: Vec<bool>,
    heap: Candidates,
    /// Whether the tables are as [`Scratch::new`] made them.
    fresh: bool,
}

impl Scratch {
    /// Tables for `shape`, candidates of cost up to `widest`.
    fn new(shape: &Shape<'_>, widest: usize) -> Scratch {
        Scratch {
            owner: vec![NONE; shape.elements()],
            joint_mark: vec![0; shape.joints],
            vertex_mark: vec![0; shape.vertex_joints.len()],
            free: vec![false; shape.elements()],
            heap: Candidates::new(widest),
            fresh: true,
        }
    }

    /// As new, for another growth.
    fn reset(&mut self) {
        if std::mem::replace(&mut self.fresh, false) {
            return;
        }
        self.owner.fill(NONE);
        self.joint_mark.fill(0);
        self.vertex_mark.fill(0);
        self.free.fill(false);
        self.heap.clear();
    }
}

/// The growth state of one part.
struct Grow<'s> {
    shape: &'s Shape<'s>,
    ej: &'s Rows<u16>,
    adj: &'s Rows,
    s: &'s mut Scratch,
    work: u64,
    budget: u64,
    adjacent: bool,
}

impl Grow<'_> {
    /// Joints of element `e` the part `stamp` does not have yet.
    fn cost(&mut self, e: usize, stamp: u32) -> usize {
        let row = self.ej.row(e);
        self.work += row.len() as u64 + 1;
        row.iter()
            .filter(|&&j| self.s.joint_mark.get(j as usize).copied() != Some(stamp))
            .count()
    }

    /// Puts element `e` in part `p` (`stamp` = p + 1), and its neighbours (elements
    /// sharing a vertex not yet expanded for this part) in the candidate heap.
    fn add(&mut self, e: usize, p: u32, stamp: u32, part: &mut Part, max: usize) {
        if let Some(o) = self.s.owner.get_mut(e) {
            *o = p;
        }
        part.elements.push(u32::try_from(e).unwrap_or(NONE));
        for &j in self.ej.row(e) {
            if let Some(m) = self.s.joint_mark.get_mut(j as usize)
                && *m != stamp
            {
                *m = stamp;
                part.joints.push(u32::from(j));
            }
        }
        if self.work > self.budget || !self.adjacent {
            return;
        }
        let shape = self.shape;
        for &v in shape.element(e) {
            let Some(m) = self.s.vertex_mark.get_mut(v as usize) else {
                continue;
            };
            if *m == stamp {
                continue;
            }
            *m = stamp;
            let adj = self.adj;
            for &n in adj.row(v as usize) {
                self.work += 1;
                if self.s.owner.get(n as usize).copied() != Some(NONE) {
                    continue;
                }
                if self.s.free.get(n as usize) == Some(&true) {
                    // Counted as the cost would have been, so the work budget, and
                    // with it where the growth falls back, is as without the skip.
                    self.work += self.ej.row(n as usize).len() as u64 + 1;
                    continue;
                }
                let c = self.cost(n as usize, stamp);
                if part.joints.len() + c <= max {
                    self.offer(c, n);
                }
            }
        }
    }
}

impl Grow<'_> {
    /// Puts element `e` among the candidates of the growing part at `cost`.
    fn offer(&mut self, cost: usize, e: u32) {
        if cost == 0
            && let Some(f) = self.s.free.get_mut(e as usize)
        {
            *f = true;
        }
        self.s.heap.push(cost, e);
    }

    /// Grows part `p` over the candidates in the heap, cheapest first, while they fit.
    fn drain(&mut self, p: u32, stamp: u32, part: &mut Part, max: usize) {
        while let Some((cost, e)) = self.s.heap.pop() {
            let e = e as usize;
            if self.s.owner.get(e).copied() != Some(NONE) {
                continue;
            }
            let now = self.cost(e, stamp);
            if now < cost {
                // The part gained some of its joints since it was pushed.
                self.offer(now, u32::try_from(e).unwrap_or(NONE));
                continue;
            }
            if part.joints.len() + now <= max {
                self.add(e, p, stamp, part, max);
            }
        }
    }
}

/// Grows parts from seeds in index order: each takes, among the unassigned elements
/// sharing a vertex with it, the one adding the fewest joints (the earliest pushed at
/// equal cost) while it fits; then each later element that still fits, in index order,
/// growing again from it. Past the work budget, the remaining elements fill parts in
/// index order.
///
/// `None` when `stop` is raised before the growth ends (looked at once per part, and
/// every [`STOP_STRIDE`] elements while a part is filled).
fn grow(
    input: Input<'_>,
    how: Growth,
    stop: &AtomicBool,
    scratch: &mut Scratch,
) -> Option<Vec<Part>> {
    let Input {
        shape,
        ej,
        adj,
        max,
    } = input;
    let n = shape.elements();
    let incidences = shape.indices.len() as u64 + shape.vertex_joints.len() as u64;
    scratch.reset();
    let mut g = Grow {
        shape,
        ej,
        adj,
        s: scratch,
        work: 0,
        budget: incidences
            .saturating_mul(WORK_PER_INCIDENCE)
            .saturating_add(1 << 20),
        adjacent: how.adjacent,
    };
    let mut parts: Vec<Part> = Vec::new();
    let mut fallback: Option<Part> = None;
    for seed in 0..n {
        if g.s.owner.get(seed).copied() != Some(NONE) {
            continue;
        }
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        if g.work > g.budget {
            // Index order: the element joins the open part if it fits, else opens one.
            let row = ej.row(seed);
            let part = fallback.get_or_insert_with(Part::default);
            let mut union: Vec<u32> = part
                .joints
                .iter()
                .copied()
                .chain(row.iter().map(|&j| u32::from(j)))
                .collect();
            union.sort_unstable();
            union.dedup();
            if union.len() > max && !part.elements.is_empty() {
                parts.push(std::mem::take(part));
                union = row.iter().map(|&j| u32::from(j)).collect();
            }
            part.joints = union;
            part.elements.push(u32::try_from(seed).unwrap_or(NONE));
            if let Some(o) = g.s.owner.get_mut(seed) {
                *o = 0;
            }
            continue;
        }
        let p = u32::try_from(parts.len()).unwrap_or(NONE - 1);
        let stamp = p.wrapping_add(1).max(1);
        let mut part = Part::default();
        g.s.heap.clear();
        g.add(seed, p, stamp, &mut part, max);
        g.drain(p, stamp, &mut part, max);
        // Then every later element that still fits, in index order, each growing the
        // part over its neighbours again: the part is filled to its budget.
        for e in seed + 1..n {
            if g.work > g.budget || !how.fill {
                break;
            }
            if e % STOP_STRIDE == 0 && stop.load(Ordering::Relaxed) {
                return None;
            }
            g.work += 1;
            if g.s.owner.get(e).copied() != Some(NONE) {
                continue;
            }
            if part.joints.len() + g.cost(e, stamp) <= max {
                g.add(e, p, stamp, &mut part, max);
                g.drain(p, stamp, &mut part, max);
            }
        }
        part.joints.sort_unstable();
        // Growth by doubling leaves up to half of a large part unused, and three
        // growths' parts can be held at once.
        part.elements.shrink_to_fit();
        parts.push(part);
    }
    if let Some(part) = fallback.filter(|p| !p.elements.is_empty()) {
        parts.push(part);
    }
    Some(parts)
}

/// The size of the union of two sorted joint lists, or `None` past `max`.
fn union_len(a: &[u32], b: &[u32], max: usize) -> Option<usize> {
    let (mut i, mut k, mut n) = (0, 0, 0);
    while i < a.len() || k < b.len() {
        match (a.get(i), b.get(k)) {
            (Some(x), Some(y)) if x == y => {
                i += 1;
                k += 1;
            }
            (Some(x), Some(y)) if x < y => i += 1,
            (Some(_), None) => i += 1,
            _ => k += 1,
        }
        n += 1;
        if n > max {
            return None;
        }
    }
    Some(n)
}

/// Moves part `q` into part `p`.
fn absorb(parts: &mut [Part], p: usize, q: usize) {
    let taken = parts.get_mut(q).map(std::mem::take).unwrap_or_default();
    if let Some(dst) = parts.get_mut(p) {
        dst.elements.extend(taken.elements);
        dst.joints.extend(taken.joints);
        dst.joints.sort_unstable();
        dst.joints.dedup();
    }
}

/// Merges parts while their joints fit together: first each part with the later parts
/// sharing most of its joints, then the parts left, largest first, into the first of at
/// most [`MERGE_CANDIDATES`] open parts with room.
fn merge(parts: &mut [Part], joints: usize, max: usize) {
    // Pass 1: shared joints, through a joint → parts index.
    let mut index: Vec<Vec<u32>> = vec![Vec::new(); joints];
    for (p, part) in parts.iter().enumerate() {
        for &j in &part.joints {
            if let Some(l) = index.get_mut(j as usize) {
                l.push(u32::try_from(p).unwrap_or(NONE));
            }
        }
    }
    let n = parts.len();
    let mut shared = vec![0u32; n];
    let mut touched: Vec<usize> = Vec::new();
    for p in 0..n {
        if parts.get(p).is_none_or(|x| x.elements.is_empty()) {
            continue;
        }
        let js = parts.get(p).map(|x| x.joints.clone()).unwrap_or_default();
        let mut scanned = 0usize;
        'joints: for j in js {
            let Some(list) = index.get(j as usize) else {
                continue;
            };
            // Later parts only: each pair is looked at from its first part.
            let from = list.partition_point(|&q| (q as usize) <= p);
            for &q in list.get(from..).unwrap_or_default() {
                scanned += 1;
                if scanned > 4 * MERGE_CANDIDATES {
                    break 'joints;
                }
                if let Some(s) = shared.get_mut(q as usize) {
                    if *s == 0 {
                        touched.push(q as usize);
                    }
                    *s += 1;
                }
            }
        }
        let mut cands: Vec<(Reverse<u32>, usize)> = touched
            .drain(..)
            .map(|q| (Reverse(shared.get(q).copied().unwrap_or(0)), q))
            .collect();
        for &(_, q) in &cands {
            if let Some(s) = shared.get_mut(q) {
                *s = 0;
            }
        }
        cands.sort_unstable();
        for (_, q) in cands.into_iter().take(MERGE_CANDIDATES) {
            let (Some(a), Some(b)) = (parts.get(p), parts.get(q)) else {
                continue;
            };
            if b.elements.is_empty() {
                continue;
            }
            if union_len(&a.joints, &b.joints, max).is_some() {
                absorb(parts, p, q);
            }
        }
    }
    // Pass 2: first fit, largest first, over a bounded window of open parts.
    let mut order: Vec<usize> = (0..n)
        .filter(|&p| parts.get(p).is_some_and(|x| !x.elements.is_empty()))
        .collect();
    order.sort_by_key(|&p| (Reverse(parts.get(p).map_or(0, |x| x.joints.len())), p));
    let mut open: Vec<usize> = Vec::new();
    for p in order {
        let mut into = None;
        for &b in open.iter().take(MERGE_CANDIDATES) {
            let (Some(x), Some(y)) = (parts.get(b), parts.get(p)) else {
                continue;
            };
            if union_len(&x.joints, &y.joints, max).is_some() {
                into = Some(b);
                break;
            }
        }
        match into {
            Some(b) => {
                absorb(parts, b, p);
                if parts.get(b).is_some_and(|x| x.joints.len() >= max) {
                    open.retain(|&o| o != b);
                }
            }
            None => {
                if parts.get(p).is_some_and(|x| x.joints.len() < max) {
                    open.push(p);
                }
            }
        }
    }
}
