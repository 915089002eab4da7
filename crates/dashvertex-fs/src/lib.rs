//! Filesystem access with the guarantees of `spec/security.md`.
//!
//! Every byte the dash commands read from disk or write to it passes through this crate:
//!
//! - [`read_input`]: reading a named input (or standard input) with a byte limit, so a device
//!   such as `/dev/zero` stops at the limit instead of filling memory;
//! - [`ResourceRoot`]: reading a file that *another file* names (a glTF buffer URI), only when
//!   it resolves, after `..` and symlinks, inside an allowed folder, and only when it is
//!   a regular file;
//! - [`Batch`]: several outputs replaced together or not at all;
//! - [`write_file`] and [`Output`]: writing an output atomically when the destination is a regular file (the
//!   old mode kept, temporary files removed on error and on SIGINT/SIGTERM), and directly
//!   when it is a device, FIFO or socket, which are never replaced;
//! - [`Walk`]: expanding directories into files with the `ignore` crate's walker, each
//!   file once, never following a symlink out of the walked folder, regular files only,
//!   hidden and `.gitignore`d paths skipped (and listed), unreadable entries reported
//!   without ending the walk; [`read_regular`] reads what it found without blocking;
//! - [`FileLock`]: an advisory lock held across a read-modify-write of a shared file,
//!   on the file its path finally names;
//! - [`refuse_aliases`]: an output that names an input (however spelled) is refused;
//! - [`SpliceSource`] and [`Holes`]: an input read only where a job needs it, and the
//!   ranges it carries unchanged copied from it into the output inside the kernel.

mod alias;
mod error;
mod input;
mod lock;
mod output;
mod resource;
mod splice;
mod walk;

mod gitignore;

pub use alias::{Named, refuse_aliases};
pub use error::{FsError, short};
pub use input::{
    PARALLEL_READ_MIN, READ_PIECE, open_regular, read_input, read_parallel, read_regular,
};
pub use lock::FileLock;
pub use output::{Batch, Output, follow_links, install_signal_cleanup, write_file};
pub use resource::ResourceRoot;
pub use splice::{Hole, Holes, SpliceSource};
pub use walk::{Walk, WalkEntry};
