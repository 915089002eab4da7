//! The split job: a glTF file's skinned primitives cut to a joint budget
//! (`dashvertex_split`), checked by the validator and written atomically with its
//! report (`schemas/split-report.schema.json`).

#[cfg(feature = "fs")]
mod files;

use std::collections::BTreeMap;
use std::path::Path;

use schemars::JsonSchema;
use serde::Serialize;

use dashvertex_formats::Format;
use dashvertex_gltf::Gltf;
pub use dashvertex_split::DEFAULT_MAX_PARTS;
use dashvertex_split::SplitError;

use crate::check::Check;
use crate::error::{AppError, input_cause};
use crate::input::{Context, container};
use crate::loss::poses_for;
use crate::settings::buffer_files;
use crate::words::Opt;
#[cfg(feature = "fs")]
pub use files::run;

/// A split job's options.
pub struct SplitJob<'a> {
    /// The glTF or GLB file.
    pub input: &'a Path,
    /// The output, `.gltf` or `.glb`.
    pub output: &'a Path,
    /// Joints a part may use; with `target`, at most its limit.
    pub max_joints: Option<usize>,
    /// The engine whose joint limit is the budget (when `max_joints` is not given); the
    /// output is also checked for it.
    pub target: Option<&'static dashvertex_core::Target>,
    /// Take the least influences off elements that need more joints, instead of
    /// refusing them.
    pub reduce: bool,
    /// With `reduce`: the largest displacement, in model units, allowed.
    pub max_error: Option<f64>,
    /// With `reduce`: fit each changed vertex's weights on the joints it keeps
    /// (`dashvertex_split::Options::fit`).
    pub fit: bool,
    /// Parts the document may be cut into (at least 1; `dashvertex_split::DEFAULT_MAX_PARTS`
    /// unless the user says otherwise); more refuses the file before any part is written.
    pub max_parts: usize,
    /// Carry extensions the split does not know unchanged, with a warning, instead of
    /// refusing the file: a split node's are copied to the parts' nodes; the root's, a
    /// split mesh's, skin's or primitive's are kept and copied with it to its parts.
    pub allow_unknown_extensions: bool,
    /// Where to write the JSON report.
    pub report: Option<&'a Path>,
    /// For `.gltf` output: embed every buffer as a base64 data URI.
    pub embed: bool,
    /// How the images the output names reach their files (`--resources`).
    pub resources: crate::resource_mode::Resources,
    /// Limits, resource folders, how to speak.
    pub ctx: &'a Context<'a>,
}

/// A split job's report: the files, and the library's figures.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "DashSplitReport")]
pub struct SplitReport {
    /// The input file, as named.
    pub input: String,
    /// The output file, as named.
    pub output: String,
    /// The engine target whose limit was the budget, if one was named.
    pub target: Option<String>,
    /// True when no skin exceeded the budget and the input was written unchanged.
    pub unchanged: bool,
    /// What the split did.
    #[serde(flatten)]
    pub split: dashvertex_split::Report,
}

/// The JSON Schema of [`SplitReport`] (`schemas/split-report.schema.json`).
pub fn schema() -> schemars::Schema {
    let mut s = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<SplitReport>();
    s.insert(
        "$id".into(),
        serde_json::Value::String("https://dash.invalid/schemas/split-report.schema.json".into()),
    );
    s
}

/// The budget the options ask for.
fn budget(a: &SplitJob) -> Result<usize, AppError> {
    let ctx = a.ctx;
    let limit = a.target.and_then(|t| t.max_joints);
    match (a.max_joints, a.target, limit) {
        (Some(0), _, _) => Err(AppError::Usage(format!(
            "{} must be 1 or more: a part needs a joint",
            ctx.opt(Opt::MaxJoints)
        ))),
        (Some(n), Some(t), Some(l)) if n > l => Err(AppError::Usage(format!(
            "{} {n} is more than {} renders per skin ({l}); give at most {l}, or leave it out",
            ctx.opt(Opt::MaxJoints),
            t.engine
        ))),
        (Some(n), _, _) => Ok(n),
        (None, _, Some(l)) => Ok(l),
        (None, Some(t), None) => Err(AppError::Usage(format!(
            "{} {} sets no joint limit ({} renders any number of joints per skin); give {}",
            ctx.opt(Opt::Target),
            t.name,
            t.engine,
            ctx.opt(Opt::MaxJoints)
        ))),
        (None, None, _) => Err(AppError::Usage(format!(
            "give {} N, or {} ENGINE for an engine's joint limit",
            ctx.opt(Opt::MaxJoints),
            ctx.opt(Opt::Target)
        ))),
    }
}

/// A split refusal in the front end's words.
fn refusal(a: &SplitJob, e: SplitError) -> AppError {
    let ctx = a.ctx;
    match e {
        SplitError::Config(m) => AppError::Usage(m),
        e @ SplitError::TooManyJoints { needed, .. } => AppError::Output(format!(
            "nothing written: {}: {e}; raise {} to at least {needed}, or pass {} to take the least influences off these vertices (the displacement is reported; {} bounds it)",
            a.input.display(),
            ctx.opt(Opt::MaxJoints),
            ctx.opt(Opt::Reduce),
            ctx.opt(Opt::MaxError)
        )),
        e @ SplitError::TooManyParts { parts, earlier, .. } => AppError::Output(format!(
            "nothing written: {}: {e}; raise {} to at least {}, raise {} (fewer, fuller parts), or take influences off first with `dashvertex reduce {} K` ({} only changes elements that need more joints than a part holds)",
            a.input.display(),
            ctx.opt(Opt::MaxParts),
            parts.saturating_add(earlier),
            ctx.opt(Opt::MaxJoints),
            ctx.opt(Opt::MaxInfluences),
            ctx.opt(Opt::Reduce)
        )),
        e @ SplitError::NodeExtension {
            why: dashvertex_split::ExtensionRefusal::Unknown,
            ..
        } => AppError::Output(format!(
            "nothing written: {}: {e}; pass {} to copy it unchanged to every part's node (a warning says so), or remove it from the node first",
            a.input.display(),
            ctx.opt(Opt::AllowUnknownExtensions)
        )),
        e @ SplitError::UnknownExtension { .. } => AppError::Output(format!(
            "nothing written: {}: {e}; pass {} to carry it unchanged (a warning says so; its indices are not rewritten), or remove it from the file first",
            a.input.display(),
            ctx.opt(Opt::AllowUnknownExtensions)
        )),
        e @ SplitError::NodeExtension { .. } => AppError::Output(format!(
            "nothing written: {}: {e}; remove the extension from the node first, or raise {} until the node's mesh is one part",
            a.input.display(),
            ctx.opt(Opt::MaxJoints)
        )),
        e @ SplitError::OutputBudget { .. } => AppError::Output(format!(
            "nothing written: {}: {e}; raise {} (fewer parts, so fewer copies), or take the large member off the input first (extras and extensions are copied to every part as they are, never dropped)",
            a.input.display(),
            ctx.opt(Opt::MaxJoints)
        )),
        e @ SplitError::Unfixable { .. } => AppError::Output(format!(
            "nothing written: {}: {e}; raise {}",
            a.input.display(),
            ctx.opt(Opt::MaxJoints)
        )),
        e @ SplitError::MaxError { .. } => AppError::Output(format!(
            "nothing written: {}: {e}; raise {} or {}",
            a.input.display(),
            ctx.opt(Opt::MaxError),
            ctx.opt(Opt::MaxJoints)
        )),
        e => input_cause(a.input, e),
    }
}

/// What a split job makes before anything is written: the split document with its
/// buffer files (`None` when every skin is within the budget: the front end copies the
/// input), the report, and what the job says once written.
#[non_exhaustive]
pub struct SplitPlan<'a> {
    /// The split output; `None`: nothing changes.
    pub written: Option<dashvertex_gltf::export::Written>,
    /// The report (`unchanged` set when `written` is `None`).
    pub report: SplitReport,
    /// The budget the parts meet.
    pub max_joints: usize,
    /// The output's container.
    pub container: dashvertex_gltf::Container,
    carried_errors: BTreeMap<String, u64>,
    job: &'a SplitJob<'a>,
}

impl SplitPlan<'_> {
    /// The check the output (with the buffer `files` it names) passes before it is
    /// handed over: by the validator, for the job's engine target, with the input's
    /// carried errors let through.
    pub fn check<'p>(&'p self, files: &'p [(String, Vec<u8>)]) -> Check<'p> {
        let a = self.job;
        let format = match self.container {
            dashvertex_gltf::Container::Gltf => Format::Gltf,
            dashvertex_gltf::Container::Glb => Format::Glb,
        };
        Check {
            target: a.target,
            carried_errors: self.carried_errors.clone(),
            ..Check::new(a.output, format, files, &a.ctx.limits)
        }
    }
}

/// Plans split job `a` on `gltf` (its input, opened by the front end for the job's
/// [`work`]): every skinned primitive cut to the joint budget. Nothing is read or
/// written here.
pub fn plan<'a>(a: &'a SplitJob<'a>, gltf: &Gltf) -> Result<SplitPlan<'a>, AppError> {
    let ctx = a.ctx;
    let max = budget(a)?;
    check_options(a)?;
    let container = output_container(a)?;
    let anims = if a.reduce {
        poses_for(a.input, gltf, None, ctx)?
    } else {
        Vec::new()
    };
    let opts = dashvertex_split::Options {
        max_joints: max,
        max_parts: a.max_parts,
        allow_unknown_extensions: a.allow_unknown_extensions,
        reduce: a.reduce,
        max_error: a.max_error,
        fit: a.fit,
    };
    let split = dashvertex_split::split_gltf(gltf, &opts, &anims, &ctx.limits)
        .map_err(|e| refusal(a, e))?;
    drop(anims);
    let unchanged = split.editor.is_none();
    for w in &split.report.warnings {
        ctx.warning(format_args!("{}: {w}", a.input.display()));
    }
    let written = match split.editor {
        Some(ed) => {
            let files = buffer_files(a.output, a.embed);
            let w = ed
                .finish_files(container, &files)
                .map_err(|e| input_cause(a.input, e))?;
            for note in &w.notes {
                ctx.warning(format_args!("{}: {note}", a.input.display()));
            }
            Some(w)
        }
        None => None,
    };
    let report = SplitReport {
        input: a.input.display().to_string(),
        output: a.output.display().to_string(),
        target: a.target.map(|t| t.name.to_owned()),
        unchanged,
        split: split.report,
    };
    Ok(SplitPlan {
        written,
        report,
        max_joints: max,
        container,
        carried_errors: gltf.carried_errors.clone(),
        job: a,
    })
}

/// What a split reads of its input: with a reduction the displacement is measured by
/// skinning, so transforms and animations must be sound; without one, errors there are
/// carried into the output.
pub fn work(a: &SplitJob) -> dashvertex_validate::Work {
    if a.reduce {
        dashvertex_validate::Work::Skin
    } else {
        dashvertex_validate::Work::Rewrite
    }
}

/// The output's container, told by its name.
fn output_container(a: &SplitJob) -> Result<dashvertex_gltf::Container, AppError> {
    container(Format::from_extension(a.output)).ok_or_else(|| {
        AppError::Usage(format!(
            "cannot tell the output format of {}; name it .gltf or .glb",
            a.output.display()
        ))
    })
}

/// The report in lines of text: one per input primitive, one per reduction.
pub fn describe(r: &dashvertex_split::Report) -> Vec<String> {
    let mut out = Vec::new();
    for p in &r.primitives {
        let joints: Vec<String> = p.parts.iter().map(|x| x.joints.to_string()).collect();
        out.push(format!(
            "mesh {} primitive {}: {} joints used -> {} part(s) (lower bound {}), joints per part {}; vertices {} -> {} (x{:.3}), {} seam edge(s), palette fill {:.2}..{:.2}{}",
            p.mesh,
            p.primitive,
            p.joints_used,
            p.parts.len(),
            p.lower_bound,
            joints.join(", "),
            p.vertices,
            p.vertices + p.duplicated_vertices,
            p.duplication_ratio,
            p.seam_edges,
            p.palette_fill_min,
            p.palette_fill_max,
            if p.kept_whole {
                "; vertex data kept"
            } else {
                ""
            }
        ));
        if p.unreferenced_vertices > 0 {
            out.push(format!(
                "mesh {} primitive {}: {} vertex(es) no element uses were not written",
                p.mesh, p.primitive, p.unreferenced_vertices
            ));
        }
        if let Some(x) = &p.reduced {
            out.push(format!(
                "mesh {} primitive {}: reduced {} vertex(es), {} influence(s) taken off, max weight lost {:.6}, max displacement {:.6}{} (vertex {}{})",
                p.mesh,
                p.primitive,
                x.vertices,
                x.influences_removed,
                x.max_weight_lost,
                x.max_displacement,
                if x.pose_set == "rangeOfMotion" {
                    " over the range-of-motion poses (no animation moves a joint: each used joint turned \u{b1}45\u{b0} about its local X, Y and Z axes, one at a time; spec/reduction.md \u{a7}4)"
                } else {
                    ""
                },
                x.worst_vertex.map_or("-".into(), |v| v.to_string()),
                x.worst_at.as_deref().map_or(String::new(), |w| format!(", {w}"))
            ));
            if let (Some(n), Some(plain)) = (x.fitted_vertices, x.max_displacement_plain) {
                out.push(format!(
                    "mesh {} primitive {}: fitted the weights of {n} of those vertex(es); renormalized, the max displacement would be {plain:.6}",
                    p.mesh, p.primitive
                ));
            }
        }
    }
    if r.nodes_split > 0 {
        out.push(format!(
            "split {} node(s) to at most {} joints: added {} mesh(es), {} node(s), {} skin(s), {} weights channel(s)",
            r.nodes_split,
            r.max_joints,
            r.added.meshes,
            r.added.nodes,
            r.added.skins,
            r.added.channels
        ));
    }
    out
}

/// Refuses options that contradict each other or cannot be met before anything is read.
fn check_options(a: &SplitJob) -> Result<(), AppError> {
    let ctx = a.ctx;
    if a.max_error.is_some() && !a.reduce {
        return Err(AppError::Usage(format!(
            "{} bounds what {} takes off; pass {} too",
            ctx.opt(Opt::MaxError),
            ctx.opt(Opt::Reduce),
            ctx.opt(Opt::Reduce)
        )));
    }
    if a.max_parts == 0 {
        return Err(AppError::Usage(format!(
            "{} must be 1 or more: a split writes at least one part",
            ctx.opt(Opt::MaxParts)
        )));
    }
    if let Some(e) = a.max_error.filter(|e| !e.is_finite() || *e < 0.0) {
        return Err(AppError::Usage(format!(
            "{} must be a finite number ≥ 0, not {e}",
            ctx.opt(Opt::MaxError)
        )));
    }
    Ok(())
}
