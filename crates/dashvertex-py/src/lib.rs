//! The `dashvertex` Python package's native module, `dashvertex._core`: thin bindings
//! over the dash libraries. Each function turns its arguments into library calls
//! (`source`, `options`), runs them without the GIL on the worker pool (`pool`), and
//! turns the result into Python objects (`model`, `validation`, `reduction`,
//! `manifest`) or a `DashError` (`errors`).
//!
//! Built by maturin as one abi3 wheel (CPython 3.9 and later); `cargo test` never links
//! it against libpython (the crate has no Rust tests: pytest tests the wheel).

mod errors;
mod files;
mod manifest;
mod model;
mod options;
mod pool;
mod reduction;
mod source;
mod validation;

use dashvertex_core::Limits;
use dashvertex_reduce::Config;
use numpy::ndarray::Array2;
use numpy::{AllowTypeChange, IntoPyArray, PyArrayLike2, PyArrayLike4, PyReadonlyArray2};
use pyo3::prelude::*;

use errors::Failure;
use source::Source;

/// Reads a file's skinned primitives into numpy arrays.
///
/// `source` is a path (str or os.PathLike; a .gltf's buffers are read beside it) or the
/// bytes of a GLB, glTF (embedded buffers only), DashVertex JSON, DMX, raw-records or FBX
/// file (FBX: a vertex per control point with every influence, spec/fbx.md §4);
/// `name` labels bytes in messages. Returns a `Model` whose primitives hold `positions`
/// float32 (n, 3), `joints` uint16/uint32 (n, 4*sets) and `weights` float32 (n, 4*sets),
/// unorm weights decoded as the spec says. Raises `DashError` on anything unreadable.
#[pyfunction]
#[pyo3(signature = (source, *, name = None, threads = None))]
fn read(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    name: Option<&str>,
    threads: Option<usize>,
) -> PyResult<model::Model> {
    let source = Source::extract(source, "source")?;
    let limits = Limits::default();
    let decoded = py.detach(|| {
        pool::run(threads, || {
            let input = source::read(source, name, &limits)?;
            model::decode(input, &limits)
        })?
    })?;
    model::to_python(py, decoded)
}

/// Validates one file as `dash-validate` does and returns its `Report`.
///
/// `profile` is "dash" or "gltf" (the weight-sum rule; default: the format's), `target`
/// an engine of `targets()`, `manifest` a bone manifest (a path, its bytes, or a
/// `Manifest`) to range-check bone indices and joint order against, which `locked=True`
/// makes an error. `Report.to_json()` is the bytes `dash-validate --format json` prints.
/// Findings are reported, not raised; DashError only for bad options or manifests.
#[pyfunction]
#[pyo3(signature = (source, *, profile = None, target = None, manifest = None, locked = false,
                    max_diagnostics = 200, name = None, threads = None))]
#[allow(clippy::too_many_arguments)]
fn validate(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    profile: Option<&str>,
    target: Option<&str>,
    manifest: Option<&Bound<'_, PyAny>>,
    locked: bool,
    max_diagnostics: usize,
    name: Option<&str>,
    threads: Option<usize>,
) -> PyResult<validation::Report> {
    let source = Source::extract(source, "source")?;
    let limits = Limits::default();
    let manifest = manifest
        .map(|m| manifest::manifest_arg(m, &limits))
        .transpose()?;
    let opts = validation::options(profile, target, manifest, locked, max_diagnostics)?;
    let report = py.detach(|| pool::run(threads, || validation::run(source, name, &opts)))?;
    validation::Report::new(py, report)
}

/// Joint arrays in the dtypes read in place; others are converted to int64.
#[derive(FromPyObject)]
enum JointsArg<'py> {
    U16(PyReadonlyArray2<'py, u16>),
    U32(PyReadonlyArray2<'py, u32>),
    U8(PyReadonlyArray2<'py, u8>),
    Other(PyArrayLike2<'py, i64, AllowTypeChange>),
}

/// What the reducer did.
#[pyclass(module = "dashvertex", frozen, get_all)]
struct ReduceReport {
    /// Vertices processed.
    vertices: u64,
    /// Vertices whose influences changed (dropped, merged, scaled or rounded).
    changed: u64,
    /// Influences dropped because a vertex had more than max_influences (the reduce
    /// report's `droppedOverLimit`).
    dropped_over_limit: u64,
    /// Influences dropped by min_weight.
    below_threshold: u64,
    /// Influences rounded to 0 by quantization, and dropped (`roundedAway`).
    rounded_away: u64,
    /// Repeated bones merged into one influence.
    merged: u64,
    /// Negative weights dropped.
    negative: u64,
    /// Vertices that had no influence.
    empty: u64,
    /// The first of them, None when there is none.
    first_empty: Option<u64>,
    /// The most influences any input vertex had.
    max_influences_in: u64,
    /// The heaviest influence dropped, as {"weight", "vertex", "bone", "at"}, or None.
    largest_dropped: Option<Py<PyAny>>,
    /// The first negative weight, as {"weight", "vertex", "bone", "at"}, or None.
    first_negative: Option<Py<PyAny>>,
    /// Influence sets the reducer filled (what `dashvertex reduce` writes); the output
    /// arrays have ceil(max_influences / 4) sets, the rest zeros.
    sets: usize,
    /// With `fit=True`, what the fit did, as {"considered", "fitted", "greedy_support",
    /// "left_out", "poses", "pose_group_weights", "objective_plain", "objective_fitted"}
    /// (the objectives: squared displacement summed over the poses and the considered
    /// vertices, plain top-K's and the output's; for a glTF file the range-of-motion poses
    /// weighed by the second of `pose_group_weights`, empty for the arrays' one pose set);
    /// None without a fit.
    fit: Option<Py<PyAny>>,
}

#[pymethods]
impl ReduceReport {
    fn __repr__(&self) -> String {
        format!(
            "ReduceReport(vertices={}, changed={}, dropped_over_limit={}, merged={}, negative={}, empty={})",
            self.vertices,
            self.changed,
            self.dropped_over_limit,
            self.merged,
            self.negative,
            self.empty
        )
    }
}

fn dropped_dict(
    py: Python<'_>,
    d: &Option<dashvertex_reduce::Dropped>,
) -> PyResult<Option<Py<PyAny>>> {
    d.as_ref()
        .map(|d| {
            let out = pyo3::types::PyDict::new(py);
            out.set_item("weight", d.weight)?;
            out.set_item("vertex", d.vertex)?;
            out.set_item("bone", d.bone)?;
            out.set_item("at", &d.at)?;
            Ok(out.into_any().unbind())
        })
        .transpose()
}

type Reduced = (Py<PyAny>, Py<PyAny>, ReduceReport);

/// Keeps the strongest `max_influences` influences per vertex, as `dashvertex reduce`.
///
/// `joints` and `weights` are (n, c) arrays of any column count c (columns 4s..4s+4 are
/// influence set s); with `joints=None`, `weights` is a dense (n, bones) matrix whose
/// column b is bone b's weight. `normalize` is "unit" or "none", `quantize` None, "f32",
/// "unorm16" or "unorm8" (weights are then exact multiples of 1/65535 or 1/255),
/// `min_weight` drops lighter influences (never a vertex's heaviest), `empty` is "error"
/// or "zero" for vertices without influence. Returns (joints, weights, ReduceReport):
/// joints uint16 (uint32 when an index needs it) and weights float32, both
/// (n, 4*ceil(max_influences/4)). The same bits as the CLI at any `threads`.
///
/// `fit=True` (spec/reduction.md §6) then chooses, for each vertex that lost weight, the
/// bones and weights that move it least from its skinning with every influence, summed
/// over `poses`: (poses, joints, 4, 4) or (poses, joints, 3, 4) joint matrices (global ×
/// inverse bind, acting on column vectors), one per joint index, with `positions` (n, 3)
/// the vertices. A vertex keeps the plain weights unless the fitted ones move it less.
/// `motion_poses`, shaped as `poses`, is a second group (a range of motion): each group
/// then counts as much as the other, scaled by `fit_motion_weight` (0: `poses` alone),
/// as `reduce_file` weighs a glTF's animation against its range of motion.
/// Needs `normalize="unit"` and no `min_weight`; the report's `fit` says what it did.
#[pyfunction]
#[pyo3(signature = (joints, weights, *, max_influences = 4, normalize = "unit", min_weight = None,
                    quantize = None, empty = "error", threads = None, fit = false,
                    positions = None, poses = None, motion_poses = None,
                    fit_motion_weight = 1.0))]
#[allow(clippy::too_many_arguments)]
fn reduce(
    py: Python<'_>,
    joints: Option<JointsArg<'_>>,
    weights: PyArrayLike2<'_, f32, AllowTypeChange>,
    max_influences: usize,
    normalize: &str,
    min_weight: Option<f32>,
    quantize: Option<&str>,
    empty: &str,
    threads: Option<usize>,
    fit: bool,
    positions: Option<PyArrayLike2<'_, f32, AllowTypeChange>>,
    poses: Option<PyArrayLike4<'_, f64, AllowTypeChange>>,
    motion_poses: Option<PyArrayLike4<'_, f64, AllowTypeChange>>,
    fit_motion_weight: f64,
) -> PyResult<Reduced> {
    let cfg = Config::default()
        .with_max_influences(max_influences)
        .with_quantize(options::quantize(quantize)?)
        .with_normalize(options::normalize(normalize)?)
        .with_min_weight(min_weight.unwrap_or(0.0))
        .with_empty(options::empty(empty)?);
    let w = weights.as_array();
    if !fit && (motion_poses.is_some() || fit_motion_weight != 1.0) {
        return Err(Failure::option(
            "motion_poses and fit_motion_weight are read only with fit=True",
        )
        .into());
    }
    let fit_args = match (fit, positions.as_ref(), poses.as_ref()) {
        (false, None, None) => None,
        (true, Some(x), Some(p)) => Some(reduction::FitArgs {
            positions: x.as_array(),
            poses: p.as_array(),
            motion: motion_poses.as_ref().map(|m| m.as_array()),
            motion_weight: fit_motion_weight,
        }),
        (true, _, _) => {
            return Err(Failure::option(
                "fit=True needs positions (n, 3) and poses (poses, joints, 4, 4)",
            )
            .into());
        }
        (false, _, _) => {
            return Err(Failure::option("positions and poses are read only with fit=True").into());
        }
    };
    let (out, fitted) = {
        use reduction::JointsView as J;
        let j = joints.as_ref().map(|j| match j {
            JointsArg::U16(a) => J::U16(a.as_array()),
            JointsArg::U32(a) => J::U32(a.as_array()),
            JointsArg::U8(a) => J::U8(a.as_array()),
            JointsArg::Other(a) => J::I64(a.as_array()),
        });
        py.detach(|| {
            pool::run(threads, || {
                reduction::run(j.as_ref(), w, &cfg, fit_args.as_ref())
            })?
        })?
    };
    let width = 4 * out.sets;
    let shape = (out.rows, width);
    let bad_shape = |e: numpy::ndarray::ShapeError| Failure::option(e.to_string());
    let joints_out = match out.joints_u32 {
        Some(j) => Array2::from_shape_vec(shape, j)
            .map_err(bad_shape)?
            .into_pyarray(py)
            .into_any()
            .unbind(),
        None => Array2::from_shape_vec(shape, out.joints_u16)
            .map_err(bad_shape)?
            .into_pyarray(py)
            .into_any()
            .unbind(),
    };
    let weights_out = Array2::from_shape_vec(shape, out.weights)
        .map_err(bad_shape)?
        .into_pyarray(py)
        .into_any()
        .unbind();
    let r = &out.report;
    let report = ReduceReport {
        vertices: r.vertices,
        changed: r.changed,
        dropped_over_limit: r.dropped,
        below_threshold: r.below_threshold,
        rounded_away: r.quantized_away,
        merged: r.merged,
        negative: r.negative,
        empty: r.empty,
        first_empty: r.first_empty,
        max_influences_in: r.max_influences_in,
        largest_dropped: dropped_dict(py, &r.largest_dropped)?,
        first_negative: dropped_dict(py, &r.first_negative)?,
        sets: out.filled,
        fit: fitted.map(|f| fit_dict(py, &f)).transpose()?,
    };
    Ok((joints_out, weights_out, report))
}

/// The fit's report as the dict `ReduceReport.fit` holds.
fn fit_dict(py: Python<'_>, f: &dashvertex_reduce::fit::FitReport) -> PyResult<Py<PyAny>> {
    let d = pyo3::types::PyDict::new(py);
    d.set_item("considered", f.considered)?;
    d.set_item("fitted", f.fitted)?;
    d.set_item("greedy_support", f.greedy_support)?;
    d.set_item("left_out", f.left_out)?;
    d.set_item("poses", f.poses)?;
    d.set_item("pose_group_weights", f.pose_group_weights.clone())?;
    d.set_item("objective_plain", f.objective_plain)?;
    d.set_item("objective_fitted", f.objective_fitted)?;
    Ok(d.into_any().unbind())
}

/// The engine names `target=` accepts (spec/targets.md).
#[pyfunction]
fn targets() -> Vec<&'static str> {
    dashvertex_core::target::names().collect()
}

/// The native module.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(read, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(reduce, m)?)?;
    m.add_function(wrap_pyfunction!(targets, m)?)?;
    m.add_function(wrap_pyfunction!(files::reduce_file, m)?)?;
    m.add_function(wrap_pyfunction!(files::fix_file, m)?)?;
    m.add_function(wrap_pyfunction!(files::remap_file, m)?)?;
    m.add_function(wrap_pyfunction!(files::convert_file, m)?)?;
    m.add_class::<files::JobResult>()?;
    m.add_class::<model::Model>()?;
    m.add_class::<model::Primitive>()?;
    m.add_class::<model::Bones>()?;
    m.add_class::<validation::Report>()?;
    m.add_class::<validation::Diagnostic>()?;
    m.add_class::<ReduceReport>()?;
    m.add_class::<manifest::Manifest>()?;
    m.add_class::<manifest::Difference>()?;
    m.add("DashError", py.get_type::<errors::DashError>())?;
    m.add("DashIOError", py.get_type::<errors::DashIOError>())?;
    m.add("FormatError", py.get_type::<errors::FormatError>())?;
    m.add("OptionError", py.get_type::<errors::OptionError>())?;
    m.add("ReduceError", py.get_type::<errors::ReduceError>())?;
    m.add("ManifestError", py.get_type::<errors::ManifestError>())?;
    m.add("OutputError", py.get_type::<errors::OutputError>())?;
    Ok(())
}
