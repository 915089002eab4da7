//! The FBX entry points of a WebAssembly build, which has no ufbx (its C library needs a C
//! compiler and a libc for wasm32, spec/fbx.md §5): [`load`] refuses every file by name,
//! so no [`Scene`] exists and the functions that take one are never reached.

use dashvertex_core::Limits;

use crate::{CheckOptions, Converted, DashDocument, FbxError, Report};

/// No FBX scene exists in a WebAssembly build.
#[derive(Debug)]
pub enum Scene {}

impl Scene {
    /// Never called: no scene exists.
    pub fn conversion(&self) -> String {
        match *self {}
    }
}

/// Refuses: FBX is read by the command line and the Python package.
pub fn load(_bytes: &[u8], _limits: &Limits) -> Result<Scene, FbxError> {
    Err(FbxError::Unavailable)
}

/// Never called: no scene exists.
pub fn check(scene: &Scene, _opts: &CheckOptions, _report: &mut Report<'_>) {
    match *scene {}
}

/// Never called: no scene exists.
pub fn to_glb(scene: &Scene) -> Result<Converted, FbxError> {
    match *scene {}
}

/// Never called: no scene exists.
pub fn to_document(scene: &Scene) -> Result<DashDocument, FbxError> {
    match *scene {}
}
