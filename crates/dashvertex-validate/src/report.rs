//! Reports: per file and for a whole run, serializable as the stable JSON report whose
//! schema is `schemas/validation-report.schema.json`.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::codes::{Code, Severity};
use crate::diagnostic::Diagnostic;
use crate::influences::Profile;
use dashvertex_formats::Format;

/// Counts per severity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Counts {
    /// Findings at error level, after per-code levels and `--deny warnings`, counting those
    /// beyond `--max-diagnostics`; any error makes the file invalid.
    pub errors: u64,
    /// Findings at warning level, counted the same way; warnings alone never make a file
    /// invalid (`--deny warnings` counts them as errors instead).
    pub warnings: u64,
    /// Findings at info level (notes, in text output), counted the same way.
    pub infos: u64,
}

/// The parts of a glTF document dash-validate does not check (`spec/validation.md` §6.2):
/// a glTF file it calls valid may still break rules of these parts, which the official
/// Khronos glTF-Validator checks.
pub const GLTF_NOT_CHECKED: &[&str] = &["materials", "textures", "images", "samplers", "cameras"];

/// The result of validating one file.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct FileReport {
    /// The file as named on the command line (`<stdin>` for standard input).
    pub file: String,
    /// The detected or forced format, when known.
    pub format: Option<String>,
    /// The weight-sum profile applied.
    pub profile: Profile,
    /// True when the file has no error (and no warning under `--deny warnings`).
    pub valid: bool,
    /// Findings per severity.
    pub counts: Counts,
    /// Findings per code (every finding, kept or not).
    pub codes: BTreeMap<String, u64>,
    /// True when more findings exist than were kept (`--max-diagnostics`).
    pub truncated: bool,
    /// The kept findings, in the order they were found.
    pub diagnostics: Vec<Diagnostic>,
    /// The parts of the file that were not checked at all ([`GLTF_NOT_CHECKED`] for
    /// glTF and GLB; absent for formats checked whole), so that `valid` is never read as
    /// more than it says.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_checked: Vec<String>,
    /// The file's path as the operating system gave it, when it was read from disk:
    /// `file` is its display form, which cannot hold every byte of a name that is not
    /// UTF-8; SARIF builds the file's URI from this instead. Not part of the JSON report.
    #[serde(skip)]
    #[schemars(skip)]
    pub path: Option<std::path::PathBuf>,
}

/// Reports are equal when they say the same: `path` (where the bytes were read from, if
/// from disk) is left out, so a report of bytes in memory equals that of the same file.
impl PartialEq for FileReport {
    fn eq(&self, other: &Self) -> bool {
        // Every field named, so a new one cannot be forgotten here.
        let FileReport {
            file,
            format,
            profile,
            valid,
            counts,
            codes,
            truncated,
            diagnostics,
            not_checked,
            path: _,
        } = self;
        *file == other.file
            && *format == other.format
            && *profile == other.profile
            && *valid == other.valid
            && *counts == other.counts
            && *codes == other.codes
            && *truncated == other.truncated
            && *diagnostics == other.diagnostics
            && *not_checked == other.not_checked
    }
}

impl FileReport {
    /// Builds a report from a sink's contents.
    pub fn new(
        file: String,
        format: Option<Format>,
        profile: Profile,
        counts_by_code: BTreeMap<Code, u64>,
        mut diagnostics: Vec<Diagnostic>,
        opts: &crate::Options,
    ) -> Self {
        let level = |c: Code| opts.severity_of(c).unwrap_or(c.severity());
        for d in &mut diagnostics {
            d.severity = level(d.code);
        }
        let mut counts = Counts::default();
        for (code, n) in &counts_by_code {
            match level(*code) {
                Severity::Error => counts.errors += n,
                Severity::Warning => counts.warnings += n,
                Severity::Info => counts.infos += n,
            }
        }
        let total: u64 = counts_by_code.values().sum();
        FileReport {
            file,
            format: format.map(|f| f.as_str().to_owned()),
            profile,
            valid: counts.errors == 0,
            counts,
            codes: counts_by_code
                .into_iter()
                .map(|(c, n)| (c.as_str().to_owned(), n))
                .collect(),
            truncated: total > diagnostics.len() as u64,
            diagnostics,
            path: None,
            not_checked: match format {
                Some(Format::Gltf | Format::Glb) => {
                    GLTF_NOT_CHECKED.iter().map(|p| (*p).to_owned()).collect()
                }
                _ => Vec::new(),
            },
        }
    }

    /// True when reading the file failed (exit code 2).
    pub fn io_failed(&self) -> bool {
        self.codes.contains_key(Code::IO_ERROR.as_str())
    }
}

/// Totals of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Summary {
    /// Number of files checked, one per entry of the report's `files`.
    pub files: u64,
    /// Files without errors.
    pub valid: u64,
    /// Files with errors.
    pub invalid: u64,
    /// Findings per severity over all files.
    pub counts: Counts,
}

/// The machine-readable report of a run (`--format json`).
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Report {
    /// Report format version (1).
    pub version: u32,
    /// The validator's name and version.
    pub tool: String,
    /// One entry per file, in the order checked.
    pub files: Vec<FileReport>,
    /// Totals over `files`: how many are valid and invalid, and their findings per
    /// severity added up.
    pub summary: Summary,
}

impl Report {
    /// A report over file reports.
    pub fn new(files: Vec<FileReport>) -> Self {
        let mut summary = Summary::default();
        for f in &files {
            summary.files += 1;
            if f.valid {
                summary.valid += 1;
            } else {
                summary.invalid += 1;
            }
            summary.counts.errors += f.counts.errors;
            summary.counts.warnings += f.counts.warnings;
            summary.counts.infos += f.counts.infos;
        }
        Report {
            version: 1,
            tool: format!("dash-validate {}", env!("CARGO_PKG_VERSION")),
            files,
            summary,
        }
    }
}

impl Report {
    /// The JSON report as `dash-validate --format json` prints it: pretty JSON
    /// (`schemas/report.schema.json`) and a trailing newline. Every front end renders it
    /// here, so their reports are the same bytes.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }
}

/// The JSON Schema of [`Report`].
pub fn schema() -> schemars::Schema {
    let mut s = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<Report>();
    s.insert(
        "$id".into(),
        serde_json::Value::String(
            "https://dash.invalid/schemas/validation-report.schema.json".into(),
        ),
    );
    s
}
