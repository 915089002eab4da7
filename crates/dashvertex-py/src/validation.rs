//! `dashvertex.validate`: the validator of `dash-validate` on one file, with the same
//! options and the same JSON report (`Report::to_json` renders both).

use std::collections::BTreeMap;

use dashvertex_validate::{FileReport, Options};
use pyo3::prelude::*;

use crate::errors::Result;
use crate::source::Source;

/// The validator's options for these keywords, through the validate job's one policy
/// (`dashvertex_app::validate::options`, which `dash-validate` uses for its flags): a
/// manifest range-checks bone indices (retired bones count) and checks joint order,
/// which `locked` makes an error.
pub fn options(
    profile: Option<&str>,
    target: Option<&str>,
    manifest: Option<dashvertex_manifest::Manifest>,
    locked: bool,
    max_diagnostics: usize,
) -> Result<Options> {
    let mut asked = dashvertex_app::validate::Asked::new().with_manifest(manifest, locked);
    asked.profile = crate::options::profile(profile)?;
    asked.target = crate::options::target(target)?;
    asked.max_diagnostics = Some(max_diagnostics);
    Ok(dashvertex_app::validate::options(
        asked,
        &crate::files::Keywords,
    )?)
}

/// Validates `source` (no Python object touched: runs without the GIL); the advice names
/// the package's functions and keywords.
pub fn run(source: Source, name: Option<&str>, opts: &Options) -> FileReport {
    let mut report = match &source {
        Source::Path(p) => dashvertex_validate::validate_path(p, opts),
        Source::Bytes(b) => dashvertex_validate::validate_bytes(&source.name(name), b, opts),
    };
    dashvertex_app::advice::word_report(&mut report, &crate::files::Keywords);
    report
}

/// One finding of the validator.
#[pyclass(module = "dashvertex", frozen, get_all)]
pub struct Diagnostic {
    /// The rule's stable code ("WEIGHT_SUM"), a row of spec/validation.md.
    code: &'static str,
    /// "error", "warning" or "info".
    severity: &'static str,
    /// What is wrong, with the values involved.
    message: String,
    /// How to fix it, when a hint helps.
    help: Option<String>,
    /// The official Khronos glTF-Validator codes this finding corresponds to.
    khronos: Vec<&'static str>,
    /// Vertex number, counted from 0.
    vertex: Option<u64>,
    /// Influence set.
    set: Option<u32>,
    /// Slot within the set (0 to 3).
    slot: Option<u32>,
    /// Bone number, for skeleton rules.
    bone: Option<u64>,
    /// Byte offset in a binary file (or in a glTF buffer).
    offset: Option<u64>,
    /// JSON Pointer in a JSON or glTF text.
    pointer: Option<String>,
    /// 1-based line of `pointer`.
    line: Option<u64>,
    /// 1-based column of `pointer`.
    column: Option<u64>,
    /// Where, in words ("vertex 3, set 0 slot 1, /meshes/0/primitives/0 (12:5)").
    location: String,
}

#[pymethods]
impl Diagnostic {
    fn __str__(&self) -> String {
        format!(
            "{}[{}]: {} ({})",
            self.severity, self.code, self.message, self.location
        )
    }

    fn __repr__(&self) -> String {
        format!("Diagnostic({}: {})", self.code, self.message)
    }
}

/// The validator's report on one file.
#[pyclass(module = "dashvertex", frozen)]
pub struct Report {
    report: FileReport,
    diagnostics: Vec<Py<Diagnostic>>,
}

impl Report {
    /// The Python report of a file report.
    pub fn new(py: Python<'_>, report: FileReport) -> PyResult<Report> {
        let diagnostics = report
            .diagnostics
            .iter()
            .map(|d| {
                let l = &d.location;
                Py::new(
                    py,
                    Diagnostic {
                        code: d.code.as_str(),
                        severity: d.severity.as_str(),
                        message: d.message.clone(),
                        help: d.help.clone(),
                        khronos: d.khronos.clone(),
                        vertex: l.vertex,
                        set: l.set,
                        slot: l.slot,
                        bone: l.bone,
                        offset: l.offset,
                        pointer: l.pointer.clone(),
                        line: l.line,
                        column: l.column,
                        location: l.to_string(),
                    },
                )
            })
            .collect::<PyResult<_>>()?;
        Ok(Report {
            report,
            diagnostics,
        })
    }

    fn of_severity(&self, py: Python<'_>, s: &str) -> Vec<Py<Diagnostic>> {
        self.diagnostics
            .iter()
            .filter(|d| d.get().severity == s)
            .map(|d| d.clone_ref(py))
            .collect()
    }
}

#[pymethods]
impl Report {
    /// True when the file has no error.
    #[getter]
    fn valid(&self) -> bool {
        self.report.valid
    }

    /// The kept findings at error level.
    #[getter]
    fn errors(&self, py: Python<'_>) -> Vec<Py<Diagnostic>> {
        self.of_severity(py, "error")
    }

    /// The kept findings at warning level.
    #[getter]
    fn warnings(&self, py: Python<'_>) -> Vec<Py<Diagnostic>> {
        self.of_severity(py, "warning")
    }

    /// Every kept finding, in the order found (at most `max_diagnostics`).
    #[getter]
    fn diagnostics(&self, py: Python<'_>) -> Vec<Py<Diagnostic>> {
        self.diagnostics.iter().map(|d| d.clone_ref(py)).collect()
    }

    /// Findings per code, every finding counted (kept or not).
    #[getter]
    fn codes(&self) -> BTreeMap<String, u64> {
        self.report.codes.clone()
    }

    /// Findings per severity: {"errors": n, "warnings": n, "infos": n}.
    #[getter]
    fn counts(&self) -> BTreeMap<&'static str, u64> {
        let c = self.report.counts;
        BTreeMap::from([
            ("errors", c.errors),
            ("warnings", c.warnings),
            ("infos", c.infos),
        ])
    }

    /// True when more findings exist than were kept.
    #[getter]
    fn truncated(&self) -> bool {
        self.report.truncated
    }

    /// The file as named.
    #[getter]
    fn file(&self) -> String {
        self.report.file.clone()
    }

    /// The format read ("json", "dmx", "raw", "gltf", "glb"), None when unknown.
    #[getter]
    fn format(&self) -> Option<String> {
        self.report.format.clone()
    }

    /// The weight-sum profile applied: "dash" or "gltf".
    #[getter]
    fn profile(&self) -> &'static str {
        match self.report.profile {
            dashvertex_validate::Profile::Dash => "dash",
            dashvertex_validate::Profile::Gltf => "gltf",
        }
    }

    /// The JSON report, byte for byte what `dash-validate --format json FILE` prints.
    fn to_json(&self) -> String {
        dashvertex_validate::Report::new(vec![self.report.clone()]).to_json()
    }

    fn __bool__(&self) -> bool {
        self.report.valid
    }

    fn __repr__(&self) -> String {
        format!(
            "Report(file={:?}, valid={}, errors={}, warnings={})",
            self.report.file,
            if self.report.valid { "True" } else { "False" },
            self.report.counts.errors,
            self.report.counts.warnings
        )
    }
}
