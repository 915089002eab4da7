//! Errors of the glTF bridge.

/// Why a glTF file could not be loaded at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The file could not be read.
    #[error(transparent)]
    Read(#[from] dashvertex_core::file::FsError),
    /// The GLB container is damaged.
    #[error("GLB container at offset 0x{offset:X}: {message}")]
    Glb {
        /// Byte offset.
        offset: u64,
        /// What is wrong.
        message: String,
    },
    /// The JSON is not JSON, or not a glTF document of the expected shape.
    #[error("glTF JSON at {line}:{column}{}: {message}", pointer_note(pointer))]
    Json {
        /// JSON Pointer.
        pointer: String,
        /// 1-based line in the JSON text.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A configured limit was exceeded.
    #[error(transparent)]
    Limit(#[from] dashvertex_core::LimitError),
}

/// Why a buffer's bytes are unavailable (the document loads; what needs the buffer
/// cannot be read).
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BufferError {
    /// No `uri`, and not the GLB binary chunk.
    #[error("the buffer has no uri and is not the GLB binary chunk")]
    NoSource,
    /// A `data:` URI without `;base64,`.
    #[error("data URI is not base64")]
    NotBase64,
    /// A `data:` URI whose base64 does not decode.
    #[error("bad base64 data URI: {0}")]
    Base64(#[source] base64::DecodeError),
    /// The external resource could not be read (refused, missing, not a regular file).
    #[error("{0}")]
    Resource(#[source] std::sync::Arc<dashvertex_core::file::FsError>),
    /// Fewer bytes than `byteLength`.
    #[error("holds {have} bytes but byteLength is {byte_length}")]
    Short {
        /// Bytes found.
        have: u64,
        /// Bytes declared.
        byte_length: u64,
    },
    /// The buffer is the fallback of a meshopt-compressed buffer view whose stream does
    /// not decode (or whose decoded data does not fit it): its bytes are not the data.
    #[error(
        "it holds buffer view {view}, compressed with {extension} ({pointer}), which dash cannot read: {why}"
    )]
    Compressed {
        /// The first view of the buffer that does not decode.
        view: u64,
        /// The extension.
        extension: &'static str,
        /// The JSON Pointer of the view's extension object.
        pointer: String,
        /// Why.
        why: String,
    },
}

/// Why an accessor's data cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AccessorError {
    /// No such accessor.
    #[error("accessor {0} does not exist")]
    Missing(u64),
    /// Unknown componentType or type.
    #[error("accessor {index} has an unknown {what}")]
    Unknown {
        /// Accessor.
        index: u64,
        /// "componentType" or "type".
        what: &'static str,
    },
    /// The accessor (or its sparse part) names a buffer view that does not exist.
    #[error("accessor {index}: buffer view {view} does not exist")]
    NoView {
        /// Accessor.
        index: u64,
        /// View.
        view: u64,
    },
    /// The buffer behind a view is unavailable.
    #[error("accessor {index}: buffer {buffer} is unavailable: {why}")]
    Buffer {
        /// Accessor.
        index: u64,
        /// Buffer.
        buffer: u64,
        /// Why.
        why: String,
    },
    /// The data would lie outside its view or buffer.
    #[error("accessor {index}: {what}")]
    OutOfRange {
        /// Accessor.
        index: u64,
        /// Which range.
        what: String,
    },
    /// A buffer view the accessor (or its sparse part) reads does not lie inside its
    /// buffer (checked once, when the document loaded).
    #[error("accessor {index}: {source}")]
    ViewRange {
        /// Accessor.
        index: u64,
        /// The view's range.
        #[source]
        source: crate::ranges::ViewRangeError,
    },
    /// The accessor's data is in a compressed stream dash cannot decode (a Draco
    /// primitive's accessor without a buffer view, or a meshopt buffer view whose
    /// fallback buffer holds no data): never read as zeros.
    #[error(
        "accessor {index}: its data is compressed with {extension} ({pointer}), which dash cannot decode"
    )]
    Compressed {
        /// Accessor.
        index: u64,
        /// The extension.
        extension: &'static str,
        /// The JSON Pointer of the extension object holding the stream.
        pointer: String,
    },
    /// The element budget refuses the accessor (spec/security.md \[L2\]).
    #[error(transparent)]
    Budget(#[from] crate::budget::BudgetError),
    /// More elements than the configured limit.
    #[error("accessor {index}: count {count} exceeds the limit of {limit}")]
    Limit {
        /// Accessor.
        index: u64,
        /// Count.
        count: u64,
        /// Limit.
        limit: u64,
    },
}

/// ` (at POINTER)`, or nothing for the document root.
fn pointer_note(pointer: &str) -> String {
    if pointer.is_empty() {
        String::new()
    } else {
        format!(" ({})", dashvertex_core::text::short(pointer))
    }
}
