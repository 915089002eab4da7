//! A whole glTF run with the fit (`--fit`) or precision by budget (`--quantize auto`):
//! the plain run of [`crate::pipeline::reduce_all`] brings the manifest up to date and
//! reduces every primitive; each skinned primitive is then refitted over its skin's pose
//! set ([`dashvertex_skin::fit_poses`]) and, with a budget, reduced in the smallest
//! storage within it ([`super::precision::choose`]); the file is written back with each
//! primitive's storage.

use dashvertex_core::Limits;
use dashvertex_gltf::export::BufferFiles;
use dashvertex_gltf::{Container, Gltf};
use dashvertex_skin::{Animation, FitPoses};

use super::precision::{self, Cost};
use super::{FitOptions, FitReport, Poses};
use crate::gltf::PrimitiveInput;
use crate::input::Input;
use crate::manifest::Manifest;
use crate::pipeline::{GltfOutput, Options, PipelineError, reduce_all};
use crate::reduce::{Config, Quantize, Reduced};

/// What a fitted glTF run does beyond the plain one.
#[derive(Clone, Copy, Debug)]
pub struct GltfFit<'a> {
    /// Refit the weights (`--fit`).
    pub fit: bool,
    /// Choose each primitive's storage within this many model units (`--quantize auto
    /// --max-error E`); `None` keeps `Config::quantize`.
    pub max_error: Option<f64>,
    /// The animations the pose set samples (the file's, or a pose file's retargeted).
    pub anims: &'a [Animation],
    /// Work units the pose set of each skin may cost ([`dashvertex_skin::work_budget`]).
    pub budget: u64,
    /// The fit's own settings.
    pub options: FitOptions,
    /// Reading limits for the skins.
    pub limits: &'a Limits,
}

/// What the fit and the storage choice did to one primitive.
#[derive(Clone, Debug, PartialEq)]
pub struct PrimitiveFit {
    /// Mesh index.
    pub mesh: usize,
    /// Primitive index within the mesh.
    pub primitive: usize,
    /// The fit's report, when it ran.
    pub fit: Option<FitReport>,
    /// The storage written.
    pub quantize: Quantize,
    /// With a budget: what each storage would cost (largest displacement, model units).
    pub costs: Vec<Cost>,
    /// Poses from the animations (the rest pose and the loss moments) and from the range
    /// of motion, and the poses the set holds without a budget.
    pub poses: (usize, usize, usize),
}

/// Reduces every primitive of `gltf` as [`crate::pipeline::reduce_gltf`] does, then
/// refits and chooses storage per [`GltfFit`] for each skinned primitive, and writes the
/// file. Refuses (naming the primitive) when no storage keeps it within the budget.
#[allow(
    clippy::too_many_arguments,
    reason = "reduce_gltf's arguments and the fit's"
)]
pub fn reduce_gltf_fitted(
    gltf: &Gltf,
    prims: &[PrimitiveInput<'_>],
    manifest: &mut Manifest,
    config: &Config,
    opts: &Options,
    container: Container,
    files: &BufferFiles,
    plan: &GltfFit<'_>,
) -> Result<(GltfOutput, Vec<PrimitiveFit>), PipelineError> {
    let inputs: Vec<&Input<'_>> = prims.iter().map(|p| &p.input).collect();
    let run = reduce_all(&inputs, manifest, config, opts)?;
    let lookup = manifest.lookup();
    let mut out: Vec<(&PrimitiveInput<'_>, Reduced, Quantize)> = Vec::with_capacity(prims.len());
    let mut fits = Vec::new();
    for (p, reduced) in prims.iter().zip(run.reduced) {
        let Some(skin) = p.skin else {
            out.push((p, reduced, config.quantize));
            continue;
        };
        let (map, root) = if run.named {
            (
                crate::index_map_in(&p.input, &lookup)?,
                crate::root_index_in(&p.input, &lookup),
            )
        } else {
            (p.input.unnamed_indices().unwrap_or_default(), None)
        };
        let (reduced, f) = refit_primitive(gltf, p, skin, &map, root, reduced, config, plan)?;
        out.push((p, reduced, f.quantize));
        fits.push(f);
    }
    let reports = out
        .iter()
        .map(|(_, r, _)| (r.report.clone(), r.sets))
        .collect();
    let written = crate::gltf::write_each(
        gltf,
        manifest,
        out,
        container,
        files,
        opts.keep_source_attributes,
    )
    .map_err(PipelineError::Gltf)?;
    Ok((
        GltfOutput {
            written,
            reports,
            changes: run.changes,
        },
        fits,
    ))
}

/// One skinned primitive: its pose set, then the fit and the storage choice.
#[allow(
    clippy::too_many_arguments,
    reason = "one primitive's share of the run"
)]
fn refit_primitive(
    gltf: &Gltf,
    p: &PrimitiveInput<'_>,
    skin: usize,
    map: &[u32],
    root: Option<u32>,
    mut reduced: Reduced,
    config: &Config,
    plan: &GltfFit<'_>,
) -> Result<(Reduced, PrimitiveFit), PipelineError> {
    let used_flags = super::used_bones(
        &p.input,
        gltf.root.skins.get(skin).map_or(0, |s| s.joints.len()),
    );
    let used: Vec<usize> = used_flags
        .iter()
        .enumerate()
        .filter(|x| *x.1)
        .map(|x| x.0)
        .collect();
    // The fit's work per pose (its pair table) and, with a budget, the measure of three
    // storages (every influence slot skinned).
    let mut per_pose = if plan.fit {
        super::fold_work(used.len())
    } else {
        0
    };
    if plan.max_error.is_some() {
        let slots = (p.input.len() as u64)
            .saturating_mul(p.input.max_per_vertex() as u64 + config.max_influences as u64);
        per_pose = per_pose.saturating_add(slots.saturating_mul(36));
    }
    let fp = dashvertex_skin::fit_poses(
        gltf,
        skin,
        plan.anims,
        &used,
        plan.limits,
        plan.budget,
        per_pose,
    )
    .map_err(PipelineError::Skin)?;
    let poses = poses_of(&fp);
    let positions = p.positions();
    let mut f = PrimitiveFit {
        mesh: p.mesh,
        primitive: p.primitive,
        fit: None,
        quantize: config.quantize,
        costs: Vec::new(),
        poses: (fp.animation_poses, fp.motion_poses, fp.full),
    };
    let options = plan.fit.then_some(&plan.options);
    if let Some(max_error) = plan.max_error {
        let c = precision::choose(
            &p.input, map, root, &positions, &poses, config, options, max_error,
        )?;
        let Some(q) = c.chosen else {
            return Err(PipelineError::OverBudget {
                mesh: p.mesh,
                primitive: p.primitive,
                max_error,
                best: c.costs.iter().map(|x| x.max).fold(f64::INFINITY, f64::min),
            });
        };
        f.quantize = q;
        f.costs = c.costs;
        f.fit = c.fit;
        reduced = c.reduced;
    } else if let Some(o) = options {
        // The poses' bones are the skin's joints, which `used_flags` covers.
        let used = (used_flags.len() == poses.bones()).then_some(used_flags.as_slice());
        f.fit = Some(super::fit_used(
            &p.input,
            map,
            &positions,
            &poses,
            config,
            o,
            used,
            &mut reduced,
        )?);
    }
    Ok((reduced, f))
}

/// The skin's pose set as the fit reads it (`spec/reduction.md` \[RF3\]): the rest pose and the animations'
/// moments, then the range-of-motion poses as a group of their own (\[RF1\]). Without an
/// animation (the rest pose alone before the range of motion) the set is one group: there
/// is no animation to weigh the range of motion against, and a rest pose that is not the
/// bind pose (as Blender's FBX exporter writes the current frame) would otherwise count as
/// much as every range-of-motion pose together.
pub fn poses_of(fp: &FitPoses) -> Poses {
    let mut poses = Poses::new(fp.joints);
    let grouped = fp.animation_poses > 1;
    for (i, pose) in fp.rows.chunks(fp.joints.max(1)).enumerate() {
        if grouped && i == fp.animation_poses {
            poses.begin_group();
        }
        poses.push(pose.iter().copied());
    }
    poses
}
