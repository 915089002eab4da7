//! `dashvertex.Manifest`: the append-only bone numbering of `dashvertex_manifest`, read,
//! checked, updated and written as the `dashvertex manifest` commands and `--manifest`
//! do.

use std::path::{Path, PathBuf};

use dashvertex_core::Limits;
use dashvertex_manifest::{BoneRef, Difference as Diff, Manifest as Inner, ManifestError as E};
use pyo3::prelude::*;

use crate::errors::{Failure, Result};
use crate::source::Source;

/// Decodes and checks a manifest's bytes: not UTF-8, not a manifest, or more bones than
/// `limits.max_bones` is a `ManifestError` located at its line, column and JSON Pointer.
pub fn parse(name: &str, bytes: &[u8], limits: &Limits) -> Result<Inner> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        Failure::new(
            crate::errors::Kind::Manifest,
            "MANIFEST",
            format!("the manifest is not UTF-8 (byte {})", e.valid_up_to()),
        )
        .at_offset(e.valid_up_to() as u64)
        .in_file(name)
    })?;
    Inner::from_json_within(text, limits.max_bones).map_err(|e| {
        let f = match (&e, e.pointer()) {
            (E::TooManyBones { limit }, _) => {
                let limit = *limit;
                Failure::from(e).with_message(format!(
                    "the manifest has more than {limit} bones, the most a skeleton may have; keep one manifest per rig"
                ))
            }
            (_, Some(ptr)) => {
                let (line, column) = dashvertex_json::pointer::Locator::new(text)
                    .line_col(&ptr)
                    .unwrap_or((1, 1));
                let message = format!("{line}:{column}: {e} (at {ptr})");
                Failure::from(e).with_message(message)
            }
            _ => Failure::from(e),
        };
        f.in_file(name)
    })
}

/// Reads and checks the manifest file at `path`.
pub fn load(path: &Path, limits: &Limits) -> Result<Inner> {
    let name = crate::errors::display(path);
    let bytes = dashvertex_fs::read_input(path, limits.max_input_bytes)?;
    parse(&name, &bytes, limits)
}

/// A `manifest=` argument: a path to read, the file's bytes, or a `Manifest` (for
/// `validate` and the file functions).
pub fn manifest_arg(
    manifest: &Bound<'_, PyAny>,
    limits: &Limits,
) -> Result<dashvertex_manifest::Manifest> {
    if let Ok(m) = manifest.cast::<Manifest>() {
        return Ok(m.borrow().inner.clone());
    }
    match Source::extract(manifest, "manifest")? {
        Source::Path(p) => load(&p, limits),
        Source::Bytes(b) => parse("<manifest>", &b, limits),
    }
}

/// A bone manifest: bone name → stable index. Indices are never reused: new bones get
/// the next free index (parents before children, siblings by name), retired bones keep
/// theirs, renamed bones keep theirs through their aliases.
#[pyclass(module = "dashvertex")]
#[derive(Clone)]
pub struct Manifest {
    pub(crate) inner: Inner,
}

/// One difference between two numberings of a rig (`Manifest.diff`).
#[pyclass(module = "dashvertex", frozen, get_all)]
pub struct Difference {
    /// "added", "renamed", "moved", "retired", "brought_back" or "removed".
    kind: &'static str,
    /// The bone's name (the newer one for a rename).
    name: String,
    /// Its index in the newer numbering (the older one for "removed").
    index: u32,
    /// The older name of a rename, else None.
    old_name: Option<String>,
    /// The older index of a move, else None.
    old_index: Option<u32>,
    /// The line `dashvertex manifest diff` prints for it.
    description: String,
}

#[pymethods]
impl Difference {
    fn __str__(&self) -> String {
        self.description.clone()
    }

    fn __repr__(&self) -> String {
        format!("Difference({:?})", self.description)
    }
}

impl Difference {
    fn of(d: &Diff) -> Difference {
        let description = d.to_string();
        let (kind, name, index, old_name, old_index) = match d {
            Diff::Added { name, index } => ("added", name.clone(), *index, None, None),
            Diff::Renamed { from, to, index } => {
                ("renamed", to.clone(), *index, Some(from.clone()), None)
            }
            Diff::Moved { name, from, to } => ("moved", name.clone(), *to, None, Some(*from)),
            Diff::Retired { name, index } => ("retired", name.clone(), *index, None, None),
            Diff::BroughtBack { name, index } => ("brought_back", name.clone(), *index, None, None),
            Diff::Removed { name, index } => ("removed", name.clone(), *index, None, None),
            _ => ("other", String::new(), 0, None, None),
        };
        Difference {
            kind,
            name,
            index,
            old_name,
            old_index,
            description,
        }
    }
}

/// A bone of `assign`'s list: a name, or a `(name, parent)` pair.
#[derive(FromPyObject)]
enum BoneArg {
    Named(String),
    WithParent(String, Option<String>),
}

#[pymethods]
impl Manifest {
    /// An empty manifest.
    #[new]
    fn new() -> Self {
        Manifest {
            inner: Inner::new(),
        }
    }

    /// Reads and checks a manifest file (ManifestError when it is not one).
    #[staticmethod]
    fn load(path: PathBuf) -> Result<Self> {
        Ok(Manifest {
            inner: load(&path, &Limits::default())?,
        })
    }

    /// A manifest from its JSON text.
    #[staticmethod]
    fn from_json(text: &str) -> Result<Self> {
        Ok(Manifest {
            inner: parse("<manifest>", text.as_bytes(), &Limits::default())?,
        })
    }

    /// The canonical text: pretty JSON, bones in index order, a trailing newline.
    fn to_json(&self) -> String {
        self.inner.to_json()
    }

    /// Writes the manifest to `path` atomically (its canonical text).
    fn save(&self, path: PathBuf) -> Result<()> {
        dashvertex_fs::write_file(&path, self.inner.to_json().as_bytes())?;
        Ok(())
    }

    /// The index of the bone that answers to `name` (its name or a former name, retired
    /// bones included); KeyError when none does.
    fn index(&self, name: &str) -> PyResult<u32> {
        self.inner
            .index_of(name)
            .ok_or_else(|| pyo3::exceptions::PyKeyError::new_err(name.to_owned()))
    }

    /// Numbers `names` (bone names, or `(name, parent)` pairs): bones the manifest lacks
    /// are added (parents first, siblings by name), retired ones come back at their
    /// index, and the index of each name is returned in order. With `locked=True` a
    /// manifest that would change raises ManifestError naming every change, and is left
    /// as it was.
    #[pyo3(signature = (names, locked = false))]
    fn assign(&mut self, names: Vec<BoneArg>, locked: bool) -> Result<Vec<u32>> {
        let bones: Vec<BoneRef> = names
            .into_iter()
            .map(|b| match b {
                BoneArg::Named(name) => BoneRef { name, parent: None },
                BoneArg::WithParent(name, parent) => BoneRef { name, parent },
            })
            .collect();
        let mut next = self.inner.clone();
        let changes = next.update(&bones, false)?;
        if locked && !changes.is_empty() {
            return Err(E::Locked(changes.describe()).into());
        }
        let lookup = next.lookup();
        let indices = bones
            .iter()
            .map(|b| lookup.index_of(&b.name).unwrap_or(u32::MAX))
            .collect();
        drop(lookup);
        self.inner = next;
        Ok(indices)
    }

    /// What changed from this numbering (the older) to `other` (the newer), as
    /// `dashvertex manifest diff` lists it.
    fn diff(&self, other: &Manifest) -> Vec<Difference> {
        self.inner
            .diff(&other.inner)
            .iter()
            .map(Difference::of)
            .collect()
    }

    /// Current bone names in index order (retired bones included).
    #[getter]
    fn names(&self) -> Vec<String> {
        self.inner.bones.iter().map(|e| e.name.clone()).collect()
    }

    /// Indices of retired bones, ascending.
    #[getter]
    fn removed(&self) -> Vec<u32> {
        self.inner.removed_indices()
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    fn __contains__(&self, name: &str) -> bool {
        self.inner.index_of(name).is_some()
    }

    fn __eq__(&self, other: &Manifest) -> bool {
        self.inner == other.inner
    }

    fn __repr__(&self) -> String {
        format!("Manifest({} bones)", self.inner.len())
    }
}
