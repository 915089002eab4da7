//! The `.gitignore` rules of a directory walk, matched by the `ignore` crate's gitignore
//! matcher (git's semantics: `*`, `?`, `[...]`, `**`, anchoring `/`, trailing `/`, `!`).
//!
//! The files themselves are read here, not by the crate: a `.gitignore` is opened only
//! when it is a regular file inside the walked folder (a link out of it, a FIFO or a
//! device named `.gitignore` is not read, so it can neither hang the walk nor feed it
//! without end), and at most [`MAX_GITIGNORE`] bytes of it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// The largest `.gitignore` read; a longer one is not applied (and the walk says so).
pub(crate) const MAX_GITIGNORE: u64 = 1 << 20;

/// The rules of one folder's `.gitignore`, and those in force above it (nearest first):
/// a chain only as long as the number of `.gitignore` files above, not the depth.
struct Chain {
    rules: Gitignore,
    above: Option<Arc<Chain>>,
}

/// The rules in force in each folder walked so far.
pub(crate) struct Rules {
    /// The walked folder as given (paths of entries start with it).
    root: PathBuf,
    /// The walked folder, canonical: a `.gitignore` link must resolve inside it.
    canonical_root: PathBuf,
    /// Folder (as walked) -> the chain in force in it (`None`: no rules).
    by_folder: HashMap<PathBuf, Option<Arc<Chain>>>,
    /// `.gitignore` files that were not applied, and why.
    pub(crate) problems: Vec<(PathBuf, String)>,
}

impl Rules {
    /// No folder looked at yet.
    pub(crate) fn new(root: &Path, canonical_root: &Path) -> Rules {
        Rules {
            root: root.to_path_buf(),
            canonical_root: canonical_root.to_path_buf(),
            by_folder: HashMap::new(),
            problems: Vec::new(),
        }
    }

    /// True when the rules in force in `path`'s folder exclude `path`: the nearest
    /// `.gitignore` that speaks of it decides (a `!` pattern re-includes).
    pub(crate) fn excludes(&mut self, path: &Path, is_dir: bool) -> bool {
        let Some(folder) = path.parent() else {
            return false;
        };
        let mut chain = self.in_force(folder);
        while let Some(c) = chain {
            match c.rules.matched(path, is_dir) {
                Match::Ignore(_) => return true,
                Match::Whitelist(_) => return false,
                Match::None => chain = c.above.clone(),
            }
        }
        false
    }

    /// The chain in force in `folder`, loading the `.gitignore` files of it and of the
    /// folders between it and the root on first use (a walk meets parents first, so
    /// usually only `folder`'s own is new).
    fn in_force(&mut self, folder: &Path) -> Option<Arc<Chain>> {
        if let Some(c) = self.by_folder.get(folder) {
            return c.clone();
        }
        // The folders not yet known, nearest first, up to a known one or the root.
        let mut missing = vec![folder.to_path_buf()];
        let mut above = None;
        let mut at = folder;
        while at != self.root {
            let Some(parent) = at.parent() else { break };
            if let Some(c) = self.by_folder.get(parent) {
                above = c.clone();
                break;
            }
            missing.push(parent.to_path_buf());
            at = parent;
        }
        for dir in missing.into_iter().rev() {
            if let Some(rules) = self.load(&dir) {
                above = Some(Arc::new(Chain { rules, above }));
            }
            self.by_folder.insert(dir, above.clone());
        }
        above
    }

    /// The rules of `folder/.gitignore`, when it exists, is safe to read and has any.
    fn load(&mut self, folder: &Path) -> Option<Gitignore> {
        let path = folder.join(".gitignore");
        let meta = std::fs::symlink_metadata(&path).ok()?;
        if meta.file_type().is_symlink() {
            let inside = std::fs::canonicalize(&path)
                .is_ok_and(|target| target.starts_with(&self.canonical_root));
            if !inside {
                self.problems.push((
                    path,
                    "a symlink that leads outside the walked folder; its rules are not applied"
                        .into(),
                ));
                return None;
            }
        }
        let bytes = match crate::input::read_regular(&path, MAX_GITIGNORE) {
            Ok(b) => b,
            Err(crate::FsError::Empty { .. }) => return None,
            Err(e) => {
                let why = match e {
                    crate::FsError::NotRegular { kind, .. } => {
                        format!("is {kind}, not a regular file")
                    }
                    crate::FsError::TooLarge { limit, .. } => {
                        format!("is larger than {limit} bytes")
                    }
                    crate::FsError::Io { source, .. } => source.to_string(),
                    other => other.to_string(),
                };
                self.problems
                    .push((path, format!("{why}; its rules are not applied")));
                return None;
            }
        };
        let text = String::from_utf8_lossy(&bytes);
        let mut builder = GitignoreBuilder::new(folder);
        for line in text.lines() {
            if let Err(e) = builder.add_line(Some(path.clone()), line) {
                self.problems
                    .push((path.clone(), format!("{e} (line skipped)")));
            }
        }
        match builder.build() {
            Ok(g) if g.is_empty() => None,
            Ok(g) => Some(g),
            Err(e) => {
                self.problems
                    .push((path, format!("{e}; its rules are not applied")));
                None
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn patterns_follow_git() {
        let d = std::env::temp_dir().join(format!("dash-fs-gi-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("a")).unwrap();
        std::fs::write(
            d.join(".gitignore"),
            "# c\nnode_modules/\n*.tmp\n/build\n!keep.tmp\nlogs/**/x\nd[0-9]\n",
        )
        .unwrap();
        std::fs::write(d.join("a/.gitignore"), "!b.tmp\n").unwrap();
        let canonical = std::fs::canonicalize(&d).unwrap();
        let mut r = Rules::new(&d, &canonical);
        let ex = |r: &mut Rules, p: &str, dir: bool| r.excludes(&d.join(p), dir);
        assert!(ex(&mut r, "node_modules", true));
        assert!(!ex(&mut r, "node_modules", false));
        assert!(ex(&mut r, "x.tmp", false));
        assert!(!ex(&mut r, "keep.tmp", false));
        assert!(ex(&mut r, "build", true));
        assert!(ex(&mut r, "logs/a/b/x", false));
        assert!(!ex(&mut r, "a/build", true));
        assert!(ex(&mut r, "a/c.tmp", false));
        // The nearest .gitignore decides.
        assert!(!ex(&mut r, "a/b.tmp", false));
        assert!(ex(&mut r, "d7", false));
        assert!(!ex(&mut r, "dx", false));
        assert!(!ex(&mut r, "a.json", false));
        assert!(r.problems.is_empty());
        std::fs::remove_dir_all(&d).unwrap();
    }
}
