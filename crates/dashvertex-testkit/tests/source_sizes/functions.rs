//! The functions of a Rust source file as rustfmt lays them out, found line by line: a
//! function runs from its `fn` line to the first later line that starts with `}` at the
//! `fn` line's indentation. Items under `#[cfg(test)]` or `#[test]` are test code and left
//! out. Comment lines are skipped; a `fn` inside a multi-line string literal would be
//! misread, which the workspace's sources do not have.

use std::path::{Path, PathBuf};

/// One function of a source file.
#[derive(Debug)]
pub struct Function {
    /// The file as shown in messages (relative to the repository root).
    pub file: String,
    /// The function's name.
    pub name: String,
    /// The 1-based line of its `fn`.
    pub line: usize,
    /// Lines from the `fn` line to the closing brace, both included.
    pub lines: usize,
}

/// The name of the function `trimmed` (a line without its indentation) declares, if it
/// declares one: `fn`, after any visibility (`pub`, `pub(crate)`, `pub(in path)`) and
/// qualifiers (`const`, `async`, `unsafe`, `default`, `extern "abi"`).
pub fn declared_fn(trimmed: &str) -> Option<&str> {
    let mut rest = trimmed;
    if let Some(after) = rest.strip_prefix("pub") {
        if let Some(group) = after.strip_prefix('(') {
            rest = group[group.find(')')? + 1..].trim_start();
        } else if after.starts_with(' ') {
            rest = after.trim_start();
        } else {
            return None;
        }
    }
    loop {
        let before = rest;
        for qualifier in ["const ", "async ", "unsafe ", "default ", "extern "] {
            if let Some(after) = rest.strip_prefix(qualifier) {
                rest = after.trim_start();
            }
        }
        if let Some(abi) = rest.strip_prefix('"') {
            rest = abi[abi.find('"')? + 1..].trim_start();
        }
        if rest == before {
            break;
        }
    }
    let after = rest.strip_prefix("fn ")?.trim_start();
    let end = after
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(after.len());
    (end > 0).then(|| &after[..end])
}

/// Leading spaces of `line`.
fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// Whether `trimmed` is a comment line (or a block comment's continuation).
fn is_comment(trimmed: &str) -> bool {
    trimmed.starts_with("//") || trimmed.starts_with("/*") || trimmed.starts_with('*')
}

/// The index of the last line of the item (or function) starting at `lines[start]`: the
/// line itself when it ends in `;` before any `{` (a declaration) or holds its whole body,
/// else the first later line starting with `}` at its indentation. `None` for a
/// declaration without a body, or an item that never closes.
fn item_end(lines: &[&str], start: usize) -> Option<usize> {
    let own = indent(lines.get(start)?);
    let mut body = false;
    for (i, line) in lines.iter().enumerate().skip(start) {
        let trimmed = line.trim();
        if body {
            if indent(line) == own && trimmed.starts_with('}') {
                return Some(i);
            }
            continue;
        }
        let opens = trimmed.matches('{').count();
        if opens == 0 {
            if trimmed.ends_with(';') {
                return None;
            }
            continue;
        }
        if opens <= trimmed.matches('}').count() {
            return Some(i);
        }
        body = true;
    }
    None
}

/// The attributes read before an item, possibly over several lines, and whether one of
/// them marks the item as test code (`#[cfg(test)]` or `#[test]`).
#[derive(Default)]
struct Attributes {
    /// The text of an attribute whose brackets are not closed yet.
    open: String,
    /// Whether an attribute read since the last item marks it as test code.
    test: bool,
}

impl Attributes {
    /// Reads `trimmed` if it is (part of) an attribute, returning whether it was.
    fn read(&mut self, trimmed: &str) -> bool {
        if self.open.is_empty() && !trimmed.starts_with("#[") {
            return false;
        }
        self.open.push_str(trimmed);
        if self.open.matches('[').count() <= self.open.matches(']').count() {
            let compact: String = self.open.split_whitespace().collect();
            self.test |= compact.starts_with("#[cfg(test)]") || compact.starts_with("#[test]");
            self.open.clear();
        }
        true
    }

    /// Whether the item after the attributes read is test code, starting afresh.
    fn take_test(&mut self) -> bool {
        std::mem::take(&mut self.test)
    }
}

/// The functions of `text` (shown as `file`) outside test code.
pub fn functions(file: &str, text: &str) -> Vec<Function> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut attributes = Attributes::default();
    let mut i = 0;
    while let Some(line) = lines.get(i) {
        let trimmed = line.trim();
        if trimmed.is_empty() || is_comment(trimmed) || attributes.read(trimmed) {
            i += 1;
            continue;
        }
        if attributes.take_test() {
            i = item_end(&lines, i).unwrap_or(i) + 1;
            continue;
        }
        if let Some(name) = declared_fn(trimmed)
            && let Some(end) = item_end(&lines, i)
        {
            out.push(Function {
                file: file.to_string(),
                name: name.to_string(),
                line: i + 1,
                lines: end - i + 1,
            });
        }
        i += 1;
    }
    out
}

/// The files and folders of the test modules `path` declares out of line
/// (`#[cfg(test)] mod name;`): `name.rs` and `name/` in the folder of its modules.
pub fn test_module_files(path: &Path, text: &str) -> Vec<PathBuf> {
    let Some(parent) = path.parent() else {
        return Vec::new();
    };
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let folder = if matches!(stem, "lib" | "main" | "mod") {
        parent.to_path_buf()
    } else {
        parent.join(stem)
    };
    let mut out = Vec::new();
    let mut attributes = Attributes::default();
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || is_comment(trimmed) || attributes.read(trimmed) {
            continue;
        }
        if attributes.take_test() {
            let declared = trimmed
                .trim_start_matches("pub(crate) ")
                .trim_start_matches("pub ");
            if let Some(name) = declared
                .strip_prefix("mod ")
                .and_then(|m| m.strip_suffix(';'))
            {
                out.push(folder.join(format!("{name}.rs")));
                out.push(folder.join(name));
            }
        }
    }
    out
}
