//! `dashvertex remap`: a glTF file's joint order rewritten to a bone manifest's
//! (`dashvertex_reduce::remap`), written with the output writer `dashvertex reduce` uses.

use std::path::PathBuf;

use dashvertex_formats::Format;
use dashvertex_reduce::remap::{self, RemapError};

use crate::common;
use crate::error::CliError;
use crate::reduce::{self, Context, Source};

/// `dashvertex remap` flags.
#[derive(clap::Args, Clone, Debug)]
pub struct RemapArgs {
    /// The glTF or GLB file.
    pub input: PathBuf,
    /// The bone manifest whose indices the joints take (it is read, never changed).
    #[arg(long, value_name = "FILE")]
    pub manifest: PathBuf,
    /// The output, `.gltf` or `.glb` (written atomically; a `.gltf` keeps its buffers
    /// beside it as `STEM.bin` unless --embed).
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Refuse (exit 1, naming them) when a skin has bones the manifest does not have,
    /// instead of appending them after the manifest's bones.
    #[arg(long)]
    pub locked: bool,
    /// For `.gltf` output: embed every buffer as a base64 data URI.
    #[arg(long)]
    pub embed: bool,
}

/// Runs `dashvertex remap`.
pub fn run(a: &RemapArgs, ctx: &Context) -> Result<(), CliError> {
    // No output may overwrite an input (spec/security.md W3).
    let first_bin = reduce::first_buffer_file(&a.output, None, a.embed);
    let outputs: Vec<dashvertex_fs::Named> = vec![("-o", &a.output)];
    let inputs: Vec<dashvertex_fs::Named> =
        vec![("the input", &a.input), ("--manifest", &a.manifest)];
    let mut before = outputs.clone();
    before.extend(first_bin.as_deref().map(|b| ("the buffer file of -o", b)));
    reduce::refuse_aliases(&before, &inputs)?;
    reduce::must_exist(&a.manifest)?;
    let manifest = reduce::read_manifest(&a.manifest, &ctx.limits)?
        .ok_or_else(|| CliError::Io(format!("{}: no such manifest", a.manifest.display())))?;
    let container = reduce::container(Format::from_extension(&a.output)).ok_or_else(|| {
        CliError::Usage(format!(
            "cannot tell the output format of {}; name it .gltf or .glb",
            a.output.display()
        ))
    })?;
    let Source::Gltf(gltf) = reduce::load(&a.input, ctx)? else {
        return Err(reduce::input_error(
            &a.input,
            "dashvertex remap reads glTF or GLB (the joint order is a skin's)",
        ));
    };
    let read_buffers = reduce::external_buffers(&gltf, &a.input);
    let opts = remap::Options { locked: a.locked };
    let plan = remap::remap(&gltf, &manifest, &opts).map_err(|e| match e {
        e @ (RemapError::NotInManifest { .. }
        | RemapError::RetiredWeighted { .. }
        | RemapError::Joints(_)) => CliError::Output(e.to_string()),
        e => reduce::input_error(&a.input, e),
    })?;
    for s in &plan.skins {
        for (name, at) in &s.retired_weighted {
            common::warning(format_args!(
                "skin {}: bone {name:?} is retired in the manifest but carries weight (first: mesh {} primitive {} vertex {} in JOINTS_{}); it keeps its index; --locked refuses this",
                s.skin, at.mesh, at.primitive, at.vertex, at.set
            ));
        }
        let Some(why) = &s.mismatch else {
            common::detail(format_args!("skin {}: already in manifest order", s.skin));
            continue;
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
                manifest.len(),
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
        common::info(line);
    }
    let files = reduce::buffer_files(&a.output, a.embed);
    let written = plan
        .finish(container, &files)
        .map_err(|e| reduce::input_error(&a.input, e))?;
    let (main, files) = match written {
        Some(w) => (w.main, w.files),
        None => {
            // Nothing changes: the same bytes, when they stay valid where they go; else
            // the same document rewritten into the output's container.
            let u = reduce::unchanged_gltf(*gltf, &a.input, &a.output, container, &files)?;
            common::info(format_args!(
                "{}: already in manifest order{}",
                a.input.display(),
                if u.copied {
                    "; copied unchanged"
                } else {
                    "; rewritten unchanged into the output's container"
                }
            ));
            (u.written.main, u.written.files)
        }
    };
    reduce::refuse_written_aliases(&a.output, &files, &outputs, &inputs, &read_buffers)?;
    reduce::write_output(&a.output, &main, &files)
}
