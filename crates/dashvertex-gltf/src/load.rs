//! Loading a `.gltf` or `.glb` file and its buffers.

#[cfg(feature = "fs")]
use std::path::{Path, PathBuf};

use base64::Engine;
use dashvertex_core::Limits;
use dashvertex_core::file::FsError;
use dashvertex_json::pointer::Locator;

use crate::budget::Budget;
use crate::document::Root;
use crate::error::{BufferError, LoadError};
use crate::glb;
use crate::ranges::ViewRangeError;

mod decoded;

/// The members of a glTF root object: a JSON object with none of them (DashVertex JSON,
/// a configuration file) is some other document, refused rather than read as an empty
/// glTF.
const GLTF_MEMBERS: &[&str] = &[
    "asset",
    "accessors",
    "animations",
    "buffers",
    "bufferViews",
    "cameras",
    "extensions",
    "extensionsUsed",
    "extensionsRequired",
    "extras",
    "images",
    "materials",
    "meshes",
    "nodes",
    "samplers",
    "scene",
    "scenes",
    "skins",
    "textures",
];

/// A carried range shorter than this is read with the rest: a hole has a cost of its
/// own (a system call, a seek) that a short read does not.
pub(crate) const MIN_HOLE: u64 = 64 << 10;

/// Reads the external resources a `.gltf` file names.
pub trait Resolver {
    /// The bytes of the resource `uri` (already percent-decoded): at most
    /// `byte_length + 1` of them (one more tells that the resource is longer), or why
    /// they are unavailable.
    fn read(&self, uri: &str, byte_length: u64) -> Result<Vec<u8>, FsError>;
}

/// Resolves relative references inside the glTF file's folder (and folders allowed
/// explicitly), regular files only (`spec/security.md`). Absolute paths, references with
/// a scheme, and references that leave the allowed folders after `..` and symlinks are
/// refused without reading anything.
#[cfg(feature = "fs")]
#[derive(Clone, Debug)]
pub struct FsResolver {
    /// Where references resolve and may lead.
    pub root: dashvertex_fs::ResourceRoot,
    /// Largest resource read.
    pub max_bytes: u64,
}

#[cfg(feature = "fs")]
impl FsResolver {
    /// The resolver for the glTF file at `path`: its folder, plus `allowed` folders.
    pub fn for_file(path: &Path, allowed: &[PathBuf], max_bytes: u64) -> Result<Self, FsError> {
        let mut root = dashvertex_fs::ResourceRoot::of_file(path)?;
        for d in allowed {
            root.allow(d)?;
        }
        Ok(FsResolver { root, max_bytes })
    }
}

#[cfg(feature = "fs")]
impl Resolver for FsResolver {
    fn read(&self, uri: &str, byte_length: u64) -> Result<Vec<u8>, FsError> {
        self.root.read(uri, byte_length, self.max_bytes)
    }
}

/// A resolver that has no external files (for bytes read from standard input).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoFiles;

impl Resolver for NoFiles {
    fn read(&self, uri: &str, _: u64) -> Result<Vec<u8>, FsError> {
        Err(FsError::NoFolder {
            uri: dashvertex_core::text::short(uri),
        })
    }
}

/// A resolver over files held in memory, by name (for checking an output, and the
/// buffer files to be written beside it, before anything is written).
#[derive(Clone, Debug, Default)]
pub struct MemoryFiles<'a> {
    /// `(file name, bytes)`: the name as on disk, which a document's `uri` names
    /// percent-encoded.
    pub files: Vec<(&'a str, &'a [u8])>,
}

impl Resolver for MemoryFiles<'_> {
    fn read(&self, uri: &str, byte_length: u64) -> Result<Vec<u8>, FsError> {
        // `uri` arrives percent-decoded; the names here are the files' own.
        match self.files.iter().find(|(n, _)| *n == uri) {
            Some((_, b)) => Ok(b
                .get(
                    ..usize::try_from(byte_length.saturating_add(1))
                        .map_or(b.len(), |n| n.min(b.len())),
                )
                .unwrap_or_default()
                .to_vec()),
            None => NoFiles.read(uri, byte_length),
        }
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
    /// The file's bytes when it was loaded from an owned GLB ([`load_owned`]): its
    /// binary chunk is buffer 0, read in place.
    file: Vec<u8>,
    /// Each buffer's bytes, or why they are unavailable.
    buffers: Vec<Result<BufferData, BufferError>>,
    /// The JSON text started with a UTF-8 byte order mark, which glTF forbids. It is
    /// skipped so that the rest can still be checked; the validator reports it.
    pub byte_order_mark: bool,
    /// Loaded by [`load_owned`] from a `.gltf` text, which became [`Gltf::text`].
    text_taken: bool,
    /// Per buffer view, why its range does not lie in its buffer (checked once here).
    view_ranges: Vec<Option<ViewRangeError>>,
    /// The element budget's verdict on each accessor.
    budget: Budget,
    /// Bytes of the input: the file and the external buffers it loaded.
    input_bytes: u64,
    /// Bytes of a GLB file after the length its header declares (0 for `.gltf`): allowed
    /// padding, which the validator reports as a warning.
    pub glb_extra_bytes: u64,
    /// What a sparse load ([`crate::sparse::load_path_for_rewrite`]) left unread.
    #[cfg(feature = "fs")]
    sparse: Option<crate::sparse::Sparse>,
    /// The accessors and buffer views whose data is in a compressed stream.
    compressed: crate::compressed::Compressed,
    /// Whether meshopt views were decoded into the buffers, which then differ from the
    /// file's bytes: no range of them may be copied from the file
    /// ([`Gltf::set_sparse`] is refused).
    #[cfg_attr(not(feature = "fs"), allow(dead_code))]
    meshopt_decoded: bool,
    /// The errors of the document a job read through and carries into its output
    /// unchanged, by code (set by the job's input check, `dashvertex_validate::verdict`;
    /// empty for a file without errors): its output check lets as many of each through,
    /// and no error the input did not have.
    pub carried_errors: std::collections::BTreeMap<String, u64>,
}

/// The most arrays and objects a glTF document may nest, the root object included
/// (serde_json's recursion limit: dash never recurses deeper on input).
pub const MAX_JSON_DEPTH: usize = 127;

/// Where a buffer's bytes are.
#[derive(Clone, Debug)]
enum BufferData {
    /// Read or decoded into their own allocation.
    Bytes(Vec<u8>),
    /// A range of [`Gltf::file`] (the GLB binary chunk, not copied).
    File(std::ops::Range<usize>),
}

/// Percent-decodes a URI reference (as the reader does before resolving a buffer `uri`).
pub fn percent_decode(uri: &str) -> String {
    String::from_utf8_lossy(&percent_decode_bytes(uri)).into_owned()
}

/// The bytes a percent-encoded text stands for.
fn percent_decode_bytes(uri: &str) -> Vec<u8> {
    let b = uri.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16).and_then(|d| u8::try_from(d).ok());
        match (
            b.get(i),
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (Some(b'%'), Some(h), Some(l)) => {
                out.push(h * 16 + l);
                i += 3;
            }
            (Some(&c), _, _) => {
                out.push(c);
                i += 1;
            }
            (None, _, _) => break,
        }
    }
    out
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

/// Loads a glTF document from its bytes (`.gltf` text or `.glb`). A GLB's binary chunk
/// is copied; [`load_owned`] reads it in place.
pub fn load(bytes: &[u8], resolver: &dyn Resolver, limits: &Limits) -> Result<Gltf, LoadError> {
    load_from(std::borrow::Cow::Borrowed(bytes), resolver, limits)
}

/// Loads a glTF document from bytes it takes over: a GLB's binary chunk stays where it
/// is in them and a `.gltf` text is not copied, so the document costs the file once.
pub fn load_owned(
    bytes: Vec<u8>,
    resolver: &dyn Resolver,
    limits: &Limits,
) -> Result<Gltf, LoadError> {
    load_from(std::borrow::Cow::Owned(bytes), resolver, limits)
}

fn load_from(
    input: std::borrow::Cow<'_, [u8]>,
    resolver: &dyn Resolver,
    limits: &Limits,
) -> Result<Gltf, LoadError> {
    limits
        .check_input(input.len() as u64)
        .map_err(LoadError::Limit)?;
    let mut input_bytes = input.len() as u64;
    // Ranges into `input`, so that it can be taken over below.
    let mut glb_extra_bytes = 0;
    let (container, json_range, json_offset, bin) = if glb::is_glb(&input) {
        let c = glb::split(&input)?;
        glb_extra_bytes = c.extra;
        let at = |offset: u64, len: usize| {
            let start = usize::try_from(offset).unwrap_or(usize::MAX);
            start..start.saturating_add(len)
        };
        (
            Container::Glb,
            at(c.json_offset, c.json.len()),
            c.json_offset,
            c.bin.map(|b| at(c.bin_offset, b.len())),
        )
    } else {
        (Container::Gltf, 0..input.len(), 0, None)
    };
    let json = input.get(json_range.clone()).unwrap_or_default();
    check_text_or_glb(&input, container, json)?;
    let byte_order_mark = json.starts_with(b"\xef\xbb\xbf");
    let skip = if byte_order_mark { 3 } else { 0 };
    let json_text = (json_range.start + skip)..json_range.end;
    // A `.gltf` text taken over becomes the document's text without a copy; a GLB taken
    // over is kept whole, its binary chunk read in place.
    let mut bin_copy = match (&input, &bin) {
        (std::borrow::Cow::Borrowed(b), Some(r)) => b.get(r.clone()).map(<[u8]>::to_vec),
        _ => None,
    };
    let text_taken = container == Container::Gltf && matches!(input, std::borrow::Cow::Owned(_));
    let (text, file) = match (container, input) {
        (Container::Gltf, std::borrow::Cow::Owned(mut v)) => {
            v.drain(..skip);
            (String::from_utf8(v).map_err(|e| e.utf8_error()), Vec::new())
        }
        (_, std::borrow::Cow::Borrowed(b)) => (
            std::str::from_utf8(b.get(json_text).unwrap_or_default()).map(str::to_owned),
            Vec::new(),
        ),
        (Container::Glb, std::borrow::Cow::Owned(v)) => (
            std::str::from_utf8(v.get(json_text).unwrap_or_default()).map(str::to_owned),
            v,
        ),
    };
    let text = match text {
        Ok(t) => t,
        Err(e) => {
            return Err(LoadError::Json {
                pointer: String::new(),
                line: 1,
                column: 1,
                message: format!("the JSON is not UTF-8 (byte {})", e.valid_up_to()),
            });
        }
    };
    let (value, root) = parse(&text)?;
    let mut buffers = Vec::with_capacity(root.buffers.len());
    for (i, b) in root.buffers.iter().enumerate() {
        let data = match (&b.uri, i, &bin) {
            (None, 0, Some(range)) => match bin_copy.take() {
                Some(copy) => Ok(BufferData::Bytes(copy)),
                None => Ok(BufferData::File(range.clone())),
            },
            (None, _, _) => Err(BufferError::NoSource),
            (Some(uri), _, _) => read_uri(uri, b.byte_length, resolver).inspect(|d| {
                if let (BufferData::Bytes(v), false) = (d, uri.starts_with("data:")) {
                    input_bytes = input_bytes.saturating_add(v.len() as u64);
                }
            }),
        };
        buffers.push(data.and_then(|d| exactly(d, b.byte_length)));
    }
    let (mut value, mut root) = (value, root);
    let meshopt_decoded =
        decoded::decode_meshopt(&mut value, &mut root, &mut buffers, &file, input_bytes);
    let locator = Locator::new(&text);
    let view_ranges = crate::ranges::check_views(&root, |p| locator.line_col(p));
    let budget = Budget::new(&root, &value, input_bytes, |p| locator.line_col(p));
    let compressed = crate::compressed::Compressed::of(&value);
    drop(locator);
    Ok(Gltf {
        container,
        text,
        json_offset,
        value,
        root,
        file,
        buffers,
        byte_order_mark,
        text_taken,
        view_ranges,
        budget,
        input_bytes,
        glb_extra_bytes,
        #[cfg(feature = "fs")]
        sparse: None,
        compressed,
        meshopt_decoded,
        carried_errors: std::collections::BTreeMap::new(),
    })
}

/// Refuses input that opens with neither the GLB magic nor JSON text (`json`, the whole
/// input when `container` is not GLB): bytes that open with neither are a GLB damaged from
/// its first bytes, whose container error says which; anything else is neither.
fn check_text_or_glb(input: &[u8], container: Container, json: &[u8]) -> Result<(), LoadError> {
    // Neither the GLB magic nor JSON text: say so, rather than report the first
    // non-UTF-8 byte of a binary file.
    let first = json
        .strip_prefix(b"\xef\xbb\xbf".as_slice())
        .unwrap_or(json)
        .iter()
        .find(|b| !b.is_ascii_whitespace());
    // Bytes that open with neither text nor the magic are a GLB damaged from its first
    // bytes (a short header, a wrong magic): the container's error says which.
    let binary = json.first().is_some_and(|&b| {
        b != 0xEF && (b >= 0x80 || (b.is_ascii_control() && !b.is_ascii_whitespace()))
    });
    if container == Container::Gltf && binary {
        glb::split(input)?;
    }
    if container == Container::Gltf && !matches!(first, Some(b'{' | b'[')) {
        return Err(LoadError::Json {
            pointer: String::new(),
            line: 1,
            column: 1,
            message: "neither a GLB container (magic \"glTF\") nor glTF JSON text (an object)"
                .into(),
        });
    }
    Ok(())
}

/// The JSON `text` parsed, and its typed root: an integer written with a zero fraction
/// read as the integer, and an error located (JSON Pointer, line and column).
fn parse(text: &str) -> Result<(serde_json::Value, Root), LoadError> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        let message = if e.to_string().starts_with("recursion limit exceeded") {
            format!(
                "the JSON nests more than {MAX_JSON_DEPTH} arrays and objects, the most dash reads"
            )
        } else {
            e.to_string()
        };
        json_error(text, String::new(), e.line(), e.column(), message)
    })?;
    check_root(&value)?;
    // JSON has one number type: an integer written with a zero fraction (`1.0`) is still
    // the integer, so a document refused only for that is read again with such numbers
    // made integers (the document's own value is left as written). Only a document that
    // is refused either way is read a third time, tracking the path, to say where: the
    // tracking costs more than the read itself.
    let typed = <Root as serde::Deserialize>::deserialize(&value).or_else(|_| {
        integral_numbers(&value)
            .ok_or(())
            .and_then(|fixed| <Root as serde::Deserialize>::deserialize(&fixed).map_err(|_| ()))
    });
    let root: Root = match typed {
        Ok(r) => r,
        Err(()) => {
            let mut track = serde_path_to_error::Track::new();
            let tracked: Result<Root, _> = serde::Deserialize::deserialize(
                serde_path_to_error::Deserializer::new(&value, &mut track),
            );
            match tracked {
                Ok(r) => r,
                Err(e) => {
                    let pointer = dashvertex_json::pointer::pointer_of(&track.path());
                    let (line, column) = Locator::new(text).line_col(&pointer).unwrap_or((1, 1));
                    return Err(LoadError::Json {
                        pointer,
                        line,
                        column,
                        message: e.to_string(),
                    });
                }
            }
        }
    };
    Ok((value, root))
}

/// The bytes of a buffer at `uri`: a `data:` URI's (base64 or percent-encoded, RFC
/// 2397), or the resolver's file of at most `byte_length` bytes.
fn read_uri(
    uri: &str,
    byte_length: u64,
    resolver: &dyn Resolver,
) -> Result<BufferData, BufferError> {
    match uri.strip_prefix("data:") {
        Some(rest) => match rest.split_once(";base64,") {
            Some((_, data)) => base64::engine::general_purpose::STANDARD
                .decode(data.trim())
                .map(BufferData::Bytes)
                .map_err(BufferError::Base64),
            // A data URI without `;base64` holds its bytes percent-encoded (RFC 2397).
            None => match rest.split_once(',') {
                Some((_, data)) => Ok(BufferData::Bytes(percent_decode_bytes(data))),
                None => Err(BufferError::NotBase64),
            },
        },
        None => resolver
            .read(&percent_decode(uri), byte_length)
            .map(BufferData::Bytes)
            .map_err(|e| BufferError::Resource(std::sync::Arc::new(e))),
    }
}

/// A buffer's data cut to exactly `byte_length` bytes (a BIN chunk may carry padding);
/// refused when it has fewer.
fn exactly(d: BufferData, byte_length: u64) -> Result<BufferData, BufferError> {
    let have = match &d {
        BufferData::Bytes(v) => v.len(),
        BufferData::File(r) => r.len(),
    };
    if (have as u64) < byte_length {
        return Err(BufferError::Short {
            have: have as u64,
            byte_length,
        });
    }
    // byteLength ≤ have, a usize: it fits.
    let keep = usize::try_from(byte_length).unwrap_or(have);
    Ok(match d {
        BufferData::Bytes(mut v) => {
            v.truncate(keep);
            BufferData::Bytes(v)
        }
        BufferData::File(r) => BufferData::File(r.start..r.start + keep),
    })
}

/// A copy of `value` with every number that is an integer written with a zero fraction
/// (`4.0`, within the range of exact binary64 integers) made an integer; `None` when there
/// is none. Walks the tree with an explicit stack (no recursion on input depth).
fn integral_numbers(value: &serde_json::Value) -> Option<serde_json::Value> {
    use serde_json::Value;
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    let mut copy = value.clone();
    let mut changed = false;
    let mut stack = vec![&mut copy];
    while let Some(v) = stack.pop() {
        match v {
            Value::Number(n) if !n.is_u64() && !n.is_i64() => {
                if let Some(f) = n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() <= EXACT) {
                    #[allow(clippy::cast_possible_truncation)]
                    let i = f as i64;
                    *v = Value::from(i);
                    changed = true;
                }
            }
            Value::Array(a) => stack.extend(a.iter_mut()),
            Value::Object(o) => stack.extend(o.values_mut()),
            _ => {}
        }
    }
    changed.then_some(copy)
}

/// Refuses a root that is no glTF document: not an object, or an object with members of
/// which none is one glTF defines (DashVertex JSON, a settings file). An empty object is
/// a glTF document without its required `asset`, which the validator reports.
fn check_root(value: &serde_json::Value) -> Result<(), LoadError> {
    let message = match value.as_object() {
        None => "the glTF root is not a JSON object",
        Some(o) if !o.is_empty() && !GLTF_MEMBERS.iter().any(|m| o.contains_key(*m)) => {
            "not a glTF document: the root object has no `asset` nor any other member glTF \
             defines"
        }
        Some(_) => return Ok(()),
    };
    Err(LoadError::Json {
        pointer: String::new(),
        line: 1,
        column: 1,
        message: message.into(),
    })
}

/// Loads a file from disk, resolving external buffers inside its folder.
#[cfg(feature = "fs")]
pub fn load_path(path: &Path, limits: &Limits) -> Result<Gltf, LoadError> {
    load_path_in(path, &[], limits)
}

/// Loads a file from disk; external buffers may also lie in the `allowed` folders.
#[cfg(feature = "fs")]
pub fn load_path_in(path: &Path, allowed: &[PathBuf], limits: &Limits) -> Result<Gltf, LoadError> {
    let bytes = dashvertex_fs::read_input(path, limits.max_input_bytes)?;
    let resolver = FsResolver::for_file(path, allowed, limits.max_input_bytes)?;
    load_owned(bytes, &resolver, limits)
}

impl Gltf {
    /// The number of buffers the document declares.
    pub fn buffer_count(&self) -> usize {
        self.buffers.len()
    }

    /// Buffer `i`'s bytes (exactly `byteLength` of them), or why they are unavailable;
    /// `None` when there is no buffer `i`.
    pub fn buffer(&self, i: usize) -> Option<Result<&[u8], &BufferError>> {
        self.buffers.get(i).map(|b| match b {
            Ok(BufferData::Bytes(v)) => Ok(v.as_slice()),
            Ok(BufferData::File(r)) => Ok(self.file.get(r.clone()).unwrap_or_default()),
            Err(why) => Err(why),
        })
    }

    /// Gives back the bytes [`load_owned`] took over, unchanged: the GLB file, or the
    /// `.gltf` text (`None` when it was loaded from borrowed bytes, or its byte order
    /// mark was dropped, or a sparse load left some of them unread).
    pub fn into_input(self) -> Option<Vec<u8>> {
        if (0..self.buffers.len()).any(|b| !self.unread(b).is_empty()) {
            None
        } else if !self.file.is_empty() {
            Some(self.file)
        } else if self.text_taken && !self.byte_order_mark {
            Some(self.text.into_bytes())
        } else {
            None
        }
    }

    /// Gives back the file a sparse load took ([`crate::sparse::load_path_for_rewrite`])
    /// with one hole covering all of it: written through
    /// [`dashvertex_fs::Holes::write_to`], the whole file is copied from the input inside
    /// the kernel; checked in memory, the ranges it left unread read as zeros. `None`
    /// after any other load.
    #[cfg(feature = "fs")]
    pub fn into_input_spliced(self) -> Option<(Vec<u8>, dashvertex_fs::Holes)> {
        let sparse = self.sparse?;
        let len = self.file.len() as u64;
        Some((
            self.file,
            dashvertex_fs::Holes {
                source: Some(sparse.source),
                holes: vec![dashvertex_fs::Hole {
                    at: 0,
                    from: 0,
                    len,
                }],
            },
        ))
    }

    /// The size of the file it was loaded from: the GLB's bytes, else the JSON text's
    /// (with its byte order mark, when it had one).
    pub fn input_len(&self) -> u64 {
        let bom = if self.byte_order_mark { 3 } else { 0 };
        let len = if self.file.is_empty() {
            self.text.len() + bom
        } else {
            self.file.len()
        };
        len as u64
    }

    /// Every buffer, in order, as [`Gltf::buffer`] gives it.
    pub fn buffers(&self) -> impl Iterator<Item = Result<&[u8], &BufferError>> {
        (0..self.buffers.len()).filter_map(|i| self.buffer(i))
    }

    /// The `byteStride` of accessor `accessor`'s buffer view, if it names a view that has
    /// one.
    pub fn view_stride(&self, accessor: u64) -> Option<u64> {
        usize::try_from(accessor)
            .ok()
            .and_then(|i| self.root.accessors.get(i))
            .and_then(|a| a.buffer_view)
            .and_then(|v| self.root.buffer_views.get(usize::try_from(v).ok()?))
            .and_then(|v| v.byte_stride)
    }

    /// The extension (`KHR_draco_mesh_compression`) and the JSON Pointer of the stream
    /// that holds accessor `i`'s elements, when it has no buffer view and a compressed
    /// primitive names it: its elements are not zeros, and reading it fails
    /// ([`crate::AccessorError::Compressed`]).
    pub fn compressed_accessor(&self, i: u64) -> Option<(&'static str, &str)> {
        self.compressed.accessor(i)
    }

    /// The extension (`EXT_meshopt_compression`) and the JSON Pointer of buffer view
    /// `v`'s compressed stream, if it has one.
    pub fn compressed_view(&self, v: u64) -> Option<(&'static str, &str)> {
        self.compressed.view(v)
    }

    /// Why buffer view `v` does not lie inside its buffer, when it does not (every
    /// view was checked when the document loaded; spec/security.md \[L3\]).
    pub fn view_range(&self, v: usize) -> Option<&ViewRangeError> {
        self.view_ranges.get(v).and_then(Option::as_ref)
    }

    /// Every buffer view that does not lie inside its buffer, in view order.
    pub fn view_range_errors(&self) -> impl Iterator<Item = &ViewRangeError> {
        self.view_ranges.iter().flatten()
    }

    /// Why the element budget (spec/security.md \[L2\]) refuses accessor `index`, if it
    /// does: decided once, when the document loaded.
    pub fn budget_check(&self, index: u64) -> Result<(), crate::budget::BudgetError> {
        self.budget.check(index)
    }

    /// The accessors the element budget refuses that dash's readers name (a primitive's
    /// POSITION, JOINTS_n, WEIGHTS_n or `_` attribute, a skin's inverse bind matrices, an
    /// animation sampler's input or output), in index order.
    pub fn budget_refused(&self) -> impl Iterator<Item = &crate::budget::BudgetError> {
        self.budget.named()
    }

    /// Bytes of the input the element budget was derived from: the file and the
    /// external buffers it loaded.
    pub fn input_bytes(&self) -> u64 {
        self.input_bytes
    }

    #[cfg(feature = "fs")]
    pub(crate) fn set_sparse(&mut self, sparse: crate::sparse::Sparse) {
        // Decoded meshopt data lies in the buffers, not in the file: nothing may be
        // copied from the file in its place (a meshopt file is never read sparsely, so
        // nothing was left unread).
        if self.meshopt_decoded {
            return;
        }
        self.sparse = Some(sparse);
    }

    /// The ranges of buffer `b` a sparse load left unread (zeros in
    /// [`Gltf::buffer`]), sorted and disjoint; none after an ordinary load.
    pub fn unread(&self, b: usize) -> &[std::ops::Range<u64>] {
        #[cfg(feature = "fs")]
        if let Some(s) = &self.sparse
            && b == 0
        {
            return &s.absent;
        }
        let _ = b;
        &[]
    }

    /// Whether bytes `start..end` of buffer `b` touch a range a sparse load left unread.
    pub fn is_unread(&self, b: usize, start: u64, end: u64) -> bool {
        let unread = self.unread(b);
        // the first range ending after `start`
        let k = unread.partition_point(|r| r.end <= start);
        unread.get(k).is_some_and(|r| r.start < end)
    }

    /// The file an unread range of buffer `b` is copied from, and where the buffer
    /// starts in it.
    #[cfg(feature = "fs")]
    pub fn unread_source(&self, b: usize) -> Option<(&dashvertex_fs::SpliceSource, u64)> {
        match &self.sparse {
            Some(s) if b == 0 => Some((&s.source, s.bin_offset)),
            _ => None,
        }
    }

    /// Where buffer `b` starts in the file a sparse load holds open; `None` after any
    /// other load.
    pub(crate) fn splice_offset(&self, b: usize) -> Option<u64> {
        #[cfg(feature = "fs")]
        if let Some((_, at)) = self.unread_source(b) {
            return Some(at);
        }
        let _ = b;
        None
    }

    /// Reads the unread bytes of buffer `b` at `offset` back from the file a sparse load
    /// holds open (never called after another load: nothing is unread then).
    pub(crate) fn read_unread(&self, b: usize, buf: &mut [u8], offset: u64) -> Result<(), FsError> {
        #[cfg(feature = "fs")]
        if let Some((source, at)) = self.unread_source(b) {
            return source.read_at(buf, at + offset);
        }
        let _ = (b, buf, offset);
        Err(FsError::NoFolder {
            uri: "the input".to_owned(),
        })
    }

    /// Line and column of a JSON Pointer in the document's JSON text.
    pub fn line_col(&self, pointer: &str) -> Option<(usize, usize)> {
        Locator::new(&self.text).line_col(pointer)
    }
}
