//! `--reduce`: elements whose vertices use more joints together than a part may hold
//! are made to fit by taking the least influences off their vertices
//! (`spec/split.md` §3). Only those vertices change; every other keeps its stored bits.

use dashvertex_core::weights::{largest_remainder, normalize_unit};
use dashvertex_gltf::export::WeightFormat;

use crate::read::{Read, Stored};

/// What the repair changed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Repair {
    /// Vertices whose influences changed, ascending.
    pub vertices: Vec<u32>,
    /// Influences taken off, over all those vertices.
    pub removed: usize,
    /// The largest weight one vertex lost (before the renormalization).
    pub max_weight_lost: f64,
}

/// An element no removal can make fit: each of its joints is some vertex's only one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unfixable {
    /// The element.
    pub element: usize,
    /// Its joints.
    pub joints: Vec<u32>,
}

/// The joints of vertex `v` with their total weight (in the model's terms).
fn joints_of(stored: &Stored, v: usize, out: &mut Vec<(u32, f64)>) {
    out.clear();
    let at = v * stored.slots();
    for i in at..at + stored.slots() {
        if !stored.used(i) {
            continue;
        }
        let j = stored.joints.get(i).copied().map_or(0, u32::from);
        let w = f64::from(stored.weight(i));
        match out.iter_mut().find(|e| e.0 == j) {
            Some(e) => e.1 += w,
            None => out.push((j, w)),
        }
    }
}

/// Takes joint `j` off vertex `v` and renormalizes what is left in the stored format;
/// returns the weight taken.
fn remove(stored: &mut Stored, v: usize, j: u32) -> f64 {
    let slots = stored.slots();
    let at = v * slots;
    let mut lost = 0.0;
    for i in at..at + slots {
        if stored.joints.get(i).copied().map(u32::from) == Some(j) && stored.used(i) {
            lost += f64::from(stored.weight(i));
            if let Some(w) = stored.weights.get_mut(i) {
                *w = 0;
            }
            if let Some(x) = stored.joints.get_mut(i) {
                *x = 0;
            }
        }
    }
    match stored.format {
        WeightFormat::F32 => {
            let mut w: Vec<f32> = (at..at + slots).map(|i| stored.weight(i)).collect();
            normalize_unit(&mut w);
            for (k, x) in w.into_iter().enumerate() {
                if let Some(slot) = stored.weights.get_mut(at + k) {
                    *slot = x.to_bits();
                }
            }
        }
        WeightFormat::Unorm8 | WeightFormat::Unorm16 => {
            let max = if stored.format == WeightFormat::Unorm8 {
                255
            } else {
                65535
            };
            let w: Vec<u32> = (at..at + slots)
                .map(|i| stored.weights.get(i).copied().unwrap_or(0))
                .collect();
            let (mut out, mut rems) = (Vec::new(), Vec::new());
            largest_remainder(&w, max, &mut out, &mut rems);
            for (k, x) in out.into_iter().enumerate() {
                if let Some(slot) = stored.weights.get_mut(at + k) {
                    *slot = x;
                }
            }
            // A slot rounded to 0 is padding: joint 0.
            for i in at..at + slots {
                if stored.weights.get(i) == Some(&0)
                    && let Some(x) = stored.joints.get_mut(i)
                {
                    *x = 0;
                }
            }
        }
    }
    lost
}

/// Makes every element of `read` use at most `max` joints, in element order: while an
/// element uses too many, the joint with the least total weight over its vertices (the
/// lowest index at equal weight) that is no vertex's only joint is taken off its
/// vertices.
pub fn repair(read: &mut Read, max: usize) -> Result<Repair, Unfixable> {
    let mut changed = vec![false; read.vertices];
    let mut rep = Repair::default();
    let mut per_vertex: Vec<Vec<(u32, f64)>> = vec![Vec::new(); read.arity];
    let mut lost_of = vec![0.0f64; read.vertices];
    let elements = read.indices.len().checked_div(read.arity).unwrap_or(0);
    for e in 0..elements {
        let verts: Vec<usize> = read
            .indices
            .get(e * read.arity..(e + 1) * read.arity)
            .unwrap_or_default()
            .iter()
            .map(|&v| v as usize)
            .collect();
        loop {
            for (k, &v) in verts.iter().enumerate() {
                if let Some(row) = per_vertex.get_mut(k) {
                    joints_of(&read.stored, v, row);
                }
            }
            let mut union: Vec<(u32, f64)> = Vec::new();
            for row in per_vertex.iter().take(verts.len()) {
                for &(j, w) in row {
                    match union.iter_mut().find(|e| e.0 == j) {
                        Some(e) => e.1 += w,
                        None => union.push((j, w)),
                    }
                }
            }
            if union.len() <= max {
                break;
            }
            union.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
            let sole = |j: u32| {
                per_vertex
                    .iter()
                    .take(verts.len())
                    .any(|row| row.len() == 1 && row.first().is_some_and(|x| x.0 == j))
            };
            let Some(&(j, _)) = union.iter().find(|(j, _)| !sole(*j)) else {
                let mut joints: Vec<u32> = union.iter().map(|x| x.0).collect();
                joints.sort_unstable();
                return Err(Unfixable { element: e, joints });
            };
            for &v in &verts {
                let lost = remove(&mut read.stored, v, j);
                if lost > 0.0 {
                    rep.removed += 1;
                    if let Some(c) = changed.get_mut(v) {
                        *c = true;
                    }
                    if let Some(l) = lost_of.get_mut(v) {
                        *l += lost;
                        rep.max_weight_lost = rep.max_weight_lost.max(*l);
                    }
                }
            }
        }
    }
    rep.vertices = changed
        .iter()
        .enumerate()
        .filter(|(_, c)| **c)
        .map(|(v, _)| u32::try_from(v).unwrap_or(u32::MAX))
        .collect();
    Ok(rep)
}
