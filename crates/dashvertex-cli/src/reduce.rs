//! `dash reduce` and `dash manifest`.

use std::path::{Path, PathBuf};

use dashvertex_core::{Document, Limits, Skeleton};
use dashvertex_gltf::{Container, Gltf};
use dashvertex_reduce::Config;
use dashvertex_reduce::gltf::PrimitiveInput;
use dashvertex_reduce::input::{Input, bone_refs};
use dashvertex_reduce::manifest::{BoneRef, Manifest, ManifestError};

use crate::common;
use crate::error::CliError;
use crate::formats::{self, Format, Loaded, SaveOptions};

/// A reducer input file, loaded.
pub enum Source {
    /// DashVertex (JSON, DMX or raw).
    Dash(Loaded),
    /// A per-bone weights document.
    Weights(Input<'static>),
    /// glTF: its reducer inputs read its buffers in place ([`Source::parts`]).
    Gltf(Box<Gltf>),
}

/// One reducer input of a source, with the skeleton it came with.
struct Part<'s> {
    input: PartInput<'s>,
    skeleton: Option<&'s Skeleton>,
}

/// Where a part's input lives.
enum PartInput<'s> {
    /// Built from the source (a DashVertex mesh's sets).
    Owned(Input<'s>),
    /// The source's own (a weights document).
    Borrowed(&'s Input<'s>),
    /// A glTF primitive, its influences read in place.
    Primitive(Box<PrimitiveInput<'s>>),
}

impl<'s> Part<'s> {
    fn input(&self) -> &Input<'s> {
        match &self.input {
            PartInput::Owned(i) => i,
            PartInput::Borrowed(i) => i,
            PartInput::Primitive(p) => &p.input,
        }
    }

    /// The bones with their rest transforms: the DashVertex file's, or a glTF
    /// primitive's (its skin's joints, or its per-bone attributes' nodes).
    fn skeleton(&self) -> Option<&Skeleton> {
        self.skeleton
            .or_else(|| self.primitive().and_then(|p| p.skeleton.as_ref()))
    }

    fn primitive(&self) -> Option<&PrimitiveInput<'s>> {
        match &self.input {
            PartInput::Primitive(p) => Some(p),
            _ => None,
        }
    }

    fn into_primitive(self) -> Option<PrimitiveInput<'s>> {
        match self.input {
            PartInput::Primitive(p) => Some(*p),
            _ => None,
        }
    }
}

pub fn input_error(file: &Path, message: impl std::fmt::Display) -> CliError {
    CliError::Input {
        file: file.display().to_string(),
        message: message.to_string(),
    }
}

/// The glTF container a format is, if it is one.
pub fn container(format: Option<Format>) -> Option<Container> {
    match format? {
        Format::Gltf => Some(Container::Gltf),
        Format::Glb => Some(Container::Glb),
        _ => None,
    }
}

/// What every command that reads inputs and manifests shares.
pub struct Context<'a> {
    /// Decoder limits.
    pub limits: Limits,
    /// Folders glTF resources may also resolve into.
    pub resource_dirs: &'a [PathBuf],
    /// Wait for a manifest lock another run holds (else fail at once).
    pub wait: bool,
}

/// Loads a reducer input. glTF is told by its name or, from standard input or under
/// another name, by its bytes; glTF from standard input has no folder, so it reads no
/// external file (spec/security.md §1).
pub fn load(path: &Path, ctx: &Context) -> Result<Source, CliError> {
    match read_source(path, ctx)? {
        Opened::Gltf(g) => Ok(Source::Gltf(g)),
        Opened::Bytes(bytes) => source_of_bytes(path, &bytes, None, ctx),
    }
}

/// A reducer input from the bytes of a file that is not glTF: a per-bone weights
/// document, or DashVertex as `from` (default: told by [`formats::decide`]).
pub fn source_of_bytes(
    path: &Path,
    bytes: &[u8],
    from: Option<Format>,
    ctx: &Context,
) -> Result<Source, CliError> {
    let limits = &ctx.limits;
    let format = from.unwrap_or_else(|| formats::decide(path, bytes));
    if format == Format::Json {
        let text = std::str::from_utf8(bytes).map_err(|e| input_error(path, e))?;
        match dashvertex_reduce::weights_doc::document_type(text).as_deref() {
            Some(dashvertex_reduce::weights_doc::WEIGHTS_TYPE) => {
                return dashvertex_reduce::weights_doc::parse(text, limits.max_vertices)
                    .map(Source::Weights)
                    .map_err(|e| input_error(path, e));
            }
            Some(t) if t != dashvertex_json::DOCUMENT_TYPE => {
                let (line, column) = dashvertex_json::pointer::Locator::new(text)
                    .line_col("/type")
                    .unwrap_or((1, 1));
                return Err(input_error(
                    path,
                    format!(
                        "{line}:{column}: type is {}; dash reduce reads a DashVertex document \
                         ({:?}) or a per-bone weights document ({:?}) (at /type)",
                        dashvertex_fs::short(t),
                        dashvertex_json::DOCUMENT_TYPE,
                        dashvertex_reduce::weights_doc::WEIGHTS_TYPE
                    ),
                ));
            }
            _ => {}
        }
    }
    Ok(Source::Dash(formats::load(
        &path.display().to_string(),
        bytes,
        format,
        limits,
    )?))
}

/// A file as first read: glTF (told by its name, else by its bytes), loaded with its
/// buffers; or the bytes of anything else, for the caller to decode.
pub enum Opened {
    /// glTF or GLB.
    Gltf(Box<Gltf>),
    /// Any other file's bytes.
    Bytes(Vec<u8>),
}

/// Fails with an I/O error (exit 2) when `path` names no file or a folder: a missing
/// input is a problem with the command line, not invalid data.
pub fn must_exist(path: &Path) -> Result<(), CliError> {
    if path == Path::new("-") {
        return Ok(());
    }
    match std::fs::metadata(path) {
        Err(e) => Err(CliError::Io(format!("{}: {e}", path.display()))),
        Ok(m) if m.is_dir() => Err(CliError::Io(format!(
            "{}: is a folder; name a file",
            path.display()
        ))),
        Ok(_) => Ok(()),
    }
}

/// Reads `path` as [`Opened`] says.
pub fn read_source(path: &Path, ctx: &Context) -> Result<Opened, CliError> {
    let limits = &ctx.limits;
    must_exist(path)?;
    if Format::from_extension(path).is_some_and(Format::is_gltf) {
        let gltf = dashvertex_gltf::load_path_in(path, ctx.resource_dirs, limits)
            .map_err(|e| input_error(path, e))?;
        return Ok(Opened::Gltf(Box::new(gltf)));
    }
    let bytes = dashvertex_fs::read_input(path, limits.max_input_bytes)?;
    if Format::is_gltf_bytes(&bytes) {
        return Ok(Opened::Gltf(Box::new(load_gltf_bytes(path, bytes, ctx)?)));
    }
    Ok(Opened::Bytes(bytes))
}

/// Loads glTF bytes read from `path` (told from their content), with its external
/// buffers from the file's folder; from standard input there is no folder, so no external
/// file is read (spec/security.md §1).
pub fn load_gltf_bytes(path: &Path, bytes: Vec<u8>, ctx: &Context) -> Result<Gltf, CliError> {
    let limits = &ctx.limits;
    let loaded = if path == Path::new("-") {
        dashvertex_gltf::load_owned(bytes, &dashvertex_gltf::NoFiles, limits)
    } else {
        let resolver =
            dashvertex_gltf::FsResolver::for_file(path, ctx.resource_dirs, limits.max_input_bytes)?;
        dashvertex_gltf::load_owned(bytes, &resolver, limits)
    };
    loaded.map_err(|e| input_error(path, e))
}

impl Source {
    /// Every reducer input of the file: a DashVertex mesh's sets, a weights document (not
    /// copied), or each skinned glTF primitive, its influences read in place.
    fn parts(&self, path: &Path, limits: &Limits) -> Result<Vec<Part<'_>>, CliError> {
        Ok(match self {
            Source::Dash(l) => {
                let doc = l.document();
                let bones = doc.skeleton.as_ref().map(bone_refs).unwrap_or_default();
                vec![Part {
                    input: PartInput::Owned(
                        Input::from_mesh(&doc.mesh, bones).map_err(|e| input_error(path, e))?,
                    ),
                    skeleton: doc.skeleton.as_ref(),
                }]
            }
            Source::Weights(i) => vec![Part {
                input: PartInput::Borrowed(i),
                skeleton: None,
            }],
            Source::Gltf(g) => {
                let prims =
                    dashvertex_reduce::gltf::inputs(g, limits).map_err(|e| input_error(path, e))?;
                if prims.is_empty() {
                    return Err(input_error(
                        path,
                        "no primitive has influences or per-bone weight attributes",
                    ));
                }
                for p in prims
                    .iter()
                    .filter(|p| p.skin.is_none() && p.from_attributes)
                {
                    let lost = p.bone_nodes.iter().filter(|n| n.is_none()).count();
                    if lost > 0 {
                        common::note(format_args!(
                            "mesh {} primitive {}: {lost} of {} per-bone attribute(s) name no node, so their bones are named after the attributes (upper case, as the exporter wrote them) and have no rest pose; export the armature with the mesh (in Blender: with Skinning, or its bones as nodes) to keep their names, parents and rest pose (spec/reduction.md R5.1, R5.4)",
                            p.mesh,
                            p.primitive,
                            p.bone_nodes.len()
                        ));
                    }
                }
                prims
                    .into_iter()
                    .map(|p| Part {
                        input: PartInput::Primitive(Box::new(p)),
                        skeleton: None,
                    })
                    .collect()
            }
        })
    }

    /// The skeleton the file describes (all bones, for `manifest init/update`).
    pub fn skeleton(&self, path: &Path, limits: &Limits) -> Result<Vec<BoneRef>, CliError> {
        let mut out: Vec<BoneRef> = Vec::new();
        let mut names = std::collections::HashSet::new();
        let mut add = |b: BoneRef, out: &mut Vec<BoneRef>| {
            if names.insert(b.name.clone()) {
                out.push(b);
            }
        };
        match self {
            Source::Gltf(g) => {
                for s in 0..g.root.skins.len() {
                    if let Some(sk) = dashvertex_gltf::import::skeleton(g, s) {
                        for b in bone_refs(&sk) {
                            add(b, &mut out);
                        }
                    }
                }
                // Per-bone attributes without a skin: their bones, matched to nodes.
                if g.root.skins.is_empty() {
                    let prims = dashvertex_gltf::import::primitives(g, limits)
                        .map_err(|e| input_error(path, e))?;
                    for sk in prims.iter().filter_map(|p| p.skeleton.as_ref()) {
                        for b in bone_refs(sk) {
                            add(b, &mut out);
                        }
                    }
                }
            }
            other => {
                for part in other.parts(path, limits)? {
                    for b in &part.input().bones {
                        add(b.clone(), &mut out);
                    }
                }
            }
        }
        if out.is_empty() || out.iter().all(|b| b.name.starts_with('#')) {
            return Err(input_error(
                path,
                "the file has no named bones (no skeleton)",
            ));
        }
        Ok(out)
    }
}

/// `dash reduce` options.
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
    /// `dash convert`: every influence is kept (the config says so); report what the
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

/// Reads a manifest; `None` when there is none yet. Unreadable: exit 2; corrupt (not
/// UTF-8, not a manifest, empty, more bones than --max-bones): exit 1.
pub(crate) fn read_manifest(path: &Path, limits: &Limits) -> Result<Option<Manifest>, CliError> {
    read_manifest_from(
        path,
        dashvertex_fs::read_input(path, Limits::default().max_input_bytes),
        limits,
    )
}

/// Reads the manifest a run updates under its lock: only a regular file (opened without
/// blocking, its type checked on the handle), so a FIFO in its place cannot hang the run
/// while it holds the lock.
fn read_manifest_to_update(path: &Path, limits: &Limits) -> Result<Option<Manifest>, CliError> {
    let max = Limits::default().max_input_bytes;
    let read = if path == Path::new("-") {
        dashvertex_fs::read_input(path, max)
    } else {
        dashvertex_fs::read_regular(path, max)
    };
    read_manifest_from(path, read, limits)
}

fn read_manifest_from(
    path: &Path,
    read: Result<Vec<u8>, dashvertex_fs::FsError>,
    limits: &Limits,
) -> Result<Option<Manifest>, CliError> {
    match read {
        Ok(bytes) => parse_manifest(path, &bytes, limits).map(Some),
        Err(dashvertex_fs::FsError::Io { source, .. })
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

/// Decodes and checks a manifest file's bytes (exit 1 when it is not one): an error is
/// located at its line and column with its JSON Pointer, and a manifest with more bones
/// than `limits.max_bones` is refused, as a skeleton with that many would be.
pub(crate) fn parse_manifest(
    path: &Path,
    bytes: &[u8],
    limits: &Limits,
) -> Result<Manifest, CliError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        input_error(
            path,
            format!("the manifest is not UTF-8 (byte {})", e.valid_up_to()),
        )
    })?;
    let m = Manifest::from_json_within(text, limits.max_bones).map_err(|e| match e {
        ManifestError::TooManyBones { limit } => input_error(
            path,
            format!(
                "the manifest has more than {limit} bones, the most a skeleton may have (--max-bones); keep one manifest per rig, or raise --max-bones"
            ),
        ),
        e => match e.pointer() {
            Some(ptr) => {
                let (line, column) = dashvertex_json::pointer::Locator::new(text)
                    .line_col(&ptr)
                    .unwrap_or((1, 1));
                input_error(path, format!("{line}:{column}: {e} (at {ptr})"))
            }
            None => input_error(path, e),
        },
    })?;
    Ok(m)
}

/// Takes the manifest's lock (held from its read to its rename).
fn lock(path: &Path, wait: bool) -> Result<dashvertex_fs::FileLock, CliError> {
    dashvertex_fs::FileLock::acquire(path, wait).map_err(CliError::from)
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

/// Runs `dash reduce`.
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

/// Runs `dash reduce` on a source already read from `a.input` (`dash convert` reads
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
        let json = report_json(a, chosen_k, &reports, loss.as_deref());
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

/// Where a glTF output keeps its buffers: embedded with `--embed` or on standard output
/// (which has no folder to write buffer files into), else beside it as `STEM.bin`.
pub(crate) fn buffer_files(output: &Path, embed: bool) -> dashvertex_gltf::export::BufferFiles {
    if embed || output == Path::new("-") {
        dashvertex_gltf::export::BufferFiles::Embed
    } else {
        dashvertex_gltf::export::BufferFiles::Beside {
            stem: output
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "out".into()),
        }
    }
}

/// The folder a `.gltf` output's buffer files go in: the folder of the file the output
/// finally names (a symlink is followed), so the `.bin` lands beside the real `.gltf`.
pub(crate) fn output_folder(output: &Path) -> PathBuf {
    let real = dashvertex_fs::follow_links(output).unwrap_or_else(|_| output.to_path_buf());
    real.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// The buffer files of an output, where they will be written.
fn beside(output: &Path, files: &[(String, Vec<u8>)]) -> Vec<PathBuf> {
    let folder = output_folder(output);
    files.iter().map(|(name, _)| folder.join(name)).collect()
}

/// Refuses, once the buffer files of an output are named, any output (`outputs`, and the
/// buffer files `files` puts beside `output`) that is the same file as something the run
/// read (`inputs`, and the input's own buffer files `read_buffers`): spec/security.md W3.
pub(crate) fn refuse_written_aliases(
    output: &Path,
    files: &[(String, Vec<u8>)],
    outputs: &[dashvertex_fs::Named<'_>],
    inputs: &[dashvertex_fs::Named<'_>],
    read_buffers: &[PathBuf],
) -> Result<(), CliError> {
    let written_files = beside(output, files);
    let mut read: Vec<dashvertex_fs::Named> = inputs.to_vec();
    read.extend(
        read_buffers
            .iter()
            .map(|b| ("a buffer file of the input", b.as_path())),
    );
    let mut written: Vec<dashvertex_fs::Named> = outputs.to_vec();
    written.extend(
        written_files
            .iter()
            .map(|b| ("a buffer file of -o", b.as_path())),
    );
    refuse_aliases(&written, &read)
}

/// The first buffer file a `.gltf` output (`to`, or told by its name) writes, if it
/// writes any (`STEM.bin`; the others, `STEM_N.bin`, are checked once they are named).
pub(crate) fn first_buffer_file(output: &Path, to: Option<Format>, embed: bool) -> Option<PathBuf> {
    let gltf = to.or_else(|| Format::from_extension(output)) == Some(Format::Gltf);
    match buffer_files(output, embed) {
        dashvertex_gltf::export::BufferFiles::Beside { stem } if gltf => {
            Some(output_folder(output).join(format!("{stem}.bin")))
        }
        _ => None,
    }
}

/// The external buffer files a glTF read from `input` names (percent-decoded, in its
/// folder), for the check that no output overwrites one.
pub(crate) fn external_buffers(gltf: &Gltf, input: &Path) -> Vec<PathBuf> {
    if input == Path::new("-") {
        return Vec::new();
    }
    let folder = input
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    gltf.root
        .buffers
        .iter()
        .filter_map(|b| b.uri.as_deref())
        .filter(|u| !u.starts_with("data:"))
        .map(|u| folder.join(dashvertex_gltf::percent_decode(u)))
        .collect()
}

/// Refuses (exit 2, naming both) an output that names an input or another output,
/// however spelled (symlinks, `./`, hard links).
pub(crate) fn refuse_aliases(
    outputs: &[dashvertex_fs::Named],
    inputs: &[dashvertex_fs::Named],
) -> Result<(), CliError> {
    dashvertex_fs::refuse_aliases(outputs, inputs).map_err(|e| CliError::Usage(e.to_string()))
}

/// An unchanged glTF document on its way to `output`.
pub struct Unchanged {
    /// What to write.
    pub written: dashvertex_gltf::export::Written,
    /// True when `written.main` is the input's own bytes.
    pub copied: bool,
    /// For a copy: the external buffer files it names, already beside the output (for a
    /// check of the output; not to be written again).
    pub present: Vec<(String, Vec<u8>)>,
}

/// How a command that changed nothing writes `gltf` (read from `input`) to `output`: the
/// input's bytes, when they stay valid where they go (the same container, no byte order
/// mark, and a `.gltf` naming buffer files only into the same folder, however it is
/// spelled); else the same document rewritten into the output's container with `files`.
pub fn unchanged_gltf(
    gltf: Gltf,
    input: &Path,
    output: &Path,
    container: Container,
    files: &dashvertex_gltf::export::BufferFiles,
) -> Result<Unchanged, CliError> {
    // A view outside its buffer is refused as the rewrite refuses it (spec/security.md
    // [L3]): a copy would pass the broken file on.
    if let Some(e) = gltf.view_range_errors().next() {
        return Err(input_error(input, e));
    }
    let dir = |p: &Path| {
        let d = p.parent().filter(|d| !d.as_os_str().is_empty());
        std::fs::canonicalize(d.unwrap_or(Path::new(".")))
    };
    // The output's folder is that of the file it finally names (through a symlink).
    let same_folder = output != Path::new("-")
        && matches!(
            (dir(input), std::fs::canonicalize(output_folder(output))),
            (Ok(x), Ok(y)) if x == y
        );
    let present: Vec<(String, Vec<u8>)> = gltf
        .root
        .buffers
        .iter()
        .enumerate()
        .filter_map(|(i, b)| {
            let uri = b.uri.as_deref().filter(|u| !u.starts_with("data:"))?;
            let bytes = gltf.buffer(i)?.ok()?;
            Some((uri.to_owned(), bytes.to_vec()))
        })
        .collect();
    let external = gltf
        .root
        .buffers
        .iter()
        .any(|b| b.uri.as_deref().is_some_and(|u| !u.starts_with("data:")));
    if gltf.container == container && !gltf.byte_order_mark && (!external || same_folder) {
        let main = gltf.into_input().ok_or_else(|| {
            CliError::Output("the input's bytes were not kept for the copy".into())
        })?;
        return Ok(Unchanged {
            written: dashvertex_gltf::export::Written {
                main,
                files: Vec::new(),
            },
            copied: true,
            present,
        });
    }
    let written = dashvertex_gltf::export::Editor::new(&gltf)
        .and_then(|e| e.finish_files(container, files))
        .map_err(|e| input_error(input, e))?;
    Ok(Unchanged {
        written,
        copied: false,
        present: Vec::new(),
    })
}

/// Writes an output and the buffer files beside it together: all replaced, or none
/// (`dashvertex_fs::Batch`; special files such as `/dev/null` are written, never
/// replaced).
pub(crate) fn write_output(
    output: &Path,
    main: &[u8],
    files: &[(String, Vec<u8>)],
) -> Result<(), CliError> {
    let mut batch = dashvertex_fs::Batch::new();
    stage_output(&mut batch, output, main, files)?;
    batch.commit().map_err(nothing_written)
}

/// A failure of a [`dashvertex_fs::Batch`]: no file of it was replaced, and the message
/// says so.
pub(crate) fn nothing_written(e: dashvertex_fs::FsError) -> CliError {
    match CliError::from(e) {
        CliError::Io(m) => CliError::Io(format!("{m}; nothing was written")),
        other => other,
    }
}

/// Adds an output and its buffer files (in the folder of the file the output finally
/// names) to `batch`: the buffer files first, so the main file is renamed last.
pub(crate) fn stage_output<'a>(
    batch: &mut dashvertex_fs::Batch<'a>,
    output: &Path,
    main: &'a [u8],
    files: &'a [(String, Vec<u8>)],
) -> Result<(), CliError> {
    let folder = output_folder(output);
    for (name, data) in files {
        batch
            .add(&folder.join(name), data)
            .map_err(nothing_written)?;
    }
    batch.add(output, main).map_err(nothing_written)
}

/// How far the reduction moves each skinned primitive of `source`: the written output is
/// read back from memory (its buffer files with it) and both are skinned at the moments
/// of spec/reduction.md §4. Non-finite data is refused as a fault of `input`.
fn loss_of(
    input: &Path,
    source: &Gltf,
    written: &dashvertex_gltf::export::Written,
    anims: &[dashvertex_skin::Animation],
    limits: &Limits,
) -> Result<Vec<dashvertex_skin::PrimitiveLoss>, CliError> {
    let files = dashvertex_gltf::MemoryFiles {
        files: written
            .files
            .iter()
            .map(|(n, b)| (n.as_str(), b.as_slice()))
            .collect(),
    };
    let reduced = dashvertex_gltf::load(&written.main, &files, limits).map_err(|e| {
        CliError::Output(format!("the loss report cannot read the output back: {e}"))
    })?;
    dashvertex_skin::loss_with(source, &reduced, anims, limits).map_err(|e| match e {
        e @ (dashvertex_skin::SkinError::NonFiniteInverseBind { .. }
        | dashvertex_skin::SkinError::NonFinitePosition { .. }
        | dashvertex_skin::SkinError::NonFiniteSkinning { .. }) => input_error(input, e),
        e => CliError::Output(format!("the loss report cannot skin the model: {e}")),
    })
}

/// When the work budget cut the moments measured (spec/reduction.md §4), what was
/// measured, in words.
fn sampled(loss: &[dashvertex_skin::PrimitiveLoss]) -> Option<String> {
    let p = loss.iter().find(|p| p.moments < p.moments_full)?;
    Some(format!(
        "measured at {} of the {} moments the sampling rule takes (the rest pose, every keyframe and {} between each): the work budget, {} units per byte of the input, cuts the rest (spec/reduction.md \u{a7}4)",
        p.moments,
        p.moments_full,
        dashvertex_skin::INTERIOR_SAMPLES,
        dashvertex_skin::WORK_PER_BYTE
    ))
}

/// The largest displacement as a share of the bounding-box diagonal; `None` when the
/// diagonal is 0 (every vertex at one place): the share is undefined.
fn share_of_diagonal(p: &dashvertex_skin::PrimitiveLoss) -> Option<f64> {
    (p.diagonal > 0.0).then(|| p.max / p.diagonal)
}

/// The animations the loss is measured over: the model's own, or `--poses`' moved onto
/// the model's nodes by name.
fn poses_for(
    input: &Path,
    model: &Gltf,
    poses: Option<&Path>,
    ctx: &Context,
) -> Result<Vec<dashvertex_skin::Animation>, CliError> {
    let limits = &ctx.limits;
    let skin_err = |file: &Path, e: dashvertex_skin::SkinError| input_error(file, e);
    match poses {
        None => dashvertex_skin::animations(model, limits).map_err(|e| skin_err(input, e)),
        Some(path) => {
            must_exist(path)?;
            let other = dashvertex_gltf::load_path_in(path, ctx.resource_dirs, limits)
                .map_err(|e| input_error(path, e))?;
            let anims =
                dashvertex_skin::animations(&other, limits).map_err(|e| skin_err(path, e))?;
            if anims.is_empty() {
                return Err(input_error(path, "the pose file has no animation"));
            }
            dashvertex_skin::retarget(&anims, &other, model).map_err(|e| skin_err(path, e))
        }
    }
}

/// The largest displacement over every primitive.
fn largest(loss: &[dashvertex_skin::PrimitiveLoss]) -> f64 {
    loss.iter().map(|p| p.max).fold(0.0, f64::max)
}

/// Why `--max-error` cannot be met: the vertices that move most with every influence
/// `--max-influences` allows, and when.
fn over_budget(budget: f64, kmax: usize, loss: &[dashvertex_skin::PrimitiveLoss]) -> String {
    let mut worst: Vec<String> = Vec::new();
    for p in loss {
        for w in p.worst.iter().filter(|w| w.displacement > budget) {
            let when = match (w.at.animation, &w.at.name) {
                (None, _) => "at the rest pose".to_owned(),
                (Some(i), Some(n)) => format!("in animation {i} ({n:?}) at t={:.3} s", w.at.time),
                (Some(i), None) => format!("in animation {i} at t={:.3} s", w.at.time),
            };
            worst.push(format!(
                "mesh {} primitive {} vertex {} moves {:.6} {when}",
                p.mesh, p.primitive, w.vertex, w.displacement
            ));
        }
    }
    format!(
        "nothing written: with {kmax} influence(s) per vertex (--max-influences) vertices still move more than --max-error {budget}: {}; allow more influences or a larger error",
        worst.join("; ")
    )
}

/// The `--report` document: the reducer's weight figures per part and, for glTF, the
/// displacement per primitive.
fn report_json(
    a: &ReduceArgs,
    k: usize,
    reports: &[(dashvertex_reduce::Report, usize)],
    loss: Option<&[dashvertex_skin::PrimitiveLoss]>,
) -> serde_json::Value {
    use serde_json::json;
    let dropped = |d: &Option<dashvertex_reduce::Dropped>| {
        d.as_ref()
            .map(|d| json!({"vertex": d.vertex, "bone": d.bone, "weight": d.weight, "at": d.at}))
    };
    let weights: Vec<_> = reports
        .iter()
        .map(|(r, sets)| {
            json!({
                "vertices": r.vertices, "sets": sets, "changed": r.changed,
                "droppedOverLimit": r.dropped, "belowThreshold": r.below_threshold,
                "roundedAway": r.quantized_away, "merged": r.merged, "negative": r.negative,
                "largestDropped": dropped(&r.largest_dropped),
            })
        })
        .collect();
    let displacement = loss.map(|l| {
        let prims: Vec<_> = l
            .iter()
            .map(|p| {
                json!({
                    "mesh": p.mesh, "primitive": p.primitive, "vertices": p.vertices,
                    "moments": p.moments, "momentsFull": p.moments_full,
                    "keyframeMoments": p.keyframe_moments,
                    "max": p.max, "maxAtKeyframes": p.max_at_keyframes,
                    "p99": p.p99, "mean": p.mean,
                    "diagonal": p.diagonal,
                    "maxOfDiagonal": share_of_diagonal(p),
                    "worst": p.worst.iter().map(|w| json!({
                        "vertex": w.vertex, "displacement": w.displacement,
                        "animation": w.at.animation, "name": w.at.name, "time": w.at.time,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        json!({"primitives": prims})
    });
    json!({
        "input": a.input.display().to_string(),
        "output": a.output.display().to_string(),
        "maxInfluences": k,
        "weights": weights,
        "displacement": displacement,
        "note": if loss.is_none() {
            Some("displacement needs glTF input and output (a skin, its joints and animations); weights only".to_owned())
        } else if loss.is_some_and(|l| l.is_empty()) {
            Some("no reduced primitive has a skin: displacement cannot be measured; weights only".to_owned())
        } else if loss.is_some_and(|l| l.iter().all(|p| p.moments_full <= 1)) {
            Some("no animations: displacement at the rest pose only".to_owned())
        } else {
            loss.and_then(sampled)
        },
    })
}

/// The terminal's summary of the loss report, one line per primitive.
fn loss_lines(loss: Option<&[dashvertex_skin::PrimitiveLoss]>) -> Vec<String> {
    let Some(loss) = loss else {
        return vec!["loss: weights only (displacement needs glTF input and output)".to_owned()];
    };
    loss.iter()
        .map(|p| {
            let share = match share_of_diagonal(p) {
                Some(s) => format!("{:.3}% of the bounding-box diagonal", 100.0 * s),
                None => "the bounding-box diagonal is 0: every vertex is at one place, so no share of it is defined".to_owned(),
            };
            let when = if p.moments_full <= 1 {
                "at the rest pose (no animations)".to_owned()
            } else if p.moments < p.moments_full {
                format!(
                    "over {} of the {} moments of the rest pose, every keyframe and {} between each (the work budget cut the rest)",
                    p.moments,
                    p.moments_full,
                    dashvertex_skin::INTERIOR_SAMPLES
                )
            } else if p.moments > p.keyframe_moments {
                format!(
                    "over {} moments (the rest pose, every keyframe and {} between each; {:.6} at the keyframes)",
                    p.moments,
                    dashvertex_skin::INTERIOR_SAMPLES,
                    p.max_at_keyframes
                )
            } else {
                format!("over {} moments (the rest pose and every keyframe)", p.moments)
            };
            let worst = p.worst.first().map_or(String::new(), |w| {
                format!(
                    "; worst vertex {} at {}",
                    w.vertex,
                    match (&w.at.animation, &w.at.name) {
                        (None, _) => "the rest pose".to_owned(),
                        (Some(i), Some(n)) => format!("animation {i} ({n:?}) t={:.3} s", w.at.time),
                        (Some(i), None) => format!("animation {i} t={:.3} s", w.at.time),
                    }
                )
            });
            format!(
                "loss, mesh {} primitive {}: max {:.6} ({share}), p99 {:.6}, mean {:.6} {when}{worst}",
                p.mesh, p.primitive, p.max, p.p99, p.mean
            )
        })
        .collect()
}

/// Runs the validator over an output before it is written: `dash reduce` writes only
/// what `dash-validate` accepts (spec/reduction.md), and refuses otherwise, naming the
/// first error and where it is in the output.
///
/// The bytes are handed over and given back, so that a GLB output is checked in place.
pub fn verify(
    output: &Path,
    format: dashvertex_formats::Format,
    bytes: Vec<u8>,
    files: &[(String, Vec<u8>)],
    limits: &Limits,
    profile: Option<dashvertex_validate::Profile>,
    target: Option<&'static dashvertex_core::Target>,
) -> Result<Vec<u8>, CliError> {
    verify_for(output, format, bytes, files, limits, profile, target, None)
}

/// What a DashVertex output was made from, so that a refusal names things as the user
/// knows them: bones by name, vertices in the input file (the reducer keeps the vertex
/// order), and no place in a file that was never written.
pub struct Subject<'a> {
    /// The user's input file.
    pub input: &'a Path,
    /// The output's bone names and their parents' names, by index (manifest order).
    pub bones: Vec<(String, Option<String>)>,
}

impl Subject<'_> {
    /// Where a diagnostic of the unwritten output is, in the user's terms.
    fn place(&self, l: &dashvertex_validate::Location) -> String {
        let mut parts = Vec::new();
        if let Some(b) = l.bone {
            match usize::try_from(b).ok().and_then(|i| self.bones.get(i)) {
                Some((name, _)) => parts.push(format!(
                    "bone {} (index {b})",
                    dashvertex_core::text::short(name)
                )),
                None => parts.push(format!("bone index {b}")),
            }
        }
        if let Some(v) = l.vertex {
            parts.push(format!("vertex {v} of {}", self.input.display()));
        }
        if parts.is_empty() {
            parts.push(format!("from {}", self.input.display()));
        }
        parts.join(", ")
    }
}

impl Subject<'_> {
    /// What to do about a diagnostic of the unwritten output, when the validator's own
    /// help does not fit a reduction (the manifest, not the user, chose the bone order).
    fn help(&self, d: &dashvertex_validate::Diagnostic) -> Option<String> {
        if d.code != dashvertex_validate::Code::BONE_PARENT_ORDER {
            return None;
        }
        let i = usize::try_from(d.location.bone?).ok()?;
        let (name, parent) = self.bones.get(i)?;
        Some(format!(
            "the manifest numbers {} (index {i}) before its parent {}, and DashVertex lists \
             parents first: write .gltf/.glb instead, or number the bones with a new manifest \
             (`dash manifest init`), which puts parents first",
            dashvertex_core::text::short(name),
            parent
                .as_deref()
                .map_or("(unknown)".to_owned(), dashvertex_core::text::short)
        ))
    }
}

/// [`verify`], naming what a refusal is about as `subject` says.
#[allow(clippy::too_many_arguments)]
pub fn verify_for(
    output: &Path,
    format: dashvertex_formats::Format,
    bytes: Vec<u8>,
    files: &[(String, Vec<u8>)],
    limits: &Limits,
    profile: Option<dashvertex_validate::Profile>,
    target: Option<&'static dashvertex_core::Target>,
    subject: Option<&Subject<'_>>,
) -> Result<Vec<u8>, CliError> {
    let opts = dashvertex_validate::Options {
        format: Some(format),
        limits: *limits,
        profile,
        target,
        max_diagnostics: 1000,
        ..dashvertex_validate::Options::default()
    };
    let resolver = dashvertex_gltf::MemoryFiles {
        files: files
            .iter()
            .map(|(n, b)| (n.as_str(), b.as_slice()))
            .collect(),
    };
    let (report, back) =
        dashvertex_validate::validate_owned(&output.display().to_string(), bytes, &resolver, &opts);
    if report.counts.errors == 0
        && let Some(bytes) = back
    {
        return Ok(bytes);
    }
    let first = report
        .diagnostics
        .iter()
        .find(|d| d.severity == dashvertex_validate::Severity::Error)
        .map(|d| {
            let help = subject
                .and_then(|s| s.help(d))
                .or_else(|| d.help.clone())
                .map_or(String::new(), |h| format!("; {h}"));
            let at = subject.map_or_else(|| d.location.to_string(), |s| s.place(&d.location));
            format!("{}: {} ({at}){help}", d.code.as_str(), d.message)
        })
        .unwrap_or_default();
    if report.counts.errors == 0 {
        // Valid, but the checker could not give the bytes back (cannot happen for what
        // reduce writes: no byte order mark, and a load that failed is an error).
        return Err(CliError::Output(
            "nothing written: the output could not be checked".into(),
        ));
    }
    Err(CliError::Output(format!(
        "nothing written: the output would not be valid ({} error(s)); first: {first}",
        report.counts.errors
    )))
}

/// `dash manifest init`.
pub fn manifest_init(from: &Path, out: &Path, force: bool, ctx: &Context) -> Result<(), CliError> {
    refuse_aliases(&[("-o", out)], &[("the input", from)])?;
    let _lock = lock(out, ctx.wait)?;
    if out.exists() && !force {
        return Err(CliError::Usage(format!(
            "{} exists; use `dash manifest update`, or --force to replace it",
            out.display()
        )));
    }
    let skeleton = load(from, ctx)?.skeleton(from, &ctx.limits)?;
    let m = Manifest::init(&skeleton).map_err(|e| input_error(from, e))?;
    dashvertex_fs::write_file(out, m.to_json().as_bytes())?;
    let added: Vec<(String, u32)> = m
        .bones
        .iter()
        .filter(|e| e.name == dashvertex_manifest::BLENDER_NEUTRAL_BONE)
        .map(|e| (e.name.clone(), e.index))
        .collect();
    common::warn_neutral_bone(&added);
    common::info(format_args!("{}: {} bones", out.display(), m.len()));
    Ok(())
}

/// `dash manifest update`.
pub fn manifest_update(
    manifest_path: &Path,
    from: Option<&Path>,
    renames: &[(String, String)],
    partial: bool,
    compact: bool,
    locked_flag: bool,
    ctx: &Context,
) -> Result<(), CliError> {
    if let Some(from) = from {
        refuse_aliases(&[("the manifest", manifest_path)], &[("--from", from)])?;
    }
    let _lock = if locked_flag {
        None
    } else {
        Some(lock(manifest_path, ctx.wait)?)
    };
    let read = if locked_flag {
        read_manifest(manifest_path, &ctx.limits)?
    } else {
        read_manifest_to_update(manifest_path, &ctx.limits)?
    };
    let original =
        read.ok_or_else(|| CliError::Io(format!("{}: no such manifest", manifest_path.display())))?;
    let mut m = original.clone();
    let mut changes = m
        .rename(renames)
        .map_err(|e| input_error(manifest_path, e))?;
    if let Some(from) = from {
        let skeleton = load(from, ctx)?.skeleton(from, &ctx.limits)?;
        let c = m
            .update(&skeleton, !partial)
            .map_err(|e| input_error(from, e))?;
        changes.added.extend(c.added);
        changes.removed.extend(c.removed);
        changes.revived.extend(c.revived);
        changes.reparented.extend(c.reparented);
    }
    let moved = if compact { m.compact() } else { Vec::new() };
    if locked_flag && (!changes.is_empty() || !moved.is_empty()) {
        let mut why = changes.describe();
        why.extend(
            moved
                .iter()
                .map(|(n, a, b)| format!("move bone {n:?} from {a} to {b}")),
        );
        return Err(CliError::Output(ManifestError::Locked(why).to_string()));
    }
    if !locked_flag {
        common::warn_neutral_bone(&changes.added);
    }
    for line in changes.describe() {
        println!("{line}");
    }
    if !moved.is_empty() {
        println!("compacted; old -> new indices:");
        for (n, a, b) in &moved {
            println!("  {a:>5} -> {b:<5} {n}");
        }
    }
    if m != original {
        dashvertex_fs::write_file(manifest_path, m.to_json().as_bytes())?;
    } else {
        println!("no change");
    }
    Ok(())
}

/// A manifest file, or the numbering `manifest init` would give a file's skeleton.
fn numbering(path: &Path, ctx: &Context) -> Result<Manifest, CliError> {
    let bytes = dashvertex_fs::read_input(path, ctx.limits.max_input_bytes)?;
    let text = std::str::from_utf8(&bytes).ok();
    let looks_like_manifest = text.is_some_and(|t| {
        serde_json::from_str::<serde_json::Value>(t).is_ok_and(|v| {
            v.get("version").is_some() && v.get("bones").is_some_and(|b| b.is_array())
        })
    });
    if looks_like_manifest {
        return parse_manifest(path, &bytes, &ctx.limits);
    }
    let skeleton = load(path, ctx)?.skeleton(path, &ctx.limits)?;
    Manifest::init(&skeleton).map_err(|e| input_error(path, e))
}

/// `dash manifest diff`: one line per difference between A's and B's numbering
/// ([`Manifest::diff`]: a bone followed by name and alias, so a rename is one line).
pub fn manifest_diff(a: &Path, b: &Path, ctx: &Context) -> Result<Vec<String>, CliError> {
    let (ma, mb) = (numbering(a, ctx)?, numbering(b, ctx)?);
    Ok(ma.diff(&mb).iter().map(ToString::to_string).collect())
}

/// `dash manifest show`.
pub fn manifest_show(path: &Path, limits: &Limits) -> Result<String, CliError> {
    let m = read_manifest(path, limits)?
        .ok_or_else(|| CliError::Io(format!("{}: no such manifest", path.display())))?;
    let label = if path == Path::new("-") {
        "<stdin>".to_owned()
    } else {
        path.display().to_string()
    };
    let mut out = format!(
        "{label}: {} indices ({} live, {} retired)\n",
        m.len(),
        m.bones.iter().filter(|e| !e.removed).count(),
        m.bones.iter().filter(|e| e.removed).count()
    );
    for e in &m.bones {
        let line = format!(
            "{:>5}  {:<32} {:<24}{}{}",
            e.index,
            e.name,
            e.parent
                .as_deref()
                .map_or("(root)".to_owned(), |p| format!("parent {p}")),
            if e.removed { "  retired" } else { "" },
            if e.aliases.is_empty() {
                String::new()
            } else {
                format!("  formerly {}", e.aliases.join(", "))
            }
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    Ok(out)
}
