//! Expanding inputs into files with the `ignore` crate's walker: the walk stays inside
//! each folder it is given, follows no symlink out of it, reads nothing but folder
//! listings and `.gitignore` files, and goes on past an entry it cannot read.
//!
//! - Symlinks are not followed as folders (a link to `/` is never walked). A link to a
//!   file inside the walked folder is listed (once, whatever path reaches it); a link
//!   that resolves outside it, or that resolves to nothing, is [`WalkEntry::Refused`].
//! - Only regular files are listed: a FIFO, socket or device with a vertex-data name is
//!   refused (reading it could block or never end). Readers of listed files check the
//!   type again on the open handle ([`crate::read_regular`]).
//! - A folder or entry that cannot be read is [`WalkEntry::Unreadable`], and the walk
//!   goes on with the rest.
//! - Hidden names (`.x`) and what a `.gitignore` inside the walked folder excludes are
//!   skipped, each exclusion listed as [`WalkEntry::Ignored`] so callers can say so.
//! - The order is fixed: depth first, entries of each folder by name (bytes).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use crate::gitignore::Rules;
use crate::input::special_kind;

/// One result of a walk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WalkEntry {
    /// A file to process (named by the user, or a regular file found in a folder).
    File(PathBuf),
    /// A file found in a folder and passed over as a matter of course (not a vertex-data
    /// extension, reached before by another path, a symlink to a folder walked anyway).
    Skipped {
        /// The file's path: a folder given to [`Walk::run`] joined with the names that
        /// lead to the file.
        path: PathBuf,
        /// Why it was passed over.
        why: &'static str,
    },
    /// An entry with a vertex-data name that is not read, for safety: a symlink out of
    /// the walked folder, a FIFO, socket or device, a `.gitignore` that is not applied.
    /// Worth telling the user.
    Refused {
        /// The entry.
        path: PathBuf,
        /// Why it is not read.
        why: String,
    },
    /// A folder or entry that could not be read (its listing or its type); the walk
    /// went on without it.
    Unreadable {
        /// The entry.
        path: PathBuf,
        /// The operating system's reason.
        error: String,
    },
    /// A file or folder a `.gitignore` rule excludes (a folder is not entered).
    Ignored {
        /// The entry.
        path: PathBuf,
        /// True for a folder.
        folder: bool,
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

/// What identifies a file whatever path reaches it.
type Identity = (u64, u64);

fn identity(meta: &std::fs::Metadata, path: &Path) -> Identity {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let _ = path;
        (meta.dev(), meta.ino())
    }
    #[cfg(not(unix))]
    {
        use std::hash::{Hash, Hasher};
        let _ = meta;
        let mut h = std::collections::hash_map::DefaultHasher::new();
        std::fs::canonicalize(path)
            .unwrap_or_else(|_| path.to_path_buf())
            .hash(&mut h);
        (0, h.finish())
    }
}

/// The path an `ignore` error is about, if it names one, and its message without it.
fn describe(e: &ignore::Error) -> (Option<PathBuf>, String) {
    let mut at = e;
    let mut path = None;
    // Errors wrap each other a fixed few levels deep (path, depth, line).
    for _ in 0..8 {
        match at {
            ignore::Error::WithPath { path: p, err } => {
                path.get_or_insert_with(|| p.clone());
                at = err;
            }
            ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
                at = err;
            }
            _ => break,
        }
    }
    // The system's own words ("Permission denied (os error 13)"), not a wrapper's.
    let message = match at.io_error() {
        Some(io) => io.raw_os_error().map_or_else(
            || io.to_string(),
            |code| std::io::Error::from_raw_os_error(code).to_string(),
        ),
        None => at.to_string(),
    };
    (path, message)
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
    /// is walked (see the module notes). A file reached twice is listed once.
    pub fn run(&self, inputs: &[PathBuf]) -> Vec<WalkEntry> {
        let mut out = Vec::new();
        let mut seen: HashSet<Identity> = HashSet::new();
        for input in inputs {
            if input.as_os_str() == "-" || !input.is_dir() {
                out.push(WalkEntry::File(input.clone()));
                continue;
            }
            self.folder(input, &mut seen, &mut out);
        }
        out
    }

    /// Walks one folder the user named.
    fn folder(&self, input: &Path, seen: &mut HashSet<Identity>, out: &mut Vec<WalkEntry>) {
        let canonical_root = match std::fs::canonicalize(input) {
            Ok(c) => c,
            Err(e) => {
                out.push(WalkEntry::Unreadable {
                    path: input.to_path_buf(),
                    error: e.to_string(),
                });
                return;
            }
        };
        let rules = Arc::new(Mutex::new(Rules::new(input, &canonical_root)));
        let ignored = Arc::new(Mutex::new(Vec::new()));
        let mut builder = ignore::WalkBuilder::new(input);
        builder
            .standard_filters(false)
            .hidden(!self.hidden)
            .follow_links(false)
            .sort_by_file_name(|a, b| a.cmp(b));
        if self.gitignore {
            let (rules, ignored) = (Arc::clone(&rules), Arc::clone(&ignored));
            builder.filter_entry(move |entry| {
                let folder = entry.file_type().is_some_and(|t| t.is_dir());
                let mut rules = rules.lock().unwrap_or_else(PoisonError::into_inner);
                if entry.depth() > 0 && rules.excludes(entry.path(), folder) {
                    ignored.lock().unwrap_or_else(PoisonError::into_inner).push(
                        WalkEntry::Ignored {
                            path: entry.path().to_path_buf(),
                            folder,
                        },
                    );
                    return false;
                }
                true
            });
        }
        for result in builder.build() {
            // What the filter excluded while finding this entry comes first.
            out.append(&mut ignored.lock().unwrap_or_else(PoisonError::into_inner));
            match result {
                Ok(entry) => self.entry(&entry, &canonical_root, seen, out),
                Err(e) => {
                    let (path, error) = describe(&e);
                    out.push(WalkEntry::Unreadable {
                        path: path.unwrap_or_else(|| input.to_path_buf()),
                        error,
                    });
                }
            }
        }
        out.append(&mut ignored.lock().unwrap_or_else(PoisonError::into_inner));
        let problems = std::mem::take(
            &mut rules
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .problems,
        );
        out.extend(
            problems
                .into_iter()
                .map(|(path, why)| WalkEntry::Refused { path, why }),
        );
    }

    /// One entry of a walk.
    fn entry(
        &self,
        entry: &ignore::DirEntry,
        canonical_root: &Path,
        seen: &mut HashSet<Identity>,
        out: &mut Vec<WalkEntry>,
    ) {
        let path = entry.path();
        let Some(kind) = entry.file_type() else {
            return;
        };
        if kind.is_dir() {
            return;
        }
        let wanted = self.wanted(path);
        let meta = if kind.is_symlink() {
            let target = match std::fs::canonicalize(path) {
                Ok(t) => t,
                Err(e) if wanted => {
                    out.push(WalkEntry::Refused {
                        path: path.to_path_buf(),
                        why: format!("a symlink that leads nowhere ({e})"),
                    });
                    return;
                }
                Err(_) => return,
            };
            if !target.starts_with(canonical_root) {
                out.push(WalkEntry::Refused {
                    path: path.to_path_buf(),
                    why: "a symlink that leads outside the walked folder (links are not followed out of it)".into(),
                });
                return;
            }
            match std::fs::metadata(&target) {
                Ok(m) if m.is_dir() => {
                    out.push(WalkEntry::Skipped {
                        path: path.to_path_buf(),
                        why: "a symlink to a folder inside the walk (walked at its own path)",
                    });
                    return;
                }
                Ok(m) => m,
                Err(e) => {
                    out.push(WalkEntry::Unreadable {
                        path: path.to_path_buf(),
                        error: e.to_string(),
                    });
                    return;
                }
            }
        } else if !wanted {
            out.push(WalkEntry::Skipped {
                path: path.to_path_buf(),
                why: "not a vertex-data file extension",
            });
            return;
        } else {
            match entry.metadata() {
                Ok(m) => m,
                Err(e) => {
                    out.push(WalkEntry::Unreadable {
                        path: path.to_path_buf(),
                        error: describe(&e).1,
                    });
                    return;
                }
            }
        };
        if !wanted {
            out.push(WalkEntry::Skipped {
                path: path.to_path_buf(),
                why: "not a vertex-data file extension",
            });
        } else if let Some(kind) = special_kind(&meta) {
            out.push(WalkEntry::Refused {
                path: path.to_path_buf(),
                why: format!(
                    "{kind}, not a regular file (files found in a folder are read only when regular)"
                ),
            });
        } else if !seen.insert(identity(&meta, path)) {
            out.push(WalkEntry::Skipped {
                path: path.to_path_buf(),
                why: "the same file was reached by another path",
            });
        } else {
            out.push(WalkEntry::File(path.to_path_buf()));
        }
    }
}

#[cfg(all(test, unix))]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    fn files(got: &[WalkEntry], root: &Path) -> Vec<PathBuf> {
        got.iter()
            .filter_map(|e| match e {
                WalkEntry::File(p) => Some(p.strip_prefix(root).unwrap().to_path_buf()),
                _ => None,
            })
            .collect()
    }

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
            .run(std::slice::from_ref(&d));
        assert_eq!(files(&got, &d), [PathBuf::from("a/b/m.json")]);
        assert!(got.iter().any(|e| matches!(e, WalkEntry::Skipped { path, why } if path.ends_with("a/same.json") && why.contains("another path"))));
        assert!(
            got.iter().any(
                |e| matches!(e, WalkEntry::Skipped { path, .. } if path.ends_with("notes.txt"))
            )
        );
        assert!(got.iter().any(|e| matches!(e, WalkEntry::Ignored { path, folder: true } if path.ends_with("node_modules"))));
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn links_out_fifos_and_devices_are_refused_and_unreadable_folders_reported() {
        let d = std::env::temp_dir().join(format!("dash-fs-walk-out-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("in/locked")).unwrap();
        std::fs::create_dir_all(d.join("outside")).unwrap();
        std::fs::write(d.join("outside/o.json"), b"[]").unwrap();
        std::fs::write(d.join("in/a.json"), b"[]").unwrap();
        std::fs::write(d.join("in/z.json"), b"[]").unwrap();
        std::fs::write(d.join("in/locked/l.json"), b"[]").unwrap();
        std::os::unix::fs::symlink("/", d.join("in/root")).unwrap();
        std::os::unix::fs::symlink("../outside", d.join("in/out")).unwrap();
        std::os::unix::fs::symlink("../outside/o.json", d.join("in/o.json")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", d.join("in/zero.json")).unwrap();
        std::os::unix::fs::symlink("missing", d.join("in/gone.json")).unwrap();
        let fifo = std::process::Command::new("mkfifo")
            .arg(d.join("in/x.json"))
            .status()
            .is_ok_and(|s| s.success());
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(d.join("in/locked"), std::fs::Permissions::from_mode(0o000))
            .unwrap();
        // Root reads any folder: the unreadable case only shows for other users.
        let locked_readable = std::fs::read_dir(d.join("in/locked")).is_ok();
        let root = d.join("in");
        let got = Walk::new()
            .extensions(&["json"])
            .run(std::slice::from_ref(&root));
        std::fs::set_permissions(d.join("in/locked"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
        let refused = |name: &str| {
            got.iter()
                .any(|e| matches!(e, WalkEntry::Refused { path, .. } if path == &root.join(name)))
        };
        assert!(refused("o.json"), "{got:?}");
        assert!(refused("zero.json"), "{got:?}");
        assert!(refused("gone.json"), "{got:?}");
        if fifo {
            assert!(refused("x.json"), "{got:?}");
        }
        let mut want = vec![PathBuf::from("a.json")];
        if locked_readable {
            want.insert(1, PathBuf::from("locked/l.json"));
        } else {
            assert!(
                got.iter().any(
                    |e| matches!(e, WalkEntry::Unreadable { path, .. } if path.ends_with("locked"))
                ),
                "{got:?}"
            );
        }
        want.push(PathBuf::from("z.json"));
        assert_eq!(files(&got, &root), want, "{got:?}");
        std::fs::remove_dir_all(&d).unwrap();
    }
}
