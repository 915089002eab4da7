//! The `dashvertex` and `dash-validate` command lines.
//!
//! Both binaries of this package are thin `main`s over this library, so that
//! `dashvertex validate` and `dash-validate` share one set of flags and one engine, and the
//! help, completions and man pages are generated from the same definitions. It is not a
//! stable API: programs should use `dashvertex-validate` and `dashvertex-reduce`.

pub mod common;
mod convert;
pub mod dash;
pub mod docs;
mod error;
mod fix;
mod formats;
mod manifest;
mod pool;
mod progress;
mod reduce;
mod remap;
mod split;
pub mod validate;
mod validate_args;
mod walk;
mod words;
