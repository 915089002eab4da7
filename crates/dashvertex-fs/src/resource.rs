//! Files that another file names: resolved inside allowed folders, regular files only.
//!
//! A glTF buffer `uri` is data from an untrusted file. It is read only when, after
//! percent-decoding (done by the caller), `..` and every symlink are resolved, the
//! canonical path lies inside the glTF's own folder or a folder the user allowed
//! explicitly; and only when it is a regular file, and then at most the bytes the
//! caller expects plus one (to tell that the file is longer).

use std::path::{Component, Path, PathBuf};

use crate::error::{FsError, short};
use crate::input::open_regular;

/// The folders resources may be read from.
#[derive(Clone, Debug)]
pub struct ResourceRoot {
    /// The folder relative references resolve against (canonical).
    base: PathBuf,
    /// Every folder a resolved path may lie in (canonical; `base` first).
    allowed: Vec<PathBuf>,
}

fn canonical(dir: &Path) -> Result<PathBuf, FsError> {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    std::fs::canonicalize(dir).map_err(|e| FsError::io(dir, e))
}

impl ResourceRoot {
    /// Relative references resolve against `dir` and must stay inside it.
    pub fn new(dir: &Path) -> Result<Self, FsError> {
        let base = canonical(dir)?;
        Ok(ResourceRoot {
            allowed: vec![base.clone()],
            base,
        })
    }

    /// The folder of the file at `path` (which must exist).
    pub fn of_file(path: &Path) -> Result<Self, FsError> {
        Self::new(path.parent().unwrap_or(Path::new(".")))
    }

    /// Allows resolved paths inside `dir` too (`--resource-dir`).
    pub fn allow(&mut self, dir: &Path) -> Result<(), FsError> {
        let dir = canonical(dir)?;
        if !self.allowed.contains(&dir) {
            self.allowed.push(dir);
        }
        Ok(())
    }

    /// The folder references resolve against.
    pub fn base(&self) -> &Path {
        &self.base
    }

    /// Resolves a percent-decoded relative reference to the canonical path of an
    /// existing file inside an allowed folder.
    pub fn resolve(&self, reference: &str) -> Result<PathBuf, FsError> {
        let has_scheme = reference.split_once(':').is_some_and(|(s, _)| {
            s.starts_with(|c: char| c.is_ascii_alphabetic())
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
        });
        let relative = Path::new(reference);
        if reference.is_empty()
            || reference.contains('\0')
            || has_scheme
            || relative.is_absolute()
            || relative
                .components()
                .any(|c| matches!(c, Component::Prefix(_) | Component::RootDir))
        {
            return Err(FsError::NotRelative {
                uri: short(reference),
            });
        }
        let joined = self.base.join(relative);
        // Refuse before touching the path when `..` alone already leaves every allowed
        // folder (no look at what lies outside), then again on the canonical path, which
        // has every symlink resolved.
        let mut lexical = self.base.clone();
        for c in relative.components() {
            match c {
                Component::ParentDir => {
                    lexical.pop();
                }
                Component::Normal(part) => lexical.push(part),
                _ => {}
            }
        }
        if !self.allowed.iter().any(|root| lexical.starts_with(root)) {
            return Err(self.outside(reference));
        }
        let resolved = std::fs::canonicalize(&joined).map_err(|e| FsError::io(&joined, e))?;
        if !self.allowed.iter().any(|root| resolved.starts_with(root)) {
            return Err(self.outside(reference));
        }
        Ok(resolved)
    }

    fn outside(&self, reference: &str) -> FsError {
        FsError::Outside {
            uri: short(reference),
            root: self.base.clone(),
        }
    }

    /// Reads the resource `reference` names: at most `expected + 1` bytes, from a
    /// regular file inside an allowed folder, and never more than `max` bytes.
    pub fn read(&self, reference: &str, expected: u64, max: u64) -> Result<Vec<u8>, FsError> {
        use std::io::Read;
        let path = self.resolve(reference)?;
        let (file, meta) = open_regular(&path)?;
        let cap = expected.saturating_add(1).min(max.saturating_add(1));
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len().min(cap)).unwrap_or(0));
        file.take(cap)
            .read_to_end(&mut bytes)
            .map_err(|e| FsError::io(&path, e))?;
        if bytes.len() as u64 > max {
            return Err(FsError::TooLarge {
                path,
                size: meta.len().max(bytes.len() as u64),
                limit: max,
            });
        }
        Ok(bytes)
    }
}

impl ResourceRoot {
    /// Reads the whole resource `reference` names, from a regular file inside an allowed
    /// folder, when it holds at most `max` bytes: a longer file is refused by its length
    /// before a byte of it is read or any memory is set aside for it, and memory that
    /// cannot be had is an error, not an abort (an image a glTF names, which declares no
    /// length: spec/security.md \[R4\]).
    pub fn read_whole(&self, reference: &str, max: u64) -> Result<Vec<u8>, FsError> {
        use std::io::Read;
        let path = self.resolve(reference)?;
        let (file, meta) = open_regular(&path)?;
        let too_large = |size: u64| FsError::TooLarge {
            path: path.clone(),
            size,
            limit: max,
        };
        if meta.len() > max {
            return Err(too_large(meta.len()));
        }
        let mut bytes = Vec::new();
        bytes
            .try_reserve_exact(usize::try_from(meta.len()).unwrap_or(usize::MAX))
            .map_err(|e| FsError::io(&path, std::io::Error::other(e.to_string())))?;
        file.take(max.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| FsError::io(&path, e))?;
        if bytes.len() as u64 > max {
            return Err(too_large(bytes.len() as u64));
        }
        Ok(bytes)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    fn tree() -> PathBuf {
        let t = std::env::temp_dir().join(format!(
            "dash-fs-res-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&t);
        std::fs::create_dir_all(t.join("model/sub")).unwrap();
        std::fs::write(t.join("secret.txt"), b"secret").unwrap();
        std::fs::write(t.join("model/a.bin"), b"abcd").unwrap();
        std::fs::write(t.join("model/sub/b.bin"), b"efgh").unwrap();
        t
    }

    #[test]
    fn inside_is_read_outside_is_refused() {
        let t = tree();
        let root = ResourceRoot::new(&t.join("model")).unwrap();
        assert_eq!(root.read("a.bin", 4, 100).unwrap(), b"abcd");
        assert_eq!(root.read("sub/../a.bin", 4, 100).unwrap(), b"abcd");
        assert_eq!(root.read("sub/b.bin", 2, 100).unwrap(), b"efg");
        for bad in [
            "../secret.txt",
            "sub/../../secret.txt",
            "/etc/passwd",
            "file:a.bin",
        ] {
            let e = root.read(bad, 6, 100).unwrap_err();
            assert!(
                matches!(e, FsError::Outside { .. } | FsError::NotRelative { .. }),
                "{bad}: {e}"
            );
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(t.join("secret.txt"), t.join("model/link.bin")).unwrap();
            std::os::unix::fs::symlink(t.join("model/a.bin"), t.join("model/ok.bin")).unwrap();
            assert!(matches!(
                root.read("link.bin", 6, 100),
                Err(FsError::Outside { .. })
            ));
            assert_eq!(root.read("ok.bin", 4, 100).unwrap(), b"abcd");
        }
        assert_eq!(root.read_whole("a.bin", 4).unwrap(), b"abcd");
        assert!(matches!(
            root.read_whole("a.bin", 3),
            Err(FsError::TooLarge { size: 4, .. })
        ));
        assert!(matches!(
            root.read_whole("../secret.txt", 100),
            Err(FsError::Outside { .. })
        ));
        let mut wide = root.clone();
        wide.allow(&t).unwrap();
        assert_eq!(wide.read("../secret.txt", 6, 100).unwrap(), b"secret");
        std::fs::remove_dir_all(&t).unwrap();
    }
}
