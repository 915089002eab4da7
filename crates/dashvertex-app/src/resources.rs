//! Resources follow the output (spec/security.md \[R4\]): the images a written glTF names
//! by a relative URI reach their files wherever the output is written.
//!
//! A job hands the written document ([`Written`]) to [`follow`] before it checks it and
//! names its files: the images are embedded (a `.glb`'s binary chunk, a `.gltf`'s data
//! URIs), copied beside the output (their relative layout kept under its folder, as
//! buffer files of the output: refused when they would name an input or another output
//! \[W3\], written in the output's batch \[W4\]), or referenced from the output's folder.
//! Every image is read through [`dashvertex_fs::ResourceRoot`] (inside the input's folder
//! and the allowed `--resource-dir` folders, regular files only, at most
//! `--max-input-bytes` with the input); one that cannot be read is a warning naming its
//! URI and JSON Pointer, and the output keeps its reference.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use base64::Engine;
use dashvertex_gltf::Container;
use dashvertex_gltf::export::Written;
use serde_json::{Value, json};

use crate::error::AppError;
use crate::input::Context;
use crate::output::output_folder;
use crate::words::Opt;

pub use crate::resource_mode::Resources;

/// What [`follow`] needs to know about a job's output.
pub struct Follow<'a> {
    /// The input (`-`: standard input, which has no folder).
    pub input: &'a Path,
    /// The output as named (`-`: standard output).
    pub output: &'a Path,
    /// The output's container.
    pub container: Container,
    /// The mode asked for.
    pub mode: Resources,
    /// The output's buffers are embedded (`--embed`).
    pub embed: bool,
    /// Bytes of the input read already (the file and its buffers): the images may take
    /// what `--max-input-bytes` leaves.
    pub read: u64,
    /// Limits, resource folders, messages.
    pub ctx: &'a Context<'a>,
}

/// [`follow`], then every buffer file of the output (the images copied beside it among
/// them) refused where it would overwrite a file the run read or another output
/// (spec/security.md W3): `outputs` and `inputs` as the job names them, `read_buffers`
/// the input's own buffer files.
pub fn follow_checked(
    f: &Follow<'_>,
    written: &mut Written,
    (outputs, inputs): (&[dashvertex_fs::Named<'_>], &[dashvertex_fs::Named<'_>]),
    mut read_buffers: Vec<PathBuf>,
) -> Result<(), AppError> {
    read_buffers.extend(follow(f, written)?);
    crate::output::refuse_written_aliases(
        f.output,
        &written.files,
        outputs,
        inputs,
        &read_buffers,
        f.ctx.words,
    )
}

/// The mode [`Resources::Auto`] stands for, or `None` when nothing changes.
fn effective(f: &Follow<'_>) -> Option<Resources> {
    match f.mode {
        Resources::Auto => {
            if f.container == Container::Glb || f.embed || f.output == Path::new("-") {
                Some(Resources::Embed)
            } else if same_folder(f.input, f.output) {
                None
            } else {
                Some(Resources::Copy)
            }
        }
        other => Some(other),
    }
}

/// The folder of a file as named (`.` when it has none).
fn folder_of(p: &Path) -> &Path {
    p.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Whether the output lands in the input's folder (an input from standard input has
/// none: its references stay as they are).
fn same_folder(input: &Path, output: &Path) -> bool {
    if input == Path::new("-") {
        return true;
    }
    matches!(
        (
            std::fs::canonicalize(folder_of(input)),
            std::fs::canonicalize(output_folder(output)),
        ),
        (Ok(x), Ok(y)) if x == y
    )
}

/// One image the output names by URI, and what becomes of it.
struct Image {
    index: usize,
    uri: String,
}

/// What the images become.
#[derive(Default)]
struct Changes {
    /// New URIs, by image.
    uris: BTreeMap<usize, String>,
    /// Bytes to embed as buffer views of a `.glb`, by image: (bytes' slot, MIME type).
    views: BTreeMap<usize, (usize, String)>,
    /// The embedded bytes, each once.
    blobs: Vec<Vec<u8>>,
    /// Files copied beside the output: (relative name, bytes).
    files: Vec<(String, Vec<u8>)>,
    /// The files read (for the check that no output overwrites one).
    sources: Vec<PathBuf>,
}

/// Makes the images `written` names reach their bytes where the output goes, as `f`
/// says (see the module's notes). Returns the files read, which no output may overwrite.
/// The copies join `written.files`; the document is rewritten only when a URI or an
/// image changes.
pub fn follow(f: &Follow<'_>, written: &mut Written) -> Result<Vec<PathBuf>, AppError> {
    let Some(mode) = effective(f) else {
        return Ok(Vec::new());
    };
    let Some(json) = json_text(written, f.container) else {
        return Ok(Vec::new());
    };
    // Most documents name no image: nothing is parsed for them.
    if !contains(json, b"\"images\"") {
        return Ok(Vec::new());
    }
    let Ok(mut value) = serde_json::from_slice::<Value>(json) else {
        return Ok(Vec::new());
    };
    let images: Vec<Image> = value
        .get("images")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .enumerate()
                .filter_map(|(index, img)| {
                    let uri = img.get("uri")?.as_str()?.to_owned();
                    Some(Image { index, uri })
                })
                .collect()
        })
        .unwrap_or_default();
    if images.is_empty() {
        return Ok(Vec::new());
    }
    let mut r = Run::new(f, mode);
    for img in &images {
        r.image(img, &value);
    }
    let changes = r.changes;
    if changes.uris.is_empty() && changes.views.is_empty() {
        written.files.extend(changes.files);
        return Ok(changes.sources);
    }
    let mut changes = changes;
    if f.container == Container::Glb && !changes.views.is_empty() && !bin_is_buffer_0(&value) {
        for img in images
            .iter()
            .filter(|i| changes.views.contains_key(&i.index))
        {
            r_warn(
                f,
                img,
                "was not embedded",
                "buffer 0 of the output is not its binary chunk",
            );
        }
        changes.views.clear();
        changes.blobs.clear();
    }
    apply_json(&mut value, &changes);
    match f.container {
        Container::Gltf => {
            let mut t = serde_json::to_string_pretty(&value)
                .map_err(|e| AppError::Output(format!("the output's images: {e}")))?;
            t.push('\n');
            written.main = t.into_bytes();
        }
        Container::Glb => rebuild_glb(written, &mut value, &changes)?,
    }
    written.files.extend(changes.files);
    Ok(changes.sources)
}

/// Whether buffer 0 of a GLB (or the buffer a GLB without any would gain) is its binary
/// chunk.
fn bin_is_buffer_0(value: &Value) -> bool {
    value
        .pointer("/buffers/0")
        .is_none_or(|b| b.get("uri").is_none())
}

/// The warning for image `img`, which keeps its reference.
fn r_warn(f: &Follow<'_>, img: &Image, what: &str, why: impl std::fmt::Display) {
    f.ctx.warning(format_args!(
        "{}: image {} {} (/images/{}/uri) {what}: {why}; the output keeps the reference",
        f.input.display(),
        img.index,
        dashvertex_fs::short(&img.uri),
        img.index,
    ));
}

/// Whether `hay` holds `needle`.
fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// The JSON text of a written document.
fn json_text(written: &Written, container: Container) -> Option<&[u8]> {
    match container {
        Container::Gltf => Some(&written.main),
        Container::Glb => glb_parts(&written.main).map(|p| p.json),
    }
}

/// A GLB's chunks, as the writer frames them.
struct GlbParts<'a> {
    json: &'a [u8],
    /// The BIN chunk's data (padded) and where it starts in the file.
    bin: Option<(&'a [u8], usize)>,
}

fn u32_at(b: &[u8], at: usize) -> Option<usize> {
    b.get(at..at.checked_add(4)?)
        .and_then(|s| <[u8; 4]>::try_from(s).ok())
        .and_then(|s| usize::try_from(u32::from_le_bytes(s)).ok())
}

fn glb_parts(main: &[u8]) -> Option<GlbParts<'_>> {
    if !main.starts_with(b"glTF") {
        return None;
    }
    let json_len = u32_at(main, 12)?;
    let json_end = 20usize.checked_add(json_len)?;
    let json = main.get(20..json_end)?;
    let bin = match (u32_at(main, json_end), u32_at(main, json_end + 4)) {
        (Some(len), Some(0x004E_4942)) => {
            let start = json_end + 8;
            Some((main.get(start..start.checked_add(len)?)?, start))
        }
        _ => None,
    };
    Some(GlbParts { json, bin })
}

/// Reads and places the images of one output.
struct Run<'f, 'a> {
    f: &'f Follow<'a>,
    mode: Resources,
    root: Option<dashvertex_fs::ResourceRoot>,
    /// Bytes the images may still take.
    left: u64,
    /// Embedded bytes by decoded URI (an image named twice is embedded once).
    embedded: BTreeMap<String, usize>,
    /// Copies by relative name.
    copied: BTreeMap<String, ()>,
    /// Said once: nothing can be copied beside standard output.
    told_stdout: bool,
    changes: Changes,
}

impl<'f, 'a> Run<'f, 'a> {
    fn new(f: &'f Follow<'a>, mode: Resources) -> Self {
        let root = (f.input != Path::new("-"))
            .then(|| {
                let mut root = dashvertex_fs::ResourceRoot::of_file(f.input).ok()?;
                for d in f.ctx.resource_dirs {
                    root.allow(d).ok()?;
                }
                Some(root)
            })
            .flatten();
        Run {
            f,
            mode,
            root,
            left: f.ctx.limits.max_input_bytes.saturating_sub(f.read),
            embedded: BTreeMap::new(),
            copied: BTreeMap::new(),
            told_stdout: false,
            changes: Changes::default(),
        }
    }

    /// The warning for image `img`, which keeps its reference.
    fn warn(&self, img: &Image, what: &str, why: impl std::fmt::Display) {
        r_warn(self.f, img, what, why);
    }

    fn image(&mut self, img: &Image, value: &Value) {
        if img.uri.starts_with("data:") {
            if self.mode == Resources::Embed && self.f.container == Container::Glb {
                self.embed_data(img, value);
            }
            return;
        }
        let decoded = dashvertex_gltf::percent_decode(&img.uri);
        match self.mode {
            Resources::Embed => self.embed_file(img, &decoded, value),
            Resources::Copy => self.copy(img, &decoded),
            Resources::Reference => self.reference(img, &decoded),
            Resources::Auto => {}
        }
    }

    /// Reads a file an image names, within what the budget leaves.
    fn read(&mut self, decoded: &str) -> Result<(PathBuf, Vec<u8>), String> {
        let root = self.root.as_ref().ok_or_else(|| {
            dashvertex_fs::FsError::NoFolder {
                uri: dashvertex_fs::short(decoded),
            }
            .to_string()
        })?;
        let path = root.resolve(decoded).map_err(|e| e.to_string())?;
        let bytes = root.read_whole(decoded, self.left).map_err(|e| match e {
            dashvertex_fs::FsError::TooLarge { size, .. } => format!(
                "{} is {size} bytes, more than the {} bytes {} leaves for the input's images",
                path.display(),
                self.left,
                self.f.ctx.opt(Opt::MaxInputBytes)
            ),
            other => other.to_string(),
        })?;
        self.left = self.left.saturating_sub(bytes.len() as u64);
        if !self.changes.sources.contains(&path) {
            self.changes.sources.push(path.clone());
        }
        Ok((path, bytes))
    }

    fn embed_file(&mut self, img: &Image, decoded: &str, value: &Value) {
        if let Some(&slot) = self.embedded.get(decoded) {
            self.place(img, slot, value, decoded, None);
            return;
        }
        let bytes = match self.read(decoded) {
            Ok((_, b)) => b,
            Err(why) => return self.warn(img, "was not embedded", why),
        };
        match self.f.container {
            Container::Glb => {
                let slot = self.changes.blobs.len();
                let Some(mime) = mime_of(value, img.index, &bytes, None, decoded) else {
                    return self.warn(
                        img,
                        "was not embedded",
                        "its type is not known (no mimeType, and not PNG, JPEG, WebP, KTX2 or AVIF)",
                    );
                };
                self.changes.blobs.push(bytes);
                self.embedded.insert(decoded.to_owned(), slot);
                self.changes.views.insert(img.index, (slot, mime));
            }
            Container::Gltf => {
                let mime = mime_of(value, img.index, &bytes, None, decoded)
                    .unwrap_or_else(|| "application/octet-stream".to_owned());
                let uri = format!(
                    "data:{mime};base64,{}",
                    base64::engine::general_purpose::STANDARD.encode(&bytes)
                );
                self.changes.uris.insert(img.index, uri);
            }
        }
    }

    /// Image `img` takes the bytes already embedded in `slot`.
    fn place(
        &mut self,
        img: &Image,
        slot: usize,
        value: &Value,
        decoded: &str,
        header: Option<&str>,
    ) {
        let bytes = self.changes.blobs.get(slot).map_or(&[][..], Vec::as_slice);
        match mime_of(value, img.index, bytes, header, decoded) {
            Some(mime) => {
                self.changes.views.insert(img.index, (slot, mime));
            }
            None => self.warn(img, "was not embedded", "its type is not known"),
        }
    }

    fn embed_data(&mut self, img: &Image, value: &Value) {
        let Some((header, data)) = img
            .uri
            .strip_prefix("data:")
            .and_then(|r| r.split_once(','))
        else {
            return self.warn(img, "was not embedded", "the data URI has no `,`");
        };
        let Some(media) = header.strip_suffix(";base64") else {
            return self.warn(img, "was not embedded", "the data URI is not base64");
        };
        if let Some(&slot) = self.embedded.get(&img.uri) {
            return self.place(img, slot, value, "", Some(media));
        }
        let bytes = match base64::engine::general_purpose::STANDARD.decode(data) {
            Ok(b) => b,
            Err(e) => return self.warn(img, "was not embedded", format!("its base64: {e}")),
        };
        let slot = self.changes.blobs.len();
        self.changes.blobs.push(bytes);
        self.embedded.insert(img.uri.clone(), slot);
        self.place(img, slot, value, "", Some(media));
    }

    fn copy(&mut self, img: &Image, decoded: &str) {
        if self.f.output == Path::new("-") {
            if !self.told_stdout {
                self.told_stdout = true;
                self.f.ctx.warning(format_args!(
                    "{}: the images of the output on standard output are not copied (it has no folder); {} embed embeds them",
                    self.f.input.display(),
                    self.f.ctx.opt(Opt::Resources)
                ));
            }
            return;
        }
        let Some(root) = self.root.as_ref() else {
            return self.warn(
                img,
                "was not copied",
                dashvertex_fs::FsError::NoFolder {
                    uri: dashvertex_fs::short(decoded),
                },
            );
        };
        let source = match root.resolve(decoded) {
            Ok(p) => p,
            Err(e) => return self.warn(img, "was not copied", e),
        };
        let folder = output_folder(self.f.output);
        let Ok(out_dir) = std::fs::canonicalize(&folder) else {
            return self.warn(
                img,
                "was not copied",
                format!(
                    "the output's folder {} cannot be resolved",
                    folder.display()
                ),
            );
        };
        // The reference as a path under the output's folder; one that climbs out of it
        // (an allowed `--resource-dir` beside the input's folder) is referenced instead.
        let Some(rel) = normalized(decoded) else {
            return self.reference_to(img, &source, &out_dir, "lies outside the input's folder");
        };
        let dest = out_dir.join(&rel);
        if std::fs::canonicalize(&dest).is_ok_and(|d| d == source) {
            // Already there (the output's folder is the input's): nothing to copy.
            return;
        }
        if let Err(why) = plain_path(&out_dir, &rel) {
            return self.reference_to(img, &source, &out_dir, &why);
        }
        let name = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        if self.copied.contains_key(&name) {
            return;
        }
        let bytes = match self.read(decoded) {
            Ok((_, b)) => b,
            Err(why) => return self.warn(img, "was not copied", why),
        };
        if name != decoded {
            self.changes.uris.insert(img.index, encode_path(&name));
        }
        self.copied.insert(name.clone(), ());
        self.changes.files.push((name, bytes));
    }

    /// Rewrites image `img`'s URI to reach `source` from the output's folder `out_dir`,
    /// instead of a copy that cannot be made (`why`).
    fn reference_to(&mut self, img: &Image, source: &Path, out_dir: &Path, why: &str) {
        let uri = encode_path(&relative(out_dir, source));
        self.f.ctx.warning(format_args!(
            "{}: image {} {} (/images/{}/uri) was not copied ({why}): the output refers to it as {uri}",
            self.f.input.display(),
            img.index,
            dashvertex_fs::short(&img.uri),
            img.index,
        ));
        self.changes.uris.insert(img.index, uri);
    }

    fn reference(&mut self, img: &Image, decoded: &str) {
        let Some(root) = self.root.as_ref() else {
            return self.warn(
                img,
                "cannot be referenced",
                dashvertex_fs::FsError::NoFolder {
                    uri: dashvertex_fs::short(decoded),
                },
            );
        };
        let source = match root.resolve(decoded) {
            Ok(p) => p,
            Err(e) => return self.warn(img, "cannot be referenced", e),
        };
        match std::fs::metadata(&source) {
            Ok(m) if m.is_file() => {}
            _ => {
                return self.warn(
                    img,
                    "cannot be referenced",
                    format!("{} is not a regular file", source.display()),
                );
            }
        }
        let out_dir = if self.f.output == Path::new("-") {
            std::env::current_dir().and_then(std::fs::canonicalize)
        } else {
            std::fs::canonicalize(output_folder(self.f.output))
        };
        match out_dir {
            Ok(out_dir) => {
                let uri = encode_path(&relative(&out_dir, &source));
                if uri != img.uri {
                    self.changes.uris.insert(img.index, uri);
                }
            }
            Err(e) => self.warn(img, "cannot be referenced", e),
        }
    }
}

/// A relative reference as a path with no `.` or `..` left, when it does not climb out of
/// its folder.
fn normalized(reference: &str) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in Path::new(reference).components() {
        match c {
            Component::Normal(p) => out.push(p),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    (!out.as_os_str().is_empty()).then_some(out)
}

/// Checks that writing `rel` under `dir` writes inside it: no symlink on the way (a
/// folder or the file itself), and the file, when there, a regular file.
fn plain_path(dir: &Path, rel: &Path) -> Result<(), String> {
    let mut at = dir.to_path_buf();
    for c in rel.components() {
        at.push(c);
        match std::fs::symlink_metadata(&at) {
            Err(_) => return Ok(()),
            Ok(m) if m.file_type().is_symlink() => {
                return Err(format!("{} is a symbolic link", at.display()));
            }
            Ok(m) if at.as_path() != dir.join(rel) && !m.is_dir() => {
                return Err(format!("{} is not a folder", at.display()));
            }
            Ok(m) if at.as_path() == dir.join(rel) && !m.is_file() => {
                return Err(format!("{} is not a regular file", at.display()));
            }
            Ok(_) => {}
        }
    }
    Ok(())
}

/// The path from folder `from` to `to` (both canonical), with `..` where it climbs.
fn relative(from: &Path, to: &Path) -> String {
    let a: Vec<Component> = from.components().collect();
    let b: Vec<Component> = to.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = a.iter().skip(common).map(|_| "..".to_owned()).collect();
    parts.extend(
        b.iter()
            .skip(common)
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// A relative path (`/`-separated) as a URI reference: each segment percent-encoded
/// where RFC 3986 does not allow its bytes (`:` too, so no segment reads as a scheme).
fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=@/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The MIME type of image `index` embedded as a buffer view: its own `mimeType`, else
/// what its bytes are, else its data URI's media type, else its file name's extension.
fn mime_of(
    value: &Value,
    index: usize,
    bytes: &[u8],
    header: Option<&str>,
    name: &str,
) -> Option<String> {
    let own = value
        .pointer(&format!("/images/{index}/mimeType"))
        .and_then(Value::as_str)
        .filter(|m| !m.is_empty());
    if let Some(m) = own {
        return Some(m.to_owned());
    }
    let sniffed = if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WEBP") {
        Some("image/webp")
    } else if bytes.starts_with(b"\xABKTX 20\xBB\r\n\x1a\n") {
        Some("image/ktx2")
    } else if bytes.get(4..12) == Some(b"ftypavif") {
        Some("image/avif")
    } else {
        None
    };
    if let Some(m) = sniffed {
        return Some(m.to_owned());
    }
    if let Some(h) = header
        .map(|h| h.split(';').next().unwrap_or(h))
        .filter(|h| h.starts_with("image/"))
    {
        return Some(h.to_owned());
    }
    let ext = Path::new(name)
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match ext.as_deref() {
        Some("png") => Some("image/png".into()),
        Some("jpg" | "jpeg") => Some("image/jpeg".into()),
        Some("webp") => Some("image/webp".into()),
        Some("ktx2") => Some("image/ktx2".into()),
        Some("avif") => Some("image/avif".into()),
        _ => None,
    }
}

/// Sets the images' new URIs.
fn apply_json(value: &mut Value, changes: &Changes) {
    for (i, uri) in &changes.uris {
        if let Some(o) = value
            .pointer_mut(&format!("/images/{i}"))
            .and_then(Value::as_object_mut)
        {
            o.insert("uri".into(), Value::String(uri.clone()));
        }
    }
}

/// Rewrites a GLB with its JSON `value` (the images' new URIs set) and the embedded
/// bytes appended to its binary chunk as buffer views of buffer 0, which the images they
/// embed name with their MIME type. The ranges the writer fills from the input
/// ([`Written::holes`], all in the binary chunk) move with it.
fn rebuild_glb(
    written: &mut Written,
    value: &mut Value,
    changes: &Changes,
) -> Result<(), AppError> {
    let too_large = || {
        AppError::Output("nothing written: the output would exceed 4 GiB with its images".into())
    };
    let parts = glb_parts(&written.main)
        .ok_or_else(|| AppError::Output("the output's GLB could not be read back".into()))?;
    let old_bin_start = parts.bin.map(|(_, s)| s);
    let old_bin: &[u8] = parts.bin.map_or(&[][..], |(b, _)| b);
    let blobs = &changes.blobs;
    // (offset, length) of each embedded blob in the binary chunk.
    let mut views: Vec<(usize, usize)> = Vec::with_capacity(blobs.len());
    let mut end = old_bin.len();
    for b in blobs {
        let at = end
            .checked_add(dashvertex_gltf::glb::pad(end))
            .ok_or_else(too_large)?;
        views.push((at, b.len()));
        end = at.checked_add(b.len()).ok_or_else(too_large)?;
    }
    if !changes.views.is_empty() {
        embed_views(value, &views, &changes.views, end)?;
    }
    let text = serde_json::to_vec(value)
        .map_err(|e| AppError::Output(format!("the output's images: {e}")))?;
    let bin_len = if blobs.is_empty() {
        parts.bin.map(|(b, _)| b.len())
    } else {
        Some(end)
    };
    let frame = dashvertex_gltf::glb::Frame::new(text.len(), bin_len).map_err(|_| too_large())?;
    let mut out = Vec::new();
    out.try_reserve_exact(frame.total as usize).map_err(|_| {
        AppError::Output("nothing written: no memory for the output with its images".into())
    })?;
    frame.start(&mut out, &text);
    let new_bin_start = out.len();
    out.extend_from_slice(old_bin);
    for (b, (at, _)) in blobs.iter().zip(&views) {
        out.resize(new_bin_start.saturating_add(*at), 0);
        out.extend_from_slice(b);
    }
    frame.finish(&mut out);
    // The holes lie in the binary chunk, which moved with the JSON before it.
    if let Some(old) = old_bin_start {
        let shift = new_bin_start as i128 - old as i128;
        for h in &mut written.holes.holes {
            let at = i128::from(h.at) + shift;
            h.at = u64::try_from(at).map_err(|_| too_large())?;
        }
    }
    written.main = out;
    Ok(())
}

/// Adds the buffer views of the embedded bytes (`views[slot]`: offset, length) and points
/// each embedded image (`images`: image, slot and MIME type) to its view; buffer 0 (the
/// binary chunk) grows to `end`.
fn embed_views(
    value: &mut Value,
    views: &[(usize, usize)],
    images: &BTreeMap<usize, (usize, String)>,
    end: usize,
) -> Result<(), AppError> {
    let refuse =
        |why: &str| AppError::Output(format!("the output's images cannot be embedded: {why}"));
    let Some(root) = value.as_object_mut() else {
        return Err(refuse("the document is not an object"));
    };
    let buffers = root
        .entry("buffers")
        .or_insert_with(|| Value::Array(Vec::new()));
    let Some(buffers) = buffers.as_array_mut() else {
        return Err(refuse("`buffers` is not an array"));
    };
    if buffers.is_empty() {
        buffers.push(json!({"byteLength": 0}));
    }
    let Some(b0) = buffers.first_mut().and_then(Value::as_object_mut) else {
        return Err(refuse("buffer 0 is not an object"));
    };
    if b0.contains_key("uri") {
        return Err(refuse("buffer 0 is not the binary chunk"));
    }
    b0.insert("byteLength".into(), json!(end));
    let list = root
        .entry("bufferViews")
        .or_insert_with(|| Value::Array(Vec::new()));
    let Some(list) = list.as_array_mut() else {
        return Err(refuse("`bufferViews` is not an array"));
    };
    let first = list.len();
    for (at, len) in views {
        list.push(json!({"buffer": 0, "byteOffset": at, "byteLength": len}));
    }
    let Some(list) = root.get_mut("images").and_then(Value::as_array_mut) else {
        return Err(refuse("`images` is not an array"));
    };
    for (i, (slot, mime)) in images {
        if let Some(o) = list.get_mut(*i).and_then(Value::as_object_mut) {
            o.remove("uri");
            o.insert("bufferView".into(), json!(first + slot));
            o.insert("mimeType".into(), Value::String(mime.clone()));
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_normalized_related_and_encoded() {
        assert_eq!(normalized("a/./b/../c.png"), Some(PathBuf::from("a/c.png")));
        assert_eq!(normalized("../x.png"), None);
        assert_eq!(normalized("a/../../x.png"), None);
        assert_eq!(normalized("/etc/passwd"), None);
        assert_eq!(
            relative(Path::new("/w/out/deep"), Path::new("/w/in/t/a.png")),
            "../../in/t/a.png"
        );
        assert_eq!(relative(Path::new("/w"), Path::new("/w/a.png")), "a.png");
        assert_eq!(encode_path("t/my hand:1.png"), "t/my%20hand%3A1.png");
    }

    #[test]
    fn types_come_from_the_image_its_bytes_or_its_name() {
        let v = json!({"images": [{"mimeType": "image/jpeg"}, {}]});
        assert_eq!(
            mime_of(&v, 0, b"", None, "a.png").as_deref(),
            Some("image/jpeg")
        );
        assert_eq!(
            mime_of(&v, 1, b"\x89PNG\r\n\x1a\n", None, "a.bin").as_deref(),
            Some("image/png")
        );
        assert_eq!(
            mime_of(&v, 1, b"", Some("image/webp"), "").as_deref(),
            Some("image/webp")
        );
        assert_eq!(
            mime_of(&v, 1, b"", None, "a.JPG").as_deref(),
            Some("image/jpeg")
        );
        assert_eq!(mime_of(&v, 1, b"??", None, "a.bin"), None);
    }

    #[test]
    fn a_rebuilt_glb_moves_its_holes_with_its_binary_chunk() {
        let json = br#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":8}],"images":[{"uri":"a.png"}]}"#;
        let bin = [1u8, 2, 3, 4, 5, 6, 7, 8];
        let main = dashvertex_gltf::glb::build(json, Some(&bin)).unwrap();
        let old_start = glb_parts(&main).unwrap().bin.unwrap().1;
        let mut written = Written {
            main,
            holes: dashvertex_fs::Holes {
                source: None,
                holes: vec![dashvertex_fs::Hole {
                    at: old_start as u64 + 4,
                    from: 0,
                    len: 4,
                }],
            },
            ..Default::default()
        };
        let mut changes = Changes::default();
        changes.blobs.push(vec![9, 9, 9]);
        changes.views.insert(0, (0, "image/png".into()));
        let mut value: Value = serde_json::from_slice(json).unwrap();
        rebuild_glb(&mut written, &mut value, &changes).unwrap();
        let parts = glb_parts(&written.main).unwrap();
        let (new_bin, new_start) = parts.bin.unwrap();
        assert_eq!(&new_bin[..11], &[1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9]);
        assert_eq!(written.holes.holes[0].at, new_start as u64 + 4);
        let doc: Value = serde_json::from_slice(parts.json).unwrap();
        assert_eq!(doc["buffers"][0]["byteLength"], 11);
        assert_eq!(doc["bufferViews"][0]["byteOffset"], 8);
        assert_eq!(doc["images"][0]["bufferView"], 0);
        assert_eq!(doc["images"][0]["mimeType"], "image/png");
        assert!(doc["images"][0].get("uri").is_none());
    }
}
