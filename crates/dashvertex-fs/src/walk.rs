//! Expanding inputs into files: each file once, symlink loops detected, hidden and
//! `.gitignore`d paths skipped, a deterministic order.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::error::FsError;
use crate::ignore::Rules;

/// One result of a walk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WalkEntry {
    /// A file to process (named by the user, or found in a folder).
    File(PathBuf),
    /// A file found in a folder and passed over, with the reason.
    Skipped {
        /// The file's path: a folder given to [`Walk::run`] joined with the names that
        /// lead to the file.
        path: PathBuf,
        /// Why it was passed over.
        why: &'static str,
    },
}

/// How folders are expanded.
#[derive(Clone, Debug)]
pub struct Walk {
    hidden: bool,
    gitignore: bool,
    extensions: Vec<String>,
}

impl Default for Walk {
    fn default() -> Self {
        Walk::new()
    }
}

/// What identifies a file or folder whatever path reaches it.
type Identity = (u64, u64);

fn identity(path: &Path) -> Option<Identity> {
    let meta = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let _ = &meta;
        Some((meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        use std::hash::{Hash, Hasher};
        let _ = meta;
        let canonical = std::fs::canonicalize(path).ok()?;
        let mut h = std::collections::hash_map::DefaultHasher::new();
        canonical.hash(&mut h);
        Some((0, h.finish()))
    }
}

impl Walk {
    /// Hidden entries and `.gitignore`d paths skipped; every extension accepted.
    pub fn new() -> Walk {
        Walk {
            hidden: false,
            gitignore: true,
            extensions: Vec::new(),
        }
    }

    /// Visits hidden files and folders (names starting with `.`) too.
    pub fn hidden(mut self, yes: bool) -> Walk {
        self.hidden = yes;
        self
    }

    /// Honours `.gitignore` files inside the walked folders (default on).
    pub fn gitignore(mut self, yes: bool) -> Walk {
        self.gitignore = yes;
        self
    }

    /// Files found in folders must end in one of these extensions (ASCII
    /// case-insensitive); others are [`WalkEntry::Skipped`]. Empty: all files.
    pub fn extensions(mut self, list: &[&str]) -> Walk {
        self.extensions = list.iter().map(|e| e.to_ascii_lowercase()).collect();
        self
    }

    fn wanted(&self, path: &Path) -> bool {
        self.extensions.is_empty()
            || path
                .extension()
                .map(|x| x.to_string_lossy().to_ascii_lowercase())
                .is_some_and(|x| self.extensions.contains(&x))
    }

    /// Expands `inputs`: a path that is not a folder (or `-`) is kept as given; a folder
    /// is walked depth first in name order. A folder reached twice (a symlink loop, or
    /// two links to one place) is walked once; a file reached twice is listed once.
    pub fn run(&self, inputs: &[PathBuf]) -> Result<Vec<WalkEntry>, FsError> {
        let mut out = Vec::new();
        let mut seen_dirs: HashSet<Identity> = HashSet::new();
        let mut seen_files: HashSet<Identity> = HashSet::new();
        for input in inputs {
            if input.as_os_str() == "-" || !input.is_dir() {
                out.push(WalkEntry::File(input.clone()));
                continue;
            }
            // (folder, the .gitignore rules in force: (folder they belong to, rules))
            let mut stack: Vec<(PathBuf, Vec<(PathBuf, Rules)>)> =
                vec![(input.clone(), Vec::new())];
            while let Some((dir, mut rules)) = stack.pop() {
                let Some(id) = identity(&dir) else { continue };
                if !seen_dirs.insert(id) {
                    continue;
                }
                if let Some(text) = self
                    .gitignore
                    .then(|| std::fs::read_to_string(dir.join(".gitignore")).ok())
                    .flatten()
                {
                    rules.push((dir.clone(), Rules::parse(&text)));
                }
                let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
                    .map_err(|e| FsError::io(&dir, e))?
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .collect();
                entries.sort();
                let mut subdirs = Vec::new();
                for path in entries {
                    let name = path.file_name().unwrap_or_default().to_string_lossy();
                    if !self.hidden && name.starts_with('.') {
                        continue;
                    }
                    let is_dir = path.is_dir();
                    if self.ignored(&rules, &path, is_dir) {
                        continue;
                    }
                    if is_dir {
                        subdirs.push(path);
                    } else if !self.wanted(&path) {
                        out.push(WalkEntry::Skipped {
                            path,
                            why: "not a vertex-data file extension",
                        });
                    } else if identity(&path).is_some_and(|id| !seen_files.insert(id)) {
                        out.push(WalkEntry::Skipped {
                            path,
                            why: "the same file was reached by another path",
                        });
                    } else {
                        out.push(WalkEntry::File(path));
                    }
                }
                for d in subdirs.into_iter().rev() {
                    stack.push((d, rules.clone()));
                }
            }
        }
        Ok(out)
    }

    fn ignored(&self, rules: &[(PathBuf, Rules)], path: &Path, is_dir: bool) -> bool {
        let mut verdict = false;
        for (base, r) in rules {
            let Ok(rel) = path.strip_prefix(base) else {
                continue;
            };
            let rel = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            if let Some(v) = r.verdict(&rel, is_dir) {
                verdict = v;
            }
        }
        verdict
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn loops_end_and_files_come_once() {
        // spec: D1
        let d = std::env::temp_dir().join(format!("dash-fs-walk-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("a/b")).unwrap();
        std::fs::create_dir_all(d.join("node_modules")).unwrap();
        std::fs::create_dir_all(d.join(".hidden")).unwrap();
        std::fs::write(d.join("a/b/m.json"), b"[]").unwrap();
        std::fs::write(d.join("a/notes.txt"), b"x").unwrap();
        std::fs::write(d.join("node_modules/n.json"), b"[]").unwrap();
        std::fs::write(d.join(".hidden/h.json"), b"[]").unwrap();
        std::fs::write(d.join(".gitignore"), b"node_modules/\n").unwrap();
        std::os::unix::fs::symlink("..", d.join("a/b/up")).unwrap();
        std::os::unix::fs::symlink("../../a", d.join("a/b/loop2")).unwrap();
        std::os::unix::fs::symlink("b/m.json", d.join("a/same.json")).unwrap();
        let got = Walk::new()
            .extensions(&["json"])
            .run(std::slice::from_ref(&d))
            .unwrap();
        let files: Vec<_> = got
            .iter()
            .filter_map(|e| match e {
                WalkEntry::File(p) => Some(p.strip_prefix(&d).unwrap().to_path_buf()),
                WalkEntry::Skipped { .. } => None,
            })
            .collect();
        // A folder's files come before its subfolders: the link is met first.
        assert_eq!(files, [PathBuf::from("a/same.json")]);
        assert!(got.iter().any(|e| matches!(e, WalkEntry::Skipped { path, why } if path.ends_with("b/m.json") && why.contains("another path"))));
        assert!(
            got.iter().any(
                |e| matches!(e, WalkEntry::Skipped { path, .. } if path.ends_with("notes.txt"))
            )
        );
        std::fs::remove_dir_all(&d).unwrap();
    }
}
