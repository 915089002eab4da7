//! The inspect job: what a file holds, as text — its header or container, skeleton and
//! skins, sets and the first records, and for glTF the document's errors listed rather
//! than refused (inspect refuses nothing it can read).

mod dash;
mod gltf;

use std::path::Path;

use crate::error::AppError;
use crate::formats::Format;
use crate::input::{Context, Opened};

/// What an inspect job is asked.
pub struct InspectJob<'a> {
    /// The file (`-`: standard input).
    pub input: &'a Path,
    /// Its format, when its bytes should not decide it.
    pub from: Option<Format>,
    /// Records (vertices) shown at most.
    pub records: usize,
    /// Limits, resource folders and wording.
    pub ctx: &'a Context<'a>,
}

/// The text `inspect` shows for the file, read from its path (`-`: standard input).
#[cfg(feature = "fs")]
pub fn run(a: &InspectJob) -> Result<String, AppError> {
    let ctx = a.ctx;
    let read = match a.from {
        Some(f) if !f.is_gltf() => Opened::Bytes(dashvertex_fs::read_input(
            a.input,
            ctx.limits.max_input_bytes,
        )?),
        // Inspect refuses nothing it can read: it lists the file's errors.
        _ => crate::input::read_source_for(a.input, ctx, work())?,
    };
    describe(a, &read)
}

/// What inspect reads of a glTF input: everything it can, the document's errors listed
/// rather than refused (open it with [`crate::input::open`] and this work).
pub fn work() -> dashvertex_validate::Work {
    dashvertex_validate::Work::Show
}

/// The text `inspect` shows for `opened`, the file `a.input` as the front end opened it.
pub fn describe(a: &InspectJob, opened: &Opened) -> Result<String, AppError> {
    let ctx = a.ctx;
    let name = if a.input == Path::new("-") {
        "<stdin>".to_owned()
    } else {
        a.input.display().to_string()
    };
    match opened {
        Opened::Gltf(g) => gltf::inspect(&name, g.input_len(), g, a.records, &ctx.limits),
        Opened::Bytes(bytes) => {
            let format = a
                .from
                .unwrap_or_else(|| crate::formats::decide(a.input, bytes, ctx.log));
            dash::inspect(&name, bytes, format, a.records, ctx)
        }
    }
}
