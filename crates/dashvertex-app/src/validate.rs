//! The validate job every front end runs: the validator's options built from what was
//! asked (one place decides what a manifest and `locked` mean), each input checked as
//! the walk or the caller gave it, files checked in parallel and handed back in the
//! order given, and the run's outcome.
//!
//! The CLI renders the reports as they come and walks folders; Python validates one file
//! or buffer. Neither states what a manifest does to the options, how standard input is
//! read, or which outcome a set of reports is.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use dashvertex_core::Limits;
use dashvertex_manifest::Manifest;
use dashvertex_validate::{Code, FileReport, Format, JointOrder, Level, Options, Profile};

use crate::error::AppError;
use crate::words::{Opt, Wording};

/// What a front end asked of the validator, in its own terms.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Asked {
    /// The rule profile (default: the format's own).
    pub profile: Option<Profile>,
    /// The engine target whose limits are checked too.
    pub target: Option<&'static dashvertex_core::Target>,
    /// The bone manifest: bone indices are range-checked against it (retired bones keep
    /// their index) and glTF joint order is compared with it.
    pub manifest: Option<Manifest>,
    /// The bone count indices are range-checked against, when no manifest gives it.
    pub bones: Option<u64>,
    /// The manifest's joint order is a contract: out of order is an error unless a level
    /// was given for `JOINT_ORDER`.
    pub locked: bool,
    /// Per-code levels asked for.
    pub levels: BTreeMap<Code, Level>,
    /// Warnings count as errors.
    pub deny_warnings: bool,
    /// Diagnostics listed per file at most (default: the validator's).
    pub max_diagnostics: Option<usize>,
    /// The input format, when it cannot be told from the bytes or name.
    pub format: Option<Format>,
    /// Decoder limits.
    pub limits: Limits,
    /// Folders a glTF's resources may also resolve into.
    pub resource_dirs: Vec<PathBuf>,
}

impl Asked {
    /// Nothing asked: every default applies.
    pub fn new() -> Asked {
        Asked::default()
    }

    /// The same, with the manifest and `locked` given.
    pub fn with_manifest(mut self, manifest: Option<Manifest>, locked: bool) -> Asked {
        self.manifest = manifest;
        self.locked = locked;
        self
    }
}

/// The validator's options for what was asked. Refuses `locked` without a manifest.
pub fn options(asked: Asked, words: &dyn Wording) -> Result<Options, AppError> {
    if asked.locked && asked.manifest.is_none() {
        return Err(AppError::Usage(format!(
            "{} needs {}",
            words.option(Opt::Locked),
            words.option(Opt::Manifest)
        )));
    }
    let mut levels = asked.levels;
    if asked.locked {
        levels.entry(Code::JOINT_ORDER).or_insert(Level::Deny);
    }
    let (bones, removed, joint_order) = match asked.manifest {
        None => (asked.bones, Vec::new(), None),
        // Removed bones keep their index: they count toward the range.
        Some(m) => (
            Some(m.len() as u64),
            m.removed_indices(),
            Some(JointOrder::new(m, asked.locked)),
        ),
    };
    let mut opts = Options::new()
        .with_profile(asked.profile)
        .with_target(asked.target)
        .with_bones(bones)
        .with_removed_bones(removed)
        .with_joint_order(joint_order)
        .with_levels(levels)
        .with_deny_warnings(asked.deny_warnings)
        .with_limits(asked.limits)
        .with_format(asked.format)
        .with_resource_dirs(asked.resource_dirs);
    if let Some(max) = asked.max_diagnostics {
        opts = opts.with_max_diagnostics(max);
    }
    Ok(opts)
}

/// One input of a validate run.
#[derive(Clone, Debug)]
pub enum Input {
    /// Named by the user: read whatever it is (a FIFO or device named is read up to the
    /// input limit); `-` is standard input.
    Named(PathBuf),
    /// Found in a folder: read only when it is a regular file.
    Found(PathBuf),
    /// Found in a folder and unreadable: reported as `IO_ERROR` with the reason.
    Unreadable(PathBuf, String),
}

impl Input {
    /// The input's path as given or found.
    pub fn path(&self) -> &Path {
        match self {
            Input::Named(p) | Input::Found(p) | Input::Unreadable(p, _) => p,
        }
    }
}

/// The report of one input, its advice in `words`' names ([`crate::advice`]). Standard
/// input has no folder, so a glTF read from it has no external resources
/// (spec/security.md §1), whatever the working directory holds. `Err` only when standard
/// input cannot be read (the run cannot go on).
pub fn check(input: &Input, opts: &Options, words: &dyn Wording) -> Result<FileReport, AppError> {
    let mut report = read_and_check(input, opts)?;
    crate::advice::word_report(&mut report, words);
    Ok(report)
}

fn read_and_check(input: &Input, opts: &Options) -> Result<FileReport, AppError> {
    Ok(match input {
        Input::Unreadable(path, error) => dashvertex_validate::unreadable(path, error, opts),
        Input::Found(path) => dashvertex_validate::validate_found(path, opts),
        Input::Named(path) if path == Path::new("-") => {
            match dashvertex_fs::read_input(path, opts.limits.max_input_bytes) {
                Ok(bytes) => dashvertex_validate::validate_bytes("<stdin>", &bytes, opts),
                Err(dashvertex_fs::FsError::Empty { .. }) => {
                    dashvertex_validate::validate_bytes("<stdin>", &[], opts)
                }
                Err(e) => return Err(AppError::Io(e.to_string())),
            }
        }
        Input::Named(path) => dashvertex_validate::validate_path(path, opts),
    })
}

/// Runs `work` on every item in parallel (in the current thread pool) and hands each
/// result to `deliver` in the items' order, as soon as it and every earlier one are done,
/// on a thread of its own (a reorder buffer holds results that finish early). What is
/// delivered, and in which order, is the same at any thread count. When that thread
/// cannot be started (a memory limit), every item is worked first and delivered after:
/// the same results, later.
pub fn in_order<I, R>(items: &[I], work: impl Fn(&I) -> R + Sync, deliver: impl FnMut(R) + Send)
where
    I: Sync,
    R: Send,
{
    use rayon::prelude::*;
    let (tx, rx) = std::sync::mpsc::channel::<(usize, R)>();
    let rx = std::sync::Mutex::new(rx);
    let deliver = std::sync::Mutex::new(deliver);
    let receive = || {
        let (Ok(rx), Ok(mut deliver)) = (rx.lock(), deliver.lock()) else {
            return;
        };
        let mut early = BTreeMap::new();
        let mut next = 0;
        for (i, result) in rx.iter() {
            early.insert(i, result);
            while let Some(result) = early.remove(&next) {
                next += 1;
                (*deliver)(result);
            }
        }
    };
    let work_all = |tx: std::sync::mpsc::Sender<(usize, R)>| {
        items
            .par_iter()
            .enumerate()
            .for_each_with(tx, |tx, (i, item)| {
                let _ = tx.send((i, work(item)));
            });
    };
    std::thread::scope(|scope| {
        match std::thread::Builder::new()
            .name("dash-report".into())
            .spawn_scoped(scope, receive)
        {
            Ok(receiver) => {
                work_all(tx);
                receiver
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p));
            }
            Err(_) => {
                work_all(tx);
                receive();
            }
        }
    });
}

/// What a run's reports add up to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every file valid.
    Valid,
    /// A file has errors (or warnings denied).
    Invalid,
    /// A file could not be read.
    IoFailed,
}

impl Outcome {
    /// The outcome of these reports: a file that could not be read outweighs an invalid
    /// one.
    pub fn of(reports: &[FileReport]) -> Outcome {
        if reports.iter().any(FileReport::io_failed) {
            Outcome::IoFailed
        } else if reports.iter().any(|r| !r.valid) {
            Outcome::Invalid
        } else {
            Outcome::Valid
        }
    }
}
