//! The one error type of filesystem access, defined in `dashvertex-core` so that a codec
//! reading the files a document names reports it without depending on this crate.

pub use dashvertex_core::file::FsError;
pub use dashvertex_core::text::short;
