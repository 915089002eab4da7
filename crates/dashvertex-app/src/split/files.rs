//! The split job's filesystem shell: the input read by path, the job planned
//! ([`super::plan`]), an input within the budget copied, the images followed, and the
//! output with its buffer files and the report checked and written together, or none.

use super::{SplitJob, SplitReport, budget, check_options, describe, output_container, plan, work};
use crate::error::{AppError, input_error};
use crate::input::{Source, load_for};
use crate::output::{
    buffer_files, external_buffers, refuse_aliases_before, text_files, unchanged_gltf,
    write_checked,
};
use crate::words::{Job, Opt};

/// Runs a split job; returns its report (also written to `report` when given).
pub fn run(a: &SplitJob) -> Result<SplitReport, AppError> {
    let ctx = a.ctx;
    budget(a)?;
    check_options(a)?;
    let (output_name, report_name) = (ctx.opt(Opt::Output), ctx.opt(Opt::Report));
    let mut outputs: Vec<dashvertex_fs::Named> = vec![(output_name.as_str(), a.output)];
    if let Some(r) = a.report {
        outputs.push((report_name.as_str(), r));
    }
    let inputs: Vec<dashvertex_fs::Named> = vec![("the input", a.input)];
    refuse_aliases_before(a.output, None, a.embed, &outputs, &inputs, ctx.words)?;
    let container = output_container(a)?;
    let gltf = open(a)?;
    let read_buffers = external_buffers(&gltf, a.input);
    let input_bytes = gltf.input_bytes();
    let mut planned = plan(a, &gltf)?;
    // The input is spent once the output's bytes exist (`write_checked` frees it).
    let (mut written, spent) = match planned.written.take() {
        Some(w) => (w, Some(gltf)),
        None => {
            let files = buffer_files(a.output, a.embed);
            let u = unchanged_gltf(*gltf, a.input, a.output, container, &files)?;
            ctx.info(format_args!(
                "{}: every skin has at most {} joints; {}",
                a.input.display(),
                planned.max_joints,
                if u.copied {
                    "copied unchanged"
                } else {
                    "rewritten unchanged into the output's container"
                }
            ));
            (u.written, None)
        }
    };
    // The images the output names follow it (spec/security.md [R4]).
    let follow = crate::resources::Follow {
        input: a.input,
        output: a.output,
        container,
        mode: a.resources,
        embed: a.embed,
        read: input_bytes,
        ctx,
    };
    crate::resources::follow_checked(&follow, &mut written, (&outputs, &inputs), read_buffers)?;
    let report_text = a.report.map(|p| {
        let mut text = serde_json::to_string_pretty(&planned.report).unwrap_or_default();
        text.push('\n');
        (p, text)
    });
    let after = text_files(&report_text);
    write_checked(
        &planned.check(&written.files),
        written.main,
        &dashvertex_fs::Holes::default(),
        &written.files,
        &[],
        &after,
        spent,
    )?;
    for line in describe(&planned.report.split) {
        ctx.info(line);
    }
    Ok(planned.report)
}

/// The input, loaded for a split. With a reduction the displacement is measured by
/// skinning, so transforms and animations must be sound; without one, errors there are
/// carried into the output. Only glTF has meshes, nodes and skins to split.
fn open(a: &SplitJob) -> Result<Box<dashvertex_gltf::Gltf>, AppError> {
    let ctx = a.ctx;
    match load_for(a.input, ctx, work(a))? {
        Source::Gltf(gltf) => Ok(gltf),
        _ => Err(input_error(
            a.input,
            format!(
                "{} reads glTF or GLB (parts become meshes, nodes and skins)",
                ctx.job(Job::Split)
            ),
        )),
    }
}
