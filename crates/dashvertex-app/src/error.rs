//! Why a job failed, in four kinds a front end maps to its own outcome (the CLI's exit
//! codes, Python's exception classes).

/// Why a job failed. The messages name options as the job's [`crate::Wording`] names them.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AppError {
    /// The options ask for something that cannot be done (a problem with the request).
    #[error("{0}")]
    Usage(String),
    /// A file could not be read or written.
    #[error("{0}")]
    Io(String),
    /// An input is not valid.
    #[error("{file}: {message}")]
    Input {
        /// The input's name.
        file: String,
        /// What is wrong.
        message: String,
    },
    /// The output cannot be produced without losing data or breaking a rule; nothing was
    /// written.
    #[error("{0}")]
    Output(String),
    /// A locked manifest would change (bones it lacks, renames, retirements): nothing was
    /// written.
    #[error("{0}")]
    ManifestLocked(String),
    /// Standard output was closed by its reader (`| head`): the job ends quietly.
    #[error("standard output closed")]
    BrokenPipe,
}

impl From<dashvertex_fs::FsError> for AppError {
    /// Empty input is invalid data; a closed standard output ends quietly; everything else
    /// is an I/O problem.
    fn from(e: dashvertex_fs::FsError) -> Self {
        match e {
            dashvertex_fs::FsError::Empty { path } => AppError::Input {
                file: path.display().to_string(),
                message: "the input is empty".into(),
            },
            e if e.is_broken_pipe() => AppError::BrokenPipe,
            other => AppError::Io(other.to_string()),
        }
    }
}

/// An [`AppError::Input`] about `file`.
pub fn input_error(file: &std::path::Path, message: impl std::fmt::Display) -> AppError {
    AppError::Input {
        file: file.display().to_string(),
        message: message.to_string(),
    }
}
