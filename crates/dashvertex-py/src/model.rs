//! `dashvertex.read`: a file's skinned primitives as numpy arrays, and its skeletons.
//!
//! The decoding is the libraries' (`dashvertex_gltf::import::primitives` reads glTF
//! accessors where they lie, strides, sparse and normalized integers included;
//! `dashvertex_formats::load` reads DashVertex); this module only lays the values out
//! row by row, in parallel chunks, into vectors numpy then owns without a copy.

use dashvertex_core::{InfluenceSet, Limits, Skeleton};
use dashvertex_formats::Format;
use dashvertex_gltf::import::{self, PrimitiveView, WeightStorage};
use numpy::IntoPyArray;
use numpy::ndarray::Array2;
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::errors::{Failure, Kind, Result};
use crate::source::Input;

/// Rows per parallel chunk.
const CHUNK: usize = 1 << 14;

/// Joint indices, as narrow as the values allow.
pub enum Joints {
    /// Every index fits 16 bits (always for glTF).
    U16(Vec<u16>),
    /// Some index does not.
    U32(Vec<u32>),
}

/// One primitive decoded into row-major vectors.
pub struct DecodedPrimitive {
    mesh: usize,
    primitive: usize,
    skin: Option<usize>,
    rows: usize,
    sets: usize,
    set_numbers: Vec<u32>,
    positions: Vec<f32>,
    joints: Joints,
    weights: Vec<f32>,
    bones: Option<Skeleton>,
    storage: &'static str,
}

/// A decoded file.
pub struct Decoded {
    format: Format,
    primitives: Vec<DecodedPrimitive>,
    skins: Vec<Skeleton>,
    bones: Option<Skeleton>,
}

/// Fills `out` (rows of `width`) by calling `row(v, slice)` for each row, in parallel.
fn fill<T: Send + Copy + Default>(
    rows: usize,
    width: usize,
    row: impl Fn(usize, &mut [T]) + Sync,
) -> Vec<T> {
    let mut out = vec![T::default(); rows * width];
    if width == 0 {
        return out;
    }
    out.par_chunks_mut(CHUNK * width)
        .enumerate()
        .for_each(|(c, chunk)| {
            for (i, r) in chunk.chunks_mut(width).enumerate() {
                row(c * CHUNK + i, r);
            }
        });
    out
}

/// The joints and weights of `rows` vertices with `sets` sets each, `set(v, s)` giving
/// set `s` of vertex `v`.
fn influences(
    rows: usize,
    sets: usize,
    set: impl Fn(usize, usize) -> InfluenceSet + Sync,
    wide: bool,
) -> (Joints, Vec<f32>) {
    let width = 4 * sets;
    let weights = fill(rows, width, |v, r: &mut [f32]| {
        for (s, out) in r.chunks_mut(4).enumerate() {
            out.copy_from_slice(&set(v, s).weights);
        }
    });
    let joints = if wide {
        Joints::U32(fill(rows, width, |v, r: &mut [u32]| {
            for (s, out) in r.chunks_mut(4).enumerate() {
                out.copy_from_slice(&set(v, s).joints);
            }
        }))
    } else {
        Joints::U16(fill(rows, width, |v, r: &mut [u16]| {
            for (s, out) in r.chunks_mut(4).enumerate() {
                let j = set(v, s).joints;
                for (o, x) in out.iter_mut().zip(j) {
                    // Narrow only when every index fits (`wide` is false).
                    *o = u16::try_from(x).unwrap_or(u16::MAX);
                }
            }
        }))
    };
    (joints, weights)
}

fn storage_name(s: WeightStorage) -> &'static str {
    match s {
        WeightStorage::Float => "float",
        WeightStorage::Unorm8 => "unorm8",
        WeightStorage::Unorm16 => "unorm16",
    }
}

fn from_view(view: &PrimitiveView<'_>, set_numbers: Vec<u32>) -> DecodedPrimitive {
    let rows = view.len();
    let sets = view.sets.len();
    let positions = fill(rows, 3, |v, r: &mut [f32]| {
        r.copy_from_slice(&view.position(v));
    });
    // glTF joints are UNSIGNED_BYTE or UNSIGNED_SHORT: 16 bits always suffice.
    let (joints, weights) = influences(
        rows,
        sets,
        |v, s| view.sets.get(s).map_or(InfluenceSet::ZERO, |x| x.get(v)),
        false,
    );
    DecodedPrimitive {
        mesh: view.mesh,
        primitive: view.primitive,
        skin: view.skin,
        rows,
        sets,
        set_numbers,
        positions,
        joints,
        weights,
        bones: view.skeleton.clone(),
        storage: storage_name(view.storage),
    }
}

/// Why importing a glTF failed (`failed`), when a buffer it needed could not be read: from bytes, an external
/// buffer has no folder to come from (`EXTERNAL_BUFFER`); from a path, a buffer file that
/// cannot be read is an I/O failure.
fn buffer_failure(
    gltf: &dashvertex_gltf::Gltf,
    failed: &import::ImportError,
    from_bytes: bool,
) -> Option<Failure> {
    let why = failed.to_string();
    gltf.buffers().enumerate().find_map(|(i, b)| {
        let Err(dashvertex_gltf::BufferError::Resource(fs)) = b else {
            return None;
        };
        // Only the buffer the import needed.
        if !why.contains(&format!("buffer {i} ")) {
            return None;
        }
        let f = if from_bytes && matches!(**fs, dashvertex_fs::FsError::NoFolder { .. }) {
            Failure::new(
                Kind::Format,
                "EXTERNAL_BUFFER",
                format!(
                    "buffer {i} is an external file ({fs}); bytes have no folder to read it from: pass the .gltf's path, or a GLB"
                ),
            )
        } else {
            Failure::new(Kind::Io, "IO_ERROR", format!("buffer {i}: {fs}"))
        };
        Some(f.at_pointer(format!("/buffers/{i}")))
    })
}

fn decode_gltf(input: Input, limits: &Limits) -> Result<Decoded> {
    let name = input.name.clone();
    let in_file = |f: Failure| f.in_file(&name);
    let from_bytes = input.path.is_none();
    let resolver: Box<dyn dashvertex_gltf::Resolver> = match &input.path {
        Some(p) => Box::new(
            dashvertex_gltf::FsResolver::for_file(p, &[], limits.max_input_bytes)
                .map_err(|e| in_file(e.into()))?,
        ),
        None => Box::new(dashvertex_gltf::NoFiles),
    };
    let gltf = dashvertex_gltf::load_owned(input.bytes, resolver.as_ref(), limits)
        .map_err(|e| in_file(e.into()))?;
    let views = match import::primitives(&gltf, limits) {
        Ok(v) => v,
        Err(e) => {
            return Err(in_file(match buffer_failure(&gltf, &e, from_bytes) {
                Some(f) => f.caused_by(e),
                None => e.into(),
            }));
        }
    };
    let sets_of = dashvertex_gltf::skinning::primitive_sets(&gltf.root);
    let primitives = views
        .iter()
        .map(|v| {
            let numbers = sets_of
                .iter()
                .find(|x| x.mesh == v.mesh && x.primitive == v.primitive)
                .map(|x| x.sets.iter().map(|s| s.n).collect())
                .unwrap_or_default();
            from_view(v, numbers)
        })
        .collect::<Vec<_>>();
    let skins: Vec<Skeleton> = (0..gltf.root.skins.len())
        .map(|s| import::skeleton(&gltf, s).unwrap_or_default())
        .collect();
    let bones = primitives
        .iter()
        .find_map(|p| p.bones.clone())
        .or_else(|| skins.first().cloned());
    Ok(Decoded {
        format: input.format,
        primitives,
        skins,
        bones,
    })
}

fn decode_dash(input: Input, limits: &Limits) -> Result<Decoded> {
    let loaded = dashvertex_formats::load(&input.bytes, input.format, limits)
        .map_err(|e| Failure::from(e).in_file(&input.name))?;
    let doc = loaded.document();
    let mesh = &doc.mesh;
    let rows = mesh.len();
    let sets = if mesh.is_skinned() {
        mesh.set_count()
    } else {
        0
    };
    let wide = (0..rows).into_par_iter().any(|v| {
        mesh.sets_of(v)
            .any(|s| s.joints.iter().any(|&j| j > u32::from(u16::MAX)))
    });
    let positions = fill(rows, 3, |v, r: &mut [f32]| {
        if let Some(x) = mesh.vertices().get(v) {
            r.copy_from_slice(&x.position);
        }
    });
    let (joints, weights) = influences(
        rows,
        sets,
        |v, s| mesh.set(v, s).copied().unwrap_or(InfluenceSet::ZERO),
        wide,
    );
    Ok(Decoded {
        format: input.format,
        primitives: vec![DecodedPrimitive {
            mesh: 0,
            primitive: 0,
            skin: None,
            rows,
            sets,
            set_numbers: (0..sets).filter_map(|s| u32::try_from(s).ok()).collect(),
            positions,
            joints,
            weights,
            bones: doc.skeleton.clone(),
            storage: "float",
        }],
        skins: Vec::new(),
        bones: doc.skeleton.clone(),
    })
}

/// Decodes a read input (no Python object touched: runs without the GIL).
pub fn decode(input: Input, limits: &Limits) -> Result<Decoded> {
    if input.format.is_gltf() {
        decode_gltf(input, limits)
    } else {
        decode_dash(input, limits)
    }
}

/// A skeleton: bone names and parent indices.
#[pyclass(module = "dashvertex", frozen, get_all)]
pub struct Bones {
    /// Bone names, in index order (bone `i` is joint index `i`).
    names: Vec<String>,
    /// Each bone's parent index, None for a root.
    parents: Vec<Option<u32>>,
}

#[pymethods]
impl Bones {
    fn __len__(&self) -> usize {
        self.names.len()
    }

    fn __repr__(&self) -> String {
        format!("Bones({} bones)", self.names.len())
    }

    /// The index of the bone named `name` (ValueError when there is none).
    fn index(&self, name: &str) -> PyResult<usize> {
        self.names
            .iter()
            .position(|n| n == name)
            .ok_or_else(|| pyo3::exceptions::PyValueError::new_err(format!("no bone {name:?}")))
    }
}

impl Bones {
    fn of(s: &Skeleton) -> Bones {
        Bones {
            names: s.bones.iter().map(|b| b.name.clone()).collect(),
            parents: s.bones.iter().map(|b| b.parent).collect(),
        }
    }
}

/// One skinned primitive (a glTF mesh primitive, or the one mesh of a DashVertex file).
#[pyclass(module = "dashvertex", frozen, get_all)]
pub struct Primitive {
    /// Vertex positions, float32 `(n, 3)`.
    positions: Py<PyAny>,
    /// Joint (bone) indices, uint16 `(n, 4 * sets)` (uint32 when an index needs it);
    /// columns `4s .. 4s + 4` are influence set `s` (`JOINTS_s`).
    joints: Py<PyAny>,
    /// Weights, float32 `(n, 4 * sets)`, unorm8/16 weights divided by 255 / 65535 and
    /// rounded once to float32 (spec/validation.md).
    weights: Py<PyAny>,
    /// The glTF mesh index (0 for DashVertex).
    mesh: usize,
    /// The primitive index within the mesh (0 for DashVertex).
    primitive: usize,
    /// The glTF skin the joint indices refer to, None without one (and for DashVertex).
    skin: Option<usize>,
    /// Influence sets per vertex.
    sets: usize,
    /// The number `n` of each set's `JOINTS_n` / `WEIGHTS_n`, in column order (0, 1, …
    /// unless the file skips one).
    set_numbers: Vec<u32>,
    /// How the file stored the weights: "float", "unorm8" or "unorm16".
    weight_storage: &'static str,
    /// The primitive's skeleton (the skin's joints), None without one.
    bones: Option<Py<Bones>>,
}

#[pymethods]
impl Primitive {
    fn __len__(&self) -> usize {
        Python::attach(|py| self.positions.bind(py).len().unwrap_or(0))
    }

    fn __repr__(&self) -> String {
        format!(
            "Primitive(mesh={}, primitive={}, skin={}, sets={}, vertices={})",
            self.mesh,
            self.primitive,
            self.skin
                .map_or_else(|| "None".to_owned(), |s| s.to_string()),
            self.sets,
            self.__len__()
        )
    }
}

/// What `dashvertex.read` returns: the primitives and the skeletons.
#[pyclass(module = "dashvertex", frozen, get_all)]
pub struct Model {
    /// The format read: "json", "dmx", "raw", "gltf" or "glb".
    format: &'static str,
    /// Every primitive with skin data, in file order.
    primitives: Vec<Py<Primitive>>,
    /// The file's skeleton: a DashVertex file's bones, or the skin of the first skinned
    /// glTF primitive (else skin 0); None without one.
    bones: Option<Py<Bones>>,
    /// Every glTF skin's joints, by skin index (empty for DashVertex).
    skins: Vec<Py<Bones>>,
}

#[pymethods]
impl Model {
    fn __repr__(&self) -> String {
        format!(
            "Model(format={:?}, primitives={}, skins={})",
            self.format,
            self.primitives.len(),
            self.skins.len()
        )
    }
}

fn array2<T: numpy::Element>(
    py: Python<'_>,
    v: Vec<T>,
    rows: usize,
    width: usize,
) -> PyResult<Py<PyAny>> {
    let a = Array2::from_shape_vec((rows, width), v)
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
    Ok(a.into_pyarray(py).into_any().unbind())
}

/// The Python objects of a decoded file; numpy takes the vectors over without a copy.
pub fn to_python(py: Python<'_>, d: Decoded) -> PyResult<Model> {
    let bones = |s: &Option<Skeleton>| -> PyResult<Option<Py<Bones>>> {
        s.as_ref().map(|s| Py::new(py, Bones::of(s))).transpose()
    };
    let mut primitives = Vec::with_capacity(d.primitives.len());
    for p in d.primitives {
        let width = 4 * p.sets;
        let joints = match p.joints {
            Joints::U16(j) => array2(py, j, p.rows, width)?,
            Joints::U32(j) => array2(py, j, p.rows, width)?,
        };
        primitives.push(Py::new(
            py,
            Primitive {
                positions: array2(py, p.positions, p.rows, 3)?,
                joints,
                weights: array2(py, p.weights, p.rows, width)?,
                mesh: p.mesh,
                primitive: p.primitive,
                skin: p.skin,
                sets: p.sets,
                set_numbers: p.set_numbers,
                weight_storage: p.storage,
                bones: bones(&p.bones)?,
            },
        )?);
    }
    Ok(Model {
        format: d.format.as_str(),
        primitives,
        bones: bones(&d.bones)?,
        skins: d
            .skins
            .iter()
            .map(|s| Py::new(py, Bones::of(s)))
            .collect::<PyResult<_>>()?,
    })
}
