//! The input layer every writing command shares: a file read by bytes or path (glTF
//! with its resources, told by name or bytes), its format, and the reducer inputs it holds.

use std::path::{Path, PathBuf};

use dashvertex_core::{Limits, Skeleton};
use dashvertex_gltf::{Container, Gltf};
use dashvertex_reduce::gltf::PrimitiveInput;
use dashvertex_reduce::input::{Input, bone_refs};
use dashvertex_reduce::manifest::BoneRef;

use crate::error::{AppError, input_cause, input_error};
use crate::formats::{self, Format, Loaded};
use crate::words::{Job, Level, Log, Opt, Wording};

/// A reducer input file, loaded.
pub enum Source {
    /// DashVertex (JSON, DMX or raw).
    Dash(Loaded),
    /// A per-bone weights document.
    Weights(Input<'static>),
    /// glTF: its reducer inputs read its buffers in place (`Source::parts`, crate-private).
    Gltf(Box<Gltf>),
}

/// One reducer input of a source, with the skeleton it came with.
pub(crate) struct Part<'s> {
    pub(crate) input: PartInput<'s>,
    pub(crate) skeleton: Option<&'s Skeleton>,
}

/// Where a part's input lives.
pub(crate) enum PartInput<'s> {
    /// Built from the source (a DashVertex mesh's sets).
    Owned(Input<'s>),
    /// The source's own (a weights document).
    Borrowed(&'s Input<'s>),
    /// A glTF primitive, its influences read in place.
    Primitive(Box<PrimitiveInput<'s>>),
}

impl<'s> Part<'s> {
    pub(crate) fn input(&self) -> &Input<'s> {
        match &self.input {
            PartInput::Owned(i) => i,
            PartInput::Borrowed(i) => i,
            PartInput::Primitive(p) => &p.input,
        }
    }

    /// The bones with their rest transforms: the DashVertex file's, or a glTF
    /// primitive's (its skin's joints, or its per-bone attributes' nodes).
    pub(crate) fn skeleton(&self) -> Option<&Skeleton> {
        self.skeleton
            .or_else(|| self.primitive().and_then(|p| p.skeleton.as_ref()))
    }

    pub(crate) fn primitive(&self) -> Option<&PrimitiveInput<'s>> {
        match &self.input {
            PartInput::Primitive(p) => Some(p),
            _ => None,
        }
    }

    pub(crate) fn into_primitive(self) -> Option<PrimitiveInput<'s>> {
        match self.input {
            PartInput::Primitive(p) => Some(*p),
            _ => None,
        }
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

/// What every job that reads inputs and manifests shares: limits, where resources may
/// come from, and how it speaks to its user.
pub struct Context<'a> {
    /// Decoder limits.
    pub limits: Limits,
    /// Folders glTF resources may also resolve into.
    pub resource_dirs: &'a [PathBuf],
    /// Wait for a manifest lock another run holds (else fail at once).
    pub wait: bool,
    /// How messages name options and jobs.
    pub words: &'a dyn Wording,
    /// Where the job's notes, warnings and progress go.
    pub log: &'a dyn Log,
}

impl Context<'_> {
    /// How the user sets `opt`.
    pub fn opt(&self, opt: Opt) -> String {
        self.words.option(opt)
    }

    /// How the user runs `job`.
    pub fn job(&self, job: Job) -> String {
        self.words.job(job)
    }

    /// A note: something the user may not expect.
    pub fn note(&self, message: impl std::fmt::Display) {
        self.log.log(Level::Note, &message);
    }

    /// What the job did.
    pub fn info(&self, message: impl std::fmt::Display) {
        self.log.log(Level::Info, &message);
    }

    /// More of what it did, for a verbose run.
    pub fn detail(&self, message: impl std::fmt::Display) {
        self.log.log(Level::Detail, &message);
    }

    /// Something the user should act on; the job went on.
    pub fn warning(&self, message: impl std::fmt::Display) {
        self.log.log(Level::Warning, &message);
    }
}

/// Opens the bytes of a file named `name` (for messages, and for its extension, which
/// tells glTF from DashVertex when the bytes do not): FBX, told by its bytes, as the glTF
/// it converts to (spec/fbx.md §2); glTF with the files it references read through
/// `resolver` (which decides what may be read: [`dashvertex_gltf::NoFiles`] for none),
/// its document checked for the job's `work` ([`check_gltf_for`]); anything else as
/// bytes, for the caller to decode. This is every job's input, whatever reads the file.
pub fn open(
    name: &Path,
    bytes: Vec<u8>,
    resolver: &dyn dashvertex_gltf::Resolver,
    ctx: &Context,
    work: dashvertex_validate::Work,
) -> Result<Opened, AppError> {
    if Format::signature(&bytes) == Some(Format::Fbx) {
        let mut gltf = fbx_as_gltf(name, &bytes, ctx)?;
        check_gltf_for(name, &mut gltf, ctx, work)?;
        return Ok(Opened::Gltf(Box::new(gltf)));
    }
    if is_gltf_input(name, &bytes) {
        let mut gltf = dashvertex_gltf::load_owned(bytes, resolver, &ctx.limits)
            .map_err(|e| input_cause(name, e))?;
        check_gltf_for(name, &mut gltf, ctx, work)?;
        return Ok(Opened::Gltf(Box::new(gltf)));
    }
    Ok(Opened::Bytes(bytes))
}

/// Whether [`open`] reads the bytes of a file named `name` as glTF (and so resolves the
/// files it references): content before name, a file named .gltf/.glb is glTF unless its
/// text says it is DashVertex JSON, and any file whose bytes say glTF is. FBX is told by
/// its bytes first.
pub fn is_gltf_input(name: &Path, bytes: &[u8]) -> bool {
    if Format::signature(bytes) == Some(Format::Fbx) {
        return false;
    }
    let named = Format::from_extension(name).is_some_and(Format::is_gltf)
        && Format::text_kind(bytes) != Some(Format::Json);
    named || Format::is_gltf_bytes(bytes)
}

/// A reducer input from the bytes of a file named `name`, as [`open`] reads them: glTF
/// (or FBX as glTF), DashVertex, or a per-bone weights document.
pub fn open_source(
    name: &Path,
    bytes: Vec<u8>,
    resolver: &dyn dashvertex_gltf::Resolver,
    ctx: &Context,
    work: dashvertex_validate::Work,
) -> Result<Source, AppError> {
    match open(name, bytes, resolver, ctx, work)? {
        Opened::Gltf(g) => Ok(Source::Gltf(g)),
        Opened::Bytes(bytes) => source_of_bytes(name, &bytes, None, ctx),
    }
}

/// A file as first read: glTF (told by its name, else by its bytes), loaded with its
/// buffers; or the bytes of anything else, for the caller to decode.
pub enum Opened {
    /// glTF or GLB.
    Gltf(Box<Gltf>),
    /// Any other file's bytes.
    Bytes(Vec<u8>),
}

/// A reducer input from the bytes of a file that is not glTF: a per-bone weights
/// document, or DashVertex as `from` (default: told by [`formats::decide`]).
pub fn source_of_bytes(
    path: &Path,
    bytes: &[u8],
    from: Option<Format>,
    ctx: &Context,
) -> Result<Source, AppError> {
    let limits = &ctx.limits;
    let format = from.unwrap_or_else(|| formats::decide(path, bytes, ctx.log));
    if format == Format::Json {
        let text = std::str::from_utf8(bytes).map_err(|e| input_cause(path, e))?;
        match dashvertex_reduce::weights_doc::document_type(text).as_deref() {
            Some(dashvertex_reduce::weights_doc::WEIGHTS_TYPE) => {
                return dashvertex_reduce::weights_doc::parse(text, limits.max_vertices)
                    .map(Source::Weights)
                    .map_err(|e| input_cause(path, e));
            }
            Some(t) if t != dashvertex_json::DOCUMENT_TYPE => {
                let (line, column) = dashvertex_json::pointer::Locator::new(text)
                    .line_col("/type")
                    .unwrap_or((1, 1));
                return Err(input_error(
                    path,
                    format!(
                        "{line}:{column}: type is {}; {} reads a DashVertex document \
                         ({:?}) or a per-bone weights document ({:?}) (at /type)",
                        dashvertex_core::text::short(t),
                        ctx.job(Job::Reduce),
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
        ctx,
    )?))
}

/// Refuses a glTF input whose document the validator finds broken for the job's `work`
/// (its buffers, buffer views, accessors, hierarchy, skins, and for a job that skins it
/// its transforms and animations: [`dashvertex_validate::verdict`]), so that no job reads
/// garbage from it: the first error with its code, the official validator's code, where
/// it is and what to do; the influences of each vertex are the jobs' own business (reduce
/// and fix repair them). The errors outside what the job reads do not refuse the file; they are counted into
/// [`Gltf::carried_errors`], for the output check to let through, and a warning says
/// what is carried.
pub fn check_gltf_for(
    path: &Path,
    gltf: &mut Gltf,
    ctx: &Context,
    work: dashvertex_validate::Work,
) -> Result<(), AppError> {
    let verdict = dashvertex_validate::verdict(gltf, &ctx.limits, work);
    if let Some(r) = verdict.refusal {
        return Err(crate::check::refused(path, r, ctx.words));
    }
    if !verdict.carried.is_empty() {
        let total: u64 = verdict.carried.values().sum();
        let list: Vec<String> = verdict
            .carried
            .iter()
            .map(|(c, n)| format!("{} ×{n}", c.as_str()))
            .collect();
        ctx.warning(format_args!(
            "{}: {total} error(s) outside what this command reads ({}): carried into the output as they are, unless repaired; `{} {}` lists them, and `{}` repairs some",
            path.display(),
            list.join(", "),
            ctx.job(Job::Validate),
            path.display(),
            ctx.job(Job::Fix)
        ));
    }
    gltf.carried_errors = verdict
        .carried
        .into_iter()
        .map(|(c, n)| (c.as_str().to_owned(), n))
        .collect();
    Ok(())
}

/// FBX bytes read from `path` as the skinned GLB `dashvertex-fbx` converts them to
/// (spec/fbx.md §2): a note says how (units, axes, what changed); the GLB has no folder, so
/// nothing outside it is read.
fn fbx_as_gltf(path: &Path, bytes: &[u8], ctx: &Context) -> Result<Gltf, AppError> {
    use dashvertex_formats::fbx;
    let scene = fbx::load(bytes, &ctx.limits).map_err(|e| input_cause(path, e))?;
    let converted = fbx::to_glb(&scene).map_err(|e| input_cause(path, e))?;
    ctx.note(format_args!(
        "{}: read as glTF: {}",
        path.display(),
        converted.notes.join("; ")
    ));
    dashvertex_gltf::load_owned(converted.glb, &dashvertex_gltf::NoFiles, &ctx.limits)
        .map_err(|e| input_error(path, e))
}

#[cfg(feature = "fs")]
pub use crate::read::{
    is_fbx_file, load, load_for, load_for_rewrite, must_exist, read_source, read_source_for,
    read_source_for_rewrite,
};

impl Source {
    /// Every reducer input of the file: a DashVertex mesh's sets, a weights document (not
    /// copied), or each skinned glTF primitive, its influences read in place.
    pub(crate) fn parts(&self, path: &Path, ctx: &Context) -> Result<Vec<Part<'_>>, AppError> {
        let limits = &ctx.limits;
        Ok(match self {
            Source::Dash(l) => {
                let doc = l.document();
                let bones = doc.skeleton.as_ref().map(bone_refs).unwrap_or_default();
                vec![Part {
                    input: PartInput::Owned(
                        Input::from_mesh(&doc.mesh, bones).map_err(|e| input_cause(path, e))?,
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
                    dashvertex_reduce::gltf::inputs(g, limits).map_err(|e| input_cause(path, e))?;
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
                        ctx.note(format_args!(
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
    pub fn skeleton(&self, path: &Path, ctx: &Context) -> Result<Vec<BoneRef>, AppError> {
        let limits = &ctx.limits;
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
                        .map_err(|e| input_cause(path, e))?;
                    for sk in prims.iter().filter_map(|p| p.skeleton.as_ref()) {
                        for b in bone_refs(sk) {
                            add(b, &mut out);
                        }
                    }
                }
            }
            other => {
                for part in other.parts(path, ctx)? {
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
