//! Loading a GLB without the bytes a rewrite carries through unread.
//!
//! A reduction changes a skinned mesh's `JOINTS_n`/`WEIGHTS_n` and leaves its NORMAL,
//! TANGENT, TEXCOORD_n, COLOR_n, indices and morph targets byte for byte; in a Blender
//! export those are a third of the file. [`load_path_for_rewrite`] reads a GLB's binary
//! chunk except the buffer views only such accessors use ([`carried_views`]): those stay
//! zero, untouched, and [`Gltf`] remembers them, so that
//! - an accessor read through them fails (never a silent zero: `accessor::read`), and
//! - the editor writes them as holes filled from the file by the writer
//!   ([`dashvertex_fs::Holes`]), inside the kernel.

use std::ops::Range;
use std::path::{Path, PathBuf};

use serde_json::Value;

use dashvertex_core::Limits;
use dashvertex_fs::SpliceSource;

use crate::export::PRUNE_SAFE_EXTENSIONS;
use crate::load::{FsResolver, Gltf, load_owned};
use crate::{LoadError, glb};

/// A carried range shorter than this is read with the rest: a hole has a cost of its
/// own (a system call, a seek) that a short read does not.
pub const MIN_HOLE: u64 = crate::load::MIN_HOLE;

/// A file smaller than this is not worth a sparse read: planning it (a second open, the
/// JSON parsed twice) costs more than the holes it could leave (callers read it whole).
pub const MIN_FILE: u64 = 512 << 10;

/// What a sparse load left out of a GLB's binary chunk (buffer 0).
#[derive(Clone, Debug)]
pub(crate) struct Sparse {
    /// The file, held open for the writer.
    pub source: SpliceSource,
    /// Where the binary chunk's data starts in the file.
    pub bin_offset: u64,
    /// Ranges of buffer 0 not read, sorted and disjoint.
    pub absent: Vec<Range<u64>>,
}

/// What a rewrite reads of a mesh besides what every rewrite reads (JOINTS_n, WEIGHTS_n,
/// `_` attributes, inverse bind matrices, animation samplers, sparse accessors, images);
/// the rest it carries unread ([`carried_views`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Rewrite {
    /// A reduction reads POSITION too: its import takes a primitive's positions from it.
    Reduce,
    /// A joint remap reads the influence sets only: POSITION is carried as well.
    Remap,
}

impl Rewrite {
    /// Whether this rewrite carries a primitive attribute of this name without reading
    /// it.
    fn carries(self, name: &str) -> bool {
        name == "NORMAL"
            || name == "TANGENT"
            || name.starts_with("TEXCOORD_")
            || name.starts_with("COLOR_")
            || (self == Rewrite::Remap && name == "POSITION")
    }

    /// The attributes it carries, as a message names them.
    pub fn carried_names(self) -> &'static str {
        match self {
            Rewrite::Reduce => "NORMAL, TANGENT, TEXCOORD, COLOR, indices, morph targets",
            Rewrite::Remap => "POSITION, NORMAL, TANGENT, TEXCOORD, COLOR, indices, morph targets",
        }
    }
}

/// Loads `path` as [`crate::load_path_in`] does, except that a GLB's binary chunk is read
/// without the buffer views that only accessors `rewrite` carries unchanged use
/// ([`carried_views`]). Anything that is not a regular GLB file (`.gltf` text, standard
/// input, a FIFO, a file under 28 bytes or with a damaged header) is read whole.
pub fn load_path_for_rewrite(
    path: &Path,
    allowed: &[PathBuf],
    limits: &Limits,
    rewrite: Rewrite,
) -> Result<Gltf, LoadError> {
    let Some(source) = SpliceSource::open(path, limits.max_input_bytes)? else {
        return crate::load_path_in(path, allowed, limits);
    };
    load_source_for_rewrite(source, allowed, limits, rewrite)
}

/// [`load_path_for_rewrite`] of a regular file already open as `source` (opened with
/// `limits.max_input_bytes`), which the loaded glTF keeps for the copy of what it left
/// unread.
pub fn load_source_for_rewrite(
    source: SpliceSource,
    allowed: &[PathBuf],
    limits: &Limits,
    rewrite: Rewrite,
) -> Result<Gltf, LoadError> {
    let resolver = FsResolver::for_file(source.path(), allowed, limits.max_input_bytes)?;
    let Plan {
        bin_offset,
        absent,
        chunk,
    } = plan(&source, rewrite)?;
    let in_file: Vec<Range<u64>> = absent
        .iter()
        .map(|r| r.start + bin_offset..r.end + bin_offset)
        .collect();
    let bytes = source.read_sparse(&in_file)?;
    let mut gltf = load_owned(bytes, &resolver, limits)?;
    // The file is kept whenever its binary chunk was found, read whole or not: an editor
    // that splices every carried range ([`crate::export::Editor::splice_carried`])
    // copies from it.
    if chunk {
        gltf.set_sparse(Sparse {
            source,
            bin_offset,
            absent,
        });
    }
    Ok(gltf)
}

/// What of a GLB's binary chunk to leave unread.
#[derive(Default)]
struct Plan {
    /// Where the chunk's data starts in the file.
    bin_offset: u64,
    /// Ranges of the chunk (buffer 0) to leave unread, sorted and disjoint.
    absent: Vec<Range<u64>>,
    /// Whether the binary chunk was found (`bin_offset` is where its data starts).
    chunk: bool,
}

/// The binary chunk's offset in the file and the ranges of it to leave unread; nothing
/// to leave when the file is not a GLB whose header, JSON and chunk lengths can be read.
fn plan(source: &SpliceSource, rewrite: Rewrite) -> Result<Plan, LoadError> {
    let mut head = [0u8; 20];
    if source.len() < 28 {
        return Ok(Plan::default());
    }
    source.read_at(&mut head, 0)?;
    if !glb::is_glb(&head) {
        return Ok(Plan::default());
    }
    let word = |b: &[u8], at: usize| {
        b.get(at..at + 4)
            .and_then(|w| <[u8; 4]>::try_from(w).ok())
            .map(u32::from_le_bytes)
    };
    let (Some(json_len), Some(json_type)) = (word(&head, 12), word(&head, 16)) else {
        return Ok(Plan::default());
    };
    let bin_header = 20 + u64::from(json_len);
    if json_type != glb::JSON || bin_header + 8 > source.len() {
        return Ok(Plan::default());
    }
    let mut json = vec![0u8; json_len as usize];
    source.read_at(&mut json, 20)?;
    let mut bin_head = [0u8; 8];
    source.read_at(&mut bin_head, bin_header)?;
    let (Some(bin_len), Some(bin_type)) = (word(&bin_head, 0), word(&bin_head, 4)) else {
        return Ok(Plan::default());
    };
    let bin_offset = bin_header + 8;
    if bin_type != glb::BIN {
        return Ok(Plan::default());
    }
    let bin_len = u64::from(bin_len).min(source.len() - bin_offset);
    // A JSON the loader refuses is refused there, with its place: read the file whole.
    let Ok(value) = serde_json::from_slice::<Value>(&json) else {
        return Ok(Plan::default());
    };
    let absent = carried_views(&value, bin_len, rewrite)
        .into_iter()
        .filter(|r| r.end - r.start >= MIN_HOLE)
        .collect();
    let chunk = bin_is_buffer_0(&value);
    Ok(Plan {
        bin_offset,
        absent,
        chunk,
    })
}

/// Whether the document's buffer 0 is the GLB's binary chunk: one with a URI is another
/// file, which neither a sparse read nor a splice may take from the GLB.
fn bin_is_buffer_0(value: &Value) -> bool {
    arr(value.get("buffers"))
        .first()
        .is_some_and(|b| b.get("uri").is_none())
}

/// How an accessor is used, for [`carried_views`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Use {
    /// Named nowhere a rewrite looks.
    None,
    /// Only as a mesh attribute a rewrite carries (NORMAL, TANGENT, TEXCOORD_n,
    /// COLOR_n), as indices, or in a morph target.
    Carried,
    /// Anywhere else (POSITION, JOINTS_n, WEIGHTS_n, `_` attributes, inverse bind
    /// matrices, animation samplers), or sparse.
    Read,
}

/// The ranges of buffer 0 (of `bin_len` bytes) that lie only in buffer views that only
/// carried accessors use (accessors named only as attributes `rewrite` carries —
/// NORMAL, TANGENT, TEXCOORD_n, COLOR_n, and for a remap POSITION — as indices or in
/// morph targets, without sparse data), sorted and merged; empty when the document uses
/// an extension that could refer to data on its own.
pub fn carried_views(value: &Value, bin_len: u64, rewrite: Rewrite) -> Vec<Range<u64>> {
    let used_ok = ["extensionsUsed", "extensionsRequired"].iter().all(|key| {
        value.get(*key).and_then(Value::as_array).is_none_or(|a| {
            a.iter().all(|e| {
                e.as_str()
                    .is_some_and(|n| PRUNE_SAFE_EXTENSIONS.contains(&n))
            })
        })
    });
    let accessors = arr(value.get("accessors"));
    let views = arr(value.get("bufferViews"));
    if !used_ok || !bin_is_buffer_0(value) || accessors.is_empty() || views.is_empty() {
        return Vec::new();
    }
    let mut uses = vec![Use::None; accessors.len()];
    let mut mark = |i: Option<&Value>, u: Use| {
        if let Some(slot) = i.and_then(index).and_then(|i| uses.get_mut(i))
            && *slot != Use::Read
        {
            *slot = u;
        }
    };
    for m in arr(value.get("meshes")) {
        for p in arr(m.get("primitives")) {
            if let Some(attrs) = p.get("attributes").and_then(Value::as_object) {
                for (name, a) in attrs {
                    let u = if rewrite.carries(name) {
                        Use::Carried
                    } else {
                        Use::Read
                    };
                    mark(Some(a), u);
                }
            }
            mark(p.get("indices"), Use::Carried);
            for t in arr(p.get("targets")) {
                if let Some(t) = t.as_object() {
                    for a in t.values() {
                        mark(Some(a), Use::Carried);
                    }
                }
            }
        }
    }
    for s in arr(value.get("skins")) {
        mark(s.get("inverseBindMatrices"), Use::Read);
    }
    for a in arr(value.get("animations")) {
        for s in arr(a.get("samplers")) {
            mark(s.get("input"), Use::Read);
            mark(s.get("output"), Use::Read);
        }
    }
    // Per view: whether anything reads it, whether a carried accessor names it.
    let mut read = vec![false; views.len()];
    let mut carried = vec![false; views.len()];
    let view_of = |v: Option<&Value>| v.and_then(index);
    for (a, u) in accessors.iter().zip(&uses) {
        let sparse = a.get("sparse");
        let own = view_of(a.get("bufferView"));
        let slot = match (u, sparse) {
            (Use::Carried, None) => &mut carried,
            _ => &mut read,
        };
        if let Some(x) = own.and_then(|v| slot.get_mut(v)) {
            *x = true;
        }
        if let Some(sp) = sparse {
            for part in ["indices", "values"] {
                if let Some(x) = view_of(sp.get(part).and_then(|p| p.get("bufferView")))
                    .and_then(|v| read.get_mut(v))
                {
                    *x = true;
                }
            }
        }
    }
    for i in arr(value.get("images")) {
        if let Some(x) = view_of(i.get("bufferView")).and_then(|v| read.get_mut(v)) {
            *x = true;
        }
    }
    // Ranges in buffer 0: a view that is neither read nor carried (named by nothing
    // dash knows) stays read, as do views whose range does not fit the chunk.
    let range_of = |v: &Value| -> Option<Range<u64>> {
        if v.get("buffer").and_then(index) != Some(0) {
            return None;
        }
        let start = v.get("byteOffset").map_or(Some(0), number)?;
        let end = start.checked_add(v.get("byteLength").and_then(number)?)?;
        (end <= bin_len && start < end).then_some(start..end)
    };
    let mut skip: Vec<Range<u64>> = Vec::new();
    let mut keep: Vec<Range<u64>> = Vec::new();
    for (k, v) in views.iter().enumerate() {
        let is_carried = carried.get(k) == Some(&true) && read.get(k) == Some(&false);
        match range_of(v) {
            Some(r) if is_carried => skip.push(r),
            Some(r) => keep.push(r),
            None => {}
        }
    }
    subtract(merge(skip), &merge(keep))
}

/// A non-negative integer as the loader reads it: also written with a zero fraction
/// (`3.0`), as the loader accepts it, so that no reference is missed.
fn number(v: &Value) -> Option<u64> {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    v.as_u64().or_else(|| {
        let f = v
            .as_f64()
            .filter(|f| f.fract() == 0.0 && (0.0..EXACT).contains(f))?;
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "an integer in [0, 2^53)"
        )]
        Some(f as u64)
    })
}

/// [`number`] as an index.
fn index(v: &Value) -> Option<usize> {
    number(v).and_then(|n| usize::try_from(n).ok())
}

/// The elements of an array member (none when it is absent or not an array).
fn arr(v: Option<&Value>) -> &[Value] {
    v.and_then(Value::as_array).map_or(&[][..], Vec::as_slice)
}

/// Sorted, merged ranges.
fn merge(mut ranges: Vec<Range<u64>>) -> Vec<Range<u64>> {
    ranges.sort_by_key(|r| (r.start, r.end));
    let mut out: Vec<Range<u64>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match out.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

/// `from` without `minus` (both sorted and merged), in one pass over each.
fn subtract(from: Vec<Range<u64>>, minus: &[Range<u64>]) -> Vec<Range<u64>> {
    let mut out = Vec::with_capacity(from.len());
    let mut k = 0;
    for r in from {
        let mut start = r.start;
        while let Some(m) = minus.get(k) {
            if m.end <= start {
                k += 1;
                continue;
            }
            if m.start >= r.end {
                break;
            }
            if m.start > start {
                out.push(start..m.start);
            }
            start = start.max(m.end);
            if m.end >= r.end {
                break;
            }
            k += 1;
        }
        if start < r.end {
            out.push(start..r.end);
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    #[allow(clippy::single_range_in_vec_init)]
    fn ranges_merge_and_subtract() {
        assert_eq!(merge(vec![5..9, 0..2, 1..3, 9..10]), vec![0..3, 5..10]);
        assert_eq!(
            subtract(vec![0..10, 20..30], &[2..4, 8..22, 25..26]),
            vec![0..2, 4..8, 22..25, 26..30]
        );
        assert_eq!(subtract(vec![0..10], &[0..10]), Vec::<Range<u64>>::new());
        assert_eq!(subtract(vec![0..10], &[]), vec![0..10]);
    }

    fn doc() -> Value {
        json!({
            "buffers": [{"byteLength": 1000}],
            "bufferViews": [
                {"buffer": 0, "byteOffset": 0, "byteLength": 100},
                {"buffer": 0, "byteOffset": 100, "byteLength": 100},
                {"buffer": 0, "byteOffset": 200, "byteLength": 100},
                {"buffer": 0, "byteOffset": 300, "byteLength": 100},
                {"buffer": 0, "byteOffset": 400, "byteLength": 100},
                {"buffer": 0, "byteOffset": 450, "byteLength": 100},
                {"buffer": 0, "byteOffset": 600, "byteLength": 100}
            ],
            "accessors": [
                {"bufferView": 0}, {"bufferView": 1}, {"bufferView": 2},
                {"bufferView": 3}, {"bufferView": 4}, {"bufferView": 5},
                {"bufferView": 6}
            ],
            "meshes": [{"primitives": [
                {"attributes": {"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2, "JOINTS_0": 3,
                                "COLOR_0": 4}, "indices": 6},
                {"attributes": {"POSITION": 0, "_WEIGHT": 5}}
            ]}],
            "skins": [{"joints": [0]}]
        })
    }

    #[test]
    fn only_views_of_carried_accessors_are_left_out() {
        // NORMAL, TEXCOORD_0, indices; COLOR_0 overlaps the `_` attribute's view
        assert_eq!(
            carried_views(&doc(), 1000, Rewrite::Reduce),
            vec![100..300, 400..450, 600..700]
        );
        // an accessor read elsewhere too is read
        let mut d = doc();
        d["skins"][0]["inverseBindMatrices"] = json!(1);
        assert_eq!(
            carried_views(&d, 1000, Rewrite::Reduce),
            vec![200..300, 400..450, 600..700]
        );
        // a view past the chunk is read (the loader reports it)
        assert_eq!(
            carried_views(&doc(), 650, Rewrite::Reduce),
            vec![100..300, 400..450]
        );
        // an image in a view is read
        let mut d = doc();
        d["images"] = json!([{"bufferView": 6}]);
        assert_eq!(
            carried_views(&d, 1000, Rewrite::Reduce),
            vec![100..300, 400..450]
        );
        // sparse accessors are read
        let mut d = doc();
        d["accessors"][2]["sparse"] = json!({"count": 1,
            "indices": {"bufferView": 1, "componentType": 5121},
            "values": {"bufferView": 1}});
        assert_eq!(
            carried_views(&d, 1000, Rewrite::Reduce),
            vec![400..450, 600..700]
        );
    }

    #[test]
    fn a_remap_carries_position_too() {
        // POSITION's view 0 is carried; the `_` attribute's view stays read
        assert_eq!(
            carried_views(&doc(), 1000, Rewrite::Remap),
            vec![0..300, 400..450, 600..700]
        );
        // unless something else reads POSITION's accessor
        let mut d = doc();
        d["animations"] = json!([{"samplers": [{"input": 0, "output": 0}]}]);
        assert_eq!(
            carried_views(&d, 1000, Rewrite::Remap),
            vec![100..300, 400..450, 600..700]
        );
    }

    #[test]
    fn indices_written_with_a_fraction_count_and_an_external_buffer_0_leaves_nothing_out() {
        // POSITION names view 1 as 1.0: the loader reads it, so it is read here too.
        let mut d = doc();
        d["accessors"][0]["bufferView"] = json!(1.0);
        assert_eq!(
            carried_views(&d, 1000, Rewrite::Reduce),
            vec![200..300, 400..450, 600..700]
        );
        let mut d = doc();
        d["buffers"][0]["uri"] = json!("data.bin");
        assert!(carried_views(&d, 1000, Rewrite::Reduce).is_empty());
    }

    #[test]
    fn unknown_extensions_leave_nothing_out() {
        let mut d = doc();
        d["extensionsUsed"] = json!(["KHR_draco_mesh_compression"]);
        assert!(carried_views(&d, 1000, Rewrite::Reduce).is_empty());
        d["extensionsUsed"] = json!(["KHR_materials_unlit"]);
        assert!(!carried_views(&d, 1000, Rewrite::Reduce).is_empty());
        d["extensionsRequired"] = json!(["EXT_meshopt_compression"]);
        assert!(carried_views(&d, 1000, Rewrite::Reduce).is_empty());
    }
}
