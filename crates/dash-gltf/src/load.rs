//! Loading a `.gltf` or `.glb` file and its buffers.

use std::path::{Path, PathBuf};

use base64::Engine;
use dash_core::Limits;
use dash_json::Locator;

use crate::error::LoadError;
use crate::glb;
use crate::spec::Root;

/// Reads the external resources a `.gltf` file names.
pub trait Resolver {
    /// The bytes of `uri` (already percent-decoded), or why they are unavailable.
    fn read(&self, uri: &str) -> Result<Vec<u8>, String>;
}

/// Resolves relative URIs against a directory. Absolute paths and URLs with a scheme
/// are refused: a validator must not read arbitrary files or the network.
#[derive(Clone, Debug)]
pub struct FsResolver {
    /// The directory of the `.gltf` file.
    pub base: PathBuf,
    /// Largest file read.
    pub max_bytes: u64,
}

impl Resolver for FsResolver {
    fn read(&self, uri: &str) -> Result<Vec<u8>, String> {
        let scheme = uri.split_once(':').is_some_and(|(s, _)| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
        });
        if scheme || Path::new(uri).is_absolute() {
            return Err(format!("{uri:?} is not a relative file reference"));
        }
        let path = self.base.join(uri);
        let len = std::fs::metadata(&path)
            .map_err(|e| format!("{}: {e}", path.display()))?
            .len();
        if len > self.max_bytes {
            return Err(format!(
                "{}: {len} bytes exceeds the input limit",
                path.display()
            ));
        }
        std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// A resolver that has no external files (for bytes read from standard input).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoFiles;

impl Resolver for NoFiles {
    fn read(&self, uri: &str) -> Result<Vec<u8>, String> {
        Err(format!("{uri:?}: external files cannot be read here"))
    }
}

/// `.gltf` (JSON) or `.glb` (binary container).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    /// JSON text with external or embedded buffers.
    Gltf,
    /// GLB container.
    Glb,
}

/// A loaded glTF document.
#[derive(Clone, Debug)]
pub struct Gltf {
    /// The container.
    pub container: Container,
    /// The JSON text (for locating pointers).
    pub text: String,
    /// Where the JSON text starts in the file (20 for GLB).
    pub json_offset: u64,
    /// The document as a JSON value (for writing back).
    pub value: serde_json::Value,
    /// The typed view of the parts skinning uses.
    pub root: Root,
    /// Each buffer's bytes, or why they are unavailable.
    pub buffers: Vec<Result<Vec<u8>, String>>,
}

/// Percent-decodes a URI reference.
fn percent_decode(uri: &str) -> String {
    let b = uri.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match (
            b.get(i),
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (Some(b'%'), Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (Some(&c), _, _) => {
                out.push(c);
                i += 1;
            }
            (None, _, _) => break,
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn json_error(
    text: &str,
    pointer: String,
    line: usize,
    column: usize,
    message: String,
) -> LoadError {
    let locator = Locator::new(text);
    let column = if line > 0 {
        locator.char_column(line, column).max(1)
    } else {
        1
    };
    LoadError::Json {
        pointer,
        line: line.max(1),
        column,
        message,
    }
}

/// Loads a glTF document from its bytes (`.gltf` text or `.glb`).
pub fn load(bytes: &[u8], resolver: &dyn Resolver, limits: &Limits) -> Result<Gltf, LoadError> {
    limits
        .check_input(bytes.len() as u64)
        .map_err(|e| LoadError::Limit(e.to_string()))?;
    let (container, json, json_offset, bin) = if glb::is_glb(bytes) {
        let c = glb::split(bytes)?;
        (Container::Glb, c.json, c.json_offset, c.bin)
    } else {
        (Container::Gltf, bytes, 0, None)
    };
    let text = match std::str::from_utf8(json) {
        Ok(t) => t.strip_prefix('\u{feff}').unwrap_or(t).to_owned(),
        Err(e) => {
            return Err(LoadError::Json {
                pointer: String::new(),
                line: 1,
                column: 1,
                message: format!("the JSON is not UTF-8 (byte {})", e.valid_up_to()),
            });
        }
    };
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| json_error(&text, String::new(), e.line(), e.column(), e.to_string()))?;
    let mut track = serde_path_to_error::Track::new();
    let root: Root = match serde::Deserialize::deserialize(serde_path_to_error::Deserializer::new(
        &value, &mut track,
    )) {
        Ok(r) => r,
        Err(e) => {
            let pointer = dash_json::pointer_of(&track.path());
            let (line, column) = Locator::new(&text).line_col(&pointer).unwrap_or((1, 1));
            return Err(LoadError::Json {
                pointer,
                line,
                column,
                message: e.to_string(),
            });
        }
    };
    let buffers = root
        .buffers
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let data = match (&b.uri, i, bin) {
                (None, 0, Some(bin)) => Ok(bin.to_vec()),
                (None, _, _) => {
                    Err("the buffer has no uri and is not the GLB binary chunk".to_owned())
                }
                (Some(uri), _, _) => match uri.strip_prefix("data:") {
                    Some(rest) => match rest.split_once(";base64,") {
                        Some((_, data)) => base64::engine::general_purpose::STANDARD
                            .decode(data.trim())
                            .map_err(|e| format!("bad base64 data URI: {e}")),
                        None => Err("data URI is not base64".to_owned()),
                    },
                    None => resolver.read(&percent_decode(uri)),
                },
            };
            data.and_then(|mut d| {
                if (d.len() as u64) < b.byte_length {
                    Err(format!(
                        "holds {} bytes but byteLength is {}",
                        d.len(),
                        b.byte_length
                    ))
                } else {
                    d.truncate(b.byte_length as usize);
                    Ok(d)
                }
            })
        })
        .collect();
    Ok(Gltf {
        container,
        text,
        json_offset,
        value,
        root,
        buffers,
    })
}

/// Loads a file from disk, resolving external buffers next to it.
pub fn load_path(path: &Path, limits: &Limits) -> Result<Gltf, String> {
    let len = std::fs::metadata(path)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .len();
    limits.check_input(len).map_err(|e| e.to_string())?;
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    load(
        &bytes,
        &FsResolver {
            base,
            max_bytes: limits.max_input_bytes,
        },
        limits,
    )
    .map_err(|e| e.to_string())
}

impl Gltf {
    /// Line and column of a JSON Pointer in the document's JSON text.
    pub fn line_col(&self, pointer: &str) -> Option<(usize, usize)> {
        Locator::new(&self.text).line_col(pointer)
    }
}
