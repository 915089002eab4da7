//! Why FBX could not be read or converted.

/// Why an FBX file could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FbxError {
    /// ufbx refused the file: damaged, truncated, or of an unsupported version.
    #[error("FBX: {0}")]
    Read(String),
    /// The file needs more than dash's limits allow (memory, allocations, node depth,
    /// vertices, bones, influence sets).
    #[error("FBX: {0}")]
    Limit(String),
    /// The scene cannot be written as asked (a glTF or DashVertex output).
    #[error("FBX: {0}")]
    Convert(String),
    /// This build has no FBX reader: ufbx's C library is not built for WebAssembly
    /// (spec/fbx.md §5).
    #[error(
        "FBX is read by the dash command line and Python package, not in WebAssembly: ufbx's C library needs a C compiler and a libc for wasm32 (spec/fbx.md)"
    )]
    Unavailable,
}

impl FbxError {
    /// True for a refused limit (reported as `LIMIT_EXCEEDED`).
    pub fn is_limit(&self) -> bool {
        matches!(self, FbxError::Limit(_))
    }
}
