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
        /// The library's error, when one said it: it keeps where in the file (a JSON
        /// Pointer, a byte offset, a vertex), for front ends to show in their own terms.
        #[source]
        source: Option<Cause>,
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

#[cfg(feature = "fs")]
impl From<dashvertex_fs::FsError> for AppError {
    /// Empty input is invalid data; a closed standard output ends quietly; everything else
    /// is an I/O problem.
    fn from(e: dashvertex_fs::FsError) -> Self {
        match e {
            dashvertex_fs::FsError::Empty { path } => AppError::Input {
                file: path.display().to_string(),
                message: "the input is empty".into(),
                source: None,
            },
            e if e.is_broken_pipe() => AppError::BrokenPipe,
            other => AppError::Io(other.to_string()),
        }
    }
}

/// An input refused for the validator's errors: the first one, with its stable code and
/// its location (JSON Pointer with line:column, byte offset, vertex).
#[derive(Debug, Clone)]
pub struct Refused(pub Box<dashvertex_validate::Diagnostic>);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let d = &self.0;
        write!(f, "{} at {}: {}", d.code.as_str(), d.location, d.message)
    }
}

impl std::error::Error for Refused {}

/// A library error an [`AppError`] keeps as its source.
pub type Cause = Box<dyn std::error::Error + Send + Sync + 'static>;

/// An [`AppError::Input`] about `file`, said in the job's words (no library error behind).
pub fn input_error(file: &std::path::Path, message: impl std::fmt::Display) -> AppError {
    AppError::Input {
        file: file.display().to_string(),
        message: message.to_string(),
        source: None,
    }
}

/// An [`AppError::Input`] about `file` that a library error `e` says: its text is the
/// message and `e` stays the source, with the location it carries.
pub fn input_cause(
    file: &std::path::Path,
    e: impl std::error::Error + Send + Sync + 'static,
) -> AppError {
    AppError::Input {
        file: file.display().to_string(),
        message: e.to_string(),
        source: Some(Box::new(e)),
    }
}

impl AppError {
    /// The library error behind an input error, if it is of type `E`.
    pub fn cause<E: std::error::Error + 'static>(&self) -> Option<&E> {
        match self {
            AppError::Input {
                source: Some(s), ..
            } => s.downcast_ref::<E>(),
            _ => None,
        }
    }
}
