//! What the conversions give (pure types: no ufbx, so every target has them).

use dashvertex_core::Document;

/// A DashVertex document made from FBX, with what the conversion did that a reader
/// should know.
#[derive(Clone, Debug)]
pub struct DashDocument {
    /// The document.
    pub document: Document,
    /// Sentences on what was converted and how (units, axes, vertex ranges, what was left).
    pub notes: Vec<String>,
}

/// A GLB made from FBX, and what a reader should know about how.
#[derive(Clone, Debug)]
pub struct Converted {
    /// The GLB bytes.
    pub glb: Vec<u8>,
    /// Sentences on the conversion: units and axes, weights normalized, influences
    /// dropped, unweighted vertices bound, what was left out.
    pub notes: Vec<String>,
}
