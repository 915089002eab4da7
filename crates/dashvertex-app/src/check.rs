//! The check every job runs on its output before anything is written: the validator over
//! the output's bytes (and the buffer files it names), refusing with its first error
//! located in the user's terms. A job writes only what `dash-validate` accepts, less the
//! errors the input already had and the job carries unchanged. It reads no file: the CLI,
//! Python and the inspector's WebAssembly all hand it bytes.

use std::path::Path;

use dashvertex_core::Limits;

use crate::error::{AppError, Refused};
use crate::words::{Job, Wording};

/// Runs the validator over an output before it is written: a job writes only
/// what `dash-validate` accepts (spec/reduction.md), and refuses otherwise, naming the
/// first error and where it is in the output.
///
/// The bytes are handed over and given back, so that a GLB output is checked in place.
pub fn verify(
    output: &Path,
    format: dashvertex_formats::Format,
    bytes: Vec<u8>,
    files: &[(String, Vec<u8>)],
    limits: &Limits,
    profile: Option<dashvertex_validate::Profile>,
    target: Option<&'static dashvertex_core::Target>,
) -> Result<Vec<u8>, AppError> {
    Check {
        profile,
        target,
        ..Check::new(output, format, files, limits)
    }
    .owned(bytes)
}

/// What a DashVertex output was made from, so that a refusal names things as the user
/// knows them: bones by name, vertices in the input file (the reducer keeps the vertex
/// order), and no place in a file that was never written.
pub struct Subject<'a> {
    /// How the job's front end names commands, for the help a refusal gives.
    pub words: &'a dyn Wording,
    /// The user's input file.
    pub input: &'a Path,
    /// The output's bone names and their parents' names, by index (manifest order).
    pub bones: Vec<(String, Option<String>)>,
}

impl Subject<'_> {
    /// Where a diagnostic of the unwritten output is, in the user's terms.
    fn place(&self, l: &dashvertex_validate::Location) -> String {
        let mut parts = Vec::new();
        if let Some(b) = l.bone {
            match usize::try_from(b).ok().and_then(|i| self.bones.get(i)) {
                Some((name, _)) => parts.push(format!(
                    "bone {} (index {b})",
                    dashvertex_core::text::short(name)
                )),
                None => parts.push(format!("bone index {b}")),
            }
        }
        if let Some(v) = l.vertex {
            parts.push(format!("vertex {v} of {}", self.input.display()));
        }
        if parts.is_empty() {
            parts.push(format!("from {}", self.input.display()));
        }
        parts.join(", ")
    }
}

impl Subject<'_> {
    /// What to do about a diagnostic of the unwritten output, when the validator's own
    /// help does not fit a reduction (the manifest, not the user, chose the bone order).
    fn help(&self, d: &dashvertex_validate::Diagnostic) -> Option<String> {
        if d.code != dashvertex_validate::Code::BONE_PARENT_ORDER {
            return None;
        }
        let i = usize::try_from(d.location.bone?).ok()?;
        let (name, parent) = self.bones.get(i)?;
        Some(format!(
            "the manifest numbers {} (index {i}) before its parent {}, and DashVertex lists \
             parents first: write .gltf/.glb instead, or number the bones with a new manifest \
             (`{}`), which puts parents first",
            dashvertex_core::text::short(name),
            parent
                .as_deref()
                .map_or("(unknown)".to_owned(), dashvertex_core::text::short),
            self.words.job(Job::ManifestInit)
        ))
    }
}

/// How an output is checked before it is written ([`verify`], and
/// `output::write_checked`, which checks while it writes).
pub struct Check<'a> {
    /// The output, as named (labels the diagnostics).
    pub output: &'a Path,
    /// Its format.
    pub format: dashvertex_formats::Format,
    /// The buffer files a `.gltf` output refers to, by the names it uses.
    pub files: &'a [(String, Vec<u8>)],
    /// The limits of the job.
    pub limits: &'a Limits,
    /// The validator's profile, when the job fixes one.
    pub profile: Option<dashvertex_validate::Profile>,
    /// The engine target the output is also checked for.
    pub target: Option<&'static dashvertex_core::Target>,
    /// What a DashVertex output was made from, for refusals in the user's terms.
    pub subject: Option<&'a Subject<'a>>,
    /// The glTF accessors the output carries unchanged from the input (`0..carried`,
    /// [`dashvertex_gltf::export::Written::carried`]): their elements are not walked
    /// again, so the check reads what the job changed.
    pub carried: u64,
    /// The input's errors the job read through and carries unchanged, by code
    /// ([`dashvertex_gltf::Gltf::carried_errors`]): the output may have as many of each,
    /// and no other error.
    pub carried_errors: std::collections::BTreeMap<String, u64>,
}

impl<'a> Check<'a> {
    /// The check of `output` by the default profile of its format, for no engine target
    /// and with no accessor carried (set the fields for more).
    pub fn new(
        output: &'a Path,
        format: dashvertex_formats::Format,
        files: &'a [(String, Vec<u8>)],
        limits: &'a Limits,
    ) -> Check<'a> {
        Check {
            output,
            format,
            files,
            limits,
            profile: None,
            target: None,
            subject: None,
            carried: 0,
            carried_errors: std::collections::BTreeMap::new(),
        }
    }

    fn options(&self) -> dashvertex_validate::Options {
        dashvertex_validate::Options::new()
            .with_carried_accessors(self.carried)
            .with_format(self.format)
            .with_limits(*self.limits)
            .with_profile(self.profile)
            .with_target(self.target)
            .with_max_diagnostics(1000)
    }

    fn resolver(&self) -> dashvertex_gltf::MemoryFiles<'_> {
        dashvertex_gltf::MemoryFiles {
            files: self
                .files
                .iter()
                .map(|(n, b)| (n.as_str(), b.as_slice()))
                .collect(),
        }
    }

    /// Checks bytes handed over (a GLB in place), giving them back when valid.
    pub fn owned(&self, bytes: Vec<u8>) -> Result<Vec<u8>, AppError> {
        let (report, back) = dashvertex_validate::validate_owned(
            &self.output.display().to_string(),
            bytes,
            &self.resolver(),
            &self.options(),
        );
        if self.only_carried(&report)
            && let Some(bytes) = back
        {
            return Ok(bytes);
        }
        Err(self.refusal(&report))
    }

    /// Checks borrowed bytes (a GLB's binary chunk is copied).
    pub fn borrowed(&self, bytes: &[u8]) -> Result<(), AppError> {
        let report = dashvertex_validate::validate_with(
            &self.output.display().to_string(),
            bytes,
            &self.resolver(),
            &self.options(),
        );
        if self.only_carried(&report) {
            return Ok(());
        }
        Err(self.refusal(&report))
    }

    /// Whether the output's errors are only those the input had and the job carries:
    /// of each code, no more than [`Check::carried_errors`] allows.
    fn only_carried(&self, report: &dashvertex_validate::FileReport) -> bool {
        if report.counts.errors == 0 {
            return true;
        }
        let mut errors = 0u64;
        for (code, n) in &report.codes {
            let error = dashvertex_validate::Code::parse(code)
                .is_none_or(|c| c.severity() == dashvertex_validate::Severity::Error);
            if !error {
                continue;
            }
            if self
                .carried_errors
                .get(code)
                .is_none_or(|allowed| n > allowed)
            {
                return false;
            }
            errors += n;
        }
        // Every error is of a code counted above (a deny-listed warning is not).
        errors == report.counts.errors
    }

    /// Why an output with this report is not written: its first error, located.
    fn refusal(&self, report: &dashvertex_validate::FileReport) -> AppError {
        let subject = self.subject;
        let first = report
            .diagnostics
            .iter()
            .find(|d| d.severity == dashvertex_validate::Severity::Error)
            .map(|d| {
                let help = subject
                    .and_then(|s| s.help(d))
                    .or_else(|| d.help.clone())
                    .map_or(String::new(), |h| format!("; {h}"));
                let at = subject.map_or_else(|| d.location.to_string(), |s| s.place(&d.location));
                format!("{}: {} ({at}){help}", d.code.as_str(), d.message)
            })
            .unwrap_or_default();
        if report.counts.errors == 0 {
            // Valid, but the checker could not give the bytes back (cannot happen for
            // what the jobs write: no byte order mark, and a load that failed is an
            // error).
            return AppError::Output("nothing written: the output could not be checked".into());
        }
        AppError::Output(format!(
            "nothing written: the output would not be valid ({} error(s)); first: {first}",
            report.counts.errors
        ))
    }
}

/// Why an input is refused for its document's errors (spec/validation.md §6.3): its first
/// error, where it is and what to do, with the error kept as the source ([`Refused`]).
pub fn refused(
    path: &Path,
    refusal: dashvertex_validate::Refusal,
    words: &dyn Wording,
) -> AppError {
    let khronos = refusal.khronos();
    let khronos = if khronos.is_empty() {
        String::new()
    } else {
        format!(" [Khronos {}]", khronos.join(", "))
    };
    let (first, errors) = (&refusal.first, refusal.errors);
    let mut worded = first.clone();
    crate::advice::word(&mut worded, words);
    let help = worded
        .help
        .as_deref()
        .map_or(String::new(), |h| format!("; {h}"));
    AppError::Input {
        file: path.display().to_string(),
        message: format!(
            "{}{khronos} at {}: {}{help}. Nothing written: the file has {errors} such error(s) \
             that make its data unreliable to read; `{} {}` lists them all, and the tool that \
             wrote the file must write it again",
            first.code.as_str(),
            first.location,
            first.message,
            words.job(Job::Validate),
            path.display()
        ),
        source: Some(Box::new(Refused(Box::new(first.clone())))),
    }
}
