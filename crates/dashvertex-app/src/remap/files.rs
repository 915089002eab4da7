//! The remap job's filesystem shell: the manifest and the input read by path, the job
//! planned ([`super::plan`]), an input already in order copied, the images followed, and
//! the output written with its buffer files together.

use dashvertex_gltf::Container;

use super::{RemapJob, Remapped, output_container, plan};
use crate::error::{AppError, input_error};
use crate::input::{Source, load_for, load_for_rewrite, must_exist};
use crate::manifest_file::read_manifest;
use crate::output::{
    buffer_files, external_buffers, refuse_aliases_before, unchanged_gltf, write_output,
};
use crate::words::Opt;

/// Runs a remap job.
pub fn run(a: &RemapJob) -> Result<Remapped, AppError> {
    let ctx = a.ctx;
    // No output may overwrite an input (spec/security.md W3).
    let (output_name, manifest_name) = (ctx.opt(Opt::Output), ctx.opt(Opt::Manifest));
    let outputs: Vec<dashvertex_fs::Named> = vec![(output_name.as_str(), a.output)];
    let inputs: Vec<dashvertex_fs::Named> =
        vec![("the input", a.input), (manifest_name.as_str(), a.manifest)];
    refuse_aliases_before(a.output, None, a.embed, &outputs, &inputs, ctx.words)?;
    must_exist(a.manifest)?;
    let manifest = read_manifest(a.manifest, ctx)?
        .ok_or_else(|| AppError::Io(format!("{}: no such manifest", a.manifest.display())))?;
    let container = output_container(a)?;
    let gltf = open(a, container)?;
    let read_buffers = external_buffers(&gltf, a.input);
    let input_bytes = gltf.input_bytes();
    let planned = plan(a, &gltf, &manifest)?;
    let mut copied = false;
    let mut written = match planned.written {
        Some(w) => w,
        None => {
            // Nothing changes: the same bytes, when they stay valid where they go; else
            // the same document rewritten into the output's container.
            let files = buffer_files(a.output, a.embed);
            let u = unchanged_gltf(*gltf, a.input, a.output, container, &files)?;
            copied = u.copied;
            ctx.info(format_args!(
                "{}: already in manifest order{}",
                a.input.display(),
                if u.copied {
                    "; copied unchanged"
                } else {
                    "; rewritten unchanged into the output's container"
                }
            ));
            u.written
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
    write_output(
        a.output,
        &written.main,
        Some(&written.holes),
        &written.files,
    )?;
    Ok(Remapped {
        skins: planned.skins,
        copied,
    })
}

/// The input, loaded for a remap: a GLB written from a GLB carries its mesh data unread
/// (spec/security.md [V2]); remap evaluates no skinning, so errors in transforms and
/// animations are carried. Only glTF has a skin's joint order to change.
fn open(a: &RemapJob, container: Container) -> Result<Box<dashvertex_gltf::Gltf>, AppError> {
    let ctx = a.ctx;
    let work = dashvertex_validate::Work::Rewrite;
    let source = if container == Container::Glb {
        load_for_rewrite(a.input, ctx, dashvertex_gltf::sparse::Rewrite::Remap, work)?
    } else {
        load_for(a.input, ctx, work)?
    };
    match source {
        Source::Gltf(gltf) => Ok(gltf),
        _ => Err(input_error(
            a.input,
            format!(
                "{} reads glTF or GLB (the joint order is a skin's)",
                ctx.job(crate::words::Job::Remap)
            ),
        )),
    }
}
