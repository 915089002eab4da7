//! The convert job: between every format dash reads and writes. DashVertex JSON, DMX and
//! raw records convert bit for bit; glTF/GLB (and FBX) becomes DashVertex through the
//! reducer with every influence kept (one primitive, its skin's joints with their rest
//! pose, nothing normalized), naming what DashVertex cannot carry; glTF and GLB convert
//! into each other unchanged, their images following the output; DashVertex becomes a
//! glTF of one `POINTS` primitive.

#[cfg(feature = "fs")]
mod files;

use std::path::Path;

use crate::check::verify;
use crate::error::{AppError, input_cause};
use crate::formats::{Format, SaveOptions};
use crate::input::{Context, container};
use crate::reduce::{Pick, ReduceJob};
use crate::resource_mode::Resources;
use crate::settings::buffer_files;
use crate::words::Opt;
#[cfg(feature = "fs")]
pub use files::run;

/// What a convert job is asked.
pub struct ConvertJob<'a> {
    /// The input file (`-`: standard input).
    pub input: &'a Path,
    /// The output file (`-`: standard output).
    pub output: &'a Path,
    /// The input's format, when its bytes should not decide it.
    pub from: Option<Format>,
    /// The output's format (default: told by the output's extension).
    pub to: Option<Format>,
    /// How a DashVertex output is written (JSON shape, DMX options).
    pub save: SaveOptions,
    /// Embed a `.gltf` output's buffers.
    pub embed: bool,
    /// How a glTF output's images reach their bytes.
    pub resources: Resources,
    /// The glTF primitive a DashVertex output holds.
    pub pick: Pick,
    /// Limits, resource folders and wording.
    pub ctx: &'a Context<'a>,
}

fn display(p: &Path) -> String {
    if p == Path::new("-") {
        "<stdout>".to_owned()
    } else {
        p.display().to_string()
    }
}

/// The output format job `a` writes: the one asked for, else told by the output's name.
pub fn output_format(a: &ConvertJob) -> Result<Format, AppError> {
    a.to.or_else(|| Format::from_extension(a.output)).ok_or_else(|| {
        AppError::Usage(format!(
            "cannot tell the output format of {}; name it .json, .dmx, .raw, .gltf or .glb, or use {}",
            display(a.output),
            a.ctx.opt(Opt::To)
        ))
    })
}

/// Refuses options the output format `to` cannot take (a JSON shape for another format).
pub fn check_usage(a: &ConvertJob, to: Format) -> Result<(), AppError> {
    if a.save.form.is_some() && to != Format::Json {
        return Err(AppError::Usage(format!(
            "{} sets the shape of JSON output; the output here is {}",
            a.ctx.opt(Opt::Form),
            to.describe()
        )));
    }
    Ok(())
}

/// What a glTF input is read for: between glTF files the document is carried (its
/// errors outside the influences do not refuse it); a DashVertex output holds the rest
/// pose, read from the nodes.
pub fn work(to: Format) -> dashvertex_validate::Work {
    if to.is_gltf() {
        dashvertex_validate::Work::Rewrite
    } else {
        dashvertex_validate::Work::Skin
    }
}

/// Refuses picking a primitive where the output keeps every one (glTF to glTF).
pub fn refuse_pick_for_gltf(a: &ConvertJob) -> Result<(), AppError> {
    if a.pick.given() {
        return Err(AppError::Usage(format!(
            "{} and {} pick the primitive a DashVertex output holds; glTF output keeps every primitive",
            a.ctx.opt(Opt::Mesh),
            a.ctx.opt(Opt::Primitive)
        )));
    }
    Ok(())
}

/// DashVertex to glTF/GLB: the bones as nodes with their rest pose, a skin whose inverse
/// bind matrices match it, one `POINTS` primitive with POSITION and the influence sets
/// (DashVertex has no faces), checked by the validator: the checked main file and its
/// buffer files, with what the conversion made up (a root for bones without one) in
/// `notes`, for the front end to say once the file is written.
pub fn gltf_from_dashvertex(
    a: &ConvertJob,
    doc: &dashvertex_core::Document,
    to: Format,
) -> Result<dashvertex_gltf::export::Written, AppError> {
    let ctx = a.ctx;
    if a.pick.given() {
        return Err(AppError::Usage(format!(
            "{} and {} pick a glTF primitive; the input is DashVertex",
            ctx.opt(Opt::Mesh),
            ctx.opt(Opt::Primitive)
        )));
    }
    let container = container(Some(to)).unwrap_or(dashvertex_gltf::Container::Glb);
    let files = buffer_files(a.output, a.embed);
    let mut written = dashvertex_gltf::from_dash::write(doc, container, &files)
        .map_err(|e| input_cause(a.input, e))?;
    let main = std::mem::take(&mut written.main);
    written.main = verify(a.output, to, main, &written.files, &ctx.limits, None, None)?;
    written.notes.extend(
        doc.skeleton
            .as_ref()
            .map(dashvertex_gltf::from_dash::made_roots)
            .unwrap_or_default(),
    );
    Ok(written)
}

/// What converting `doc` to glTF says once written.
pub fn said_to_gltf(doc: &dashvertex_core::Document) -> String {
    let bones = doc.skeleton.as_ref().map_or(0, |s| s.len());
    format!(
        "converted {} vertices and {bones} bone(s) to glTF: one POINTS primitive (DashVertex holds no faces), the bones as nodes with their rest pose and matching inverse bind matrices",
        doc.mesh.len()
    )
}

/// glTF or a per-bone weights document to DashVertex `to`: the reduce job that converts
/// it, with every influence kept and the weights as they are ([`crate::reduce::plan`]
/// plans it; `reduce::run_source` runs it on files).
pub fn reduce_job<'a>(a: &'a ConvertJob<'a>, to: Format) -> ReduceJob<'a> {
    let most = a.ctx.limits.max_sets.saturating_mul(4);
    ReduceJob {
        to: Some(to),
        config: dashvertex_reduce::Config::default()
            .with_max_influences(usize::try_from(most).unwrap_or(usize::MAX))
            .with_quantize(dashvertex_reduce::Quantize::F32)
            .with_normalize(dashvertex_reduce::Normalize::None)
            .with_min_weight(0.0)
            .with_empty(dashvertex_reduce::Empty::Zero),
        pick: a.pick,
        convert: true,
        save: a.save,
        ..ReduceJob::new(a.input, a.output, a.ctx)
    }
}
