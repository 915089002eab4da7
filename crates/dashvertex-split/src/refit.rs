//! `--reduce --fit` (`spec/split.md` §3): after the repair took joints off an element's
//! vertices by the split's rule, each changed vertex's weights on the joints it kept are
//! fitted to its skinning with every influence it had, summed over the moments the
//! measure takes (`spec/reduction.md` \[RF1\]'s objective, \[RF2\]'s exact weights), and
//! written where they move it less than the renormalized weights. The joints, and so the
//! partition, are the repair's: only weights change, and a joint whose fitted weight is
//! 0 leaves its slot.

use dashvertex_core::Limits;
use dashvertex_gltf::Gltf;
use dashvertex_gltf::export::WeightFormat;
use dashvertex_reduce::Quantize;
use dashvertex_reduce::fit::Poses;
use dashvertex_reduce::fit::support::{RefitScratch, SupportFit};
use dashvertex_skin::Animation;

use crate::SplitError;
use crate::measure::joints_at_moments;
use crate::read::Stored;

/// What the fit did to the changed vertices.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Refitted {
    /// Vertices written with fitted weights.
    pub(crate) vertices: usize,
}

/// Refits `after`'s weights (the repair of `before`) on the vertices `vertices`, skinned
/// by skin `skin` at positions `positions` (the POSITION accessor).
#[allow(clippy::too_many_arguments, reason = "the measure's arguments")]
pub(crate) fn refit(
    gltf: &Gltf,
    skin: usize,
    positions: Option<u64>,
    before: &Stored,
    after: &mut Stored,
    vertices: &[u32],
    anims: &[Animation],
    limits: &Limits,
) -> Result<Refitted, SplitError> {
    if vertices.is_empty() {
        return Ok(Refitted::default());
    }
    let moments = joints_at_moments(gltf, skin, before, vertices, anims, limits)?;
    let joints = moments.first().map_or(0, dashvertex_skin::Joints::len);
    let mut poses = Poses::new(joints);
    for m in &moments {
        poses.push(m.rows().iter().copied());
    }
    drop(moments);
    let slots = before.slots();
    let mut used = vec![false; joints];
    for &v in vertices {
        let at = v as usize * slots;
        for i in (at..at + slots).filter(|&i| before.used(i)) {
            if let Some(u) = before
                .joints
                .get(i)
                .and_then(|&j| used.get_mut(usize::from(j)))
            {
                *u = true;
            }
        }
    }
    let fit = SupportFit::new(&poses, &used);
    let pos = crate::measure::positions_of(gltf, positions, limits)?;
    let storage = match after.format {
        WeightFormat::F32 => Quantize::F32,
        WeightFormat::Unorm8 => Quantize::Unorm8,
        WeightFormat::Unorm16 => Quantize::Unorm16,
    };
    let mut sc = RefitScratch::default();
    let (mut full, mut layout) = (Vec::new(), Vec::new());
    let mut out = Refitted::default();
    for &v in vertices {
        let at = v as usize * slots;
        full.clear();
        for i in (at..at + slots).filter(|&i| before.used(i)) {
            let j = before.joints.get(i).copied().map_or(0, u32::from);
            let w = f64::from(before.weight(i));
            match full.iter_mut().find(|e: &&mut (u32, f64)| e.0 == j) {
                Some(e) => e.1 += w,
                None => full.push((j, w)),
            }
        }
        // A negative or non-finite weight has no place in the fit's objective.
        if full.iter().any(|e| !(e.1.is_finite() && e.1 > 0.0)) {
            continue;
        }
        layout.clear();
        layout.extend((at..at + slots).map(|i| {
            let j = after.joints.get(i).copied().map_or(0, u32::from);
            (j, if after.used(i) { after.weight(i) } else { 0.0 })
        }));
        let p = dashvertex_gltf::import::position_at(pos.as_ref(), v as usize);
        let Some(r) = fit.refit(p, &full, &layout, storage, &mut sc) else {
            continue;
        };
        for (k, &w) in r.weights.iter().enumerate() {
            let stored = match &r.integers {
                Some(q) => q.get(k).copied().unwrap_or(0),
                None => w.to_bits(),
            };
            if let Some(slot) = after.weights.get_mut(at + k) {
                *slot = stored;
            }
            // A slot the fit left at 0 is padding: joint 0, as the repair leaves it.
            if w == 0.0
                && let Some(j) = after.joints.get_mut(at + k)
            {
                *j = 0;
            }
        }
        out.vertices += 1;
    }
    Ok(out)
}
