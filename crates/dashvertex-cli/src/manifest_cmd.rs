//! `dashvertex manifest init/update/diff/show`, and reading a manifest for the commands that
//! match bones against one (under its lock when it will be updated).

use crate::input::*;
use crate::output::*;
use std::path::Path;

use dashvertex_core::Limits;
use dashvertex_reduce::manifest::{Manifest, ManifestError};

use crate::common;
use crate::error::CliError;

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
pub(crate) fn read_manifest_to_update(
    path: &Path,
    limits: &Limits,
) -> Result<Option<Manifest>, CliError> {
    let max = Limits::default().max_input_bytes;
    let read = if path == Path::new("-") {
        dashvertex_fs::read_input(path, max)
    } else {
        dashvertex_fs::read_regular(path, max)
    };
    read_manifest_from(path, read, limits)
}

pub(crate) fn read_manifest_from(
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
pub(crate) fn lock(path: &Path, wait: bool) -> Result<dashvertex_fs::FileLock, CliError> {
    dashvertex_fs::FileLock::acquire(path, wait).map_err(CliError::from)
}

/// `dashvertex manifest init`.
pub fn manifest_init(from: &Path, out: &Path, force: bool, ctx: &Context) -> Result<(), CliError> {
    refuse_aliases(&[("-o", out)], &[("the input", from)])?;
    let _lock = lock(out, ctx.wait)?;
    if out.exists() && !force {
        return Err(CliError::Usage(format!(
            "{} exists; use `dashvertex manifest update`, or --force to replace it",
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

/// `dashvertex manifest update`.
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
pub(crate) fn numbering(path: &Path, ctx: &Context) -> Result<Manifest, CliError> {
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

/// `dashvertex manifest diff`: one line per difference between A's and B's numbering
/// ([`Manifest::diff`]: a bone followed by name and alias, so a rename is one line).
pub fn manifest_diff(a: &Path, b: &Path, ctx: &Context) -> Result<Vec<String>, CliError> {
    let (ma, mb) = (numbering(a, ctx)?, numbering(b, ctx)?);
    Ok(ma.diff(&mb).iter().map(ToString::to_string).collect())
}

/// `dashvertex manifest show`.
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
