//! The convert job's filesystem shell: the input read by path (FBX to DashVertex from
//! its bytes), then each conversion: DashVertex re-encoded, glTF copied into the output's
//! container with its images, DashVertex made glTF ([`super::gltf_from_dashvertex`]),
//! glTF to DashVertex by the reduce job ([`super::reduce_job`]); written together.

use super::{
    ConvertJob, check_usage, gltf_from_dashvertex, output_format, reduce_job, refuse_pick_for_gltf,
    said_to_gltf, work,
};
use crate::error::AppError;
use crate::formats::{self, Format};
use crate::input::{Opened, Source, container, read_source_for, source_of_bytes};
use crate::output::{buffer_files, external_buffers, refuse_aliases, unchanged_gltf, write_output};
use crate::resources::Follow;

/// Runs a convert job.
pub fn run(a: &ConvertJob) -> Result<(), AppError> {
    let ctx = a.ctx;
    let to = output_format(a)?;
    // No output may overwrite the input (spec/security.md W3).
    refuse_aliases(&[("the output", a.output)], &[("the input", a.input)])?;
    check_usage(a, to)?;
    // FBX to DashVertex is read from its control points, not through glTF (spec/fbx.md §4).
    let from = a
        .from
        .or_else(|| (!to.is_gltf() && crate::input::is_fbx_file(a.input)).then_some(Format::Fbx));
    let read = match from {
        Some(f) if !f.is_gltf() => Opened::Bytes(dashvertex_fs::read_input(
            a.input,
            ctx.limits.max_input_bytes,
        )?),
        _ => read_source_for(a.input, ctx, work(to))?,
    };
    match read {
        Opened::Gltf(g) if to.is_gltf() => gltf_to_gltf(a, *g, to),
        Opened::Gltf(g) => to_dashvertex(a, Source::Gltf(g), to),
        Opened::Bytes(bytes) => match source_of_bytes(a.input, &bytes, from, ctx)? {
            Source::Dash(loaded) if to.is_gltf() => {
                let doc = loaded.document();
                let written = gltf_from_dashvertex(a, doc, to)?;
                write_output(a.output, &written.main, None, &written.files)?;
                for note in &written.notes {
                    ctx.warning(format_args!("{}: {note}", a.input.display()));
                }
                ctx.info(said_to_gltf(doc));
                Ok(())
            }
            Source::Dash(loaded) => {
                let out = formats::save(&loaded, to, &a.save, ctx)?;
                Ok(dashvertex_fs::write_file(a.output, &out)?)
            }
            other => to_dashvertex(a, other, to),
        },
    }
}

/// glTF to GLB or back, the document unchanged: the input's bytes when they stay valid
/// where they go, else rewritten into the other container; its images follow it.
fn gltf_to_gltf(a: &ConvertJob, g: dashvertex_gltf::Gltf, to: Format) -> Result<(), AppError> {
    let ctx = a.ctx;
    refuse_pick_for_gltf(a)?;
    let container = container(Some(to)).unwrap_or(dashvertex_gltf::Container::Glb);
    let files = buffer_files(a.output, a.embed);
    let read = g.input_bytes();
    let read_buffers = external_buffers(&g, a.input);
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
    let (outputs, inputs) = ([("the output", a.output)], [("the input", a.input)]);
    crate::resources::follow_checked(&follow, &mut written, (&outputs, &inputs), read_buffers)?;
    write_output(
        a.output,
        &written.main,
        Some(&written.holes),
        &written.files,
    )
}

/// glTF or a per-bone weights document to DashVertex, by the reduce job.
fn to_dashvertex(a: &ConvertJob, source: Source, to: Format) -> Result<(), AppError> {
    crate::reduce::run_source(&reduce_job(a, to), source)?;
    Ok(())
}
