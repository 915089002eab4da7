//! Source files stay small enough to read (issue 25): no library source file over 900
//! lines, and no file of the command-line crate over 400 (each command is a file of its
//! own; the work is in the libraries). A file that grows past its limit is split by what
//! it holds, not by raising the limit.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

/// Lines of any `crates/*/src/**/*.rs` file.
const LIBRARY_LIMIT: usize = 900;
/// Lines of any `crates/dashvertex-cli/src/**/*.rs` file.
const CLI_LIMIT: usize = 400;

/// Every `.rs` file under `dir`, in a stable order.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Lines as `wc -l` counts them.
fn lines(path: &Path) -> usize {
    let text = std::fs::read(path).unwrap();
    text.iter().filter(|&&b| b == b'\n').count()
}

/// `(file, lines, limit)` of every source file over its limit, and how many were read.
fn oversized(root: &Path) -> (Vec<(String, usize, usize)>, usize) {
    let mut over = Vec::new();
    let mut seen = 0;
    let mut crates: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    crates.sort();
    for krate in crates {
        let limit = if krate.ends_with("dashvertex-cli") {
            CLI_LIMIT
        } else {
            LIBRARY_LIMIT
        };
        for file in rust_files(&krate.join("src")) {
            seen += 1;
            let n = lines(&file);
            if n > limit {
                let shown = file.strip_prefix(root).unwrap_or(&file);
                over.push((shown.display().to_string().replace('\\', "/"), n, limit));
            }
        }
    }
    (over, seen)
}

#[test]
fn no_source_file_is_over_its_limit() {
    let root = dashvertex_testkit::repo();
    let (over, seen) = oversized(&root);
    // The walk must have found the workspace's sources (a wrong root finds none).
    assert!(
        seen > 100,
        "only {seen} source files found under {}",
        root.display()
    );
    let report: Vec<String> = over
        .iter()
        .map(|(f, n, limit)| format!("{f}: {n} lines (limit {limit})"))
        .collect();
    assert!(
        report.is_empty(),
        "split these files by what they hold:\n{}",
        report.join("\n")
    );
}

#[test]
fn a_file_over_the_limit_is_found() {
    let scratch = dashvertex_testkit::Scratch::new("source-sizes");
    let root = scratch.path();
    let lib = root.join("crates/some-lib/src/deep");
    let cli = root.join("crates/dashvertex-cli/src");
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::create_dir_all(&cli).unwrap();
    for (path, n) in [
        (lib.join("long.rs"), LIBRARY_LIMIT + 1),
        (lib.join("fits.rs"), LIBRARY_LIMIT),
        (cli.join("long.rs"), CLI_LIMIT + 1),
        (cli.join("fits.rs"), CLI_LIMIT),
    ] {
        std::fs::write(path, "x\n".repeat(n)).unwrap();
    }
    let (over, seen) = oversized(root);
    assert_eq!(seen, 4);
    let names: Vec<&str> = over.iter().map(|(f, _, _)| f.as_str()).collect();
    assert_eq!(
        names,
        [
            "crates/dashvertex-cli/src/long.rs",
            "crates/some-lib/src/deep/long.rs"
        ]
    );
}
