//! Which format a skinned-vertex file is, and DashVertex documents across formats.
//!
//! - [`Format`]: DashVertex JSON, the DMX container, raw 48-byte records, glTF, GLB and
//!   FBX (read only, through `dashvertex-fbx`);
//!   [`Format::detect`] tells a file's format from its first bytes and its name — the
//!   bytes' signature (GLB or DMX magic, JSON text) wins over a name that contradicts
//!   it, the name decides between formats the bytes cannot tell apart (raw records carry
//!   no signature), and a guess from the bytes covers the rest; once a text is at hand,
//!   [`Detected::read_text`] reads it as what its content decisively holds
//!   ([`Format::text_kind`]: glTF or DashVertex JSON), whatever its name says.
//! - [`load`] and [`save`]: a DashVertex document from and to JSON, DMX or raw, keeping
//!   everything the source carries or refusing ([`SaveError`]) to drop it.
//!
//! Both commands and the validator use this one detector, so a file is the same format
//! to every part of dash.

mod convert;
mod format;

pub use convert::{LoadError, Loaded, SaveError, SaveOptions, ShapeLoss, load, load_noted, save};
/// The FBX reader ([`Format::Fbx`]), for the commands that read FBX as glTF.
pub use dashvertex_fbx as fbx;
pub use format::{Detected, Format};
