//! `dashvertex convert`: between every format dash reads and writes. DashVertex JSON, DMX and
//! raw records convert bit for bit; glTF/GLB becomes DashVertex through the reducer with
//! every influence kept (one primitive, its skin's joints with their rest pose, nothing
//! normalized), naming what DashVertex cannot carry; glTF and GLB convert into each
//! other unchanged.

use std::path::{Path, PathBuf};

use dashvertex_json::Form;

use crate::error::CliError;
use crate::formats::{self, Format, SaveOptions};
use dashvertex_app::input::{container, read_source_for, source_of_bytes};
use dashvertex_app::output::{
    buffer_files, external_buffers, refuse_aliases, refuse_written_aliases, unchanged_gltf, verify,
    write_output,
};
use dashvertex_app::reduce::{self, Pick, ReduceJob};
use dashvertex_app::resources::Follow;
use dashvertex_app::{Context, Opened, Source, input_error};

/// JSON output shape.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum FormArg {
    /// One vertex object.
    Vertex,
    /// An array of vertex objects.
    Array,
    /// A DMX document.
    Document,
}

/// `dashvertex convert` flags.
#[derive(clap::Args)]
pub struct ConvertArgs {
    /// Input file, or `-` for standard input
    ///
    /// DashVertex JSON/DMX/raw, a per-bone weights document, glTF or GLB.
    input: PathBuf,
    /// Output file, or `-` for standard output
    ///
    /// Written atomically: a failed run leaves the destination untouched.
    output: PathBuf,
    /// Input format: json, dmx, raw, gltf or glb (default: detected)
    ///
    /// By default the extension names it, else the bytes do.
    #[arg(long, value_name = "FORMAT", value_parser = formats::any_format(),
          hide_possible_values = true, help_heading = "Input")]
    from: Option<Format>,
    /// Output format: json, dmx, raw, gltf or glb (default: from the name)
    ///
    /// Required when the output is `-`.
    #[arg(long, value_name = "FORMAT", value_parser = formats::any_format(),
          hide_possible_values = true, help_heading = "Output")]
    to: Option<Format>,
    /// JSON shape: vertex, array or document (default: the input's)
    ///
    /// `vertex`: one vertex object; `array`: an array of vertex objects; `document`: a
    /// DMX document (the default for binary input).
    #[arg(
        long,
        value_enum,
        value_name = "SHAPE",
        hide_possible_values = true,
        help_heading = "Output"
    )]
    form: Option<FormArg>,
    /// DMX: 16-byte records for an unskinned mesh
    ///
    /// Saves 67 %; needs a reader that knows the dash extension.
    #[arg(long, help_heading = "Output")]
    compact: bool,
    /// Write even if non-zero bytes outside every section are lost
    #[arg(long, help_heading = "Output")]
    drop_unreferenced: bool,
    /// Embed a .gltf output's buffers as data URIs
    ///
    /// By default buffer files are written beside it as `STEM.bin`.
    #[arg(long, help_heading = "Output")]
    embed: bool,
    /// Images a glTF output names: embed, copy or reference
    ///
    /// `embed` them (a .glb's binary chunk, a .gltf's data URIs), `copy` them beside the
    /// output (their folders kept) or `reference` the originals from its folder.
    /// Default: embed for .glb, --embed or standard output; copy for a .gltf in another
    /// folder; unchanged in the input's folder.
    #[arg(
        long,
        value_enum,
        value_name = "HOW",
        hide_possible_values = true,
        help_heading = "Output"
    )]
    resources: Option<crate::reduce::ResourcesArg>,
    #[command(flatten)]
    pick: crate::reduce::PickArgs,
}

impl ConvertArgs {
    fn form(&self) -> Option<Form> {
        self.form.map(|f| match f {
            FormArg::Vertex => Form::Vertex,
            FormArg::Array => Form::Array,
            FormArg::Document => Form::Document,
        })
    }
}

/// Runs `dashvertex convert`.
pub fn run(a: &ConvertArgs, ctx: &Context) -> Result<(), CliError> {
    let to =
        a.to.or_else(|| Format::from_extension(&a.output))
            .ok_or_else(|| {
                CliError::Usage(format!(
                    "cannot tell the output format of {}; pass --to json|dmx|raw|gltf|glb",
                    display(&a.output)
                ))
            })?;
    // No output may overwrite the input (spec/security.md W3).
    refuse_aliases(&[("the output", &a.output)], &[("the input", &a.input)])?;
    if a.form.is_some() && to != Format::Json {
        return Err(CliError::Usage(format!(
            "--form sets the shape of JSON output; the output here is {}",
            to.describe()
        )));
    }
    // FBX to DashVertex is read from its control points, not through glTF (spec/fbx.md §4).
    let from = a.from.or_else(|| {
        (!to.is_gltf() && dashvertex_app::input::is_fbx_file(&a.input)).then_some(Format::Fbx)
    });
    let read = match from {
        Some(f) if !f.is_gltf() => Opened::Bytes(dashvertex_fs::read_input(
            &a.input,
            ctx.limits.max_input_bytes,
        )?),
        // Between glTF files the document is carried: its errors outside the influences
        // do not refuse it; a DashVertex output holds the rest pose, read from the nodes.
        _ => read_source_for(
            &a.input,
            ctx,
            if to.is_gltf() {
                dashvertex_validate::Work::Rewrite
            } else {
                dashvertex_validate::Work::Skin
            },
        )?,
    };
    match read {
        Opened::Gltf(g) if to.is_gltf() => gltf_to_gltf(a, *g, to, ctx),
        Opened::Gltf(g) => to_dashvertex(a, Source::Gltf(g), to, ctx),
        Opened::Bytes(bytes) => match source_of_bytes(&a.input, &bytes, from, ctx)? {
            Source::Dash(loaded) if to.is_gltf() => {
                dashvertex_to_gltf(a, loaded.document(), to, ctx)
            }
            Source::Dash(loaded) => {
                let out = formats::save(&loaded, to, &save_options(a))?;
                Ok(dashvertex_fs::write_file(&a.output, &out)?)
            }
            other => to_dashvertex(a, other, to, ctx),
        },
    }
}

fn save_options(a: &ConvertArgs) -> SaveOptions {
    SaveOptions {
        form: a.form(),
        binary: dashvertex_binary::WriteOptions {
            compact_unskinned: a.compact,
            drop_unreferenced: a.drop_unreferenced,
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
fn gltf_to_gltf(
    a: &ConvertArgs,
    g: dashvertex_gltf::Gltf,
    to: Format,
    ctx: &Context,
) -> Result<(), CliError> {
    if Pick::from(a.pick).given() {
        return Err(CliError::Usage(
            "--mesh and --primitive pick the primitive a DashVertex output holds; glTF output keeps every primitive".into(),
        ));
    }
    let container = container(Some(to)).unwrap_or(dashvertex_gltf::Container::Glb);
    let files = buffer_files(&a.output, a.embed);
    let read = g.input_bytes();
    let mut read_buffers = external_buffers(&g, &a.input);
    let unchanged = unchanged_gltf(g, &a.input, &a.output, container, &files)?;
    let mut written = unchanged.written;
    // The images the output names follow it (spec/security.md [R4]).
    let follow = Follow {
        input: &a.input,
        output: &a.output,
        container,
        mode: crate::reduce::resources(a.resources),
        embed: a.embed,
        read,
        ctx,
    };
    read_buffers.extend(dashvertex_app::resources::follow(&follow, &mut written)?);
    refuse_written_aliases(
        &a.output,
        &written.files,
        &[("the output", &a.output)],
        &[("the input", &a.input)],
        &read_buffers,
        ctx.words,
    )?;
    write_output(
        &a.output,
        &written.main,
        Some(&written.holes),
        &written.files,
    )
}

/// DashVertex to glTF/GLB: the bones as nodes with their rest pose, a skin whose inverse
/// bind matrices match it, one `POINTS` primitive with POSITION and the influence sets
/// (DashVertex has no faces); checked by the validator before it is written.
fn dashvertex_to_gltf(
    a: &ConvertArgs,
    doc: &dashvertex_core::Document,
    to: Format,
    ctx: &Context,
) -> Result<(), CliError> {
    if Pick::from(a.pick).given() {
        return Err(CliError::Usage(
            "--mesh and --primitive pick a glTF primitive; the input is DashVertex".into(),
        ));
    }
    let container = container(Some(to)).unwrap_or(dashvertex_gltf::Container::Glb);
    let files = buffer_files(&a.output, a.embed);
    let written = dashvertex_gltf::from_dash::write(doc, container, &files)
        .map_err(|e| input_error(&a.input, e))?;
    let main = verify(
        &a.output,
        to,
        written.main,
        &written.files,
        &ctx.limits,
        None,
        None,
    )?;
    write_output(&a.output, &main, None, &written.files)?;
    for note in doc
        .skeleton
        .as_ref()
        .map(dashvertex_gltf::from_dash::made_roots)
        .unwrap_or_default()
    {
        crate::common::warning(format_args!("{}: {note}", a.input.display()));
    }
    let bones = doc.skeleton.as_ref().map_or(0, |s| s.len());
    crate::common::info(format_args!(
        "converted {} vertices and {bones} bone(s) to glTF: one POINTS primitive (DashVertex holds no faces), the bones as nodes with their rest pose and matching inverse bind matrices",
        doc.mesh.len()
    ));
    Ok(())
}

/// glTF or a per-bone weights document to DashVertex: the reducer with every influence
/// kept and the weights as they are.
fn to_dashvertex(
    a: &ConvertArgs,
    source: Source,
    to: Format,
    ctx: &Context,
) -> Result<(), CliError> {
    let most = ctx.limits.max_sets.saturating_mul(4);
    let args = ReduceJob {
        to: Some(to),
        config: dashvertex_reduce::Config {
            max_influences: usize::try_from(most).unwrap_or(usize::MAX),
            normalize: dashvertex_reduce::Normalize::None,
            quantize: dashvertex_reduce::Quantize::F32,
            min_weight: 0.0,
            empty: dashvertex_reduce::Empty::Zero,
        },
        pick: a.pick.into(),
        convert: true,
        save: save_options(a),
        ..ReduceJob::new(&a.input, &a.output, ctx)
    };
    reduce::run_source(&args, source)?;
    Ok(())
}
