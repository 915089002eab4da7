//! Why a file cannot be fixed.

/// Why a fix refused a file (nothing is written).
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FixError {
    /// A vertex cannot be repaired under the chosen policies.
    #[error("{part}: vertex {vertex}{}: {message}", slot_text(*.slot))]
    Refused {
        /// The part (`mesh`, `mesh 0 primitive 1`).
        part: String,
        /// The vertex.
        vertex: u64,
        /// Set and slot, when one slot is at fault.
        slot: Option<(usize, usize)>,
        /// JSON Pointer of the attribute (glTF).
        pointer: Option<String>,
        /// What is wrong and which policy would repair it.
        message: String,
    },
    /// Something the fixer does not guess at: a structure it cannot repair.
    #[error("{pointer}: {message}")]
    Unfixable {
        /// JSON Pointer.
        pointer: String,
        /// What is wrong.
        message: String,
    },
    /// An accessor cannot be read.
    #[error("{pointer}: {source}")]
    Accessor {
        /// JSON Pointer.
        pointer: String,
        /// The reader's error.
        #[source]
        source: dashvertex_gltf::AccessorError,
    },
    /// The fixed document cannot be written.
    #[error(transparent)]
    Export(#[from] dashvertex_gltf::export::ExportError),
}

fn slot_text(slot: Option<(usize, usize)>) -> String {
    slot.map_or(String::new(), |(s, k)| format!(" set {s} slot {k}"))
}
