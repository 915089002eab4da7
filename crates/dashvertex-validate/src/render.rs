//! Human-readable output, in the style of compiler diagnostics.

use std::fmt::Write;

use crate::codes::Severity;
use crate::diagnostic::{Diagnostic, Location};
use crate::report::{FileReport, Summary};

/// Whether to colour the text. A command line passes `color: true` and writes through a
/// stream that strips the styles where they do not belong (`anstream` honours `NO_COLOR`,
/// `CLICOLOR_FORCE` and `TERM=dumb`); a library user wanting plain text passes `false`.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    /// Emit ANSI styles.
    pub color: bool,
}

/// The styles the text uses (bold red errors, yellow warnings, cyan notes, as compilers do).
pub mod palette {
    use anstyle::{AnsiColor, Style};

    /// Bold red: the `error` label of error findings (the commands use it for their own
    /// `error:` messages too).
    pub const ERROR: Style = AnsiColor::Red.on_default().bold();
    /// Bold yellow: the `warning` label of warning findings.
    pub const WARNING: Style = AnsiColor::Yellow.on_default().bold();
    /// Bold cyan: the `note` label of info findings (the commands use it for their own
    /// `note:` messages too).
    pub const NOTE: Style = AnsiColor::Cyan.on_default().bold();
    /// Bold, default colour: the `help` label of a finding's hint line.
    pub const HELP: Style = Style::new().bold();
    /// Green: `valid` in a file's summary line.
    pub const VALID: Style = AnsiColor::Green.on_default();
    /// Red, not bold: `invalid` in a file's summary line.
    pub const INVALID: Style = AnsiColor::Red.on_default();
}

impl Style {
    fn paint(&self, style: anstyle::Style, text: &str) -> String {
        if self.color {
            format!("{style}{text}{style:#}")
        } else {
            text.to_owned()
        }
    }

    fn severity(&self, s: Severity) -> String {
        match s {
            Severity::Error => self.paint(palette::ERROR, "error"),
            Severity::Warning => self.paint(palette::WARNING, "warning"),
            Severity::Info => self.paint(palette::NOTE, "note"),
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
        let _ = writeln!(out, "  = {}: {h}", style.paint(palette::HELP, "help"));
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
            "{}: … {} more finding(s) not shown (at most {shown} kept per file)",
            r.file,
            total - shown as u64
        );
    }
    let verdict = if r.valid {
        style.paint(palette::VALID, "valid")
    } else {
        style.paint(palette::INVALID, "invalid")
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
    if !r.not_checked.is_empty() {
        let _ = writeln!(out, "{}: {}", r.file, not_checked_note(&r.not_checked));
    }
    out
}

/// The sentence saying which parts of a file were not checked (text and SARIF output).
pub fn not_checked_note(parts: &[String]) -> String {
    format!(
        "not checked: {} (outside dash-validate's scope; the Khronos glTF-Validator checks them)",
        parts.join(", ")
    )
}

/// The final line over several files.
pub fn summary(s: &Summary) -> String {
    format!(
        "checked {} file(s): {} valid, {} invalid; {} error(s), {} warning(s), {} note(s)\n",
        s.files, s.valid, s.invalid, s.counts.errors, s.counts.warnings, s.counts.infos
    )
}
