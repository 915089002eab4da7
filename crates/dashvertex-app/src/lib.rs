//! The application layer of dash: the jobs every front end runs — reduce, fix, remap, split, the
//! manifest jobs and the conversions — from a path to written files.
//!
//! A job reads its input by path (glTF with its resources, told by name or bytes; `-` for
//! standard input), takes a manifest's lock when it will update it, runs the library that
//! does the work (`dashvertex-reduce`, `dashvertex-fix`), checks the output with the
//! validator before anything is written, and writes every file of the run together
//! (`dashvertex_fs::Batch`) or none. The CLI, the Python package and any other front end
//! translate their options into a job, call it, and show what it gives back; none carries a
//! pipeline of its own.
//!
//! Each front end speaks its own language: a job's [`Context`] carries a [`Wording`] that
//! names options and jobs (`--max-influences` for the CLI, `max_influences` for Python) in
//! every message, and a [`Log`] that takes the job's notes, warnings and progress as they
//! come (the CLI prints them; [`Collect`] keeps them).
//!
//! ```no_run
//! # fn main() -> Result<(), dashvertex_app::AppError> {
//! use dashvertex_app::{Collect, Context, Neutral, remap};
//! let log = Collect::default();
//! let ctx = Context { limits: Default::default(), resource_dirs: &[], wait: true, words: &Neutral, log: &log };
//! let done = remap::run(&remap::RemapJob {
//!     input: "rig.glb".as_ref(),
//!     manifest: "rig.manifest.json".as_ref(),
//!     output: "rig.remapped.glb".as_ref(),
//!     locked: false,
//!     embed: false,
//!     resources: Default::default(),
//!     ctx: &ctx,
//! })?;
//! println!("{} skin(s); {:?}", done.skins.len(), log.take());
//! # Ok(()) }
//! ```

mod error;
pub mod fix;
pub mod formats;
pub mod input;
mod left_behind;
pub mod loss;
pub mod manifest_file;
pub mod output;
pub mod reduce;
pub mod remap;
pub mod report;
pub mod resources;
pub mod split;
mod words;

pub use error::{AppError, input_error};
pub use input::{Context, Opened, Source};
pub use words::{Collect, Job, Level, Log, Neutral, Opt, Wording, warn_neutral_bone};
