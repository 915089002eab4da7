//! An advisory lock around a read-modify-write of a shared file (the bone manifest).
//!
//! The lock is taken on a sidecar file, `.NAME.lock` beside the file, not on the file
//! itself: the file is replaced by a rename, and a lock on the old inode would not
//! exclude a run that opens the new one. Only runs that take the lock are excluded
//! (advisory locking, `flock(2)` on Unix).

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
    /// The lock file that guards `target`: `.NAME.lock` beside it (hidden, so that
    /// listings and directory walks pass over it). On Unix the holder removes it when it
    /// lets go, so a run leaves no file behind (see [`FileLock::acquire`]); a run killed
    /// with SIGKILL leaves it, harmlessly: the next run takes the lock on it.
    pub fn path_for(target: &Path) -> PathBuf {
        let mut name = std::ffi::OsString::from(".");
        name.push(target.file_name().unwrap_or_default());
        name.push(".lock");
        target.with_file_name(name)
    }

    /// Takes the exclusive lock guarding `target`; waits for another holder to finish,
    /// or with `wait` false fails at once with [`FsError::Locked`].
    ///
    /// Because a holder removes the lock file before it unlocks, a waiter may end up
    /// holding a lock on a file that no longer has a name; it then checks that the path
    /// still names the very file it locked (same device and inode) and starts over if
    /// not. So two runs never hold locks on two different files.
    pub fn acquire(target: &Path, wait: bool) -> Result<FileLock, FsError> {
        let path = Self::path_for(target);
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
        assert_eq!(first.path(), d.join(".m.json.lock"));
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
