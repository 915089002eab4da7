//! The application layer of dash: the jobs every front end runs — reduce, fix, remap, split, the
//! manifest jobs and the conversions — in two parts.
//!
//! - The core, which reads no file and starts no thread, and so builds for WebAssembly
//!   (`default-features = false`): an input opened from bytes, with a
//!   [`dashvertex_gltf::Resolver`] for the files a glTF references ([`input::open`]); each
//!   job planned from it ([`reduce::plan`], [`fix::plan`], [`remap::plan`],
//!   [`split::plan`], [`manifest_job`], [`convert`]'s steps, [`inspect::describe`]: the
//!   output's bytes, the manifest and the report to write, the messages to give), a reduce
//!   job's settings and defaults ([`settings`]), the
//!   check every output passes before it is handed over ([`check`]), how a job speaks
//!   ([`Wording`], [`Log`]) and why it failed ([`AppError`], which keeps the library error
//!   behind an input error, with its location, as its source).
//! - The filesystem shell (feature `fs`, on by default): a job reads its input by path
//!   (glTF with its resources inside its folder; `-` for standard input), takes a
//!   manifest's lock when it will update it, runs the job (planned by the core, for
//!   reduce), refuses an output that would overwrite an input, and writes every file of
//!   the run together (`dashvertex_fs::Batch`) or none; and the thread-pool policy
//!   (`threads`).
//!
//! The CLI, the Python package and the inspector's WebAssembly translate their options into
//! a job, call it, and show what it gives back; none carries a default, a check or a
//! policy of its own.
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

pub mod advice;
pub mod check;
pub mod convert;
mod error;
mod fitting;
pub mod fix;
pub mod formats;
pub mod input;
pub mod inspect;
mod left_behind;
pub mod loss;
#[cfg(feature = "fs")]
pub mod manifest_file;
pub mod manifest_job;
#[cfg(feature = "fs")]
pub mod output;
#[cfg(feature = "fs")]
mod read;
pub mod reduce;
pub mod remap;
pub mod report;
mod resource_mode;
#[cfg(feature = "fs")]
pub mod resources;
pub mod settings;
pub mod split;
#[cfg(feature = "fs")]
pub mod threads;
#[cfg(feature = "fs")]
pub mod validate;
mod within;
mod words;

pub use error::{AppError, Cause, Refused, input_cause, input_error};
pub use input::{Context, Opened, Source};
pub use resource_mode::Resources;
pub use words::{Collect, CommandLine, Job, Level, Log, Neutral, Opt, Wording, warn_neutral_bone};
