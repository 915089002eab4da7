//! What a `source` argument is: a path (`str` or `os.PathLike`) or the bytes of a file,
//! and reading it as the validator and the CLI do (bounded by the input limit, the
//! format decided by [`dashvertex_formats::Format::detect`], bytes before name).

use std::path::{Path, PathBuf};

use dashvertex_core::Limits;
use dashvertex_formats::Format;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyMemoryView};

use crate::errors::{Failure, Kind, Result};

/// The name a report or message gives bytes passed without a `name`.
pub const BYTES_NAME: &str = "<bytes>";

/// A `source` argument.
pub enum Source {
    /// A file on disk (its external glTF buffers resolve beside it).
    Path(PathBuf),
    /// A file's bytes (a glTF's external buffers cannot be found).
    Bytes(Vec<u8>),
}

impl Source {
    /// `source` as a path or bytes; anything else is an `OptionError` naming `keyword`.
    pub fn extract(source: &Bound<'_, PyAny>, keyword: &str) -> Result<Source> {
        if let Ok(b) = source.cast::<PyBytes>() {
            return Ok(Source::Bytes(b.as_bytes().to_vec()));
        }
        if let Ok(b) = source.cast::<PyByteArray>() {
            return Ok(Source::Bytes(b.to_vec()));
        }
        if source.cast::<PyMemoryView>().is_ok()
            && let Ok(b) = source
                .call_method0("tobytes")
                .and_then(|b| b.extract::<Vec<u8>>())
        {
            return Ok(Source::Bytes(b));
        }
        match source.extract::<PathBuf>() {
            // A path named `-` is the file `-`, not standard input.
            Ok(p) if p == Path::new("-") => Ok(Source::Path(PathBuf::from("./-"))),
            Ok(p) => Ok(Source::Path(p)),
            Err(_) => Err(Failure::option(format!(
                "{keyword} must be a path (str or os.PathLike) or bytes, not {}",
                source
                    .get_type()
                    .name()
                    .map_or_else(|_| "this type".to_owned(), |n| n.to_string())
            ))),
        }
    }

    /// The name messages and reports use: the path as given, or `name` for bytes.
    pub fn name(&self, name: Option<&str>) -> String {
        match self {
            Source::Path(p) => crate::errors::display(p),
            Source::Bytes(_) => name.unwrap_or(BYTES_NAME).to_owned(),
        }
    }
}

/// A file read and its format decided.
pub struct Input {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// What they are.
    pub format: Format,
    /// Where they came from (`None` for bytes).
    pub path: Option<PathBuf>,
    /// The name for messages.
    pub name: String,
}

/// Reads `source` and decides its format as the validator does: the bytes' signature
/// over a name that contradicts it, a JSON text by what it holds.
pub fn read(source: Source, name: Option<&str>, limits: &Limits) -> Result<Input> {
    let label = source.name(name);
    let (bytes, path) = match source {
        Source::Path(p) => (
            dashvertex_fs::read_input(&p, limits.max_input_bytes)?,
            Some(p),
        ),
        Source::Bytes(b) => {
            limits.check_input(b.len() as u64)?;
            (b, None)
        }
    };
    if bytes.is_empty() {
        return Err(
            Failure::new(Kind::Format, "EMPTY_INPUT", "the input is empty").in_file(&label),
        );
    }
    let named = path.as_deref().unwrap_or(Path::new(""));
    let detected = Format::detect(named, &bytes, bytes.len() as u64);
    let Some(format) = detected.read_text(&bytes).0 else {
        return Err(Failure::new(
            Kind::Format,
            "FORMAT_UNKNOWN",
            "not glTF, GLB, DashVertex JSON, a DMX container, raw vertex records or FBX",
        )
        .in_file(&label));
    };
    Ok(Input {
        bytes,
        format,
        path,
        name: label,
    })
}
