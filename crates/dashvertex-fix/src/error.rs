//! Why a file cannot be fixed.

/// Why a fix refused a file (nothing is written).
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FixError {
    /// Vertices cannot be repaired under the chosen policies: the first of them, for one
    /// policy.
    #[error("{part}: vertex {vertex}{}: {message}{}", slot_text(*.slot), alike(*.vertices))]
    Refused {
        /// The part (`mesh`, `mesh 0 primitive 1`).
        part: String,
        /// How many vertices of the part this policy refused.
        vertices: u64,
        /// The first of them.
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
    /// Refusals of more than one policy or part, each a [`FixError::Refused`], in part and
    /// vertex order: every flag the file needs, from one run.
    #[error("{} refusals (each names the policy that repairs it):{}", .0.len(), join(.0))]
    Several(Vec<FixError>),
}

impl FixError {
    /// The refusals of one part as one error: [`FixError::Refused`] for one policy,
    /// [`FixError::Several`] for more. `pointer` gives the attribute of a set.
    pub(crate) fn of_part(
        part: &str,
        refusals: Vec<crate::part::PartRefusal>,
        pointer: &dyn Fn(Option<(usize, usize)>) -> Option<String>,
    ) -> FixError {
        let mut all: Vec<FixError> = refusals
            .into_iter()
            .map(|r| FixError::Refused {
                part: part.to_owned(),
                vertices: r.vertices,
                vertex: r.vertex,
                slot: r.slot,
                pointer: pointer(r.slot),
                message: r.message,
            })
            .collect();
        match all.len() {
            1 => all.pop().unwrap_or(FixError::Several(Vec::new())),
            _ => FixError::Several(all),
        }
    }

    /// The errors this one stands for: itself, or each of [`FixError::Several`].
    pub fn each(&self) -> Vec<&FixError> {
        match self {
            FixError::Several(all) => all.iter().collect(),
            other => vec![other],
        }
    }

    /// Joins refusals of several parts into one error.
    pub(crate) fn join_all(errors: Vec<FixError>) -> Option<FixError> {
        let mut all = Vec::new();
        for e in errors {
            match e {
                FixError::Several(v) => all.extend(v),
                other => all.push(other),
            }
        }
        match all.len() {
            0 => None,
            1 => all.pop(),
            _ => Some(FixError::Several(all)),
        }
    }
}

fn alike(vertices: u64) -> String {
    match vertices {
        0 | 1 => String::new(),
        2 => " (and 1 more vertex alike)".to_owned(),
        n => format!(" (and {} more vertices alike)", n - 1),
    }
}

/// Refusals listed in a message before the rest are counted (a file may have thousands of
/// parts).
const LISTED: usize = 8;

fn join(all: &[FixError]) -> String {
    let mut text: String = all
        .iter()
        .take(LISTED)
        .map(|e| format!("\n  {e}"))
        .collect();
    if all.len() > LISTED {
        text.push_str(&format!("\n  … and {} more", all.len() - LISTED));
    }
    text
}

fn slot_text(slot: Option<(usize, usize)>) -> String {
    slot.map_or(String::new(), |(s, k)| format!(" set {s} slot {k}"))
}
