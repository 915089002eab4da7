//! The output layer every writing job shares: where a glTF output's buffer files go,
//! the unchanged-file copy, outputs that would name an input, the check of an output by
//! the validator before anything is written, and the atomic write of the files together.

use std::path::{Path, PathBuf};

use dashvertex_core::Limits;
use dashvertex_gltf::{Container, Gltf};

use crate::error::{AppError, input_error};
use crate::formats::Format;
use crate::words::{Job, Opt, Wording};

/// Where a glTF output keeps its buffers: embedded with `--embed` or on standard output
/// (which has no folder to write buffer files into), else beside it as `STEM.bin`.
pub fn buffer_files(output: &Path, embed: bool) -> dashvertex_gltf::export::BufferFiles {
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
pub fn output_folder(output: &Path) -> PathBuf {
    let real = dashvertex_fs::follow_links(output).unwrap_or_else(|_| output.to_path_buf());
    real.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// The buffer files of an output, where they will be written.
pub fn beside(output: &Path, files: &[(String, Vec<u8>)]) -> Vec<PathBuf> {
    let folder = output_folder(output);
    files.iter().map(|(name, _)| folder.join(name)).collect()
}

/// Refuses, once the buffer files of an output are named, any output (`outputs`, and the
/// buffer files `files` puts beside `output`) that is the same file as something the run
/// read (`inputs`, and the input's own buffer files `read_buffers`): spec/security.md W3.
pub fn refuse_written_aliases(
    output: &Path,
    files: &[(String, Vec<u8>)],
    outputs: &[dashvertex_fs::Named<'_>],
    inputs: &[dashvertex_fs::Named<'_>],
    read_buffers: &[PathBuf],
    words: &dyn Wording,
) -> Result<(), AppError> {
    let written_files = beside(output, files);
    let label = format!("a buffer file of {}", words.option(Opt::Output));
    let mut read: Vec<dashvertex_fs::Named> = inputs.to_vec();
    read.extend(
        read_buffers
            .iter()
            .map(|b| ("a buffer file of the input", b.as_path())),
    );
    let mut written: Vec<dashvertex_fs::Named> = outputs.to_vec();
    written.extend(written_files.iter().map(|b| (label.as_str(), b.as_path())));
    refuse_aliases(&written, &read)
}

/// Refuses, before anything is read, an output (`outputs`, and the first buffer file a
/// `.gltf` `output` writes beside it) that is the same file as an input (`inputs`) or as
/// another output, however spelled: spec/security.md W3.
pub fn refuse_aliases_before(
    output: &Path,
    to: Option<Format>,
    embed: bool,
    outputs: &[dashvertex_fs::Named<'_>],
    inputs: &[dashvertex_fs::Named<'_>],
    words: &dyn Wording,
) -> Result<(), AppError> {
    let first_bin = first_buffer_file(output, to, embed);
    let label = format!("the buffer file of {}", words.option(Opt::Output));
    let mut before = outputs.to_vec();
    before.extend(first_bin.as_deref().map(|b| (label.as_str(), b)));
    refuse_aliases(&before, inputs)
}

/// The first buffer file a `.gltf` output (`to`, or told by its name) writes, if it
/// writes any (`STEM.bin`; the others, `STEM_N.bin`, are checked once they are named).
pub fn first_buffer_file(output: &Path, to: Option<Format>, embed: bool) -> Option<PathBuf> {
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
pub fn external_buffers(gltf: &Gltf, input: &Path) -> Vec<PathBuf> {
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

/// Refuses (a usage error, naming both) an output that names an input or another output,
/// however spelled (symlinks, `./`, hard links).
pub fn refuse_aliases(
    outputs: &[dashvertex_fs::Named],
    inputs: &[dashvertex_fs::Named],
) -> Result<(), AppError> {
    dashvertex_fs::refuse_aliases(outputs, inputs).map_err(|e| AppError::Usage(e.to_string()))
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
) -> Result<Unchanged, AppError> {
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
    // A file a sparse load read is copied whole from the input, its JSON included; one
    // that names images by URI is written anew instead, as their references may change
    // (spec/security.md [R4]).
    let images_by_uri = gltf
        .value
        .get("images")
        .and_then(serde_json::Value::as_array)
        .is_some_and(|a| a.iter().any(|i| i.get("uri").is_some()));
    let spliced = !gltf.unread(0).is_empty();
    if gltf.container == container
        && !gltf.byte_order_mark
        && (!external || same_folder)
        && !(spliced && images_by_uri)
    {
        // A sparse load's file: the check reads what was read (every accessor counts as
        // carried: the unread ones are zeros), the writer copies the whole input.
        let carried = gltf.root.accessors.len() as u64;
        if spliced {
            let (main, holes) = gltf.into_input_spliced().ok_or_else(|| {
                AppError::Output("the input's bytes were not kept for the copy".into())
            })?;
            return Ok(Unchanged {
                written: dashvertex_gltf::export::Written {
                    main,
                    files: Vec::new(),
                    carried,
                    holes,
                    notes: Vec::new(),
                },
                copied: true,
                present,
            });
        }
        let main = gltf.into_input().ok_or_else(|| {
            AppError::Output("the input's bytes were not kept for the copy".into())
        })?;
        return Ok(Unchanged {
            written: dashvertex_gltf::export::Written {
                main,
                ..Default::default()
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

/// The folders [`make_folders`] made for an output's files: those still empty when it is
/// dropped (the batch failed, its temporary files gone) are removed again, so a run that
/// writes nothing leaves no folder behind. Keep it until the batch is committed.
#[must_use = "the folders are removed when this is dropped"]
#[derive(Debug, Default)]
pub struct Folders {
    made: Vec<PathBuf>,
}

impl Drop for Folders {
    fn drop(&mut self) {
        // Deepest first; a folder holding a committed file is not empty and stays.
        for d in self.made.iter().rev() {
            let _ = std::fs::remove_dir(d);
        }
    }
}

/// Makes the folders under the output's folder that files named with a folder (the
/// images a `.gltf` output copies beside it with their layout, `textures/a.png`) need,
/// refusing a symlink or a file on the way (nothing is written outside the output's
/// folder: spec/security.md \[R4\]).
pub fn make_folders(output: &Path, files: &[(String, Vec<u8>)]) -> Result<Folders, AppError> {
    let mut folders = Folders::default();
    if output == Path::new("-") {
        return Ok(folders);
    }
    let base = output_folder(output);
    for (name, _) in files {
        let Some(parent) = Path::new(name).parent() else {
            continue;
        };
        let mut at = base.clone();
        for c in parent.components() {
            let std::path::Component::Normal(part) = c else {
                return Err(AppError::Output(format!(
                    "nothing written: {name} does not name a file under the output's folder"
                )));
            };
            at.push(part);
            match std::fs::symlink_metadata(&at) {
                Ok(m) if m.is_dir() => {}
                Ok(_) => {
                    return Err(AppError::Io(format!(
                        "{}: not a folder (a symbolic link or a file is in the way of {name}); nothing was written",
                        at.display()
                    )));
                }
                Err(_) => {
                    std::fs::create_dir(&at).map_err(|e| {
                        AppError::Io(format!("{}: {e}; nothing was written", at.display()))
                    })?;
                    folders.made.push(at.clone());
                }
            }
        }
    }
    Ok(folders)
}

/// Writes an output and the buffer files beside it together: all replaced, or none
/// (`dashvertex_fs::Batch`; special files such as `/dev/null` are written, never
/// replaced).
pub fn write_output(
    output: &Path,
    main: &[u8],
    holes: Option<&dashvertex_fs::Holes>,
    files: &[(String, Vec<u8>)],
) -> Result<(), AppError> {
    let _folders = make_folders(output, files)?;
    let mut batch = dashvertex_fs::Batch::new();
    stage_output(&mut batch, output, main, holes, files)?;
    batch.commit().map_err(nothing_written)
}

/// A failure of a [`dashvertex_fs::Batch`]: no file of it was replaced, and the message
/// says so.
pub fn nothing_written(e: dashvertex_fs::FsError) -> AppError {
    match AppError::from(e) {
        AppError::Io(m) => AppError::Io(format!("{m}; nothing was written")),
        other => other,
    }
}

/// Adds an output (with the `holes` its writer fills from the input, when it has any)
/// and its buffer files (in the folder of the file the output finally names) to `batch`:
/// the buffer files first, so the main file is renamed last.
pub fn stage_output<'a>(
    batch: &mut dashvertex_fs::Batch<'a>,
    output: &Path,
    main: &'a [u8],
    holes: Option<&'a dashvertex_fs::Holes>,
    files: &'a [(String, Vec<u8>)],
) -> Result<(), AppError> {
    let folder = output_folder(output);
    for (name, data) in files {
        batch
            .add(&folder.join(name), data)
            .map_err(nothing_written)?;
    }
    match holes.filter(|h| !h.is_empty()) {
        Some(h) => batch.add_spliced(output, main, h),
        None => batch.add(output, main),
    }
    .map_err(nothing_written)
}

/// Runs the validator over an output before it is written: a job writes only
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
) -> Result<Vec<u8>, AppError> {
    Check {
        profile,
        target,
        ..Check::new(output, format, files, limits)
    }
    .owned(bytes)
}

/// What a DashVertex output was made from, so that a refusal names things as the user
/// knows them: bones by name, vertices in the input file (the reducer keeps the vertex
/// order), and no place in a file that was never written.
pub struct Subject<'a> {
    /// How the job's front end names commands, for the help a refusal gives.
    pub words: &'a dyn Wording,
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
             (`{}`), which puts parents first",
            dashvertex_core::text::short(name),
            parent
                .as_deref()
                .map_or("(unknown)".to_owned(), dashvertex_core::text::short),
            self.words.job(Job::ManifestInit)
        ))
    }
}

/// Outputs at most this large are checked while their temporary files are written and
/// synced ([`write_checked`]): the check then reads a copy of a GLB's binary chunk (so
/// at most this much more memory), and the sync, a wait for the disk, takes no time of
/// its own. A larger output is checked in place first, then written.
pub const CHECK_BESIDE_WRITE_MAX: usize = 8 << 20;

/// How an output is checked before it is written ([`verify`], [`write_checked`]).
pub struct Check<'a> {
    /// The output, as named (labels the diagnostics).
    pub output: &'a Path,
    /// Its format.
    pub format: dashvertex_formats::Format,
    /// The buffer files a `.gltf` output refers to, by the names it uses.
    pub files: &'a [(String, Vec<u8>)],
    /// The limits of the job.
    pub limits: &'a Limits,
    /// The validator's profile, when the job fixes one.
    pub profile: Option<dashvertex_validate::Profile>,
    /// The engine target the output is also checked for.
    pub target: Option<&'static dashvertex_core::Target>,
    /// What a DashVertex output was made from, for refusals in the user's terms.
    pub subject: Option<&'a Subject<'a>>,
    /// The glTF accessors the output carries unchanged from the input (`0..carried`,
    /// [`dashvertex_gltf::export::Written::carried`]): their elements are not walked
    /// again, so the check reads what the job changed.
    pub carried: u64,
    /// The input's errors the job read through and carries unchanged, by code
    /// ([`dashvertex_gltf::Gltf::carried_errors`]): the output may have as many of each,
    /// and no other error.
    pub carried_errors: std::collections::BTreeMap<String, u64>,
}

impl<'a> Check<'a> {
    /// The check of `output` by the default profile of its format, for no engine target
    /// and with no accessor carried (set the fields for more).
    pub fn new(
        output: &'a Path,
        format: dashvertex_formats::Format,
        files: &'a [(String, Vec<u8>)],
        limits: &'a Limits,
    ) -> Check<'a> {
        Check {
            output,
            format,
            files,
            limits,
            profile: None,
            target: None,
            subject: None,
            carried: 0,
            carried_errors: std::collections::BTreeMap::new(),
        }
    }

    fn options(&self) -> dashvertex_validate::Options {
        dashvertex_validate::Options::new()
            .with_carried_accessors(self.carried)
            .with_format(self.format)
            .with_limits(*self.limits)
            .with_profile(self.profile)
            .with_target(self.target)
            .with_max_diagnostics(1000)
    }

    fn resolver(&self) -> dashvertex_gltf::MemoryFiles<'_> {
        dashvertex_gltf::MemoryFiles {
            files: self
                .files
                .iter()
                .map(|(n, b)| (n.as_str(), b.as_slice()))
                .collect(),
        }
    }

    /// Checks bytes handed over (a GLB in place), giving them back when valid.
    pub fn owned(&self, bytes: Vec<u8>) -> Result<Vec<u8>, AppError> {
        let (report, back) = dashvertex_validate::validate_owned(
            &self.output.display().to_string(),
            bytes,
            &self.resolver(),
            &self.options(),
        );
        if self.only_carried(&report)
            && let Some(bytes) = back
        {
            return Ok(bytes);
        }
        Err(self.refusal(&report))
    }

    /// Checks borrowed bytes (a GLB's binary chunk is copied).
    pub fn borrowed(&self, bytes: &[u8]) -> Result<(), AppError> {
        let report = dashvertex_validate::validate_with(
            &self.output.display().to_string(),
            bytes,
            &self.resolver(),
            &self.options(),
        );
        if self.only_carried(&report) {
            return Ok(());
        }
        Err(self.refusal(&report))
    }

    /// Whether the output's errors are only those the input had and the job carries:
    /// of each code, no more than [`Check::carried_errors`] allows.
    fn only_carried(&self, report: &dashvertex_validate::FileReport) -> bool {
        if report.counts.errors == 0 {
            return true;
        }
        let mut errors = 0u64;
        for (code, n) in &report.codes {
            let error = dashvertex_validate::Code::parse(code)
                .is_none_or(|c| c.severity() == dashvertex_validate::Severity::Error);
            if !error {
                continue;
            }
            if self
                .carried_errors
                .get(code)
                .is_none_or(|allowed| n > allowed)
            {
                return false;
            }
            errors += n;
        }
        // Every error is of a code counted above (a deny-listed warning is not).
        errors == report.counts.errors
    }

    /// Why an output with this report is not written: its first error, located.
    fn refusal(&self, report: &dashvertex_validate::FileReport) -> AppError {
        let subject = self.subject;
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
            // Valid, but the checker could not give the bytes back (cannot happen for
            // what the jobs write: no byte order mark, and a load that failed is an
            // error).
            return AppError::Output("nothing written: the output could not be checked".into());
        }
        AppError::Output(format!(
            "nothing written: the output would not be valid ({} error(s)); first: {first}",
            report.counts.errors
        ))
    }
}

/// Files given as `(path, text)` pairs, as [`write_checked`] takes them.
pub fn text_files<'a>(
    texts: impl IntoIterator<Item = &'a (&'a Path, String)>,
) -> Vec<(&'a Path, &'a [u8])> {
    texts
        .into_iter()
        .map(|(p, text)| (*p, text.as_bytes()))
        .collect()
}

/// Checks an output ([`Check`]) and writes it, with its buffer `files` and the files
/// `before` and `after` it, as one batch: all replaced, or none, and nothing when the
/// check fails. An output of at most [`CHECK_BESIDE_WRITE_MAX`] bytes, all of whose
/// destinations are regular files, is checked while the batch's temporary files are
/// written and synced, on two threads of the pool; which finishes first changes nothing
/// but the time.
///
/// `spent` is what the job no longer needs once the output's bytes exist (its input
/// document): it is freed before a large output is checked, so the two are never in
/// memory together, and beside the sync of a small one, off the path of the check.
///
/// `holes` are ranges of `main` the writer fills from the input file
/// ([`dashvertex_gltf::export::Written::holes`]): the check reads zeros there, and they
/// lie only in accessors it does not walk (carried ones).
pub fn write_checked(
    check: &Check<'_>,
    main: Vec<u8>,
    holes: &dashvertex_fs::Holes,
    files: &[(String, Vec<u8>)],
    before: &[(&Path, &[u8])],
    after: &[(&Path, &[u8])],
    spent: impl Send,
) -> Result<(), AppError> {
    // A destination written directly (a FIFO, a device) is opened when it is staged, and
    // that is already seen (a FIFO's open waits for its reader): such a batch is staged
    // only after the check.
    let direct = std::iter::once(check.output.to_path_buf())
        .chain(before.iter().chain(after).map(|(p, _)| p.to_path_buf()))
        .chain(beside(check.output, files))
        .any(|p| dashvertex_fs::Output::is_direct(&p));
    let overlap = main.len() <= CHECK_BESIDE_WRITE_MAX && !direct;
    let mut spent = Some(spent);
    let _folders = make_folders(check.output, files)?;
    let main = if overlap {
        main
    } else {
        drop(spent.take());
        check.owned(main)?
    };
    let mut batch = dashvertex_fs::Batch::new();
    for (p, bytes) in before {
        batch.add(p, bytes).map_err(nothing_written)?;
    }
    stage_output(&mut batch, check.output, &main, Some(holes), files)?;
    for (p, bytes) in after {
        batch.add(p, bytes).map_err(nothing_written)?;
    }
    if overlap {
        let (checked, synced) = rayon::join(
            || check.borrowed(&main),
            || {
                drop(spent.take());
                batch.sync()
            },
        );
        // A refusal comes first: the temporary files go with the batch.
        checked?;
        synced.map_err(nothing_written)?;
    }
    batch.commit().map_err(nothing_written)
}
