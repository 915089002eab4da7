//! CLI errors and their exit codes.

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Wrong arguments.
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
    /// The output cannot be produced without losing data or breaking a rule.
    #[error("{0}")]
    Output(String),
    /// Standard output was closed by its reader (`| head`): the command ends quietly.
    #[error("standard output closed")]
    BrokenPipe,
}

impl From<dashvertex_fs::FsError> for CliError {
    /// Empty input is invalid data (exit 1); a closed standard output ends quietly;
    /// everything else is an I/O problem (exit 2).
    fn from(e: dashvertex_fs::FsError) -> Self {
        match e {
            dashvertex_fs::FsError::Empty { path } => CliError::Input {
                file: path.display().to_string(),
                message: "the input is empty".into(),
            },
            e if e.is_broken_pipe() => CliError::BrokenPipe,
            other => CliError::Io(other.to_string()),
        }
    }
}

impl CliError {
    /// The process exit code: 2 for usage and I/O problems, 1 for invalid data.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_) | CliError::Io(_) => 2,
            CliError::Input { .. } | CliError::Output(_) => 1,
            CliError::BrokenPipe => 0,
        }
    }
}
