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
//!
//! ```
//! use std::path::Path;
//! use dashvertex_core::Limits;
//! use dashvertex_formats::{Format, SaveOptions, load, save};
//! let text = br#"[{"x": 0, "y": 0, "z": 0, "skinIndex": [0], "skinWeight": [1]}]"#;
//! // The bytes decide: JSON text named `.dmx` is still JSON (and the name is reported).
//! let detected = Format::detect(Path::new("mesh.dmx"), text, text.len() as u64);
//! assert_eq!(detected.format, Some(Format::Json));
//! assert_eq!(detected.contradicted, Some(Format::Dmx));
//! let loaded = load(text, Format::Json, &Limits::default())?;
//! let dmx = save(&loaded, Format::Dmx, &SaveOptions::default())?;
//! let back = load(&dmx, Format::Dmx, &Limits::default())?;
//! assert!(back.document().bit_eq(loaded.document()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod convert;
mod format;

pub use convert::{
    DecodeError, Loaded, SaveError, SaveOptions, ShapeLoss, load, load_noted, save, save_dropping,
};
/// The FBX reader ([`Format::Fbx`]), for the commands that read FBX as glTF.
pub use dashvertex_fbx as fbx;
pub use format::{Detected, Format};
