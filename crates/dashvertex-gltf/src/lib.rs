//! The glTF 2.0 bridge: `.gltf` and `.glb` files read without panicking on any input,
//! their skins' influence sets imported into the dash model, and influence sets written
//! back.
//!
//! - [`load`] reads bytes into a [`Gltf`]: the JSON value (for writing back), lenient
//!   typed views ([`document`]) and the buffers, a `.gltf` file's buffer files through
//!   a [`Resolver`] ([`MemoryFiles`], [`NoFiles`]; with the `fs` feature
//!   `FsResolver` and `load_path`, which read only inside the file's folder).
//! - [`accessor::read`] decodes any accessor with every range checked (buffer views
//!   against their buffers once at load, every element a document declares against a
//!   budget tied to the file's size).
//! - [`import`] turns influence sets, skin joints (with parents and rest transforms
//!   from the node tree) and per-bone `_NAME` attributes into the dash model;
//!   [`export`] writes influence sets back into a copy of the file, and [`from_dash`]
//!   writes a DashVertex document as a new glTF file.
//! - [`skinning`] finds influence sets, the node hierarchy and skins.
//!
//! ```
//! use dashvertex_core::Limits;
//! use dashvertex_gltf::{NoFiles, import::import, load};
//! // A GLB with one mesh of two primitives, two influence sets each, six joints.
//! let glb = dashvertex_testkit::gltf::SkinnedGlb { vertices: 8, joints: 6, ..Default::default() }.build();
//! let gltf = load(&glb, &NoFiles, &Limits::default())?;
//! let primitives = import(&gltf, &Limits::default())?;
//! assert_eq!(primitives.len(), 2);
//! let doc = &primitives[0].document;
//! assert_eq!(doc.mesh.len(), 8);
//! assert_eq!(doc.mesh.set_count(), 2);
//! assert_eq!(doc.skeleton.as_ref().map(|s| s.len()), Some(6));
//! // A JSON text that is not glTF (DashVertex JSON here) is refused by name.
//! let dash = br#"{"type": "DashModelExchange", "vertex": []}"#;
//! let e = load(dash, &NoFiles, &Limits::default()).unwrap_err();
//! assert!(e.to_string().contains("not a glTF document"), "{e}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod accessor;
#[doc(hidden)]
pub mod budget;
#[doc(hidden)]
pub mod compressed;
pub mod document;
mod error;
pub mod export;
pub mod from_dash;
#[doc(hidden)]
pub mod glb;
pub mod import;
mod load;
#[doc(hidden)]
pub mod meshopt;
mod ranges;
#[doc(hidden)]
pub mod rest;
pub mod skinning;
#[cfg(feature = "fs")]
#[doc(hidden)]
pub mod sparse;

pub use error::{AccessorError, BufferError, LoadError};
pub use load::{Container, Gltf, MemoryFiles, NoFiles, Resolver, load, load_owned, percent_decode};
#[cfg(feature = "fs")]
pub use load::{FsResolver, load_path, load_path_in};
pub use ranges::ViewRangeError;
