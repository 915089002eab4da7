//! How far `--reduce` moves the vertices it changed: each is skinned with its stored
//! influences and with the repaired ones, by `dashvertex-skin`, at the rest pose and at
//! every keyframe time of every animation (or, when no animation moves a joint of the
//! skin, the range-of-motion poses of `spec/reduction.md` §4), within a work budget tied
//! to the input's size (`spec/split.md` §3).

use dashvertex_core::Limits;
use dashvertex_core::par::prelude::*;
use dashvertex_gltf::Gltf;
use dashvertex_skin::{
    Animation, Joints, Pose, PoseSet, RangeOfMotion, Rig, Skin, skin_point, turn,
};

use crate::SplitError;
use crate::read::Stored;

/// The largest displacement the repair causes in one primitive.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Moved {
    /// The largest displacement, in model units.
    pub max: f64,
    /// The vertex that moves most (none when no vertex changed).
    pub vertex: Option<u32>,
    /// The moment it does so, in words.
    pub at: Option<String>,
    /// Moments measured.
    pub moments: usize,
    /// Moments the rule takes (the rest pose and every keyframe, or the range-of-motion
    /// poses); more than `moments` when the budget thinned them evenly.
    pub moments_full: usize,
    /// The poses measured: the animations', or the range-of-motion poses when no
    /// animation moves a joint of the skin (the rest pose alone when, besides, no joint
    /// carries weight).
    pub pose_set: Option<PoseSet>,
}

/// A moment measured.
#[derive(Clone, Copy, Debug)]
enum At {
    /// The rest pose.
    Rest,
    /// Animation `.0` at `.1` seconds.
    Anim(usize, f64),
    /// Range-of-motion pose `.0`.
    Pose(usize),
}

/// Work units (one influence slot skinned) a measure may take, at least: about a
/// second.
const WORK_FLOOR: u64 = 1 << 26;

/// Work units per byte of the input.
const WORK_PER_BYTE: u64 = 64;

/// Measures the displacement of `vertices` (original indices) between `before` and
/// `after`, skinned with skin `skin` of `gltf` at positions `positions` (the POSITION
/// accessor).
#[allow(clippy::too_many_arguments)]
pub fn moved(
    gltf: &Gltf,
    skin: usize,
    positions: Option<u64>,
    before: &Stored,
    after: &Stored,
    vertices: &[u32],
    anims: &[Animation],
    limits: &Limits,
) -> Result<Moved, SplitError> {
    if vertices.is_empty() {
        return Ok(Moved::default());
    }
    let skin = Skin::read(gltf, skin, limits).map_err(SplitError::Skin)?;
    let pos = positions_of(gltf, positions, limits)?;
    let rig = Rig::new(gltf);
    let Moments {
        moments,
        full,
        motion,
        pose_set,
    } = moments(gltf, &rig, &skin, before, vertices, anims);
    let names = |n: usize| gltf.root.nodes.get(n).and_then(|n| n.name.clone());
    let mut out = Moved {
        moments: moments.len(),
        moments_full: full,
        pose_set: Some(pose_set),
        ..Moved::default()
    };
    for at in moments {
        let pose = pose_at(at, &rig, anims, &motion);
        let joints = skin.joint_matrices(&rig.globals(&pose));
        // The moment's vertices in chunks side by side, each giving its first largest
        // displacement (or its first that is not finite), joined in vertex order: the
        // same vertex and moment as one pass in order, at any thread count.
        let worst: Vec<Worst> = vertices
            .par_chunks(CHUNK)
            .map_init(
                || (Vec::new(), Vec::new()),
                |(sa, sb), chunk| {
                    let mut w = Worst::None;
                    for &v in chunk {
                        let p = dashvertex_gltf::import::position_at(pos.as_ref(), v as usize);
                        before.sets_into(v as usize, sa);
                        after.sets_into(v as usize, sb);
                        let a = skin_point(p, sa.iter(), &joints);
                        let b = skin_point(p, sb.iter(), &joints);
                        let d =
                            ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2))
                                .sqrt();
                        if !d.is_finite() {
                            return Worst::NonFinite(v);
                        }
                        if matches!(w, Worst::None) || matches!(w, Worst::At(m, _) if d > m) {
                            w = Worst::At(d, v);
                        }
                    }
                    w
                },
            )
            .collect();
        for w in worst {
            let (d, v) = match w {
                Worst::None => continue,
                Worst::NonFinite(v) => return Err(SplitError::NonFinite { vertex: v }),
                Worst::At(d, v) => (d, v),
            };
            if d > out.max || out.vertex.is_none() {
                out.max = d.max(out.max);
                out.vertex = Some(v);
                out.at = Some(match at {
                    At::Rest => "at the rest pose".to_owned(),
                    At::Anim(i, t) => format!("in animation {i} at t={t:.3} s"),
                    At::Pose(k) => motion
                        .pose(k, &names)
                        .map_or_else(String::new, |p| p.describe()),
                });
            }
        }
    }
    Ok(out)
}

/// Vertices a worker measures at a time.
const CHUNK: usize = 1 << 14;

/// What a chunk of vertices found at one moment.
#[derive(Clone, Copy)]
enum Worst {
    /// No vertex.
    None,
    /// The first largest displacement and its vertex.
    At(f64, u32),
    /// The first vertex whose displacement is not finite.
    NonFinite(u32),
}

/// The view of the POSITION accessor `positions` (none: every vertex at the origin).
pub(crate) fn positions_of<'g>(
    gltf: &'g Gltf,
    positions: Option<u64>,
    limits: &Limits,
) -> Result<Option<dashvertex_gltf::accessor::AccessorData<'g>>, SplitError> {
    positions
        .map(|a| {
            dashvertex_gltf::accessor::read(gltf, a, limits)
                .map_err(|e| SplitError::Skin(dashvertex_skin::SkinError::Accessor(e)))
        })
        .transpose()
}

/// The joint matrices of skin `skin` of `gltf` at each moment [`moved`] measures for
/// `vertices` (the same rule, the same budget), the rest pose first.
pub(crate) fn joints_at_moments(
    gltf: &Gltf,
    skin: usize,
    before: &Stored,
    vertices: &[u32],
    anims: &[Animation],
    limits: &Limits,
) -> Result<Vec<Joints>, SplitError> {
    let skin = Skin::read(gltf, skin, limits).map_err(SplitError::Skin)?;
    let rig = Rig::new(gltf);
    let m = moments(gltf, &rig, &skin, before, vertices, anims);
    Ok(m.moments
        .iter()
        .map(|&at| skin.joint_matrices(&rig.globals(&pose_at(at, &rig, anims, &m.motion))))
        .collect())
}

/// The moments a measure takes, thinned to its budget.
struct Moments {
    /// The moments measured, the rest pose first.
    moments: Vec<At>,
    /// How many the rule takes before thinning.
    full: usize,
    /// The range-of-motion poses (none when animations move the skin).
    motion: RangeOfMotion,
    /// Which poses these are.
    pose_set: PoseSet,
}

/// The moments to measure `vertices` at: the rest pose, then every keyframe time of
/// every animation when one moves a joint `skin` needs, else the range-of-motion poses
/// of the joints `before` carries weight on; evenly thinned (the rest pose kept) to what
/// the work budget, tied to the input's size, affords.
fn moments(
    gltf: &Gltf,
    rig: &Rig,
    skin: &Skin,
    before: &Stored,
    vertices: &[u32],
    anims: &[Animation],
) -> Moments {
    let mut needed = vec![false; rig.len()];
    for n in rig.needed(skin.joints.iter().copied()) {
        if let Some(slot) = needed.get_mut(n) {
            *slot = true;
        }
    }
    let animated = anims
        .iter()
        .flat_map(|a| &a.channels)
        .any(|c| needed.get(c.node).copied().unwrap_or(false));
    let mut moments: Vec<At> = vec![At::Rest];
    let motion = if animated {
        for (i, a) in anims.iter().enumerate() {
            moments.extend(a.times().into_iter().map(|t| At::Anim(i, t)));
        }
        RangeOfMotion::default()
    } else {
        // The joints the primitive's vertices carry weight on, as `reduce` takes them.
        let used = (0..before.joints.len())
            .filter(|&i| before.used(i))
            .filter_map(|i| before.joints.get(i))
            .filter_map(|&j| skin.joints.get(usize::from(j)))
            .copied()
            .filter(|&n| n < rig.len());
        let motion = RangeOfMotion::new(used);
        moments.extend((0..motion.len()).map(At::Pose));
        motion
    };
    let pose_set = if animated {
        PoseSet::Animations
    } else if motion.is_empty() {
        PoseSet::RestPose
    } else {
        PoseSet::RangeOfMotion
    };
    let full = moments.len();
    let per_moment = (gltf.root.nodes.len() as u64 + skin.joints.len() as u64)
        .saturating_mul(16)
        .saturating_add((vertices.len() as u64).saturating_mul(2 * before.slots() as u64));
    let mut bytes = gltf.text.len() as u64;
    for b in gltf.buffers().flatten() {
        bytes = bytes.saturating_add(b.len() as u64);
    }
    let budget = bytes.saturating_mul(WORK_PER_BYTE).max(WORK_FLOOR);
    let fit = usize::try_from(budget / per_moment.max(1))
        .unwrap_or(usize::MAX)
        .max(1);
    if fit < full {
        // Evenly thinned, the rest pose always kept.
        let step = full.div_ceil(fit);
        moments = moments.into_iter().step_by(step).collect();
    }
    Moments {
        moments,
        full,
        motion,
        pose_set,
    }
}

/// The pose of moment `at`: the rest pose, an animation's pose at its time, or the rest
/// pose with one range-of-motion turn applied.
fn pose_at(at: At, rig: &Rig, anims: &[Animation], motion: &RangeOfMotion) -> Pose {
    match at {
        At::Anim(a, t) => anims
            .get(a)
            .map_or_else(|| rig.rest().clone(), |a| a.pose_at(rig.rest(), t)),
        At::Rest => rig.rest().clone(),
        At::Pose(k) => {
            let mut pose = rig.rest().clone();
            if let Some((node, axis, degrees)) = motion.turn_at(k)
                && let Some(l) = pose.local.get_mut(node)
            {
                turn(l, axis, degrees);
            }
            pose
        }
    }
}
