//! Human-readable output, in the style of compiler diagnostics.

use std::fmt::Write;

use crate::codes::Severity;
use crate::diagnostic::{Diagnostic, Location};
use crate::report::{FileReport, Summary};

/// Colours, when writing to a terminal.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    /// Use ANSI colours.
    pub color: bool,
}

impl Style {
    fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    fn severity(&self, s: Severity) -> String {
        match s {
            Severity::Error => self.paint("1;31", "error"),
            Severity::Warning => self.paint("1;33", "warning"),
            Severity::Info => self.paint("1;36", "note"),
        }
    }
}

/// `file:line:col` for JSON, `file:0xOFFSET` for binary, `file` otherwise.
fn place(file: &str, l: &Location) -> String {
    match (l.line, l.column, l.offset) {
        (Some(line), Some(col), _) => format!("{file}:{line}:{col}"),
        (_, _, Some(off)) => format!("{file}:0x{off:X}"),
        _ => file.to_owned(),
    }
}

/// Renders one diagnostic (two or three lines).
pub fn diagnostic(file: &str, d: &Diagnostic, style: Style) -> String {
    let mut out = format!(
        "{}: {}[{}]: {}\n",
        place(file, &d.location),
        style.severity(d.severity),
        d.code.as_str(),
        d.message
    );
    if let Some(p) = &d.location.pointer {
        if d.location.offset.is_some() {
            let _ = writeln!(
                out,
                "  = at: {p} (byte 0x{:X} of its buffer)",
                d.location.offset.unwrap_or(0)
            );
        } else if !p.is_empty() {
            let _ = writeln!(out, "  = at: {p}");
        }
    }
    if let Some(h) = &d.help {
        let _ = writeln!(out, "  = {}: {h}", style.paint("1", "help"));
    }
    out
}

/// Renders a file's diagnostics and its summary line.
pub fn file(r: &FileReport, style: Style) -> String {
    let mut out = String::new();
    for d in &r.diagnostics {
        out.push_str(&diagnostic(&r.file, d, style));
    }
    if r.truncated {
        let shown = r.diagnostics.len();
        let total: u64 = r.codes.values().sum();
        let _ = writeln!(
            out,
            "{}: … {} more finding(s) not shown (--max-diagnostics {shown})",
            r.file,
            total - shown as u64
        );
    }
    let verdict = if r.valid {
        style.paint("32", "valid")
    } else {
        style.paint("31", "invalid")
    };
    let _ = writeln!(
        out,
        "{}: {verdict} ({}, profile {}): {} error(s), {} warning(s), {} note(s)",
        r.file,
        r.format.as_deref().unwrap_or("unknown format"),
        match r.profile {
            crate::influences::Profile::Dash => "dash",
            crate::influences::Profile::Gltf => "gltf",
        },
        r.counts.errors,
        r.counts.warnings,
        r.counts.infos
    );
    out
}

/// The final line over several files.
pub fn summary(s: &Summary) -> String {
    format!(
        "checked {} file(s): {} valid, {} invalid; {} error(s), {} warning(s), {} note(s)\n",
        s.files, s.valid, s.invalid, s.counts.errors, s.counts.warnings, s.counts.infos
    )
}
