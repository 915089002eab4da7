//! The package's exceptions and the one error type every binding returns.
//!
//! [`Failure`] is what a binding fails with: a stable code, a message, and where in the
//! input it is. It converts to `dashvertex.DashError` (or the subclass its [`Kind`]
//! names) with `.code`, `.location`, `.file`, `.pointer`, `.line`, `.column`, `.offset` and
//! `.vertex` set, so
//! every bad input reaches Python as a `DashError`, never as a panic. Library errors
//! convert into it here, in one place, for every binding (the `*_file` functions too).

use std::error::Error as StdError;
use std::fmt;
use std::path::Path;

use pyo3::exceptions::PyException;
use pyo3::prelude::*;

pyo3::create_exception!(
    dashvertex,
    DashError,
    PyException,
    "Any failure of dashvertex on bad input or options: `.code` is a stable name \
     (IO_ERROR, FORMAT_UNKNOWN, DECODE, EXTERNAL_BUFFER, OPTION, REDUCE, MANIFEST, or the \
     validator's code of the first error that refused an input, …), `.location` says \
     where in words, and `.file`, `.pointer`, `.line`, `.column`, `.offset`, `.vertex` \
     give it as data (None when they do not apply)."
);
pyo3::create_exception!(
    dashvertex,
    DashIOError,
    DashError,
    "A file could not be read or written (code IO_ERROR)."
);
pyo3::create_exception!(
    dashvertex,
    FormatError,
    DashError,
    "The input is not a file dash reads, or does not decode (FORMAT_UNKNOWN, DECODE, \
     EXTERNAL_BUFFER, LIMIT)."
);
pyo3::create_exception!(
    dashvertex,
    OptionError,
    DashError,
    "A keyword argument or array has a value dash cannot run with (code OPTION); the \
     message names the keyword."
);
pyo3::create_exception!(
    dashvertex,
    ReduceError,
    DashError,
    "The reducer refused the influences (code REDUCE): a weight that is not finite, a \
     vertex without influence, a weight above 1 without normalization."
);
pyo3::create_exception!(
    dashvertex,
    ManifestError,
    DashError,
    "A bone manifest is invalid, or a locked manifest would change (code MANIFEST)."
);

pyo3::create_exception!(
    dashvertex,
    OutputError,
    DashError,
    "The output cannot be made without breaking a rule or losing data, so nothing was \
     written (code NOT_WRITTEN): it would not be valid, a displacement budget cannot be \
     met, or its format cannot hold what the input has."
);

/// Which exception class a [`Failure`] raises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `DashIOError`.
    Io,
    /// `FormatError`.
    Format,
    /// `OptionError`.
    Option,
    /// `ReduceError`.
    Reduce,
    /// `ManifestError`.
    Manifest,
    /// `OutputError`.
    Output,
}

/// Where a failure is; every part that applies is set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Where {
    /// The file, as the caller named it.
    pub file: Option<String>,
    /// JSON Pointer in a JSON or glTF text (or a manifest).
    pub pointer: Option<String>,
    /// The line and column (from 1) the pointer's value starts at, where known.
    pub line_column: Option<(u64, u64)>,
    /// Byte offset in a binary file.
    pub offset: Option<u64>,
    /// Vertex number.
    pub vertex: Option<u64>,
}

impl fmt::Display for Where {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(x) = &self.file {
            parts.push(x.clone());
        }
        if let Some(v) = self.vertex {
            parts.push(format!("vertex {v}"));
        }
        if let Some(p) = &self.pointer {
            match self.line_column {
                Some((l, c)) => parts.push(format!("{p} ({l}:{c})")),
                None => parts.push(p.clone()),
            }
        }
        if let Some(o) = self.offset {
            parts.push(format!("byte {o}"));
        }
        f.write_str(&parts.join(", "))
    }
}

/// A binding's failure: what to raise, with a code, a message and a location, and the
/// library error behind it ([`StdError::source`]).
#[derive(Debug)]
pub struct Failure {
    /// The exception class.
    pub kind: Kind,
    /// The stable code (`.code`).
    pub code: &'static str,
    /// The message (the exception's text).
    pub message: String,
    /// Where (boxed: failures travel in every `Result`, and are rare).
    pub at: Box<Where>,
    source: Option<Box<dyn StdError + Send + Sync>>,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl StdError for Failure {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn StdError + 'static))
    }
}

/// What bindings return.
pub type Result<T, E = Failure> = std::result::Result<T, E>;

impl Failure {
    /// A failure without a library error behind it.
    pub fn new(kind: Kind, code: &'static str, message: impl Into<String>) -> Self {
        Failure {
            kind,
            code,
            message: message.into(),
            at: Box::default(),
            source: None,
        }
    }

    /// A bad keyword value: `keyword` is the Python keyword the message names.
    pub fn option(message: impl Into<String>) -> Self {
        Failure::new(Kind::Option, "OPTION", message)
    }

    /// Records the library error behind this failure.
    pub fn caused_by(mut self, e: impl StdError + Send + Sync + 'static) -> Self {
        self.source = Some(Box::new(e));
        self
    }

    /// Records a boxed library error behind this failure.
    pub fn caused_by_boxed(mut self, e: Box<dyn StdError + Send + Sync>) -> Self {
        self.source = Some(e);
        self
    }

    /// Names the file (when not named yet) and puts it before the message.
    pub fn in_file(mut self, file: &str) -> Self {
        if self.at.file.is_none() {
            self.at.file = Some(file.to_owned());
            if !self.message.starts_with(file) {
                self.message = format!("{file}: {}", self.message);
            }
        }
        self
    }

    /// Replaces the message (the library error stays the source).
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.message = message.into();
        self
    }

    /// Sets the JSON Pointer.
    pub fn at_pointer(mut self, pointer: impl Into<String>) -> Self {
        self.at.pointer = Some(pointer.into());
        self
    }

    /// Sets the line and column the pointer's value starts at.
    pub fn at_line_column(mut self, line: u64, column: u64) -> Self {
        self.at.line_column = Some((line, column));
        self
    }

    /// Sets the byte offset.
    pub fn at_offset(mut self, offset: u64) -> Self {
        self.at.offset = Some(offset);
        self
    }

    /// Sets the vertex.
    pub fn at_vertex(mut self, vertex: u64) -> Self {
        self.at.vertex = Some(vertex);
        self
    }
}

impl From<Failure> for PyErr {
    fn from(f: Failure) -> PyErr {
        Python::attach(|py| {
            let err = match f.kind {
                Kind::Io => DashIOError::new_err(f.message.clone()),
                Kind::Format => FormatError::new_err(f.message.clone()),
                Kind::Option => OptionError::new_err(f.message.clone()),
                Kind::Reduce => ReduceError::new_err(f.message.clone()),
                Kind::Manifest => ManifestError::new_err(f.message.clone()),
                Kind::Output => OutputError::new_err(f.message.clone()),
            };
            let value = err.value(py);
            let location = f.at.to_string();
            // Setting attributes on a fresh exception instance cannot fail short of
            // memory exhaustion; the exception is raised either way.
            let _ = value.setattr("code", f.code);
            let _ = value.setattr("location", (!location.is_empty()).then_some(location));
            let _ = value.setattr("file", f.at.file.clone());
            let _ = value.setattr("pointer", f.at.pointer.clone());
            let _ = value.setattr("line", f.at.line_column.map(|(l, _)| l));
            let _ = value.setattr("column", f.at.line_column.map(|(_, c)| c));
            let _ = value.setattr("offset", f.at.offset);
            let _ = value.setattr("vertex", f.at.vertex);
            err
        })
    }
}

impl From<dashvertex_fs::FsError> for Failure {
    fn from(e: dashvertex_fs::FsError) -> Self {
        use dashvertex_fs::FsError as E;
        let (kind, code) = match &e {
            E::TooLarge { .. } => (Kind::Format, "LIMIT"),
            E::Empty { .. } => (Kind::Format, "EMPTY_INPUT"),
            _ => (Kind::Io, "IO_ERROR"),
        };
        Failure::new(kind, code, e.to_string()).caused_by(e)
    }
}

impl From<dashvertex_core::LimitError> for Failure {
    fn from(e: dashvertex_core::LimitError) -> Self {
        Failure::new(Kind::Format, "LIMIT", e.to_string()).caused_by(e)
    }
}

impl From<dashvertex_gltf::LoadError> for Failure {
    fn from(e: dashvertex_gltf::LoadError) -> Self {
        use dashvertex_gltf::LoadError as E;
        match e {
            E::Read(fs) => fs.into(),
            E::Limit(l) => l.into(),
            E::Glb { offset, .. } => Failure::new(Kind::Format, "DECODE", e.to_string())
                .at_offset(offset)
                .caused_by(e),
            E::Json { ref pointer, .. } => {
                let pointer = pointer.clone();
                let f = Failure::new(Kind::Format, "DECODE", e.to_string());
                let f = if pointer.is_empty() {
                    f
                } else {
                    f.at_pointer(pointer)
                };
                f.caused_by(e)
            }
            other => Failure::new(Kind::Format, "DECODE", other.to_string()).caused_by(other),
        }
    }
}

impl From<dashvertex_gltf::import::ImportError> for Failure {
    fn from(e: dashvertex_gltf::import::ImportError) -> Self {
        use dashvertex_gltf::import::ImportError as E;
        let pointer = match &e {
            E::Data { pointer, .. } | E::Ambiguous { pointer, .. } => Some(pointer.clone()),
            _ => None,
        };
        let f = Failure::new(Kind::Format, "DECODE", e.to_string());
        match pointer {
            Some(p) => f.at_pointer(p),
            None => f,
        }
        .caused_by(e)
    }
}

impl From<dashvertex_formats::DecodeError> for Failure {
    fn from(e: dashvertex_formats::DecodeError) -> Self {
        use dashvertex_formats::DecodeError as E;
        let f = Failure::new(Kind::Format, "DECODE", e.to_string());
        let f = match &e {
            E::Json(j) if !j.pointer.is_empty() => f.at_pointer(j.pointer.clone()),
            E::Binary(b) => f.at_offset(b.offset),
            _ => f,
        };
        f.caused_by(e)
    }
}

impl From<dashvertex_manifest::ManifestError> for Failure {
    fn from(e: dashvertex_manifest::ManifestError) -> Self {
        let f = Failure::new(Kind::Manifest, "MANIFEST", e.to_string());
        match e.pointer() {
            Some(p) => f.at_pointer(p),
            None => f,
        }
        .caused_by(e)
    }
}

impl From<dashvertex_reduce::ConfigError> for Failure {
    /// The reducer's settings errors, said with the keywords of `dashvertex.reduce`.
    fn from(e: dashvertex_reduce::ConfigError) -> Self {
        use dashvertex_reduce::ConfigError as E;
        let message = match &e {
            E::NoInfluences => "max_influences must be at least 1".to_owned(),
            E::TooManyInfluences(n) => format!(
                "max_influences={n} is more than the {} influences the reducer keeps",
                dashvertex_reduce::MAX_INFLUENCES
            ),
            E::QuantizedWithoutNormalize => "quantize='unorm8' or 'unorm16' needs normalize='unit': integer weights always sum to exactly 255 or 65535".to_owned(),
            E::MinWeight => "min_weight must be a finite number of at least 0".to_owned(),
            E::EmptyRootWithoutRoot => {
                "empty='root' needs a root bone, which arrays do not have; use empty='zero' or empty='error'"
                    .to_owned()
            }
            other => other.to_string(),
        };
        Failure::option(message).caused_by(e)
    }
}

impl From<dashvertex_reduce::ReduceError> for Failure {
    /// The reducer's refusals, said with the keywords of `dashvertex.reduce`.
    fn from(e: dashvertex_reduce::ReduceError) -> Self {
        use dashvertex_reduce::ReduceError as E;
        match e {
            E::Config(c) => c.into(),
            E::Empty(v) => Failure::new(
                Kind::Reduce,
                "REDUCE",
                format!(
                    "vertex {v} has no influence (pass empty='zero' to accept such vertices)"
                ),
            )
            .at_vertex(v)
            .caused_by(e),
            E::AboveOne {
                vertex,
                ref bone,
                ref weight,
                merged,
            } => Failure::new(
                Kind::Reduce,
                "REDUCE",
                format!(
                    "vertex {vertex}: weight {weight} of {bone} is above 1{merged} (pass normalize='unit')"
                ),
            )
            .at_vertex(vertex)
            .caused_by(e),
            other => Failure::new(Kind::Reduce, "REDUCE", other.to_string()).caused_by(other),
        }
    }
}

/// A path as the messages and reports name it.
pub fn display(path: &Path) -> String {
    path.display().to_string()
}
