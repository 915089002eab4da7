//! The convert job: between every format dash reads and writes. DashVertex JSON, DMX and
//! raw records convert bit for bit; glTF/GLB (and FBX) becomes DashVertex through the
//! reducer with every influence kept (one primitive, its skin's joints with their rest
//! pose, nothing normalized), naming what DashVertex cannot carry; glTF and GLB convert
//! into each other unchanged, their images following the output; DashVertex becomes a
//! glTF of one `POINTS` primitive.

use std::path::Path;

use crate::error::{AppError, input_cause};
use crate::formats::{self, Format, SaveOptions};
use crate::input::{Context, Opened, Source, container, read_source_for, source_of_bytes};
use crate::output::{
    buffer_files, external_buffers, refuse_aliases, refuse_written_aliases, unchanged_gltf, verify,
    write_output,
};
use crate::reduce::{self, Pick, ReduceJob};
use crate::resources::{Follow, Resources};
use crate::words::Opt;

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

/// Runs a convert job.
pub fn run(a: &ConvertJob) -> Result<(), AppError> {
    let ctx = a.ctx;
    let to =
        a.to.or_else(|| Format::from_extension(a.output))
            .ok_or_else(|| {
                AppError::Usage(format!(
                    "cannot tell the output format of {}; name it .json, .dmx, .raw, .gltf or .glb, or use {}",
                    display(a.output),
                    ctx.opt(Opt::To)
                ))
            })?;
    // No output may overwrite the input (spec/security.md W3).
    refuse_aliases(&[("the output", a.output)], &[("the input", a.input)])?;
    if a.save.form.is_some() && to != Format::Json {
        return Err(AppError::Usage(format!(
            "{} sets the shape of JSON output; the output here is {}",
            ctx.opt(Opt::Form),
            to.describe()
        )));
    }
    // FBX to DashVertex is read from its control points, not through glTF (spec/fbx.md §4).
    let from = a
        .from
        .or_else(|| (!to.is_gltf() && crate::input::is_fbx_file(a.input)).then_some(Format::Fbx));
    let read = match from {
        Some(f) if !f.is_gltf() => Opened::Bytes(dashvertex_fs::read_input(
            a.input,
            ctx.limits.max_input_bytes,
        )?),
        // Between glTF files the document is carried: its errors outside the influences
        // do not refuse it; a DashVertex output holds the rest pose, read from the nodes.
        _ => read_source_for(
            a.input,
            ctx,
            if to.is_gltf() {
                dashvertex_validate::Work::Rewrite
            } else {
                dashvertex_validate::Work::Skin
            },
        )?,
    };
    match read {
        Opened::Gltf(g) if to.is_gltf() => gltf_to_gltf(a, *g, to),
        Opened::Gltf(g) => to_dashvertex(a, Source::Gltf(g), to),
        Opened::Bytes(bytes) => match source_of_bytes(a.input, &bytes, from, ctx)? {
            Source::Dash(loaded) if to.is_gltf() => dashvertex_to_gltf(a, loaded.document(), to),
            Source::Dash(loaded) => {
                let out = formats::save(&loaded, to, &a.save, ctx)?;
                Ok(dashvertex_fs::write_file(a.output, &out)?)
            }
            other => to_dashvertex(a, other, to),
        },
    }
}

fn display(p: &Path) -> String {
    if p == Path::new("-") {
        "<stdout>".to_owned()
    } else {
        p.display().to_string()
    }
}

/// glTF to GLB or back, the document unchanged: the input's bytes when they stay valid
/// where they go, else rewritten into the other container.
fn gltf_to_gltf(a: &ConvertJob, g: dashvertex_gltf::Gltf, to: Format) -> Result<(), AppError> {
    let ctx = a.ctx;
    if a.pick.given() {
        return Err(AppError::Usage(format!(
            "{} and {} pick the primitive a DashVertex output holds; glTF output keeps every primitive",
            ctx.opt(Opt::Mesh),
            ctx.opt(Opt::Primitive)
        )));
    }
    let container = container(Some(to)).unwrap_or(dashvertex_gltf::Container::Glb);
    let files = buffer_files(a.output, a.embed);
    let read = g.input_bytes();
    let mut read_buffers = external_buffers(&g, a.input);
    let unchanged = unchanged_gltf(g, a.input, a.output, container, &files)?;
    let mut written = unchanged.written;
    // The images the output names follow it (spec/security.md [R4]).
    let follow = Follow {
        input: a.input,
        output: a.output,
        container,
        mode: a.resources,
        embed: a.embed,
        read,
        ctx,
    };
    read_buffers.extend(crate::resources::follow(&follow, &mut written)?);
    refuse_written_aliases(
        a.output,
        &written.files,
        &[("the output", a.output)],
        &[("the input", a.input)],
        &read_buffers,
        ctx.words,
    )?;
    write_output(
        a.output,
        &written.main,
        Some(&written.holes),
        &written.files,
    )
}

/// DashVertex to glTF/GLB: the bones as nodes with their rest pose, a skin whose inverse
/// bind matrices match it, one `POINTS` primitive with POSITION and the influence sets
/// (DashVertex has no faces); checked by the validator before it is written.
fn dashvertex_to_gltf(
    a: &ConvertJob,
    doc: &dashvertex_core::Document,
    to: Format,
) -> Result<(), AppError> {
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
    let written = dashvertex_gltf::from_dash::write(doc, container, &files)
        .map_err(|e| input_cause(a.input, e))?;
    let main = verify(
        a.output,
        to,
        written.main,
        &written.files,
        &ctx.limits,
        None,
        None,
    )?;
    write_output(a.output, &main, None, &written.files)?;
    for note in doc
        .skeleton
        .as_ref()
        .map(dashvertex_gltf::from_dash::made_roots)
        .unwrap_or_default()
    {
        ctx.warning(format_args!("{}: {note}", a.input.display()));
    }
    let bones = doc.skeleton.as_ref().map_or(0, |s| s.len());
    ctx.info(format_args!(
        "converted {} vertices and {bones} bone(s) to glTF: one POINTS primitive (DashVertex holds no faces), the bones as nodes with their rest pose and matching inverse bind matrices",
        doc.mesh.len()
    ));
    Ok(())
}

/// glTF or a per-bone weights document to DashVertex: the reducer with every influence
/// kept and the weights as they are.
fn to_dashvertex(a: &ConvertJob, source: Source, to: Format) -> Result<(), AppError> {
    let ctx = a.ctx;
    let most = ctx.limits.max_sets.saturating_mul(4);
    let args = ReduceJob {
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
        ..ReduceJob::new(a.input, a.output, ctx)
    };
    reduce::run_source(&args, source)?;
    Ok(())
}
