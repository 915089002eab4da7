//! Validation of skinning data: DashVertex JSON, DMX binary containers and raw records.
//!
//! Every rule has a stable [`Code`], a [`Severity`], a one-line message and a location
//! ([`Location`]: vertex number plus byte offset for binary input, JSON Pointer and
//! line:column for JSON). The rules are listed in `spec/validation.md`.
//!
//! ```
//! use dash_validate::{Options, Profile, validate_bytes};
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
mod options;
pub mod render;
mod report;
pub mod sink;
pub mod skeleton;

pub use codes::{Code, Severity};
pub use diagnostic::{Diagnostic, Location};
pub use influences::Profile;
pub use options::{InputFormat, Options};
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
    FileReport::new(
        name.to_owned(),
        format,
        profile,
        counts,
        kept,
        opts.deny_warnings,
    )
}

/// Validates a file held in memory.
pub fn validate_bytes(name: &str, bytes: &[u8], opts: &Options) -> FileReport {
    let mut sink = Sink::new(opts.max_diagnostics);
    let format = opts
        .format
        .or_else(|| InputFormat::from_path(Path::new(name)))
        .or_else(|| InputFormat::sniff(bytes, bytes.len() as u64));
    let profile = match format {
        Some(InputFormat::Json) => inputs::json::validate(bytes, opts, &mut sink),
        Some(f @ (InputFormat::Dmx | InputFormat::Raw)) => {
            let len = bytes.len() as u64;
            inputs::binary::validate(&mut Cursor::new(bytes), len, f, opts, &mut sink)
        }
        None => {
            unknown(&mut sink);
            opts.profile.unwrap_or(Profile::Dash)
        }
    };
    finish(name, format, profile, sink, opts)
}

/// Validates a file on disk. Binary files are streamed (memory does not grow with the
/// file); JSON files are read whole, up to the input limit.
pub fn validate_path(path: &Path, opts: &Options) -> FileReport {
    let name = path.display().to_string();
    let mut sink = Sink::new(opts.max_diagnostics);
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
        Ok(m) => m.len(),
        Err(e) => return io_fail(e, sink),
    };
    let mut head = Vec::with_capacity(64);
    if let Err(e) = (&mut file).take(64).read_to_end(&mut head) {
        return io_fail(e, sink);
    }
    let format = opts
        .format
        .or_else(|| InputFormat::from_path(path))
        .or_else(|| InputFormat::sniff(&head, len));
    let profile = match format {
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
