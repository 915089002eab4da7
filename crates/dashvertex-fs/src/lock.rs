//! An advisory lock around a read-modify-write of a shared file (the bone manifest).
//!
//! The lock is taken on a sidecar file, `.NAME.lock` beside the file, not on the file
//! itself: the file is replaced by a rename, and a lock on the old inode would not
//! exclude a run that opens the new one. Only runs that take the lock are excluded
//! (advisory locking, `flock(2)` on Unix).
//!
//! The sidecar sits beside the file the writes reach, not beside the name as given:
//! symlinks are followed to their final target (dangling ones too) and its folder is
//! made canonical, so `real/m.json`, `./real/../real/m.json` and a symlink to it in
//! another folder all take one lock. A long file name gets a shortened lock name with a
//! hash of the whole name, so the lock's name never exceeds what a folder allows.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

use crate::error::FsError;

/// A held lock; released when dropped (and by the system when the process ends, so a
/// killed run never leaves a lock behind: the file may stay, the lock does not).
#[derive(Debug)]
pub struct FileLock {
    file: File,
    path: PathBuf,
}

impl FileLock {
    /// The lock file that guards `target`: `.NAME.lock` (hidden, so that listings and
    /// directory walks pass over it) beside the file `target` finally names, in its
    /// canonical folder (see the module notes); for a name longer than
    /// 64 bytes, `.PREFIX-HASH.lock` with the first bytes of the name and a
    /// 64-bit FNV-1a hash of all of it. On Unix the holder removes it when it lets go, so
    /// a run leaves no file behind (see [`FileLock::acquire`]); a run killed with SIGKILL
    /// leaves it, harmlessly: the next run takes the lock on it.
    pub fn path_for(target: &Path) -> Result<PathBuf, FsError> {
        let real = crate::output::follow_links(target)?;
        let name = real
            .file_name()
            .ok_or_else(|| FsError::io(target, std::io::Error::other("the path names no file")))?;
        let dir = match real.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let dir = std::fs::canonicalize(dir).map_err(|e| FsError::io(dir, e))?;
        Ok(dir.join(lock_name(name)))
    }

    /// Takes the exclusive lock guarding `target`; waits for another holder to finish,
    /// or with `wait` false fails at once with [`FsError::Locked`].
    ///
    /// Because a holder removes the lock file before it unlocks, a waiter may end up
    /// holding a lock on a file that no longer has a name; it then checks that the path
    /// still names the very file it locked (same device and inode) and starts over if
    /// not. So two runs never hold locks on two different files.
    pub fn acquire(target: &Path, wait: bool) -> Result<FileLock, FsError> {
        let path = Self::path_for(target)?;
        loop {
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(|e| FsError::io(&path, e))?;
            if wait {
                file.lock().map_err(|e| FsError::io(&path, e))?;
            } else {
                match file.try_lock() {
                    Ok(()) => {}
                    Err(TryLockError::WouldBlock) => return Err(FsError::Locked { path }),
                    Err(TryLockError::Error(e)) => return Err(FsError::io(&path, e)),
                }
            }
            if still_named(&file, &path) {
                return Ok(FileLock { file, path });
            }
        }
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// File names longer than this many bytes get a shortened lock name.
pub(crate) const LONG_NAME: usize = 64;

/// `.NAME.lock`, or for a long name `.PREFIX-HASH.lock` (at most 90 bytes).
fn lock_name(name: &std::ffi::OsStr) -> std::ffi::OsString {
    let bytes = name.as_encoded_bytes();
    let mut out = std::ffi::OsString::from(".");
    if bytes.len() <= LONG_NAME {
        out.push(name);
    } else {
        let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        // The prefix is cut at a character boundary, so it stays a valid name.
        let text = name.to_string_lossy();
        let mut end = LONG_NAME.min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let prefix: String = text
            .get(..end)
            .unwrap_or_default()
            .chars()
            .map(|c| {
                if c == char::REPLACEMENT_CHARACTER {
                    '_'
                } else {
                    c
                }
            })
            .collect();
        out.push(format!("{prefix}-{hash:016x}"));
    }
    out.push(".lock");
    out
}

impl Drop for FileLock {
    fn drop(&mut self) {
        // Remove the name first, then unlock: whoever locks the old file next sees that
        // it has no name any more and retries on a fresh one.
        #[cfg(unix)]
        let _ = std::fs::remove_file(&self.path);
        let _ = self.file.unlock();
    }
}

/// True when `path` still names the file `file` has open.
#[cfg(unix)]
fn still_named(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Without removal on release (non-Unix), the name never moves.
#[cfg(not(unix))]
fn still_named(_: &File, _: &Path) -> bool {
    true
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_until_the_first_lets_go() {
        let d = std::env::temp_dir().join(format!("dash-fs-lock-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let target = d.join("m.json");
        let first = FileLock::acquire(&target, false).unwrap();
        assert_eq!(
            first.path(),
            std::fs::canonicalize(&d).unwrap().join(".m.json.lock")
        );
        assert!(matches!(
            FileLock::acquire(&target, false),
            Err(FsError::Locked { .. })
        ));
        drop(first);
        #[cfg(unix)]
        assert!(!d.join(".m.json.lock").exists(), "the lock file stays");
        FileLock::acquire(&target, false).unwrap();
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn every_spelling_of_a_file_takes_one_lock() {
        let d = std::env::temp_dir().join(format!("dash-fs-lock-names-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("real")).unwrap();
        std::fs::create_dir_all(d.join("other")).unwrap();
        std::fs::write(d.join("real/m.json"), b"{}").unwrap();
        std::os::unix::fs::symlink("../real/m.json", d.join("other/link.json")).unwrap();
        std::os::unix::fs::symlink("../real/new.json", d.join("other/dangling.json")).unwrap();
        let held = FileLock::acquire(&d.join("real/m.json"), false).unwrap();
        for other in ["other/link.json", "real/../real/m.json", "./real/m.json"] {
            assert!(
                matches!(
                    FileLock::acquire(&d.join(other), false),
                    Err(FsError::Locked { .. })
                ),
                "{other} took a second lock"
            );
        }
        assert_eq!(
            FileLock::path_for(&d.join("other/dangling.json")).unwrap(),
            FileLock::path_for(&d.join("real/new.json")).unwrap()
        );
        drop(held);
        // A 251-byte name (the longest whose lock `.NAME.lock` would not fit) locks.
        let long = d.join("real").join(format!("{}.json", "n".repeat(246)));
        let l = FileLock::acquire(&long, false).unwrap();
        let name = l.path().file_name().unwrap().len();
        assert!(name <= 90, "{name} bytes");
        drop(l);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn waiters_never_hold_two_different_files() {
        // Many threads take and release the lock in turn; a counter updated under it
        // must never see two holders at once.
        use std::sync::Arc;
        use std::sync::atomic::{AtomicU32, Ordering};
        let d = std::env::temp_dir().join(format!("dash-fs-lock-race-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let target = d.join("m.json");
        let inside = Arc::new(AtomicU32::new(0));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let (target, inside) = (target.clone(), Arc::clone(&inside));
                std::thread::spawn(move || {
                    for _ in 0..50 {
                        let l = FileLock::acquire(&target, true).unwrap();
                        assert_eq!(inside.fetch_add(1, Ordering::SeqCst), 0, "two holders");
                        std::thread::yield_now();
                        inside.fetch_sub(1, Ordering::SeqCst);
                        drop(l);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert!(!d.join(".m.json.lock").exists());
        std::fs::remove_dir_all(&d).unwrap();
    }
}
