//! The manifest jobs' core: a manifest made from a skeleton (`manifest init`), a manifest
//! updated (`manifest update`: renames, a skeleton's bones, compacting), and a manifest
//! listed (`manifest show`), from what the front end read; the filesystem shell
//! (`manifest_file`) reads and writes the files under their lock.

use std::path::Path;

use dashvertex_reduce::manifest::{Manifest, ManifestError};

use crate::error::{AppError, input_cause};
use crate::input::{Context, Source};
use crate::words::warn_neutral_bone;

/// The manifest `manifest init` makes from `from`'s skeleton (`name` names it in
/// messages); [`warn_init`] says what the user should know of it once it is written.
pub fn init(from: &Source, name: &Path, ctx: &Context) -> Result<Manifest, AppError> {
    let skeleton = from.skeleton(name, ctx)?;
    Manifest::init(&skeleton).map_err(|e| input_cause(name, e))
}

/// The warning a new manifest `m` earns when it numbers Blender's automatic neutral bone.
pub fn warn_init(m: &Manifest, ctx: &Context) {
    let added: Vec<(String, u32)> = m
        .bones
        .iter()
        .filter(|e| e.name == dashvertex_manifest::BLENDER_NEUTRAL_BONE)
        .map(|e| (e.name.clone(), e.index))
        .collect();
    warn_neutral_bone(&added, ctx.words, ctx.log);
}

/// What `manifest update` changes in a manifest.
#[derive(Clone, Debug)]
pub struct UpdateJob<'a> {
    /// The manifest file.
    pub manifest: &'a Path,
    /// A file whose skeleton the manifest gains.
    pub from: Option<&'a Path>,
    /// Bones renamed, `(old, new)`: the index stays, the old name becomes an alias.
    pub renames: &'a [(String, String)],
    /// `from` holds part of the rig: bones it lacks are not retired.
    pub partial: bool,
    /// Renumber the live bones densely (breaks every older asset's indices).
    pub compact: bool,
    /// Refuse any change instead of writing it.
    pub locked: bool,
}

/// What `manifest update` did.
#[derive(Clone, Debug)]
pub struct Updated {
    /// Bones added, retired, revived, renamed and reparented.
    pub changes: dashvertex_manifest::Changes,
    /// Compacting's moves: `(name, old index, new index)`.
    pub moved: Vec<(String, u32, u32)>,
    /// Whether the manifest changed (so the file is written).
    pub written: bool,
    /// The manifest after the update.
    pub manifest: Manifest,
}

/// `original` updated as `job` asks (`job.manifest` names it in messages): renames,
/// then the bones of the file `job.from` names (read by `read_from`, which the front end
/// gives, and only once the renames are known to apply), then compacting; refused whole
/// when `job.locked` and anything would change.
pub fn update(
    original: &Manifest,
    job: &UpdateJob<'_>,
    read_from: impl FnOnce(&Path) -> Result<Source, AppError>,
    ctx: &Context,
) -> Result<Updated, AppError> {
    let mut m = original.clone();
    let mut changes = m
        .rename(job.renames)
        .map_err(|e| input_cause(job.manifest, e))?;
    if let Some(name) = job.from {
        let skeleton = read_from(name)?.skeleton(name, ctx)?;
        let c = m
            .update(&skeleton, !job.partial)
            .map_err(|e| input_cause(name, e))?;
        changes.added.extend(c.added);
        changes.removed.extend(c.removed);
        changes.revived.extend(c.revived);
        changes.reparented.extend(c.reparented);
    }
    let moved = if job.compact { m.compact() } else { Vec::new() };
    if job.locked && (!changes.is_empty() || !moved.is_empty()) {
        let mut why = changes.describe();
        why.extend(
            moved
                .iter()
                .map(|(n, a, b)| format!("move bone {n:?} from {a} to {b}")),
        );
        return Err(AppError::ManifestLocked(
            ManifestError::Locked(why).to_string(),
        ));
    }
    if !job.locked {
        warn_neutral_bone(&changes.added, ctx.words, ctx.log);
    }
    Ok(Updated {
        changes,
        moved,
        written: m != *original,
        manifest: m,
    })
}

/// Manifest `m` as `manifest show` lists it, under `label`: a head line, then one line
/// per index.
pub fn listing(label: &str, m: &Manifest) -> String {
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
    out
}
