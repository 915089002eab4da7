//! The commands' errors are the jobs' ([`dashvertex_app::AppError`]); this gives each
//! kind its exit code.

pub use dashvertex_app::AppError as CliError;

/// A failure's process exit code.
pub trait ExitStatus {
    /// 2 for usage and I/O problems, 1 for invalid data or an output that cannot be
    /// made, 0 for a closed standard output.
    fn exit_code(&self) -> u8;
}

impl ExitStatus for CliError {
    fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_) | CliError::Io(_) => 2,
            CliError::BrokenPipe => 0,
            _ => 1,
        }
    }
}
