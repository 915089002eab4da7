//! Docs that cannot drift: every repository path a Markdown file cites in backticks
//! (`crates/…`, `spec/…`, `fixtures/…`, …) must exist. Paths in another project (the
//! token follows an `owner/repo` name, as spec/targets.md cites engines' sources),
//! placeholders (`NAME.case`), globs and folders the repository ignores are not
//! repository paths and are skipped.

use std::path::{Path, PathBuf};

/// The top-level folders a repository path starts with.
const TOPS: &[&str] = &[
    "crates/",
    "spec/",
    "schemas/",
    "fixtures/",
    "examples/",
    "tools/",
    "js/",
    "benches/",
    "fuzz/",
    "blender/",
    "web/",
    "docs/",
    ".ci/",
];

/// Every Markdown file of the repository but third-party ones and build output.
fn markdown(root: &Path) -> Vec<PathBuf> {
    let skip = ["target", "node_modules", ".git", "corpus", "third-party"];
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            let kind = e.file_type().unwrap();
            if kind.is_dir() && !skip.contains(&name.as_str()) && !name.starts_with("khronos") {
                stack.push(p);
            } else if kind.is_file() && name.ends_with(".md") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// True when the text before a backticked token names another repository (`owner/name `).
fn follows_repository(before: &str) -> bool {
    let word = before.trim_end().rsplit(' ').next().unwrap_or("");
    let parts: Vec<&str> = word.split('/').collect();
    before.ends_with(' ')
        && parts.len() == 2
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        })
}

/// The repository paths cited in `line` (trailing punctuation and `:LINE` dropped).
fn cited(line: &str) -> Vec<String> {
    scan(line, true)
}

/// Every path-shaped token of `line`, another repository's included.
fn cited_all(line: &str) -> Vec<String> {
    scan(line, false)
}

fn scan(line: &str, ours_only: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    let mut consumed = 0;
    while let Some(start) = rest.find('`') {
        let after = &rest[start + 1..];
        let Some(end) = after.find('`') else { break };
        let token = &after[..end];
        let before = &line[..consumed + start];
        consumed += start + end + 2;
        rest = &after[end + 1..];
        let t = token.trim_end_matches(['.', ',', ':', ';', ')']);
        let t = t.split('#').next().unwrap_or(t);
        let t = match t.rsplit_once(':') {
            Some((path, n)) if n.chars().all(|c| c.is_ascii_digit() || c == '-') => path,
            _ => t,
        };
        let placeholder = t
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|w| w.len() >= 3 && w.chars().all(|c| c.is_ascii_uppercase()));
        let ours = TOPS.iter().any(|p| t.starts_with(p));
        let pattern = t.contains([' ', '*', '{', '}', '<', '>', '$', '…']);
        let elsewhere = ours_only && follows_repository(before);
        if ours && !pattern && !placeholder && !elsewhere {
            out.push(t.to_owned());
        }
    }
    out
}

/// True when git ignores `path` (generated folders such as `fuzz/logs/`).
fn ignored(root: &Path, path: &str) -> bool {
    std::process::Command::new("git")
        .args(["check-ignore", "-q", path])
        .current_dir(root)
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn every_cited_repository_path_exists() {
    let root = dashvertex_testkit::repo().canonicalize().unwrap();
    let mut missing = Vec::new();
    let mut checked = 0;
    for file in markdown(&root) {
        let text = std::fs::read_to_string(&file).unwrap();
        // Inside a list item or paragraph that names another repository, the paths that
        // follow on its continuation lines are that repository's too.
        let mut foreign = false;
        for (n, line) in text.lines().enumerate() {
            let trimmed = line.trim_start();
            if trimmed.is_empty() || trimmed.starts_with("- ") || trimmed.starts_with('#') {
                foreign = false;
            }
            let paths = cited(line);
            if line.contains('`') && cited_all(line).len() > paths.len() {
                foreign = true;
            }
            if foreign {
                continue;
            }
            for path in paths {
                checked += 1;
                if !root.join(&path).exists() && !ignored(&root, &path) {
                    missing.push(format!(
                        "{}:{}: `{path}`",
                        file.strip_prefix(&root).unwrap().display(),
                        n + 1
                    ));
                }
            }
        }
    }
    assert!(
        checked > 50,
        "only {checked} cited paths found: is the scan broken?"
    );
    assert!(
        missing.is_empty(),
        "Markdown cites {} path(s) that do not exist:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

#[test]
fn the_scan_finds_paths_and_skips_what_is_not_ours() {
    assert_eq!(
        cited("see `crates/x/src/a.rs:12`, `spec/b.md#top` and `js/c/`."),
        ["crates/x/src/a.rs", "spec/b.md", "js/c/"]
    );
    assert!(cited("mrdoob/three.js `examples/jsm/loaders/GLTFLoader.js`").is_empty());
    assert!(cited("`crates/x/tests/cases/NAME.case`, `fixtures/*.glb`").is_empty());
    assert!(cited("`cargo test` and `dashvertex reduce`").is_empty());
}
