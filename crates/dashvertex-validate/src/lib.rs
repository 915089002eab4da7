//! Validation of skinning data: DashVertex JSON, DMX binary containers and raw records.
//!
//! Every rule has a stable [`Code`], a [`Severity`], a one-line message and a location
//! ([`Location`]: vertex number plus byte offset for binary input, JSON Pointer and
//! line:column for JSON). The rules are listed in `spec/validation.md`.
//!
//! ```
//! use dashvertex_validate::{Options, Profile, validate_bytes};
//! let text = br#"[{"x": 0, "y": 0, "z": 0, "skinIndex": [0, 1], "skinWeight": [0.5, 0.25]}]"#;
//! let opts = Options { profile: Some(Profile::Gltf), bones: Some(2), ..Options::default() };
//! let report = validate_bytes("mesh.json", text, &opts);
//! assert!(!report.valid);
//! let d = &report.diagnostics[0];
//! assert_eq!(d.code.as_str(), "WEIGHT_SUM");
//! assert_eq!(d.location.vertex, Some(0));
//! assert_eq!(d.location.pointer.as_deref(), Some("/0/skinWeight"));
//! ```

mod codes;
mod diagnostic;
pub mod influences;
pub mod inputs;
mod manifest;
mod options;
pub mod render;
mod report;
pub mod sarif;
pub mod sink;
pub mod skeleton;

pub use codes::{Code, Severity};
pub use diagnostic::{Diagnostic, Location};
pub use influences::Profile;
pub use manifest::{ManifestBones, manifest_bones};
pub use options::{InputFormat, Level, Options};
pub use report::{Counts, FileReport, Report, Summary, schema};

use std::io::{Cursor, Read};
use std::path::Path;

use sink::Sink;

fn unknown(sink: &mut Sink) {
    sink.push(Code::FORMAT_UNKNOWN, || {
        Diagnostic::new(
            Code::FORMAT_UNKNOWN,
            "not DashVertex JSON, a DMX container or raw vertex records",
            Location::default(),
        )
    });
}

fn finish(
    name: &str,
    format: Option<InputFormat>,
    profile: Profile,
    sink: Sink,
    opts: &Options,
) -> FileReport {
    let (counts, kept) = sink.into_parts();
    FileReport::new(name.to_owned(), format, profile, counts, kept, opts)
}

/// The report of an input with no bytes: no format can hold nothing.
fn empty(name: &str, mut sink: Sink, opts: &Options) -> FileReport {
    sink.push(Code::EMPTY_INPUT, || {
        Diagnostic::new(Code::EMPTY_INPUT, "the input is empty", Location::default())
    });
    finish(
        name,
        None,
        opts.profile.unwrap_or(Profile::Dash),
        sink,
        opts,
    )
}

/// The format to read a file as, and whether it was named (by `--input-format` or the
/// file's extension) rather than guessed. `--input-format` wins; otherwise the bytes'
/// signature wins over a name that contradicts it, with a `FORMAT_NAME_MISMATCH` note.
fn choose(
    opts: &Options,
    path: &Path,
    head: &[u8],
    len: u64,
    sink: &mut Sink,
) -> (Option<InputFormat>, bool) {
    if let Some(f) = opts.format {
        return (Some(f), true);
    }
    let (format, contradicted) = InputFormat::decide(path, head, len);
    if let (Some(named), Some(read)) = (contradicted, format) {
        let code = Code::FORMAT_NAME_MISMATCH;
        sink.push(code, || {
            Diagnostic::new(
                code,
                format!(
                    "the name says {} but the bytes are {}: read as {}",
                    named.as_str(),
                    read.as_str(),
                    read.as_str()
                ),
                Location {
                    offset: Some(0),
                    ..Location::default()
                },
            )
        });
        return (format, false);
    }
    (format, InputFormat::from_path(path).is_some())
}

/// A JSON text with an `asset` member is glTF, not DashVertex.
fn refine(format: Option<InputFormat>, explicit: bool, bytes: &[u8]) -> Option<InputFormat> {
    match format {
        Some(InputFormat::Json) if !explicit => {
            let gltf = dashvertex_gltf::is_gltf_bytes(bytes);
            Some(if gltf {
                InputFormat::Gltf
            } else {
                InputFormat::Json
            })
        }
        f => f,
    }
}

/// The resolver for a glTF file's external buffers: its folder (and the allowed
/// folders), when it has one on disk; none for input held only in memory.
fn resolver(name: &str, opts: &Options) -> Box<dyn dashvertex_gltf::Resolver> {
    let path = Path::new(name);
    let on_disk = match path.parent() {
        Some(dir) => dir.as_os_str().is_empty() || dir.is_dir(),
        None => false,
    };
    match on_disk
        .then(|| {
            dashvertex_gltf::FsResolver::for_file(
                path,
                &opts.resource_dirs,
                opts.limits.max_input_bytes,
            )
            .ok()
        })
        .flatten()
    {
        Some(r) => Box::new(r),
        None => Box::new(dashvertex_gltf::NoFiles),
    }
}

/// Validates a file held in memory. A glTF file's external buffers are read from the
/// directory `name` is in.
pub fn validate_bytes(name: &str, bytes: &[u8], opts: &Options) -> FileReport {
    let r = resolver(name, opts);
    validate_with(name, bytes, r.as_ref(), opts)
}

/// Validates bytes that stand alone: a glTF file's external buffers are never read
/// (they are reported unavailable). For checking an output before it is written.
pub fn validate_standalone(name: &str, bytes: &[u8], opts: &Options) -> FileReport {
    validate_with(name, bytes, &dashvertex_gltf::NoFiles, opts)
}

/// Validates bytes whose glTF external buffers come from `resolver` (for instance
/// [`dashvertex_gltf::MemoryFiles`]: an output and its buffer files before they are written).
pub fn validate_with(
    name: &str,
    bytes: &[u8],
    resolver: &dyn dashvertex_gltf::Resolver,
    opts: &Options,
) -> FileReport {
    dispatch(name, std::borrow::Cow::Borrowed(bytes), resolver, opts).0
}

/// [`validate_with`] on bytes handed over, which are given back afterwards: a GLB is
/// checked in place instead of having its binary chunk copied (for checking a large
/// output before it is written).
pub fn validate_owned(
    name: &str,
    bytes: Vec<u8>,
    resolver: &dyn dashvertex_gltf::Resolver,
    opts: &Options,
) -> (FileReport, Option<Vec<u8>>) {
    dispatch(name, std::borrow::Cow::Owned(bytes), resolver, opts)
}

fn dispatch(
    name: &str,
    input: std::borrow::Cow<'_, [u8]>,
    resolver: &dyn dashvertex_gltf::Resolver,
    opts: &Options,
) -> (FileReport, Option<Vec<u8>>) {
    let mut sink = Sink::for_options(opts);
    let bytes: &[u8] = &input;
    if bytes.is_empty() {
        return (empty(name, sink, opts), Some(Vec::new()));
    }
    let (chosen, named) = choose(opts, Path::new(name), bytes, bytes.len() as u64, &mut sink);
    let format = refine(chosen, named, bytes);
    if matches!(format, Some(InputFormat::Gltf | InputFormat::Glb)) {
        let (profile, back) = inputs::gltf::validate_keeping(input, resolver, opts, &mut sink);
        return (finish(name, format, profile, sink, opts), back);
    }
    let profile = match format {
        Some(InputFormat::Json) => inputs::json::validate(bytes, opts, &mut sink),
        Some(f @ (InputFormat::Dmx | InputFormat::Raw)) => {
            let len = bytes.len() as u64;
            inputs::binary::validate(&mut Cursor::new(bytes), len, f, opts, &mut sink)
        }
        _ => {
            unknown(&mut sink);
            opts.profile.unwrap_or(Profile::Dash)
        }
    };
    let back = match input {
        std::borrow::Cow::Owned(v) => Some(v),
        std::borrow::Cow::Borrowed(_) => None,
    };
    (finish(name, format, profile, sink, opts), back)
}

/// Validates a file on disk. Binary files are streamed (memory does not grow with the
/// file); JSON files are read whole, up to the input limit.
pub fn validate_path(path: &Path, opts: &Options) -> FileReport {
    let name = path.display().to_string();
    let mut sink = Sink::for_options(opts);
    let io_fail = |e: std::io::Error, mut sink: Sink| {
        sink.push(Code::IO_ERROR, || {
            Diagnostic::new(Code::IO_ERROR, e.to_string(), Location::default())
        });
        finish(
            &name,
            None,
            opts.profile.unwrap_or(Profile::Dash),
            sink,
            opts,
        )
    };
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => return io_fail(e, sink),
    };
    let len = match file.metadata() {
        Ok(m) if m.is_dir() => {
            return io_fail(std::io::Error::other("is a directory"), sink);
        }
        Ok(m) if m.len() == 0 && m.is_file() => return empty(&name, sink, opts),
        Ok(m) => m.len(),
        Err(e) => return io_fail(e, sink),
    };
    let mut head = Vec::with_capacity(64);
    if let Err(e) = (&mut file).take(64).read_to_end(&mut head) {
        return io_fail(e, sink);
    }
    let (mut format, named) = choose(opts, path, &head, len, &mut sink);
    if format == Some(InputFormat::Json) && !named && opts.limits.check_input(len).is_ok() {
        match std::fs::read(path) {
            Ok(bytes) => format = refine(format, false, &bytes),
            Err(e) => return io_fail(e, sink),
        }
    }
    let profile = match format {
        Some(InputFormat::Gltf | InputFormat::Glb) => {
            if let Err(e) = opts.limits.check_input(len) {
                sink.push(Code::LIMIT_EXCEEDED, || {
                    Diagnostic::new(Code::LIMIT_EXCEEDED, e.to_string(), Location::default())
                });
                opts.profile.unwrap_or(Profile::Gltf)
            } else {
                match std::fs::read(path) {
                    Ok(bytes) => {
                        let r = resolver(&name, opts);
                        inputs::gltf::validate(
                            std::borrow::Cow::Owned(bytes),
                            r.as_ref(),
                            opts,
                            &mut sink,
                        )
                    }
                    Err(e) => return io_fail(e, sink),
                }
            }
        }
        Some(InputFormat::Json) => {
            if let Err(e) = opts.limits.check_input(len) {
                sink.push(Code::LIMIT_EXCEEDED, || {
                    Diagnostic::new(Code::LIMIT_EXCEEDED, e.to_string(), Location::default())
                });
                opts.profile.unwrap_or(Profile::Dash)
            } else {
                match std::fs::read(path) {
                    Ok(bytes) => inputs::json::validate(&bytes, opts, &mut sink),
                    Err(e) => return io_fail(e, sink),
                }
            }
        }
        Some(f @ (InputFormat::Dmx | InputFormat::Raw)) => {
            inputs::binary::validate(&mut file, len, f, opts, &mut sink)
        }
        None => {
            unknown(&mut sink);
            opts.profile.unwrap_or(Profile::Dash)
        }
    };
    finish(&name, format, profile, sink, opts)
}
