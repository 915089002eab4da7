//! The pose set a fitted reduction is measured over (spec/reduction.md §6, **\[RF3\]**):
//! the rest pose, the moments the loss report samples in the file's animations, and the
//! range-of-motion poses of the joints the vertices use — so a fit serves the clips the
//! file carries and the poses other clips are likely to take. Each pose's joint matrices
//! are evaluated once, here, for every vertex to share.

use dashvertex_core::Limits;
use dashvertex_core::par::prelude::*;
use dashvertex_gltf::Gltf;

use crate::loss::{MATRIX_WORK, Nodes, Plan, Posing, Sample};
use crate::motion::RangeOfMotion;
use crate::{Animation, MAX_MOMENTS, Rig, Skin, SkinError};

/// A skin's joint matrices at every pose of the fit's pose set.
#[derive(Clone, Debug, PartialEq)]
pub struct FitPoses {
    /// The skin's joints (matrices per pose).
    pub joints: usize,
    /// Pose-major: pose `p`'s joint `j` is `rows[p × joints + j]`, the top three rows of
    /// global(joint) × inverse bind, row-major.
    pub rows: Vec<[f64; 12]>,
    /// Poses from the animations (the rest pose first, then the loss report's moments).
    pub animation_poses: usize,
    /// Range-of-motion poses.
    pub motion_poses: usize,
    /// Poses the set holds without a budget; more than the two above together when the
    /// budget thinned it.
    pub full: usize,
}

impl FitPoses {
    /// Poses in the set.
    pub fn len(&self) -> usize {
        self.animation_poses + self.motion_poses
    }

    /// Whether the set holds no pose.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The fit's pose set for skin `skin` of `gltf`, whose vertices carry weight on the
/// joints `used` (joint indices of the skin): the rest pose, then the moments of `anims`
/// by the loss report's sampling rule (spec/reduction.md §4), then the range-of-motion
/// poses of the used joints ([`RangeOfMotion`], 6 per joint). Within `budget` work units,
/// a pose costing its node and joint matrices plus `per_pose` (what the caller spends on
/// each): when the set costs more, the range-of-motion poses take at most half of what
/// it affords (evenly thinned: of M, the ⌊i × M / m⌋-th) and the animations the rest by
/// the sampling rule's own thinning; without an animation, the range-of-motion poses
/// take all but the rest pose.
pub fn fit_poses(
    gltf: &Gltf,
    skin: usize,
    anims: &[Animation],
    used: &[usize],
    limits: &Limits,
    budget: u64,
    per_pose: u64,
) -> Result<FitPoses, SkinError> {
    let skin = Skin::read(gltf, skin, limits)?;
    let rig = Rig::new(gltf);
    let nodes = Nodes::new(&rig, &[&skin], anims);
    let motion = RangeOfMotion::new(
        used.iter()
            .filter_map(|&j| skin.joints.get(j).copied())
            .filter(|&n| n < rig.len()),
    );
    let per_moment = MATRIX_WORK
        .saturating_mul((nodes.len() as u64).saturating_add(skin.joints.len() as u64))
        .saturating_add(nodes.channels() as u64)
        .saturating_add(per_pose)
        .max(1);
    let affordable = usize::try_from((budget / per_moment).min(MAX_MOMENTS as u64))
        .unwrap_or(MAX_MOMENTS)
        .max(1);
    let animated = nodes.channels() > 0;
    let motion_keep = if animated {
        motion.len().min(affordable / 2)
    } else {
        motion.len().min(affordable - 1)
    };
    let plan = if animated {
        Plan::new(anims, (affordable - motion_keep) as u64)
    } else {
        Plan::of(&[], 1)
    };
    let full_motion = motion.len();
    let matrices = |posing: &Posing<'_>, s: &Sample| -> Vec<[f64; 12]> {
        let globals = nodes.globals(posing, s);
        skin.joint_matrices_by(|n| nodes.global(&globals, n))
            .rows()
            .to_vec()
    };
    let posing = Posing::Animations(anims);
    let mut per_pose_rows: Vec<Vec<[f64; 12]>> = plan
        .samples
        .par_iter()
        .map(|s| matrices(&posing, s))
        .collect();
    let turning = Posing::Motion(&motion);
    let picks: Vec<Sample> = (0..motion_keep)
        .map(|i| Sample {
            anim: Some(0),
            time: 0.0,
            key: true,
            index: usize::try_from(i as u128 * full_motion as u128 / motion_keep.max(1) as u128)
                .unwrap_or(0),
        })
        .collect();
    per_pose_rows.extend(
        picks
            .par_iter()
            .map(|s| matrices(&turning, s))
            .collect::<Vec<_>>(),
    );
    Ok(FitPoses {
        joints: skin.joints.len(),
        rows: per_pose_rows.into_iter().flatten().collect(),
        animation_poses: plan.samples.len(),
        motion_poses: motion_keep,
        full: if animated { plan.full } else { 1 } + full_motion,
    })
}
