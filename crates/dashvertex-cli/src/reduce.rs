//! `dashvertex reduce` and `dashvertex manifest`.

use std::path::Path;

use dashvertex_core::Document;
use dashvertex_gltf::Gltf;
use dashvertex_reduce::Config;
use dashvertex_reduce::gltf::PrimitiveInput;
use dashvertex_reduce::manifest::{Manifest, ManifestError};

use crate::common;
use crate::error::CliError;
use crate::formats::{self, Format, Loaded, SaveOptions};

pub(crate) use crate::input::*;
pub(crate) use crate::loss_report::*;
pub(crate) use crate::manifest_cmd::*;
pub(crate) use crate::output::*;

/// `dashvertex reduce` options.
pub struct ReduceArgs<'a> {
    /// Input.
    pub input: &'a Path,
    /// Output.
    pub output: &'a Path,
    /// The output's format when its name cannot tell (`-`), or to override the name.
    pub to: Option<Format>,
    /// Algorithm settings.
    pub config: Config,
    /// Manifest file.
    pub manifest: Option<&'a Path>,
    /// Fail when the manifest would change.
    pub locked: bool,
    /// Embed every buffer of a `.gltf` output as a data URI instead of writing `.bin`
    /// files beside it.
    pub embed: bool,
    /// Where to write the loss report, if anywhere.
    pub report: Option<&'a Path>,
    /// The largest displacement allowed (`--max-error`): K becomes the smallest count
    /// up to `config.max_influences` that keeps every vertex within it.
    pub max_error: Option<f64>,
    /// Another glTF whose animations supply the poses (`--poses`).
    pub poses: Option<&'a Path>,
    /// The engine to write for (`--target`): its output is checked against it.
    pub target: Option<&'static dashvertex_core::Target>,
    /// Which glTF primitive a DashVertex output holds.
    pub pick: Pick,
    /// `dashvertex convert`: every influence is kept (the config says so); report what the
    /// output does not carry instead of what was reduced.
    pub convert: bool,
    /// How a DashVertex output is encoded (JSON shape, compact records).
    pub save: SaveOptions,
    /// glTF output: remove the per-bone weight attributes the influences were read from
    /// (`--drop-source-attributes`, default true).
    pub drop_source_attributes: bool,
    /// Limits, resource folders, lock waiting.
    pub ctx: &'a Context<'a>,
}

/// What converting primitive `p` of `g` to DashVertex keeps and leaves behind: the
/// other attributes, the indices, the animations, the other skinned primitives.
fn not_carried(g: &Gltf, p: &PrimitiveInput<'_>, parts: usize) -> String {
    let at = |ptr: &str| g.value.pointer(ptr);
    let base = format!("/meshes/{}/primitives/{}", p.mesh, p.primitive);
    let mut left: Vec<String> = Vec::new();
    if let Some(i) = at(&format!("{base}/indices")).and_then(serde_json::Value::as_u64) {
        let count = usize::try_from(i)
            .ok()
            .and_then(|i| g.root.accessors.get(i))
            .map_or(0, |a| a.count);
        left.push(format!("indices ({count})"));
    }
    if let Some(serde_json::Value::Object(attrs)) = at(&format!("{base}/attributes")) {
        for name in attrs.keys() {
            let kept = name == "POSITION"
                || (!p.from_attributes
                    && (name.starts_with("JOINTS_") || name.starts_with("WEIGHTS_")))
                || (p.from_attributes && name.starts_with('_'));
            if !kept {
                left.push(name.clone());
            }
        }
    }
    let count = |ptr: &str| {
        at(ptr)
            .and_then(serde_json::Value::as_array)
            .map_or(0, Vec::len)
    };
    for (what, ptr) in [
        ("morph target(s)", format!("{base}/targets")),
        ("animation(s)", "/animations".to_owned()),
        ("material(s)", "/materials".to_owned()),
    ] {
        let n = count(&ptr);
        if n > 0 {
            left.push(format!("{n} {what}"));
        }
    }
    if parts > 1 {
        left.push(format!("{} other skinned primitive(s)", parts - 1));
    }
    let bones = p.input.bones.len();
    let head = format!(
        "converted mesh {} primitive {}: {} vertices, {bones} bone(s)",
        p.mesh,
        p.primitive,
        p.input.len()
    );
    if left.is_empty() {
        head
    } else {
        format!("{head}; not carried by DashVertex: {}", left.join(", "))
    }
}

/// `--mesh M --primitive P`: the glTF primitive a DashVertex output holds (DashVertex
/// holds one mesh; glTF output keeps every primitive).
#[derive(Clone, Copy, Debug, Default, clap::Args)]
pub struct Pick {
    /// glTF input to DashVertex output: the mesh whose primitive is written (default:
    /// the only skinned one).
    #[arg(long, value_name = "M")]
    pub mesh: Option<usize>,
    /// glTF input to DashVertex output: the primitive of --mesh written (default 0 when
    /// --mesh is given).
    #[arg(long, value_name = "P")]
    pub primitive: Option<usize>,
}

impl Pick {
    /// True when a primitive was asked for.
    pub fn given(&self) -> bool {
        self.mesh.is_some() || self.primitive.is_some()
    }

    /// The one part a DashVertex output holds: the picked primitive, or the only part.
    /// Refuses naming every skinned primitive and the flags that pick one.
    fn one<'p, 's>(&self, parts: &'p [Part<'s>]) -> Result<&'p Part<'s>, CliError> {
        // The first few, and how many more: a file may have thousands.
        const LISTED: usize = 8;
        let list = || {
            let prims: Vec<&PrimitiveInput<'_>> =
                parts.iter().filter_map(Part::primitive).collect();
            let mut text = prims
                .iter()
                .take(LISTED)
                .map(|p| {
                    format!(
                        "--mesh {} --primitive {} ({} vertices)",
                        p.mesh,
                        p.primitive,
                        p.input.len()
                    )
                })
                .collect::<Vec<_>>()
                .join(", ");
            if prims.len() > LISTED {
                text.push_str(&format!(" and {} more", prims.len() - LISTED));
            }
            text
        };
        if !self.given() {
            return match parts {
                [part] => Ok(part),
                _ => Err(CliError::Usage(format!(
                    "the input has {} skinned primitives and DashVertex output holds one: pick it with {}, or write .gltf/.glb to keep them all",
                    parts.len(),
                    list()
                ))),
            };
        }
        let (mesh, primitive) = (self.mesh.unwrap_or(0), self.primitive.unwrap_or(0));
        parts
            .iter()
            .find(|p| p.primitive().is_some_and(|q| q.mesh == mesh && q.primitive == primitive))
            .ok_or_else(|| {
                CliError::Usage(format!(
                    "mesh {mesh} primitive {primitive} is not a skinned primitive of the input; the skinned ones: {}",
                    list()
                ))
            })
    }
}

fn describe((rep, sets): &(dashvertex_reduce::Report, usize)) -> String {
    let mut s = format!(
        "reduced {} vertices to {} set(s): {} changed, {} influence(s) dropped over the limit, {} below the threshold, {} rounded away, {} merged, {} negative",
        rep.vertices,
        sets,
        rep.changed,
        rep.dropped,
        rep.below_threshold,
        rep.quantized_away,
        rep.merged,
        rep.negative
    );
    if let Some(d) = &rep.largest_dropped {
        s.push_str(&format!(
            "; largest dropped weight {} at {}",
            d.weight, d.at
        ));
    }
    if let Some(d) = &rep.first_negative {
        s.push_str(&format!("; first negative weight {} at {}", d.weight, d.at));
    }
    if rep.empty > 0 {
        s.push_str(&format!(
            "; {} vertex(es) without influence (first: vertex {})",
            rep.empty,
            rep.first_empty.unwrap_or(0)
        ));
    }
    s
}

/// A reducer setting refused, said with the flags that set it.
fn config_flags(e: &dashvertex_reduce::ConfigError) -> String {
    use dashvertex_reduce::ConfigError as E;
    match e {
        E::NoInfluences => "--max-influences must be at least 1".into(),
        E::TooManyInfluences(k) => format!(
            "--max-influences {k} is more than {}",
            dashvertex_reduce::MAX_INFLUENCES
        ),
        E::QuantizedWithoutNormalize => "integer weights always sum to exactly 255 or 65535; use --normalize unit with --quantize unorm8/unorm16".into(),
        E::MinWeight => "--min-weight must be a finite number ≥ 0".into(),
        E::EmptyRootWithoutRoot => "--empty root needs a skeleton with a root bone".into(),
        other => other.to_string(),
    }
}

/// The files a run writes and reads, each with the flag that named it.
fn named_paths<'a>(
    a: &'a ReduceArgs<'a>,
) -> (Vec<dashvertex_fs::Named<'a>>, Vec<dashvertex_fs::Named<'a>>) {
    let mut outputs: Vec<dashvertex_fs::Named> = vec![("-o", a.output)];
    let mut inputs: Vec<dashvertex_fs::Named> = vec![("the input", a.input)];
    if let Some(m) = a.manifest {
        if a.locked {
            inputs.push(("--manifest", m));
        } else {
            outputs.push(("--manifest", m));
        }
    }
    outputs.extend(a.report.map(|r| ("--report", r)));
    inputs.extend(a.poses.map(|p| ("--poses", p)));
    (outputs, inputs)
}

/// Runs `dashvertex reduce`.
pub fn reduce(a: &ReduceArgs) -> Result<(), CliError> {
    check_args(a)?;
    reduce_source(a, load(a.input, a.ctx)?)
}

fn check_args(a: &ReduceArgs) -> Result<(), CliError> {
    let limits = &a.ctx.limits;
    let most = limits.max_sets.saturating_mul(4);
    if a.config.max_influences as u64 > most {
        return Err(CliError::Usage(format!(
            "--max-influences {} is more than --max-sets {} can hold ({most})",
            a.config.max_influences, limits.max_sets
        )));
    }
    if a.poses.is_some() && a.report.is_none() && a.max_error.is_none() {
        return Err(CliError::Usage(
            "--poses supplies the poses of --report and --max-error; give one of them".into(),
        ));
    }
    // No output may overwrite an input, or another output (spec/security.md W3).
    let first_bin = first_buffer_file(a.output, a.to, a.embed);
    let (outputs, inputs) = named_paths(a);
    let mut before = outputs.clone();
    before.extend(first_bin.as_deref().map(|b| ("the buffer file of -o", b)));
    refuse_aliases(&before, &inputs)?;
    if let Some(p) = a.poses {
        must_exist(p)?;
    }
    Ok(())
}

/// Runs `dashvertex reduce` on a source already read from `a.input` (`dashvertex convert` reads
/// first to tell what it converts).
pub fn reduce_source(a: &ReduceArgs, source: Source) -> Result<(), CliError> {
    let limits = &a.ctx.limits;
    let (outputs, inputs) = named_paths(a);
    // The source and its inputs live in this block only: they are gone before the
    // output is verified and written, so peak memory is the larger of the two phases.
    // The K written: --max-influences, or the one --max-error chose.
    let mut chosen_k = a.config.max_influences;
    let (bytes, reports, manifest, existing, changes, _lock, loss, carried, read_buffers) = {
        let read_buffers = match &source {
            Source::Gltf(g) => external_buffers(g, a.input),
            _ => Vec::new(),
        };
        let parts = source.parts(a.input, limits)?;
        // Held from the manifest's read to its rename; a --locked run writes nothing.
        let lock_guard = match a.manifest.filter(|_| !a.locked) {
            Some(p) => Some(lock(p, a.ctx.wait)?),
            None => None,
        };
        let existing = match a.manifest {
            Some(p) if a.locked => read_manifest(p, limits)?,
            Some(p) => read_manifest_to_update(p, limits)?,
            None => None,
        };
        if a.locked && existing.is_none() {
            return Err(CliError::Usage(
                "--locked needs an existing --manifest file".into(),
            ));
        }
        let mut manifest = existing.clone().unwrap_or_default();
        // What a glTF primitive written as DashVertex leaves behind.
        let mut carried = None;
        let container = container(a.to.or_else(|| Format::from_extension(a.output)));
        // Without a manifest file the file keeps its own bone order, where the output can
        // hold it (DashVertex needs parents first); a manifest file starts from the
        // canonical order instead.
        let keep_order = a.manifest.is_none()
            && (container.is_some()
                || parts
                    .iter()
                    .all(|p| dashvertex_reduce::pipeline::parents_first(&p.input().bones)));
        let opts = dashvertex_reduce::pipeline::Options {
            locked: a.locked,
            max_bones: Some(limits.max_bones),
            require_names: a.manifest.is_some(),
            keep_order,
            keep_source_attributes: !a.drop_source_attributes,
        };
        let fail = |e: dashvertex_reduce::pipeline::PipelineError| match e {
            dashvertex_reduce::pipeline::PipelineError::Reduce(
                dashvertex_reduce::ReduceError::Config(why),
            ) => CliError::Usage(config_flags(&why)),
            dashvertex_reduce::pipeline::PipelineError::Manifest(m @ ManifestError::Locked(_)) => {
                CliError::Output(m.to_string())
            }
            other => input_error(a.input, other),
        };
        let (written, reports, changes, loss) = match (container, &source) {
            (Some(_), Source::Gltf(_)) if a.pick.given() => {
                return Err(CliError::Usage(
                    "--mesh and --primitive pick the primitive a DashVertex output holds; glTF output reduces every primitive".into(),
                ));
            }
            (Some(container), Source::Gltf(g)) => {
                let files = buffer_files(a.output, a.embed);
                let prims: Vec<PrimitiveInput<'_>> =
                    parts.into_iter().filter_map(Part::into_primitive).collect();
                let run = |cfg: &Config, m: &mut Manifest| {
                    dashvertex_reduce::pipeline::reduce_gltf(
                        g, &prims, m, cfg, &opts, container, &files,
                    )
                    .map_err(fail)
                };
                let anims = match (a.report, a.max_error) {
                    (None, None) => Vec::new(),
                    _ => poses_for(a.input, g, a.poses, a.ctx)?,
                };
                let (out, loss) = match a.max_error {
                    None => {
                        let out = run(&a.config, &mut manifest)?;
                        let loss = match a.report {
                            Some(_) => Some(loss_of(a.input, g, &out.written, &anims, limits)?),
                            None => None,
                        };
                        (out, loss)
                    }
                    Some(budget) => {
                        if anims.is_empty() {
                            return Err(CliError::Usage(
                                "--max-error: the model has no animations, and at the rest pose every K moves nothing; give the poses with --poses FILE".into(),
                            ));
                        }
                        // The smallest K that keeps every vertex within the budget.
                        let start = manifest.clone();
                        let kmax = a.config.max_influences;
                        // The last K tried: the first within the budget, else --max-influences.
                        let mut last = None;
                        for k in 1..=kmax {
                            let mut m = start.clone();
                            let cfg = Config {
                                max_influences: k,
                                ..a.config
                            };
                            let out = run(&cfg, &mut m)?;
                            let loss = loss_of(a.input, g, &out.written, &anims, limits)?;
                            if loss.len() < prims.len() {
                                return Err(input_error(
                                    a.input,
                                    "--max-error: a reduced primitive has no skin, so how far its vertices move cannot be measured",
                                ));
                            }
                            let worst = largest(&loss);
                            common::detail(format_args!(
                                "--max-error {budget}: {k} influence(s) move a vertex by at most {worst:.6}"
                            ));
                            last = Some((k, m, out, loss));
                            if worst <= budget {
                                break;
                            }
                        }
                        let Some((k, m, out, loss)) = last else {
                            return Err(CliError::Usage(
                                "--max-influences must be at least 1".into(),
                            ));
                        };
                        let worst = largest(&loss);
                        if worst > budget {
                            return Err(CliError::Output(over_budget(budget, kmax, &loss)));
                        }
                        common::info(format_args!(
                            "--max-error {budget}: {k} influence(s) per vertex keep every vertex within it (largest displacement {worst:.6})"
                        ));
                        if let Some(cut) = sampled(&loss) {
                            common::note(format_args!("--max-error {budget}: {cut}"));
                        }
                        manifest = m;
                        chosen_k = k;
                        (out, Some(loss))
                    }
                };
                (out.written, out.reports, out.changes, loss)
            }
            (Some(_), _) => {
                return Err(CliError::Usage(
                    "glTF output needs glTF input (the skin and mesh come from it)".into(),
                ));
            }
            (None, _) => {
                if a.max_error.is_some() || a.poses.is_some() {
                    return Err(CliError::Usage(
                        "--max-error and --poses need glTF input and output: the displacement is measured by skinning with the file's joints and animations".into(),
                    ));
                }
                let named = a.to.or_else(|| Format::from_extension(a.output));
                let format = named.ok_or_else(|| {
                    CliError::Usage(format!(
                        "cannot tell the output format of {}; use .json, .dmx, .raw, .gltf or .glb, or --to",
                        a.output.display()
                    ))
                })?;
                let part = a.pick.one(&parts)?;
                let run = dashvertex_reduce::pipeline::reduce_all(
                    &[part.input()],
                    &mut manifest,
                    &a.config,
                    &opts,
                )
                .map_err(fail)?;
                let reduced = run
                    .reduced
                    .first()
                    .ok_or_else(|| CliError::Output("the reducer gave no result".into()))?;
                let input = part.input();
                carried = match (&source, part.primitive()) {
                    (Source::Gltf(g), Some(p)) => Some(not_carried(g, p, parts.len())),
                    _ => None,
                };
                let positions = match part.primitive() {
                    Some(p) => p.positions(),
                    None => input.positions.clone(),
                };
                let document = Document {
                    mesh: reduced.to_mesh(&positions),
                    skeleton: run.named.then(|| {
                        dashvertex_reduce::manifest_skeleton(part.skeleton(), input, &manifest)
                    }),
                };
                let loaded = match &source {
                    Source::Dash(Loaded::Json(j)) => {
                        let mut j = j.clone();
                        j.document = document;
                        Loaded::Json(j)
                    }
                    Source::Dash(Loaded::Binary(b)) => {
                        let mut b = b.clone();
                        b.document = document;
                        Loaded::Binary(b)
                    }
                    _ => Loaded::Json(dashvertex_json::JsonFile::new_document(document)),
                };
                let main = formats::save(&loaded, format, &a.save)?;
                let reports = run
                    .reduced
                    .iter()
                    .map(|r| (r.report.clone(), r.sets))
                    .collect();
                (
                    dashvertex_gltf::export::Written {
                        main,
                        files: Vec::new(),
                    },
                    reports,
                    run.changes,
                    None,
                )
            }
        };
        (
            written,
            reports,
            manifest,
            existing,
            changes,
            lock_guard,
            loss,
            carried,
            read_buffers,
        )
    };
    let dashvertex_gltf::export::Written { main: bytes, files } = bytes;
    // The output's format or extension chose its encoder (checked above), so it names
    // the format.
    let format =
        a.to.or_else(|| Format::from_extension(a.output))
            .unwrap_or(Format::Json);
    // A DashVertex output's bone i is manifest entry i: a refusal names it.
    let subject = container(Some(format)).is_none().then(|| Subject {
        input: a.input,
        bones: manifest
            .bones
            .iter()
            .map(|e| (e.name.clone(), e.parent.clone()))
            .collect(),
    });
    let bytes = verify_for(
        a.output,
        format,
        bytes,
        &files,
        limits,
        None,
        a.target,
        subject.as_ref(),
    )?;
    // The buffer files are named now: none may overwrite a file this run read.
    refuse_written_aliases(a.output, &files, &outputs, &inputs, &read_buffers)?;
    let manifest_text = a
        .manifest
        .filter(|_| existing.as_ref() != Some(&manifest))
        .map(|p| (p, manifest.to_json()));
    let report_text = a.report.map(|path| {
        let json = report_json((a.input, a.output), chosen_k, &reports, loss.as_deref());
        let mut text = serde_json::to_string_pretty(&json).unwrap_or_default();
        text.push('\n');
        (path, text)
    });
    // The manifest, the output with its buffer files and the report are replaced
    // together or not at all: a --report path that cannot be written leaves the output
    // and the manifest as they were.
    let mut batch = dashvertex_fs::Batch::new();
    if let Some((p, text)) = &manifest_text {
        batch.add(p, text.as_bytes()).map_err(nothing_written)?;
    }
    stage_output(&mut batch, a.output, &bytes, &files)?;
    if let Some((p, text)) = &report_text {
        batch.add(p, text.as_bytes()).map_err(nothing_written)?;
    }
    batch.commit().map_err(nothing_written)?;
    if a.convert {
        for (r, sets) in &reports {
            let text = describe(&(r.clone(), *sets));
            if r.merged > 0 || r.negative > 0 {
                common::note(text);
            } else {
                common::detail(text);
            }
        }
        if let Some(c) = &carried {
            common::info(c);
        }
    } else {
        for r in &reports {
            common::info(describe(r));
        }
    }
    if a.report.is_some() {
        for line in loss_lines(loss.as_deref()) {
            common::info(line);
        }
    }
    // What the manifest gained is news when a manifest file was written; a numbering made
    // up for this run only is shown with -v.
    if a.manifest.is_some() {
        common::warn_neutral_bone(&changes.added);
    }
    for line in changes.describe() {
        if a.manifest.is_some() {
            common::info(format_args!("manifest: {line}"));
        } else {
            common::detail(format_args!("bone numbering: {line}"));
        }
    }
    Ok(())
}
