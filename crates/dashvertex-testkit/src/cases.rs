//! Command-line cases as files: each `NAME.case` in a folder is a small script, and
//! `NAME.out` beside it is the transcript it must produce.
//!
//! A case file holds one directive per line (blank lines and `#` comments are ignored):
//!
//! - `RUN: COMMAND ARGS…` runs a command named in the harness's table, in the repository
//!   root; arguments split at spaces, and `'…'` quotes one with spaces;
//! - `STDIN: PATH` gives the next `RUN` that file on standard input;
//! - `ENV: NAME=VALUE` sets a variable for the runs after it (colour variables, `TERM`
//!   and `CI` are otherwise removed, so transcripts do not depend on the caller);
//! - `COPY: FROM TO` copies a repository file, e.g. into `$TMP` before a run changes it;
//! - `CAT: PATH` adds a file's text to the transcript (an output a run wrote).
//!
//! `$TMP` stands for a fresh scratch folder of the case, and is written back as `$TMP` in
//! the transcript. Each run is transcribed as `$ COMMAND ARGS`, its exit status, and its
//! standard output and standard error when not empty. `BLESS=1` rewrites the `.out` files.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::{Scratch, repo};

/// The names (file stems) of the `.case` files in `dir`, sorted.
pub fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read the cases folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "case"))
        .filter_map(|p| Some(p.file_stem()?.to_string_lossy().into_owned()))
        .collect();
    names.sort();
    names
}

/// Runs the case `dir/NAME.case` against `NAME.out` (or, with `BLESS=1`, rewrites it);
/// `commands` maps the names a `RUN:` may use to executables. One test per case, so a
/// case runs by name: `cargo test -p dashvertex-cli --test it cases::NAME`.
pub fn run_one(dir: &Path, name: &str, commands: &[(&str, &Path)]) {
    let case = dir.join(format!("{name}.case"));
    assert!(case.exists(), "no case file {}", case.display());
    let actual = transcript(&case, commands);
    let expected_path = case.with_extension("out");
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&expected_path, &actual).expect("write a transcript");
        return;
    }
    let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
    assert!(
        expected == actual,
        "{} differs from {} (rerun with BLESS=1 to accept):\n{}",
        case.display(),
        expected_path.display(),
        first_difference(&expected, &actual)
    );
}

/// Runs every `.case` file in `dir`; `commands` maps the names a `RUN:` may use to
/// executables. Fails the test listing every case whose transcript differs.
pub fn run_all(dir: &Path, commands: &[(&str, &Path)]) {
    let cases: Vec<PathBuf> = names(dir)
        .iter()
        .map(|n| dir.join(format!("{n}.case")))
        .collect();
    assert!(!cases.is_empty(), "no .case files in {}", dir.display());
    let bless = std::env::var_os("BLESS").is_some();
    let mut failed = Vec::new();
    for case in &cases {
        let actual = transcript(case, commands);
        let expected_path = case.with_extension("out");
        if bless {
            std::fs::write(&expected_path, &actual).expect("write a transcript");
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if expected != actual {
            failed.push(format!(
                "{} differs from {}:\n{}",
                case.display(),
                expected_path.display(),
                first_difference(&expected, &actual)
            ));
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} cases failed (rerun with BLESS=1 to accept):\n\n{}",
        failed.len(),
        cases.len(),
        failed.join("\n\n")
    );
}

/// The first differing line, with a little context.
fn first_difference(expected: &str, actual: &str) -> String {
    let (e, a): (Vec<_>, Vec<_>) = (expected.lines().collect(), actual.lines().collect());
    let at = e
        .iter()
        .zip(&a)
        .position(|(x, y)| x != y)
        .unwrap_or(e.len().min(a.len()));
    let show = |lines: &[&str]| {
        lines
            .iter()
            .skip(at.saturating_sub(2))
            .take(5)
            .map(|l| format!("    {l}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    format!(
        "  at line {}\n  expected:\n{}\n  actual:\n{}",
        at + 1,
        show(&e),
        show(&a)
    )
}

/// Splits arguments at spaces; `'…'` keeps spaces.
fn split(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in line.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                any = true;
            }
            ' ' if !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}

fn transcript(case: &Path, commands: &[(&str, &Path)]) -> String {
    let script = std::fs::read_to_string(case).expect("read a case");
    let scratch = Scratch::new("case");
    let tmp = scratch.path().to_string_lossy().into_owned();
    let expand = |s: &str| s.replace("$TMP", &tmp);
    let hide = |s: &str| s.replace(&tmp, "$TMP");
    let mut env: Vec<(String, String)> = Vec::new();
    let mut stdin: Option<PathBuf> = None;
    let mut out = String::new();
    for (n, line) in script.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((directive, rest)) = line.split_once(':') else {
            panic!("{}:{}: expected DIRECTIVE: …", case.display(), n + 1);
        };
        let rest = rest.trim();
        match directive {
            "ENV" => {
                let (k, v) = rest.split_once('=').expect("ENV: NAME=VALUE");
                env.push((k.to_owned(), v.to_owned()));
            }
            "STDIN" => stdin = Some(repo().join(expand(rest))),
            "COPY" => {
                let words = split(rest);
                let [from, to] = words.as_slice() else {
                    panic!("{}:{}: COPY: FROM TO", case.display(), n + 1);
                };
                std::fs::copy(repo().join(expand(from)), repo().join(expand(to)))
                    .expect("COPY a file");
            }
            "CAT" => {
                let path = repo().join(expand(rest));
                let text = std::fs::read_to_string(&path).unwrap_or_else(|e| format!("({e})\n"));
                out.push_str(&format!("$ cat {rest}\n{}", hide(&text)));
                if !text.ends_with('\n') {
                    out.push_str("\n(no newline at end)\n");
                }
            }
            "RUN" => {
                let words = split(rest);
                let (name, args) = words.split_first().expect("RUN: COMMAND ARGS");
                let exe = commands
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, p)| *p)
                    .unwrap_or_else(|| panic!("{}: unknown command {name}", case.display()));
                let mut cmd = Command::new(exe);
                cmd.current_dir(repo())
                    .args(args.iter().map(|a| expand(a)))
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped());
                // COLUMNS too: help is wrapped to it (else to 100 columns off a terminal).
                for v in [
                    "NO_COLOR",
                    "CLICOLOR",
                    "CLICOLOR_FORCE",
                    "CI",
                    "TERM",
                    "COLUMNS",
                ] {
                    cmd.env_remove(v);
                }
                for (k, v) in &env {
                    cmd.env(k, v);
                }
                cmd.stdin(match stdin.take() {
                    Some(p) => Stdio::from(std::fs::File::open(&p).expect("open STDIN file")),
                    None => Stdio::null(),
                });
                let o = cmd.output().expect("run a case's command");
                out.push_str(&format!("$ {rest}\n"));
                match o.status.code() {
                    Some(c) => out.push_str(&format!("status: {c}\n")),
                    None => out.push_str("status: killed by a signal\n"),
                }
                for (label, bytes) in [("stdout", &o.stdout), ("stderr", &o.stderr)] {
                    if bytes.is_empty() {
                        continue;
                    }
                    let text = String::from_utf8_lossy(bytes);
                    out.push_str(&format!("--- {label}\n{}", hide(&text)));
                    if !text.ends_with('\n') {
                        out.push_str("\n(no newline at end)\n");
                    }
                }
            }
            other => panic!("{}:{}: unknown directive {other}", case.display(), n + 1),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn arguments_split_at_spaces_and_quotes_keep_them() {
        assert_eq!(split("a  b 'c d' ''"), ["a", "b", "c d", ""]);
    }
}
