//! The remap job: a glTF file's joint order rewritten to a bone manifest's
//! (`dashvertex_reduce::remap`), written with the output writer the reduce job uses.

#[cfg(feature = "fs")]
mod files;

use std::path::Path;

use dashvertex_formats::Format;
use dashvertex_gltf::{Container, Gltf};
use dashvertex_reduce::manifest::Manifest;
use dashvertex_reduce::remap::{self, RemapError};

use crate::error::{AppError, input_cause};
use crate::input::{Context, container};
use crate::settings::buffer_files;
use crate::words::Opt;
#[cfg(feature = "fs")]
pub use files::run;

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
    pub resources: crate::resource_mode::Resources,
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

/// What a remap job makes before anything is written: per skin what it did, and the
/// output, or `None` when the file is already in the manifest's order (the front end then
/// copies the input).
#[non_exhaustive]
pub struct RemapPlan {
    /// Per skin: whether it was remapped and what it gained.
    pub skins: Vec<remap::SkinRemap>,
    /// The remapped document with its buffer files; `None`: nothing changes.
    pub written: Option<dashvertex_gltf::export::Written>,
}

/// Plans remap job `a` on `gltf` (its input, opened by the front end for a rewrite) with
/// `manifest` (the one `a.manifest` names, read by the front end): the skins' joints put
/// in the manifest's order. Nothing is read or written here.
pub fn plan(a: &RemapJob, gltf: &Gltf, manifest: &Manifest) -> Result<RemapPlan, AppError> {
    let ctx = a.ctx;
    let container = output_container(a)?;
    let opts = remap::Options { locked: a.locked };
    let plan = remap::remap(gltf, manifest, &opts).map_err(|e| failed(a.input, e))?;
    for s in &plan.skins {
        say_skin(s, manifest.len(), ctx);
    }
    let skins = plan.skins.clone();
    let files = buffer_files(a.output, a.embed);
    let written = plan
        .finish(container, &files)
        .map_err(|e| input_cause(a.input, e))?;
    for note in written.iter().flat_map(|w| &w.notes) {
        ctx.warning(format_args!("{}: {note}", a.input.display()));
    }
    Ok(RemapPlan { skins, written })
}

/// The output's container, told by its name.
fn output_container(a: &RemapJob) -> Result<Container, AppError> {
    container(Format::from_extension(a.output)).ok_or_else(|| {
        AppError::Usage(format!(
            "cannot tell the output format of {}; name it .gltf or .glb",
            a.output.display()
        ))
    })
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
