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
    /// listings and directory walks pass over it). It stays after the run: removing it
    /// would let two runs hold locks on two different files.
    pub fn path_for(target: &Path) -> PathBuf {
        let mut name = std::ffi::OsString::from(".");
        name.push(target.file_name().unwrap_or_default());
        name.push(".lock");
        target.with_file_name(name)
    }

    /// Takes the exclusive lock guarding `target`; waits for another holder to finish,
    /// or with `wait` false fails at once with [`FsError::Locked`].
    pub fn acquire(target: &Path, wait: bool) -> Result<FileLock, FsError> {
        let path = Self::path_for(target);
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
        Ok(FileLock { file, path })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
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
        FileLock::acquire(&target, false).unwrap();
        std::fs::remove_dir_all(&d).unwrap();
    }
}
