//! Reading inputs and writing outputs: the CLI's errors around [`dash_fs`], which owns
//! the semantics (bounded reads, atomic writes that never replace special files).

use std::path::Path;

use crate::error::CliError;

/// Reads a file, or standard input for `-`, refusing more than `max` bytes and empty
/// input.
pub fn read_input(path: &Path, max: u64) -> Result<Vec<u8>, CliError> {
    dash_fs::read_input(path, max).map_err(CliError::from)
}

/// Writes `bytes` to `path` (see [`dash_fs::output`]); `-` writes to standard output.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    dash_fs::write_file(path, bytes).map_err(CliError::from)
}
