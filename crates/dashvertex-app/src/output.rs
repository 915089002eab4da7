//! The output layer every writing job shares: where a glTF output's buffer files go,
//! the unchanged-file copy, outputs that would name an input, the check of an output by
//! the validator before anything is written, and the atomic write of the files together.

use std::path::{Path, PathBuf};

use dashvertex_gltf::{Container, Gltf};

use crate::error::{AppError, input_cause, input_error};
use crate::formats::Format;
use crate::words::{Opt, Wording};

pub use crate::check::{Check, Subject, verify};
pub use crate::settings::buffer_files;

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
        .map_err(|e| input_cause(input, e))?;
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

/// Outputs at most this large are checked while their temporary files are written and
/// synced ([`write_checked`]): the check then reads a copy of a GLB's binary chunk (so
/// at most this much more memory), and the sync, a wait for the disk, takes no time of
/// its own. A larger output is checked in place first, then written.
pub const CHECK_BESIDE_WRITE_MAX: usize = 8 << 20;

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
