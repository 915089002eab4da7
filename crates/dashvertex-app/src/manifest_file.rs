//! Manifest files: reading one for the jobs that match bones against it (under its lock
//! when it will be updated), and the manifest jobs (init, update, diff, show).

use std::path::Path;

use dashvertex_core::Limits;
use dashvertex_reduce::manifest::{Manifest, ManifestError};

use crate::error::{AppError, input_cause, input_error};
use crate::input::{Context, load};
use crate::output::refuse_aliases;
use crate::words::{Job, Opt};

pub use crate::manifest_job::{UpdateJob, Updated};

/// Reads a manifest; `None` when there is none yet. Unreadable (a FIFO, a device or a
/// folder in its place is refused at once, never waited on): an I/O error; corrupt (not
/// UTF-8, not a manifest, empty, more bones than `max_bones`): an input error.
pub fn read_manifest(path: &Path, ctx: &Context) -> Result<Option<Manifest>, AppError> {
    read_manifest_from(
        path,
        dashvertex_fs::read_input(path, Limits::default().max_input_bytes),
        ctx,
    )
}

/// A manifest from what reading `path` gave: `None` when the file is not there.
fn read_manifest_from(
    path: &Path,
    read: Result<Vec<u8>, dashvertex_fs::FsError>,
    ctx: &Context,
) -> Result<Option<Manifest>, AppError> {
    match read {
        Ok(bytes) => parse_manifest(path, &bytes, ctx).map(Some),
        Err(dashvertex_fs::FsError::Io { source, .. })
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

/// Decodes and checks a manifest file's bytes (an input error when it is not one): an
/// error is located at its line and column with its JSON Pointer, and a manifest with
/// more bones than `max_bones` is refused, as a skeleton with that many would be.
pub fn parse_manifest(path: &Path, bytes: &[u8], ctx: &Context) -> Result<Manifest, AppError> {
    let limits = &ctx.limits;
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
                "the manifest has more than {limit} bones, the most a skeleton may have ({max}); keep one manifest per rig, or raise {max}",
                max = ctx.opt(Opt::MaxBones)
            ),
        ),
        e => match e.pointer() {
            Some(ptr) => {
                let (line, column) = dashvertex_json::pointer::Locator::new(text)
                    .line_col(&ptr)
                    .unwrap_or((1, 1));
                input_error(path, format!("{line}:{column}: {e} (at {ptr})"))
            }
            None => input_cause(path, e),
        },
    })?;
    Ok(m)
}

/// Takes the manifest's lock (held from its read to its rename).
pub fn lock(path: &Path, wait: bool) -> Result<dashvertex_fs::FileLock, AppError> {
    dashvertex_fs::FileLock::acquire(path, wait).map_err(AppError::from)
}

/// Makes a manifest at `out` from the skeleton of `from` (`manifest init`), replacing an
/// existing one only with `force`; the manifest written is returned.
///
/// ```no_run
/// # fn main() -> Result<(), dashvertex_app::AppError> {
/// use dashvertex_app::{Context, Neutral, Collect};
/// let log = Collect::default();
/// let ctx = Context { limits: Default::default(), resource_dirs: &[], wait: true, words: &Neutral, log: &log };
/// let m = dashvertex_app::manifest_file::init("rig.glb".as_ref(), "rig.manifest.json".as_ref(), false, &ctx)?;
/// println!("{} bones", m.len());
/// # Ok(()) }
/// ```
pub fn init(from: &Path, out: &Path, force: bool, ctx: &Context) -> Result<Manifest, AppError> {
    let output = ctx.opt(Opt::Output);
    refuse_aliases(&[(output.as_str(), out)], &[("the input", from)])?;
    let _lock = lock(out, ctx.wait)?;
    if out.exists() && !force {
        return Err(AppError::Usage(format!(
            "{} exists; use `{}`, or {} to replace it",
            out.display(),
            ctx.job(Job::ManifestUpdate),
            ctx.opt(Opt::Force)
        )));
    }
    let m = crate::manifest_job::init(&load(from, ctx)?, from, ctx)?;
    dashvertex_fs::write_file(out, m.to_json().as_bytes())?;
    crate::manifest_job::warn_init(&m, ctx);
    ctx.info(format_args!("{}: {} bones", out.display(), m.len()));
    Ok(m)
}

/// Updates a manifest file under its lock (`manifest update`): renames, then the bones of
/// `from`, then compacting; written only when it changed, refused whole when `locked`.
pub fn update(job: &UpdateJob<'_>, ctx: &Context) -> Result<Updated, AppError> {
    let manifest_path = job.manifest;
    if let Some(from) = job.from {
        let flag = ctx.opt(Opt::From);
        refuse_aliases(&[("the manifest", manifest_path)], &[(flag.as_str(), from)])?;
    }
    let _lock = if job.locked {
        None
    } else {
        Some(lock(manifest_path, ctx.wait)?)
    };
    let read = read_manifest(manifest_path, ctx)?;
    let original =
        read.ok_or_else(|| AppError::Io(format!("{}: no such manifest", manifest_path.display())))?;
    let updated = crate::manifest_job::update(&original, job, |p| load(p, ctx), ctx)?;
    if updated.written {
        dashvertex_fs::write_file(manifest_path, updated.manifest.to_json().as_bytes())?;
    }
    Ok(updated)
}

/// A manifest file, or the numbering `manifest init` would give a file's skeleton.
pub fn numbering(path: &Path, ctx: &Context) -> Result<Manifest, AppError> {
    let bytes = dashvertex_fs::read_input(path, ctx.limits.max_input_bytes)?;
    let text = std::str::from_utf8(&bytes).ok();
    let looks_like_manifest = text.is_some_and(|t| {
        serde_json::from_str::<serde_json::Value>(t).is_ok_and(|v| {
            v.get("version").is_some() && v.get("bones").is_some_and(|b| b.is_array())
        })
    });
    if looks_like_manifest {
        return parse_manifest(path, &bytes, ctx);
    }
    let skeleton = load(path, ctx)?.skeleton(path, ctx)?;
    Manifest::init(&skeleton).map_err(|e| input_cause(path, e))
}

/// The differences between A's and B's numbering (`manifest diff`; each a manifest file or
/// a file whose skeleton `manifest init` would number): a bone is followed by name and
/// alias, so a rename is one difference.
pub fn diff(
    a: &Path,
    b: &Path,
    ctx: &Context,
) -> Result<Vec<dashvertex_manifest::Difference>, AppError> {
    let (ma, mb) = (numbering(a, ctx)?, numbering(b, ctx)?);
    Ok(ma.diff(&mb))
}

/// A manifest as `manifest show` lists it: a head line, then one line per index.
pub fn show(path: &Path, ctx: &Context) -> Result<String, AppError> {
    let m = read_manifest(path, ctx)?
        .ok_or_else(|| AppError::Io(format!("{}: no such manifest", path.display())))?;
    let label = if path == Path::new("-") {
        "<stdin>".to_owned()
    } else {
        path.display().to_string()
    };
    Ok(crate::manifest_job::listing(&label, &m))
}
