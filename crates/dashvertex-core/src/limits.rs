//! Resource limits for decoding untrusted input.

/// Upper bounds a decoder enforces before it allocates.
///
/// Memory use is always bounded by the size of the input; these limits add a cap on top
/// so that a hostile or mistaken file is refused early with a clear message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest input, in bytes, a decoder reads into memory.
    pub max_input_bytes: u64,
    /// Largest number of vertices.
    pub max_vertices: u64,
    /// Largest number of bones.
    pub max_bones: u64,
    /// Largest number of influence sets per vertex (4 influences each).
    pub max_sets: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_input_bytes: 4 << 30,
            max_vertices: 1 << 27,
            max_bones: 1 << 20,
            max_sets: 64,
        }
    }
}

/// A limit was exceeded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{what} {value} exceeds the limit of {limit}")]
pub struct LimitError {
    /// What was counted ("vertex count", "input size", ...).
    pub what: &'static str,
    /// The value found.
    pub value: u64,
    /// The configured limit.
    pub limit: u64,
}

impl Limits {
    /// No caps beyond what the input size implies. For trusted input only.
    pub const UNLIMITED: Limits = Limits {
        max_input_bytes: u64::MAX,
        max_vertices: u64::MAX,
        max_bones: u64::MAX,
        max_sets: u64::MAX,
    };

    fn check(what: &'static str, value: u64, limit: u64) -> Result<(), LimitError> {
        if value > limit {
            Err(LimitError { what, value, limit })
        } else {
            Ok(())
        }
    }

    /// Checks an input size in bytes.
    pub fn check_input(&self, bytes: u64) -> Result<(), LimitError> {
        Self::check("input size", bytes, self.max_input_bytes)
    }

    /// Checks a vertex count.
    pub fn check_vertices(&self, n: u64) -> Result<(), LimitError> {
        Self::check("vertex count", n, self.max_vertices)
    }

    /// Checks a bone count.
    pub fn check_bones(&self, n: u64) -> Result<(), LimitError> {
        Self::check("bone count", n, self.max_bones)
    }

    /// Checks a number of influence sets.
    pub fn check_sets(&self, n: u64) -> Result<(), LimitError> {
        Self::check("influence set count", n, self.max_sets)
    }
}
