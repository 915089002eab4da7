//! What a fix changed: per part, every changed vertex (steps, before → after) and the
//! part-level changes; as text and as JSON (`schemas/fix-report.schema.json`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use crate::policy::Policy;
use crate::step::Step;
use crate::vertex::Storage;

/// A weight as stored: a binary32 value, or a normalized integer.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum Weight {
    /// binary32.
    Float(f32),
    /// A normalized integer (255 or 65535 is a full weight).
    Int(u32),
}

impl Weight {
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "a binary32 value held in an f64 converts back exactly; a stored \
                  integer is a whole number in 0 ..= 2^32 - 1"
    )]
    pub(crate) fn of(x: f64, storage: Storage) -> Self {
        match storage {
            Storage::Float => Weight::Float(x as f32),
            Storage::Unorm(_) => Weight::Int(x as u32),
        }
    }
}

impl std::fmt::Display for Weight {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Weight::Float(x) if x.is_finite() && *x != 0.0 && !(1e-4..1e6).contains(&x.abs()) => {
                write!(f, "{x:e}")
            }
            Weight::Float(x) => write!(f, "{x}"),
            Weight::Int(x) => write!(f, "{x}"),
        }
    }
}

/// A vertex's slots, set-major (set `i / 4`, slot `i % 4`).
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Slots {
    /// Joint indices.
    pub joints: Vec<u32>,
    /// Weights as stored.
    pub weights: Vec<Weight>,
}

impl std::fmt::Display for Slots {
    /// The used slots as `joint:weight`, sets separated by `|` (`[]` when none).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let zero = |w: &Weight| {
            matches!(w, Weight::Float(x) if *x == 0.0 && x.is_sign_positive())
                || matches!(w, Weight::Int(0))
        };
        let mut out = String::from("[");
        let sets = self.joints.len().div_ceil(4);
        let mut first_set = true;
        for s in 0..sets {
            let range = s * 4..(s * 4 + 4).min(self.joints.len());
            let pairs: Vec<String> = self
                .joints
                .get(range.clone())
                .unwrap_or_default()
                .iter()
                .zip(self.weights.get(range).unwrap_or_default())
                .filter(|(j, w)| **j != 0 || !zero(w))
                .map(|(j, w)| format!("{j}:{w}"))
                .collect();
            if sets > 1 && !first_set {
                out.push_str(" | ");
            }
            first_set = false;
            out.push_str(&pairs.join(" "));
        }
        out.push(']');
        f.write_str(&out)
    }
}

/// One changed vertex.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct VertexChange {
    /// The vertex index within its part.
    pub vertex: u64,
    /// The steps applied, in the order they ran.
    pub steps: Vec<Step>,
    /// The slots before.
    pub before: Slots,
    /// The slots after (with the sets the part kept).
    pub after: Slots,
}

/// What changed in one part.
#[derive(Clone, Debug, Default, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PartReport {
    /// Vertices in the part.
    pub vertices: u64,
    /// How many vertices each step changed.
    pub steps: BTreeMap<Step, u64>,
    /// Trailing sets no vertex used, dropped.
    pub sets_dropped: usize,
    /// Sets before the drop (0 when none was dropped).
    #[serde(skip_serializing_if = "is_zero")]
    pub sets_before: usize,
    /// The changed vertices, in vertex order: every one, or the first ones when the repair
    /// was asked to list only some (the others are counted in `unlisted`).
    pub changes: Vec<VertexChange>,
    /// Changed vertices counted (in `steps` too) but not listed in `changes`: 0 unless
    /// the repair was asked to list only some. Never in the JSON report, which is made
    /// from a repair that lists every change.
    #[serde(skip)]
    pub unlisted: u64,
}

impl PartReport {
    /// How many vertices changed, listed or not.
    pub fn changed_vertices(&self) -> u64 {
        self.changes.len() as u64 + self.unlisted
    }

    /// Whether anything in the part changed: a vertex, or the sets (notes aside).
    pub fn changed(&self) -> bool {
        self.changed_vertices() > 0 || self.sets_dropped > 0
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A change to a part as a whole, or to a skin (glTF).
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", tag = "kind")]
#[non_exhaustive]
pub enum Note {
    /// The weights' storage was not a legal glTF format; written as `to`.
    WeightsType {
        /// The accessor's format (`UNSIGNED_BYTE`, `normalized FLOAT`, …).
        from: String,
        /// What was written.
        to: String,
    },
    /// The joints' component type was not legal (FLOAT, signed, UNSIGNED_INT); written
    /// as UNSIGNED_BYTE or UNSIGNED_SHORT.
    JointsType {
        /// The accessor's component type.
        from: String,
        /// What was written.
        to: String,
    },
    /// An influence accessor was not 4-byte aligned; written aligned.
    Alignment,
    /// A DashVertex mesh marked unskinned held influence data: marked skinned
    /// (`--skinned-flag set`), or the data cleared (`clear`).
    SkinnedFlag {
        /// True when the mesh was marked skinned, false when the data was cleared.
        set: bool,
    },
    /// DMX or raw records whose `index` was not their position: rewritten (the file is
    /// written again, as `dashvertex convert` writes it).
    RecordIndices,
    /// The glTF JSON started with a byte order mark, which glTF forbids: dropped.
    ByteOrderMark,
    /// An inverse bind matrix's fourth row was snapped to exactly `(0, 0, 0, 1)`.
    IbmRow {
        /// The joint (matrix) index.
        joint: u64,
        /// The row before.
        before: [f32; 4],
    },
    /// A skin's inverse bind matrices lay in a buffer view with a `byteStride`: copied
    /// tightly packed, values unchanged.
    IbmStride {
        /// The skin.
        skin: u64,
    },
    /// A skin's `skeleton` was no common root of its joints: set to their nearest one.
    Skeleton {
        /// The skin.
        skin: u64,
        /// The node it named.
        from: u64,
        /// The joints' nearest common root, which it names now.
        to: u64,
    },
    /// An animation accessor lay in a buffer view with a `byteStride`: copied tightly
    /// packed, values unchanged.
    AnimationStride {
        /// The JSON Pointer of the sampler's member that names it.
        accessor: String,
    },
    /// A sampler's keyframe times did not strictly increase: its keyframes were put in
    /// time order, and one at the time of an earlier one dropped.
    Keyframes {
        /// The JSON Pointer of the sampler.
        sampler: String,
        /// Its keyframes before.
        keyframes: u64,
        /// Keyframes dropped because an earlier one had their time.
        merged: u64,
    },
    /// A vertex attribute's values broke a unit-length or range rule: repaired in a new
    /// accessor, or listed and left where no exact repair exists.
    Attribute {
        /// The JSON Pointer of the first attribute that names the accessor.
        attribute: String,
        /// The accessor.
        accessor: u64,
        /// What was done.
        change: AttributeChange,
        /// How many elements it concerns.
        elements: u64,
        /// The first of them.
        first: u64,
    },
}

/// What the repair of a vertex attribute did to some of its elements (spec/fix.md §4,
/// "attributes").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum AttributeChange {
    /// A `NORMAL` or `TANGENT` `xyz` not of unit length was divided by its length.
    Renormalized,
    /// A zero-length `NORMAL` or `TANGENT` `xyz` was left: it has no direction to restore.
    ZeroLengthLeft,
    /// A `TANGENT` `w` near 1 or -1 was set to it.
    SignSnapped,
    /// A `TANGENT` `w` far from 1 and -1 was left: which handedness was meant is unknown.
    SignLeft,
    /// A FLOAT `COLOR_n` component below 0 or above 1 was clamped to 0…1.
    Clamped,
}

impl Note {
    /// True when the note is a change made, false for a fault listed and left as it was
    /// (a zero-length normal, a tangent sign far from ±1): a file with only those is
    /// unchanged, and copied byte for byte.
    pub fn changes(&self) -> bool {
        match self {
            Note::Attribute { change, .. } => change.repairs(),
            _ => true,
        }
    }
}

impl AttributeChange {
    /// True for a change of values, false for a fault listed and left.
    pub fn repairs(self) -> bool {
        !matches!(self, Self::ZeroLengthLeft | Self::SignLeft)
    }
}

/// The report of one part.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Part {
    /// What the part is: `mesh` (DashVertex) or `mesh M primitive P` (glTF).
    pub label: String,
    /// Its JSON Pointer in a glTF document.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
    /// Part-level changes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<Note>,
    /// Vertex changes.
    #[serde(flatten)]
    pub report: PartReport,
}

/// The report of a skin's repair (glTF).
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SkinReport {
    /// Skin index.
    pub skin: usize,
    /// JSON Pointer of the skin.
    pub pointer: String,
    /// What changed.
    pub notes: Vec<Note>,
}

/// What `dashvertex fix` did to a file.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// The input's name.
    pub file: String,
    /// The policies applied.
    pub policy: Policy,
    /// True when nothing changed (the output is the input, byte for byte).
    pub unchanged: bool,
    /// Vertices changed, over all parts.
    pub vertices_changed: u64,
    /// Per part, in file order (parts without change included, with no changes listed).
    pub parts: Vec<Part>,
    /// Skins changed (glTF).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skins: Vec<SkinReport>,
    /// Changes to the file as a whole (a byte order mark, record indices).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<Note>,
}

impl Report {
    /// The report of `parts`, `skins` and file-level `notes`, with what follows from them
    /// (whether anything changed, how many vertices) filled in.
    pub fn new(
        file: String,
        policy: Policy,
        parts: Vec<Part>,
        skins: Vec<SkinReport>,
        notes: Vec<Note>,
    ) -> Self {
        let mut r = Report {
            file,
            policy,
            unchanged: false,
            vertices_changed: parts.iter().map(|p| p.report.changed_vertices()).sum(),
            parts,
            skins,
            notes,
        };
        r.unchanged = !r.changed();
        r
    }

    /// Whether anything changed.
    pub fn changed(&self) -> bool {
        self.parts
            .iter()
            .any(|p| !p.notes.is_empty() || p.report.changed())
            || !self.skins.is_empty()
            || self.notes.iter().any(Note::changes)
    }

    /// The report as text: a summary line per part and skin, then one line per changed
    /// vertex (`vertex V: steps: before -> after`), at most `listed` per part (`None`:
    /// all; the JSON report always lists all).
    pub fn to_text(&self, listed: Option<usize>) -> String {
        let mut out = String::new();
        if !self.changed() {
            let _ = writeln!(out, "{}: nothing to fix", self.file);
            // Faults listed and left (no exact repair) are still said.
            for n in &self.notes {
                let _ = writeln!(out, "{}", note_text(n));
            }
            return out;
        }
        for p in &self.parts {
            let r = &p.report;
            if !r.changed() && p.notes.is_empty() {
                continue;
            }
            let changed = r.changed_vertices();
            let steps: Vec<String> = r
                .steps
                .iter()
                .map(|(s, n)| format!("{} {n}", s.name()))
                .collect();
            let _ = writeln!(
                out,
                "{}: {} {} of {} changed{}{}",
                p.label,
                changed,
                if changed == 1 { "vertex" } else { "vertices" },
                if r.vertices == 1 {
                    "1 vertex".to_owned()
                } else {
                    format!("{} vertices", r.vertices)
                },
                if steps.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", steps.join(", "))
                },
                if r.sets_dropped > 0 {
                    format!("; {} unused trailing set(s) dropped", r.sets_dropped)
                } else {
                    String::new()
                }
            );
            for n in &p.notes {
                let _ = writeln!(out, "  {}", note_text(n));
            }
            let shown = listed.unwrap_or(usize::MAX).min(r.changes.len());
            for c in r.changes.get(..shown).unwrap_or_default() {
                let steps: Vec<&str> = c.steps.iter().map(|s| s.name()).collect();
                let _ = writeln!(
                    out,
                    "  vertex {}: {}: {} -> {}",
                    c.vertex,
                    steps.join(", "),
                    c.before,
                    c.after
                );
            }
            let more = changed - shown as u64;
            if more > 0 {
                let _ = writeln!(
                    out,
                    "  … and {more} more changed {} (every change is in the JSON report)",
                    if more == 1 { "vertex" } else { "vertices" }
                );
            }
        }
        for s in &self.skins {
            for n in &s.notes {
                let _ = writeln!(out, "skin {}: {}", s.skin, note_text(n));
            }
        }
        for n in &self.notes {
            let _ = writeln!(out, "{}", note_text(n));
        }
        out
    }
}

fn note_text(n: &Note) -> String {
    match n {
        Note::WeightsType { from, to } => format!("weights were {from}: written as {to}"),
        Note::JointsType { from, to } => format!("joints were {from}: written as {to}"),
        Note::Alignment => "influence accessors were not 4-byte aligned: written aligned".into(),
        Note::SkinnedFlag { set: true } => {
            "the mesh was marked unskinned but held influence data: marked skinned".into()
        }
        Note::SkinnedFlag { set: false } => {
            "the mesh was marked unskinned but held influence data: the data was cleared".into()
        }
        Note::RecordIndices => "record indices that were not their positions were rewritten".into(),
        Note::ByteOrderMark => "the byte order mark glTF forbids was dropped".into(),
        Note::IbmRow { joint, before } => format!(
            "inverse bind matrix {joint}: fourth row ({} {} {} {}) set to (0 0 0 1)",
            before[0], before[1], before[2], before[3]
        ),
        Note::IbmStride { skin } => format!(
            "skin {skin}: the inverse bind matrices' buffer view had a byteStride: copied tightly packed"
        ),
        Note::Skeleton { skin, from, to } => format!(
            "skin {skin}: skeleton node {from} was no common root of the joints: set to node {to}, their nearest one"
        ),
        Note::AnimationStride { accessor } => format!(
            "{accessor}: the accessor's buffer view had a byteStride, which animation data may not have: copied tightly packed"
        ),
        Note::Attribute {
            attribute,
            accessor,
            change,
            elements,
            first,
        } => attribute_text(attribute, *accessor, *change, *elements, *first),
        Note::Keyframes {
            sampler,
            keyframes,
            merged,
        } => format!(
            "{sampler}: the {keyframes} keyframe times did not strictly increase: put in time order{}",
            if *merged > 0 {
                format!(", {merged} keyframe(s) at the time of an earlier one dropped")
            } else {
                String::new()
            }
        ),
    }
}

fn attribute_text(
    attribute: &str,
    accessor: u64,
    change: AttributeChange,
    elements: u64,
    first: u64,
) -> String {
    let what = match change {
        AttributeChange::Renormalized => {
            "vector(s) not of unit length: divided by their length".to_owned()
        }
        AttributeChange::ZeroLengthLeft => {
            "zero-length vector(s) left as they were (no direction to restore): its GLTF_ATTRIBUTE_NON_UNIT is carried".to_owned()
        }
        AttributeChange::SignSnapped => format!(
            "w value(s) within {} of 1 or -1: set to it",
            crate::attributes::SIGN_TOLERANCE
        ),
        AttributeChange::SignLeft => {
            "w value(s) far from 1 and -1 left as they were (the handedness cannot be known): its GLTF_TANGENT_SIGN is carried".to_owned()
        }
        AttributeChange::Clamped => "element(s) with a component outside 0…1: clamped".to_owned(),
    };
    format!("{attribute} (accessor {accessor}): {elements} {what}; the first is element {first}")
}

/// The JSON Schema of [`Report`] (`schemas/fix-report.schema.json`).
pub fn schema() -> schemars::Schema {
    let mut s = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<Report>();
    s.insert(
        "$id".into(),
        serde_json::Value::String("https://dash.invalid/schemas/fix-report.schema.json".into()),
    );
    s
}
