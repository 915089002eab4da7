//! Errors of file access and the ranges an output copies from its input.
//!
//! Data only: this crate performs no I/O. `dashvertex-fs` reads and writes files and
//! reports [`FsError`]; a codec that takes a resolver for the files a document names
//! (a glTF buffer URI) reports the same type without depending on the filesystem crate.

use std::path::PathBuf;

/// Why a file could not be read, resolved or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FsError {
    /// The operating system refused an operation on `path`.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The input holds more bytes than the limit allows (`size` is what was seen: the
    /// file's length, or the limit plus one for a stream).
    #[error("{}: {size} bytes exceeds the input limit of {limit} bytes", path.display())]
    TooLarge {
        /// The input as named (`<stdin>` for standard input), or the canonical path
        /// of a resource.
        path: PathBuf,
        /// For a regular file, its length as its metadata gives it; for standard input, a
        /// device or a FIFO, the limit plus one (reading stops there).
        size: u64,
        /// The largest number of bytes the caller allowed.
        limit: u64,
    },
    /// The input holds no bytes at all.
    #[error("{}: the input is empty", path.display())]
    Empty {
        /// The input as named, or `<stdin>` for standard input.
        path: PathBuf,
    },
    /// Only regular files are read (an input, a manifest, a pose file, a resource named
    /// by another file), and a folder is never an output.
    #[error("{}: is {kind}, not a regular file{}", path.display(), stream_hint(kind))]
    NotRegular {
        /// The path as the caller gave it (an input or an output), or the canonical
        /// path of a resource.
        path: PathBuf,
        /// What it is ("a directory", "a FIFO", "a character device", ...).
        kind: &'static str,
    },
    /// A reference that is not a relative path (a scheme, an absolute path, a NUL).
    #[error("{uri} is not a relative file reference")]
    NotRelative {
        /// The reference, quoted and shortened.
        uri: String,
    },
    /// A relative reference that resolves outside every allowed folder.
    #[error("{uri} resolves outside {}, the folder its files must stay in", root.display())]
    Outside {
        /// The reference, quoted and shortened.
        uri: String,
        /// The folder it had to stay in.
        root: PathBuf,
    },
    /// External files cannot be read for this input (it came from standard input).
    #[error("{uri}: external files cannot be read for standard input")]
    NoFolder {
        /// The reference, quoted and shortened.
        uri: String,
    },
    /// An output names the same file as an input or another output (however spelled):
    /// refused before anything is read or written.
    #[error(
        "{role} {} is the same file as {other_role} {}; nothing was read or written: give the output another name",
        output.display(),
        other.display()
    )]
    Alias {
        /// The output as named.
        output: PathBuf,
        /// How the user named the output (`-o`, `--report`).
        role: String,
        /// The input (or earlier output) it would overwrite, as named.
        other: PathBuf,
        /// How the user named that one (`the input`, `--manifest`).
        other_role: String,
    },
    /// Another run holds the lock and this run was told not to wait.
    #[error("{}: another run holds the lock; try again when it has finished", path.display())]
    Locked {
        /// The lock file.
        path: PathBuf,
    },
}

/// What to do instead of naming a stream: pipe it to standard input.
fn stream_hint(kind: &str) -> &'static str {
    match kind {
        "a FIFO" | "a character device" | "a block device" | "a socket" => {
            "; dash reads only regular files by name (to read a stream, pipe it to standard input and name `-`)"
        }
        _ => "",
    }
}

impl FsError {
    /// An I/O failure on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        FsError::Io {
            path: path.into(),
            source,
        }
    }

    /// True when the error is a closed pipe on standard output (the reader went away,
    /// e.g. `| head`): commands end quietly then.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, FsError::Io { source, .. } if source.kind() == std::io::ErrorKind::BrokenPipe)
    }
}

/// `len` bytes of an output at `at` are its source file's bytes at `from`: a range a job
/// carries unchanged, which the writer copies from the input instead of from memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hole {
    /// Offset in the output.
    pub at: u64,
    /// Offset in the source file.
    pub from: u64,
    /// Length in bytes.
    pub len: u64,
}
