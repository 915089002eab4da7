//! Validation of skinning data: DashVertex JSON, DMX binary containers, raw records, glTF
//! and FBX.
//!
//! Every rule has a stable [`Code`], a [`Severity`], a one-line message and a location
//! ([`Location`]: vertex number plus byte offset for binary input, JSON Pointer and
//! line:column for JSON). The rules are listed in `spec/validation.md`.
//!
//! ```
//! use dashvertex_validate::{Options, Profile, validate_bytes};
//! let text = br#"[{"x": 0, "y": 0, "z": 0, "skinIndex": [0, 1], "skinWeight": [0.5, 0.25]}]"#;
//! let opts = Options::new().with_profile(Profile::Gltf).with_bones(2);
//! let report = validate_bytes("mesh.json", text, &opts);
//! assert!(!report.valid);
//! let d = &report.diagnostics[0];
//! assert_eq!(d.code.as_str(), "WEIGHT_SUM");
//! assert_eq!(d.location.vertex, Some(0));
//! assert_eq!(d.location.pointer.as_deref(), Some("/0/skinWeight"));
//! ```

mod codes;
mod diagnostic;
mod influences;
mod inputs;
mod options;
mod refusal;
pub mod render;
mod report;
pub mod sarif;
mod sink;
mod skeleton;

pub use codes::{Code, Severity, UnknownName};
pub use dashvertex_formats::Format;
pub use diagnostic::{Diagnostic, Location};
pub use influences::{Profile, ZERO_SUM_HELP};
pub use inputs::gltf::check_document;
pub use options::{JointOrder, Level, Options, ProgressFn};
pub use refusal::{
    OUTSIDE_INFLUENCES, READ_THROUGH, Refusal, SKINNING, Verdict, Work, document_errors, refusal,
    refusal_for, verdict,
};
pub use report::{Counts, FileReport, GLTF_NOT_CHECKED, Report, Summary, schema};

use std::borrow::Cow;
use std::io::{Cursor, Read, Seek, SeekFrom};
use std::path::Path;

use sink::Sink;

fn unknown(sink: &mut Sink) {
    sink.report(
        Code::FORMAT_UNKNOWN,
        Location::default,
        || "not DashVertex JSON, a DMX container, raw vertex records, glTF or FBX",
    );
}

fn finish(
    name: &str,
    format: Option<Format>,
    profile: Profile,
    sink: Sink,
    opts: &Options,
) -> FileReport {
    let (counts, kept) = sink.into_parts();
    FileReport::new(name.to_owned(), format, profile, counts, kept, opts)
}

/// The report of an input with no bytes: no format can hold nothing.
fn empty(name: &str, mut sink: Sink, opts: &Options) -> FileReport {
    sink.report(
        Code::EMPTY_INPUT,
        Location::default,
        || "the input is empty",
    );
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
) -> (Option<Format>, bool) {
    if let Some(f) = opts.format {
        return (Some(f), true);
    }
    let d = Format::detect(path, head, len);
    if let (Some(named), Some(read)) = (d.contradicted, d.format) {
        let code = Code::FORMAT_NAME_MISMATCH;
        sink.push(code, || {
            Diagnostic::new(
                code,
                format!("the name says {named} but the bytes are {read}: read as {read}"),
                Location {
                    offset: Some(0),
                    ..Location::default()
                },
            )
        });
    }
    (d.format, d.by_name)
}

/// The format a whole text is read as (`--input-format` is never second-guessed): what
/// its content decisively shows, with a `FORMAT_NAME_MISMATCH` note when that contradicts
/// the name ([`dashvertex_formats::Detected::read_text`]).
fn refine(
    format: Option<Format>,
    opts: &Options,
    by_name: bool,
    bytes: &[u8],
    sink: &mut Sink,
) -> Option<Format> {
    if opts.format.is_some() {
        return format;
    }
    let detected = dashvertex_formats::Detected {
        format,
        contradicted: None,
        by_name,
    };
    let (read, named) = detected.read_text(bytes);
    if let (Some(named), Some(held)) = (named, read) {
        sink.report(
            Code::FORMAT_NAME_MISMATCH,
            || Location {
                offset: Some(0),
                ..Location::default()
            },
            || format!("the name says {named} but the text is {held}: read as {held}"),
        );
    }
    read
}

/// The resolver for the external buffers of a glTF file on disk: its folder and the
/// allowed folders. A folder that cannot be opened leaves none (every external buffer is
/// then reported unavailable).
#[cfg(feature = "fs")]
fn folder_resolver(path: &Path, opts: &Options) -> Box<dyn dashvertex_gltf::Resolver> {
    match dashvertex_gltf::FsResolver::for_file(
        path,
        &opts.resource_dirs,
        opts.limits.max_input_bytes,
    ) {
        Ok(r) => Box::new(r),
        Err(_) => Box::new(dashvertex_gltf::NoFiles),
    }
}

/// Validates a document held in memory (one read from any format, or built by a tool)
/// by the rules of a DMX file: every vertex's influences across its sets, the
/// skeleton, the limits. The report is named `name`; a diagnostic's location gives the
/// vertex, bone, set and slot, and no byte offset (there is no file). A document the
/// DMX writer cannot hold (a bone name over 31 bytes, more than 4 GiB) is one
/// `LIMIT_EXCEEDED` error saying why.
///
/// ```
/// use dashvertex_core::{Document, InfluenceSet, Mesh, Vertex};
/// use dashvertex_validate::{Options, Profile, validate_document};
/// let skin = InfluenceSet::from_pairs(&[(0, 0.5), (1, 0.25)]).unwrap();
/// let mesh = Mesh::skinned(vec![Vertex { position: [0.0; 3], skin }]);
/// let doc = Document { mesh, skeleton: None };
/// let report = validate_document("mesh", &doc, &Options::new().with_profile(Profile::Gltf));
/// let sum = report.diagnostics.iter().find(|d| d.code.as_str() == "WEIGHT_SUM").unwrap();
/// assert_eq!(sum.location.vertex, Some(0));
/// ```
pub fn validate_document(
    name: &str,
    document: &dashvertex_core::Document,
    opts: &Options,
) -> FileReport {
    let write = dashvertex_binary::WriteOptions::default();
    let bytes = match dashvertex_binary::encode_document(document, &write) {
        Ok(b) => b,
        Err(e) => {
            let mut sink = Sink::for_options(opts);
            let code = Code::LIMIT_EXCEEDED;
            sink.push(code, || {
                Diagnostic::new(code, e.to_string(), Location::default())
            });
            return finish(
                name,
                None,
                opts.profile.unwrap_or(Profile::Dash),
                sink,
                opts,
            );
        }
    };
    let mut o = opts.clone();
    o.format = Some(Format::Dmx);
    let mut report = validate_bytes(name, &bytes, &o);
    report.format = None;
    for d in &mut report.diagnostics {
        d.location.offset = None;
    }
    report
}

/// Validates bytes held in memory, touching no file: `name` only labels the report and
/// hints at the format, and a glTF file's external buffers are reported unavailable (use
/// [`validate_with`] to supply them, [`validate_path`] to read a file with its buffers).
pub fn validate_bytes(name: &str, bytes: &[u8], opts: &Options) -> FileReport {
    validate_with(name, bytes, &dashvertex_gltf::NoFiles, opts)
}

/// Validates bytes whose glTF external buffers come from `resolver` (for instance
/// [`dashvertex_gltf::MemoryFiles`]: an output and its buffer files before they are
/// written, or [`dashvertex_gltf::FsResolver`] for a folder).
pub fn validate_with(
    name: &str,
    bytes: &[u8],
    resolver: &dyn dashvertex_gltf::Resolver,
    opts: &Options,
) -> FileReport {
    dispatch(name, Source::Memory(Cow::Borrowed(bytes)), resolver, opts).0
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
    dispatch(name, Source::Memory(Cow::Owned(bytes)), resolver, opts)
}

/// Validates a file on disk, with a glTF file's external buffers from its folder (and
/// [`Options::resource_dirs`]). Binary files are streamed (memory does not grow with the
/// file); JSON and glTF files are read whole, up to the input limit. Only a regular file
/// is read: it is opened without blocking (a FIFO named `x.gltf` cannot hang the run) and
/// checked on the open handle (a symlink to `/dev/zero` is not read); anything else is
/// reported as `IO_ERROR` at once.
#[cfg(feature = "fs")]
pub fn validate_path(path: &Path, opts: &Options) -> FileReport {
    validate_found(path, opts)
}

/// [`validate_path`] for a file found by a directory walk rather than named by the user
/// (the same checks: a walk and a name are read alike).
#[cfg(feature = "fs")]
pub fn validate_found(path: &Path, opts: &Options) -> FileReport {
    let opened = dashvertex_fs::open_regular(path)
        .map(|(f, m)| (m, f))
        .map_err(|e| match e {
            dashvertex_fs::FsError::Io { source, .. } => source.to_string(),
            other => other.to_string(),
        });
    validate_opened(path, opened, opts)
}

/// The report of an entry that could not be read at all (a folder a walk could not
/// list): `IO_ERROR` with `message`, so the entry has its result beside the others.
#[cfg(feature = "fs")]
pub fn unreadable(path: &Path, message: &str, opts: &Options) -> FileReport {
    validate_opened(path, Err(message.to_owned()), opts)
}

/// Validates what `opened` holds; the report keeps `path` (for names that are not
/// UTF-8, which its `file` can only approximate).
#[cfg(feature = "fs")]
fn validate_opened(
    path: &Path,
    opened: Result<(std::fs::Metadata, std::fs::File), String>,
    opts: &Options,
) -> FileReport {
    let mut report = check_opened(path, opened, opts);
    report.path = Some(path.to_path_buf());
    report
}

#[cfg(feature = "fs")]
fn check_opened(
    path: &Path,
    opened: Result<(std::fs::Metadata, std::fs::File), String>,
    opts: &Options,
) -> FileReport {
    let name = path.display().to_string();
    let fail = |code: Code, message: String| {
        let mut sink = Sink::for_options(opts);
        sink.push(code, || Diagnostic::new(code, message, Location::default()));
        finish(
            &name,
            None,
            opts.profile.unwrap_or(Profile::Dash),
            sink,
            opts,
        )
    };
    let resolver = folder_resolver(path, opts);
    let src = match opened {
        Err(e) => return fail(Code::IO_ERROR, e),
        Ok((m, _)) if m.is_dir() => return fail(Code::IO_ERROR, "is a directory".into()),
        Ok((m, file)) if m.is_file() => Source::File { file, len: m.len() },
        // A device or FIFO the user named: its length says nothing, so the handle already
        // open is read up to the input limit, as standard input is (opening a FIFO again
        // would wait for a writer that may be gone).
        Ok((_, file)) => {
            let max = opts.limits.max_input_bytes;
            let mut bytes = Vec::new();
            if let Err(e) = file.take(max.saturating_add(1)).read_to_end(&mut bytes) {
                return fail(Code::IO_ERROR, e.to_string());
            }
            if bytes.len() as u64 > max {
                return fail(
                    Code::LIMIT_EXCEEDED,
                    format!("{name}: more than {max} bytes (the input limit)"),
                );
            }
            Source::Memory(Cow::Owned(bytes))
        }
    };
    dispatch(&name, src, resolver.as_ref(), opts).0
}

fn io_error(sink: &mut Sink, e: &std::io::Error) {
    sink.report(Code::IO_ERROR, Location::default, || e.to_string());
}

/// Where an input's bytes are: in memory (borrowed, or handed over to be given back), or
/// in a file read only as far as its format needs (the first bytes to tell the format;
/// all of it for JSON and glTF; a stream for binary containers).
enum Source<'a> {
    Memory(Cow<'a, [u8]>),
    #[cfg_attr(not(feature = "fs"), allow(dead_code))]
    File {
        file: std::fs::File,
        len: u64,
    },
}

impl Source<'_> {
    fn len(&self) -> u64 {
        match self {
            Source::Memory(b) => b.len() as u64,
            Source::File { len, .. } => *len,
        }
    }

    /// Up to 64 bytes from the start.
    fn head(&mut self) -> std::io::Result<Vec<u8>> {
        match self {
            Source::Memory(b) => Ok(b.get(..64).unwrap_or(b).to_vec()),
            Source::File { file, .. } => {
                let mut head = Vec::with_capacity(64);
                file.seek(SeekFrom::Start(0))?;
                (&mut *file).take(64).read_to_end(&mut head)?;
                Ok(head)
            }
        }
    }

    /// All the bytes, in memory (a file is read from its start, once, and never past
    /// `max`: a file that grew since its size was checked is an error, not a larger read).
    fn into_memory<'s>(self, max: u64) -> std::io::Result<Cow<'s, [u8]>>
    where
        Self: 's,
    {
        match self {
            Source::Memory(b) => Ok(b),
            Source::File { mut file, len } => {
                // A large file is read in pieces on the pool's threads.
                #[cfg(feature = "fs")]
                if len <= max
                    && let Some(all) =
                        dashvertex_fs::read_parallel(&file, std::path::Path::new("input"), len)
                            .map_err(|e| std::io::Error::other(e.to_string()))?
                {
                    return Ok(Cow::Owned(all));
                }
                let mut all = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
                file.seek(SeekFrom::Start(0))?;
                file.take(max.saturating_add(1)).read_to_end(&mut all)?;
                if all.len() as u64 > max {
                    return Err(std::io::Error::other(
                        "the file grew past the input limit while it was read",
                    ));
                }
                Ok(Cow::Owned(all))
            }
        }
    }
}

/// The one format dispatch: empty input, format choice (`--input-format`, else the
/// bytes' signature over a contradicting name, else the name, else a guess; JSON with an
/// `asset` member is glTF), the input limit for formats read whole, then the format's
/// checks. Gives back bytes handed over in memory.
fn dispatch(
    name: &str,
    mut src: Source<'_>,
    resolver: &dyn dashvertex_gltf::Resolver,
    opts: &Options,
) -> (FileReport, Option<Vec<u8>>) {
    let mut sink = Sink::for_options(opts);
    let give_back = |src: Source<'_>| match src {
        Source::Memory(Cow::Owned(v)) => Some(v),
        _ => None,
    };
    let len = src.len();
    if len == 0 {
        return (empty(name, sink, opts), give_back(src));
    }
    let head = match src.head() {
        Ok(h) => h,
        Err(e) => {
            io_error(&mut sink, &e);
            let profile = opts.profile.unwrap_or(Profile::Dash);
            return (finish(name, None, profile, sink, opts), None);
        }
    };
    let (chosen, named) = choose(opts, Path::new(name), &head, len, &mut sink);
    let whole = matches!(
        chosen,
        Some(Format::Json | Format::Gltf | Format::Glb | Format::Fbx)
    );
    if !whole {
        let profile = match chosen {
            Some(f @ (Format::Dmx | Format::Raw)) => match &mut src {
                Source::Memory(b) => {
                    inputs::binary::validate(&mut Cursor::new(&b[..]), len, f, opts, &mut sink)
                }
                Source::File { file, .. } => match file.seek(SeekFrom::Start(0)) {
                    Ok(_) => inputs::binary::validate(file, len, f, opts, &mut sink),
                    Err(e) => {
                        io_error(&mut sink, &e);
                        opts.profile.unwrap_or(Profile::Dash)
                    }
                },
            },
            _ => {
                unknown(&mut sink);
                opts.profile.unwrap_or(Profile::Dash)
            }
        };
        return (finish(name, chosen, profile, sink, opts), give_back(src));
    }
    // Text and glTF are read whole: the input limit applies first (to a file before it
    // is read; to bytes in memory alike, so both give the same report).
    if let Err(e) = opts.limits.check_input(len) {
        sink.report(Code::LIMIT_EXCEEDED, Location::default, || e.to_string());
        let gltf = matches!(chosen, Some(Format::Gltf | Format::Glb));
        let profile = opts
            .profile
            .unwrap_or(if gltf { Profile::Gltf } else { Profile::Dash });
        return (finish(name, chosen, profile, sink, opts), give_back(src));
    }
    let bytes = match src.into_memory(opts.limits.max_input_bytes) {
        Ok(b) => b,
        Err(e) => {
            io_error(&mut sink, &e);
            let profile = opts.profile.unwrap_or(Profile::Dash);
            return (finish(name, chosen, profile, sink, opts), None);
        }
    };
    let format = refine(chosen, opts, named, &bytes, &mut sink);
    if format == Some(Format::Fbx) {
        let profile = inputs::fbx::validate(&bytes, opts, &mut sink);
        let back = match bytes {
            Cow::Owned(v) => Some(v),
            Cow::Borrowed(_) => None,
        };
        return (finish(name, format, profile, sink, opts), back);
    }
    if matches!(format, Some(Format::Gltf | Format::Glb)) {
        let (profile, back) = inputs::gltf::validate_keeping(bytes, resolver, opts, &mut sink);
        return (finish(name, format, profile, sink, opts), back);
    }
    let profile = inputs::json::validate(&bytes, opts, &mut sink);
    let back = match bytes {
        Cow::Owned(v) => Some(v),
        Cow::Borrowed(_) => None,
    };
    (finish(name, format, profile, sink, opts), back)
}
