//! Cutting skinned glTF primitives to a joint budget (`spec/split.md`).
//!
//! Engines that upload joint matrices as uniforms draw a primitive with at most N joints.
//! [`split_gltf`] rewrites every skinned node whose skin has more than N joints so that
//! each draw needs at most N:
//!
//! - [`partition`]: the primitive's elements (triangles, lines, points) are grown into
//!   parts over elements that share a vertex, cheapest in new joints first, then parts
//!   are merged while their joints fit. Only joints with non-zero weight count. An
//!   element that needs more than N joints is refused with its location, or, with
//!   [`Options::reduce`], its vertices lose their least influences ([`repair`]) and the
//!   displacement that causes is measured with `dashvertex-skin` ([`measure`]) and
//!   bounded. Nothing is dropped silently.
//! - [`write`](mod@write): parts whose joints fit together share a mesh; each mesh gets its own
//!   node and skin (the subset of the original joint nodes, inverse bind matrices
//!   copied), `JOINTS_n` renumbered to the skin's joints, vertices written once per part
//!   that uses them. Morph targets, `weights` animation channels, materials, extras and
//!   the node tree are carried; skins within the budget and everything else stay as
//!   they were. The file is written by `dashvertex_gltf::export::Editor`.
//!
//! The same input gives the same bytes: every choice is in index order with explicit
//! tie-breaks, and the work is bounded by the input's size.

pub mod budget;
mod gltf;
pub mod measure;
pub mod partition;
pub mod read;
mod refit;
pub mod refs;
pub mod repair;
pub mod report;
mod rows;
pub mod stats;
pub mod write;

pub use gltf::{Split, split_gltf};
pub use partition::PartBudget;
pub use report::{Added, PartReport, PrimitiveReport, Reduced, Report};

/// Parts a split may write over a whole document unless told otherwise
/// (`spec/split.md` §2, \[SP10\]). Each part becomes a primitive with its own accessors,
/// and a mesh, node and skin when its joints fit no other part's: tens of kilobytes of
/// document and validation per part, so 4,096 parts run in well under 256 MiB.
pub const DEFAULT_MAX_PARTS: usize = 4096;

/// What to split to.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Joints a part may use (at least 1).
    pub max_joints: usize,
    /// Parts the whole document may be cut into ([`DEFAULT_MAX_PARTS`] by default); a
    /// split that needs more is refused ([`SplitError::TooManyParts`]) before any part is
    /// written.
    pub max_parts: usize,
    /// Carry extensions the split does not know unchanged (each listed in
    /// [`Report::warnings`]) instead of refusing the file: a split node's are copied to
    /// every part's node (\[SP11\]); the root's, a split mesh's, skin's or primitive's are
    /// kept, and copied with the mesh, skin or primitive to its parts (\[SP13\]).
    pub allow_unknown_extensions: bool,
    /// Make elements that need more joints fit by taking influences off their vertices,
    /// instead of refusing them.
    pub reduce: bool,
    /// With `reduce`: the largest displacement, in model units, the removal may cause
    /// at the rest pose or any keyframe; more refuses the file.
    pub max_error: Option<f64>,
    /// With `reduce`: each changed vertex's weights on the joints it keeps are fitted to
    /// its skinning with every influence over the moments measured (`spec/split.md` §3,
    /// `spec/reduction.md` \[RF1\]–\[RF2\]) and written where they move it less than the
    /// renormalized ones.
    pub fit: bool,
}

impl Options {
    /// A budget of `max_joints` joints per part, with the default part budget, no
    /// `reduce` and no unknown node extension allowed.
    pub fn new(max_joints: usize) -> Options {
        Options {
            max_joints,
            max_parts: DEFAULT_MAX_PARTS,
            allow_unknown_extensions: false,
            reduce: false,
            max_error: None,
            fit: false,
        }
    }
}

/// Why a node extension stops the split (`spec/split.md` §2, \[SP11\]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExtensionRefusal {
    /// The split does not know what the extension means for a node cut into several.
    Unknown,
    /// The extension lists other nodes by index (`MSFT_lod`'s levels of detail): the
    /// part nodes cannot each take them, and the other levels would draw beside the
    /// parts that are not the original node.
    NodeIndices,
}

/// An element that needs more joints than a part may hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// Vertices per element: 3 for a triangle, 2 for a line, 1 for a point.
    pub arity: usize,
    /// The element's index in the primitive (a triangle's is its index / 3).
    pub element: usize,
    /// Its vertices.
    pub vertices: Vec<u32>,
    /// The joints they use, as skin joint indices.
    pub joints: Vec<u32>,
    /// Those joints' node names.
    pub names: Vec<String>,
}

/// Why a file cannot be split.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SplitError {
    /// The options make no split.
    #[error("{0}")]
    Config(String),
    /// A primitive the split must cut has data it does not handle.
    #[error("mesh {mesh} primitive {primitive}: {what} (at {pointer})")]
    Unsupported {
        /// Mesh index.
        mesh: usize,
        /// Primitive index.
        primitive: usize,
        /// JSON Pointer of what is wrong.
        pointer: String,
        /// What is wrong.
        what: String,
    },
    /// Elements need more joints than the budget.
    #[error(
        "mesh {mesh} primitive {primitive}: {count} {}(s) use more than {max} joints together, so no part can hold them; first: {}",
        kind(.first.first().map_or(3, |r| r.arity)),
        describe(.first)
    )]
    TooManyJoints {
        /// Mesh index.
        mesh: usize,
        /// Primitive index.
        primitive: usize,
        /// The budget.
        max: usize,
        /// How many elements.
        count: usize,
        /// The first of them.
        first: Vec<Refused>,
        /// The largest number of joints one element uses (the smallest budget that
        /// would take every element).
        needed: usize,
    },
    /// The split needs more parts than [`Options::max_parts`]: refused before any part
    /// is written. Counted as the parts are made: `parts` is the fewest this
    /// primitive's split found (or, when `at_least`, the ⌈joints used / N⌉ no split
    /// can go below, known before any part is grown).
    #[error(
        "mesh {mesh} primitive {primitive}: cut to {max_joints} joints a part, it needs {}{parts} parts{}, more than the {max_parts} a split may write",
        if *.at_least { "at least " } else { "" },
        if *.earlier > 0 { format!(" (the document {} with the {earlier} of the primitives before it)", .earlier + .parts) } else { String::new() }
    )]
    TooManyParts {
        /// Mesh index.
        mesh: usize,
        /// Primitive index.
        primitive: usize,
        /// The joint budget of a part.
        max_joints: usize,
        /// The part budget.
        max_parts: usize,
        /// Parts this primitive needs.
        parts: usize,
        /// Whether `parts` is the lower bound ⌈joints used / N⌉ (no part was grown).
        at_least: bool,
        /// Parts of the primitives split before it.
        earlier: usize,
    },
    /// What the split adds to the document (JSON copied into the parts and their new
    /// accessors, counted by [`budget::pair_cost`]) passes [`budget::output_budget`]:
    /// refused before the parts of mesh `mesh` are written (`spec/split.md` \[SP12\]).
    #[error(
        "mesh {mesh} (skin {skin}): cut to {max_joints} joints a part, the split would add {} to the document{}, more than its output budget of {} (the larger of {} and {} × the input's {}){}",
        size(*.bytes),
        if *.earlier > 0 { format!(" ({} with the meshes split before it)", size(.earlier.saturating_add(*.bytes))) } else { String::new() },
        size(*.budget),
        size(budget::OUTPUT_FLOOR),
        budget::OUTPUT_PER_INPUT_BYTE,
        size(*.input_bytes),
        .largest.as_ref().map_or_else(String::new, |l| format!(
            "; the largest share is {}: {} over {} cop{}",
            l.what, size(l.bytes), l.copies, if l.copies == 1 { "y" } else { "ies" }
        ))
    )]
    OutputBudget {
        /// The mesh whose parts were about to be written.
        mesh: usize,
        /// Its skin.
        skin: usize,
        /// The joint budget of a part.
        max_joints: usize,
        /// Bytes the split of this mesh would add.
        bytes: u64,
        /// Bytes added by the meshes split before it.
        earlier: u64,
        /// The budget.
        budget: u64,
        /// Bytes of the input it was derived from.
        input_bytes: u64,
        /// What of this mesh's split is counted for the most.
        largest: Option<budget::Share>,
    },
    /// A node the split cuts has an extension the split cannot carry to its parts.
    #[error(
        "{pointer}: node {node} has extension {extension}, {}",
        match .why {
            ExtensionRefusal::Unknown => "which the split does not know: its parts' nodes would drop it or copy it blindly",
            ExtensionRefusal::NodeIndices => "which names other nodes by index (levels of detail): the parts' nodes cannot each take it",
        }
    )]
    NodeExtension {
        /// The node.
        node: usize,
        /// The extension's name.
        extension: String,
        /// JSON Pointer of the extension (`/nodes/N/extensions/NAME`).
        pointer: String,
        /// Why it is refused.
        why: ExtensionRefusal,
    },
    /// An extension at the document's root, or on a split mesh, skin or primitive, that
    /// the split does not know ([`refs::held`]): it could name the meshes, nodes, skins
    /// or accessors the split multiplies or replaces (`spec/split.md` \[SP13\]). Refused
    /// unless [`Options::allow_unknown_extensions`].
    #[error(
        "{pointer}: extension {extension} is not known to the split: it may name meshes, nodes, skins or accessors by index, and after the split such an index would still name only what it named before (the first part of a split mesh or node, or data no part draws)"
    )]
    UnknownExtension {
        /// The extension's name.
        extension: String,
        /// JSON Pointer of the extension (`/extensions/NAME`,
        /// `/meshes/M/extensions/NAME`, `/meshes/M/primitives/P/extensions/NAME`,
        /// `/skins/S/extensions/NAME`).
        pointer: String,
    },
    /// With `reduce`, an element whose every joint is the only joint of one of its
    /// vertices, so that no influence can be taken off.
    #[error(
        "mesh {mesh} primitive {primitive}: {} cannot be reduced to {max} joints: each of its joints is the only one of one of its vertices",
        describe(std::slice::from_ref(.element))
    )]
    Unfixable {
        /// Mesh index.
        mesh: usize,
        /// Primitive index.
        primitive: usize,
        /// The budget.
        max: usize,
        /// The element.
        element: Refused,
    },
    /// With `reduce` and `max_error`, the removal moves a vertex further.
    #[error(
        "mesh {mesh} primitive {primitive}: taking influences off to fit {max} joints moves vertex {vertex} by {displacement} {at}, more than the allowed {max_error}"
    )]
    MaxError {
        /// Mesh index.
        mesh: usize,
        /// Primitive index.
        primitive: usize,
        /// The budget.
        max: usize,
        /// The vertex.
        vertex: u32,
        /// How far it moves.
        displacement: f64,
        /// When.
        at: String,
        /// The bound.
        max_error: f64,
    },
    /// The skinning of a changed vertex gives no finite position.
    #[error("vertex {vertex}: its skinned position is not finite; `dash-validate` says why")]
    NonFinite {
        /// The vertex.
        vertex: u32,
    },
    /// The skinning evaluator cannot read the document.
    #[error(transparent)]
    Skin(dashvertex_skin::SkinError),
    /// The output cannot be written.
    #[error(transparent)]
    Export(#[from] dashvertex_gltf::export::ExportError),
}

/// `bytes` in words: "812 bytes", "3.2 MiB", "4.0 GiB".
#[allow(
    clippy::cast_precision_loss,
    reason = "a size in words is rounded to a tenth anyway"
)]
fn size(bytes: u64) -> String {
    const MIB: u64 = 1 << 20;
    match bytes {
        b if b < 1 << 10 => format!("{b} bytes"),
        b if b < MIB => format!("{:.1} KiB", b as f64 / 1024.0),
        b if b < 1 << 30 => format!("{:.1} MiB", b as f64 / MIB as f64),
        b => format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64),
    }
}

/// What an element of `arity` vertices is called.
fn kind(arity: usize) -> &'static str {
    match arity {
        3 => "triangle",
        2 => "line",
        _ => "point",
    }
}

/// Elements in words: "element 12 (vertices 4, 5, 9) uses 9 joints: hips, spine, …".
fn describe(list: &[Refused]) -> String {
    list.iter()
        .map(|r| {
            let names: Vec<String> = r
                .names
                .iter()
                .take(12)
                .map(|n| dashvertex_core::text::short(n))
                .collect();
            let more = if r.names.len() > 12 { ", …" } else { "" };
            format!(
                "{} {} (vertices {}) uses {} joints: {}{more}",
                kind(r.arity),
                r.element,
                r.vertices
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
                r.joints.len(),
                names.join(", ")
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}
