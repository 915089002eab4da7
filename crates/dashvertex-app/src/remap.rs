//! The remap job: a glTF file's joint order rewritten to a bone manifest's
//! (`dashvertex_reduce::remap`), written with the output writer the reduce job uses.

use std::path::Path;

use dashvertex_formats::Format;
use dashvertex_gltf::Container;
use dashvertex_reduce::remap::{self, RemapError};

use crate::error::{AppError, input_cause, input_error};
use crate::input::{Context, Source, container, load_for, load_for_rewrite, must_exist};
use crate::manifest_file::read_manifest;
use crate::output::{
    buffer_files, external_buffers, refuse_aliases_before, refuse_written_aliases, unchanged_gltf,
    write_output,
};
use crate::words::Opt;

/// A remap job's options.
pub struct RemapJob<'a> {
    /// The glTF or GLB file.
    pub input: &'a Path,
    /// The bone manifest whose indices the joints take (read, never changed).
    pub manifest: &'a Path,
    /// The output, `.gltf` or `.glb`.
    pub output: &'a Path,
    /// Refuse when a skin has bones the manifest does not have, instead of appending them
    /// after the manifest's bones.
    pub locked: bool,
    /// For `.gltf` output: embed every buffer as a base64 data URI.
    pub embed: bool,
    /// How the images the output names reach their files (`--resources`).
    pub resources: crate::resources::Resources,
    /// Limits, resource folders, how to speak.
    pub ctx: &'a Context<'a>,
}

/// What a remap job did, per skin.
#[derive(Debug)]
#[non_exhaustive]
pub struct Remapped {
    /// Per skin: whether it was remapped and what it gained.
    pub skins: Vec<remap::SkinRemap>,
    /// True when nothing changed and the input's own bytes were copied.
    pub copied: bool,
}

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
    let container = container(Format::from_extension(a.output)).ok_or_else(|| {
        AppError::Usage(format!(
            "cannot tell the output format of {}; name it .gltf or .glb",
            a.output.display()
        ))
    })?;
    let gltf = open(a, container)?;
    let mut read_buffers = external_buffers(&gltf, a.input);
    let input_bytes = gltf.input_bytes();
    let opts = remap::Options { locked: a.locked };
    let plan = remap::remap(&gltf, &manifest, &opts).map_err(|e| failed(a.input, e))?;
    for s in &plan.skins {
        say_skin(s, manifest.len(), ctx);
    }
    let skins = plan.skins.clone();
    let files = buffer_files(a.output, a.embed);
    let written = plan
        .finish(container, &files)
        .map_err(|e| input_cause(a.input, e))?;
    let mut copied = false;
    let (main, files, holes) = match written {
        Some(w) => {
            for note in &w.notes {
                ctx.warning(format_args!("{}: {note}", a.input.display()));
            }
            (w.main, w.files, w.holes)
        }
        None => {
            // Nothing changes: the same bytes, when they stay valid where they go; else
            // the same document rewritten into the output's container.
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
            (u.written.main, u.written.files, u.written.holes)
        }
    };
    // The images the output names follow it (spec/security.md [R4]).
    let mut written = dashvertex_gltf::export::Written {
        main,
        files,
        holes,
        ..Default::default()
    };
    let follow = crate::resources::Follow {
        input: a.input,
        output: a.output,
        container,
        mode: a.resources,
        embed: a.embed,
        read: input_bytes,
        ctx,
    };
    read_buffers.extend(crate::resources::follow(&follow, &mut written)?);
    let (main, files, holes) = (written.main, written.files, written.holes);
    refuse_written_aliases(
        a.output,
        &files,
        &outputs,
        &inputs,
        &read_buffers,
        ctx.words,
    )?;
    write_output(a.output, &main, Some(&holes), &files)?;
    Ok(Remapped { skins, copied })
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

/// A remap refused: a locked manifest's change, a skin past the joint limit (the output
/// cannot hold it), or the input's fault.
fn failed(input: &Path, e: RemapError) -> AppError {
    match e {
        e @ (RemapError::NotInManifest { .. } | RemapError::RetiredWeighted { .. }) => {
            AppError::ManifestLocked(e.to_string())
        }
        e @ RemapError::Joints(_) => AppError::Output(e.to_string()),
        e => input_cause(input, e),
    }
}

/// What the remap did to one skin, said to the user; `manifest_len` is the manifest's
/// bone count.
fn say_skin(s: &remap::SkinRemap, manifest_len: usize, ctx: &Context) {
    for (name, at) in &s.retired_weighted {
        ctx.warning(format_args!(
            "skin {}: bone {name:?} is retired in the manifest but carries weight (first: mesh {} primitive {} vertex {} in JOINTS_{}); it keeps its index; {} refuses this",
            s.skin, at.mesh, at.primitive, at.vertex, at.set, ctx.opt(Opt::Locked)
        ));
    }
    let Some(why) = &s.mismatch else {
        ctx.detail(format_args!("skin {}: already in manifest order", s.skin));
        return;
    };
    let mut line = format!("skin {}: remapped to the manifest's order ({why})", s.skin);
    if !s.placeholders.is_empty() {
        line.push_str(&format!(
            "; {} placeholder joint(s) for manifest bones the file lacks",
            s.placeholders.len()
        ));
    }
    if !s.appended.is_empty() {
        line.push_str(&format!(
            "; {} bone(s) not in the manifest appended after its {}: {}",
            s.appended.len(),
            manifest_len,
            s.appended
                .iter()
                .map(|b| format!("{b:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    line.push_str(&format!(
        "; joint values of {} primitive(s) renumbered",
        s.primitives.len()
    ));
    ctx.info(line);
}
