//! A decoded DashVertex file and its contents as flat arrays, the shape WebGL and
//! three.js attributes take: positions `xyz…`, per influence set four bone indices and
//! four weights per vertex, and the skeleton as names, parent indices and bind pose.

use std::path::Path;

use dashvertex_core::{Document, Limits};
use dashvertex_formats::{Format, Loaded};
use dashvertex_validate::{Options, Severity};

use crate::failure::Failure;

/// A decoded file: the document, with what its format carries beside it (kept so that
/// [`Model::encode`](crate::bindings::Model::encode) writes it back losslessly).
#[derive(Clone, Debug)]
pub struct Decoded {
    loaded: Loaded,
    format: Format,
    /// Whether every bone index fits 16 bits ([`Decoded::joints_fit_u16`]).
    narrow: bool,
}

/// One influence set's bone indices: 16-bit when every index (and the skeleton's size)
/// fits, 32-bit otherwise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Joints {
    /// Four indices per vertex, all below 65,536.
    U16(Vec<u16>),
    /// Four indices per vertex, some of 65,536 or more.
    U32(Vec<u32>),
}

impl Joints {
    /// The number of indices (four per vertex).
    pub fn len(&self) -> usize {
        match self {
            Joints::U16(v) => v.len(),
            Joints::U32(v) => v.len(),
        }
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Index `i`, widened.
    pub fn get(&self, i: usize) -> Option<u32> {
        match self {
            Joints::U16(v) => v.get(i).map(|&j| u32::from(j)),
            Joints::U32(v) => v.get(i).copied(),
        }
    }
}

/// The skeleton as flat arrays (bone `i` at entry `i`, or at `3i`/`4i` for vectors).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SkeletonArrays {
    /// Bone names.
    pub names: Vec<String>,
    /// Parent index per bone, `-1` for a root. A stored parent beyond `i32::MAX` (out of
    /// range for any skeleton the decoders accept) is `i32::MAX`, still out of range.
    pub parents: Vec<i32>,
    /// Local bind translation, `x y z` per bone.
    pub positions: Vec<f32>,
    /// Local bind rotation quaternion, `x y z w` per bone.
    pub rotations: Vec<f32>,
    /// Local bind scale, `x y z` per bone.
    pub scales: Vec<f32>,
}

/// The format named `name` (`json`, `dmx`, `raw`), as a caller forces it.
pub fn parse_format(name: &str) -> Result<Format, Failure> {
    match Format::from_name(name) {
        Some(f @ (Format::Json | Format::Dmx | Format::Raw)) => Ok(f),
        Some(f) => Err(not_dashvertex(f)),
        None => Err(Failure::options(format!(
            "unknown format {name:?} (expected json, dmx or raw)"
        ))),
    }
}

fn not_dashvertex(f: Format) -> Failure {
    Failure::new(
        Failure::NOT_DASHVERTEX,
        format!(
            "{} is not a DashVertex format (this module reads DashVertex JSON, DMX and raw records)",
            f.describe()
        ),
    )
}

/// The format `bytes` are read as: `forced` when given, else what the one detector of
/// `dashvertex-formats` says from the bytes and `name` (as `dash-validate` does).
pub fn detect(name: &str, bytes: &[u8], forced: Option<Format>) -> Result<Format, Failure> {
    if let Some(f) = forced {
        return Ok(f);
    }
    let detected = Format::detect(Path::new(name), bytes, bytes.len() as u64);
    match detected.read_text(bytes).0 {
        Some(f @ (Format::Json | Format::Dmx | Format::Raw)) => Ok(f),
        Some(f) => Err(not_dashvertex(f)),
        None => Err(Failure::new(
            "FORMAT_UNKNOWN",
            "not DashVertex JSON, a DMX container or raw vertex records",
        )),
    }
}

/// Decodes `bytes` (named `name`, which only hints at the format) as `forced` or the
/// detected format. A refused file fails with the code, message and location of the
/// first error `dash-validate` reports for it.
pub fn decode(name: &str, bytes: &[u8], forced: Option<Format>) -> Result<Decoded, Failure> {
    let format = detect(name, bytes, forced)?;
    match dashvertex_formats::load(bytes, format, &Limits::default()) {
        Ok(loaded) => Ok(Decoded::new(loaded, format)),
        Err(e) => Err(refusal(name, bytes, format, &e)),
    }
}

/// The failure for a file the decoder refused: the validator's first error on the same
/// bytes read as the same format (so the code is the report's), else the decoder's text.
fn refusal(
    name: &str,
    bytes: &[u8],
    format: Format,
    e: &dashvertex_formats::DecodeError,
) -> Failure {
    let opts = Options::new().with_format(format).with_max_diagnostics(16);
    let report = dashvertex_validate::validate_bytes(name, bytes, &opts);
    report
        .diagnostics
        .into_iter()
        .find(|d| d.severity == Severity::Error)
        .map_or_else(
            || Failure::new("DECODE_FAILED", e.to_string()),
            |d| Failure {
                code: d.code.as_str().to_owned(),
                message: d.message,
                location: Box::new(d.location),
            },
        )
}

impl Decoded {
    /// A decoded file read as `format`.
    pub fn new(loaded: Loaded, format: Format) -> Decoded {
        let narrow = narrow(loaded.document());
        Decoded {
            loaded,
            format,
            narrow,
        }
    }

    /// A decoded file whose document is replaced by `document` (a reduction's output),
    /// keeping what the format carries beside it.
    pub fn with_document(&self, document: Document) -> Decoded {
        let mut loaded = self.loaded.clone();
        match &mut loaded {
            Loaded::Json(f) => f.document = document,
            Loaded::Binary(f) => f.document = document,
        }
        Decoded::new(loaded, self.format)
    }

    /// The file as loaded (for encoding).
    pub fn loaded(&self) -> &Loaded {
        &self.loaded
    }

    /// The format it was read as.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The document.
    pub fn document(&self) -> &Document {
        self.loaded.document()
    }

    /// Number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.document().mesh.len()
    }

    /// Influence sets per vertex (at least 1).
    pub fn set_count(&self) -> usize {
        self.document().mesh.set_count()
    }

    /// Whether the mesh is skinned (`spec/dashvertex.md` §6).
    pub fn skinned(&self) -> bool {
        self.document().mesh.is_skinned()
    }

    /// Bones in the skeleton (0 without one).
    pub fn bone_count(&self) -> usize {
        self.document().skeleton.as_ref().map_or(0, |s| s.len())
    }

    /// Whether the file has a skeleton.
    pub fn has_skeleton(&self) -> bool {
        self.document().skeleton.is_some()
    }

    /// Positions, `x y z` per vertex.
    pub fn positions(&self) -> Vec<f32> {
        let vertices = self.document().mesh.vertices();
        let mut out = Vec::with_capacity(vertices.len() * 3);
        for v in vertices {
            out.extend_from_slice(&v.position);
        }
        out
    }

    /// Whether every bone index of every set, and every index the skeleton has, fits 16
    /// bits: then [`Decoded::joints`] gives [`Joints::U16`] for every set.
    pub fn joints_fit_u16(&self) -> bool {
        self.narrow
    }

    /// Bone indices of set `s`, four per vertex (`None` past the last set); every set
    /// has the same width, chosen by [`Decoded::joints_fit_u16`].
    pub fn joints(&self, s: usize) -> Option<Joints> {
        let mesh = &self.document().mesh;
        if s >= mesh.set_count() {
            return None;
        }
        let sets = (0..mesh.len()).filter_map(|v| mesh.set(v, s));
        if self.narrow {
            let mut out = Vec::with_capacity(mesh.len() * 4);
            for set in sets {
                // `narrow`: every index fits, so the fallback is never taken.
                out.extend(set.joints.iter().map(|&j| u16::try_from(j).unwrap_or(0)));
            }
            Some(Joints::U16(out))
        } else {
            let mut out = Vec::with_capacity(mesh.len() * 4);
            for set in sets {
                out.extend_from_slice(&set.joints);
            }
            Some(Joints::U32(out))
        }
    }

    /// Weights of set `s`, four per vertex (`None` past the last set).
    pub fn weights(&self, s: usize) -> Option<Vec<f32>> {
        let mesh = &self.document().mesh;
        if s >= mesh.set_count() {
            return None;
        }
        let mut out = Vec::with_capacity(mesh.len() * 4);
        for set in (0..mesh.len()).filter_map(|v| mesh.set(v, s)) {
            out.extend_from_slice(&set.weights);
        }
        Some(out)
    }

    /// The skeleton as arrays (empty arrays without one).
    pub fn skeleton(&self) -> SkeletonArrays {
        let Some(skeleton) = &self.document().skeleton else {
            return SkeletonArrays::default();
        };
        let n = skeleton.len();
        let mut out = SkeletonArrays {
            names: Vec::with_capacity(n),
            parents: Vec::with_capacity(n),
            positions: Vec::with_capacity(n * 3),
            rotations: Vec::with_capacity(n * 4),
            scales: Vec::with_capacity(n * 3),
        };
        for b in &skeleton.bones {
            out.names.push(b.name.clone());
            out.parents.push(
                b.parent
                    .map_or(-1, |p| i32::try_from(p).unwrap_or(i32::MAX)),
            );
            out.positions.extend_from_slice(&b.position);
            out.rotations.extend_from_slice(&b.rotation);
            out.scales.extend_from_slice(&b.scale);
        }
        out
    }
}

/// Whether every bone index of `doc`'s sets, and every index its skeleton has, fits 16 bits.
fn narrow(doc: &Document) -> bool {
    let mesh = &doc.mesh;
    let highest = (0..mesh.len())
        .flat_map(|v| mesh.sets_of(v))
        .flat_map(|s| s.joints)
        .max()
        .unwrap_or(0);
    let bones = doc.skeleton.as_ref().map_or(0, |s| s.len());
    highest <= u32::from(u16::MAX) && bones <= usize::from(u16::MAX) + 1
}
