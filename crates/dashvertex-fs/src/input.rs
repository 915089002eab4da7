//! Reading inputs with a byte limit.

use std::fs::{File, Metadata};
use std::io::Read;
use std::path::Path;

use crate::error::FsError;

/// What a file is, for messages; `None` for a regular file.
pub(crate) fn special_kind(meta: &Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a FIFO");
        }
        if t.is_char_device() {
            return Some("a character device");
        }
        if t.is_block_device() {
            return Some("a block device");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    Some("not a regular file")
}

/// Reads up to `max + 1` bytes from `r`, refusing more than `max`.
fn read_bounded(mut r: impl Read, path: &Path, max: u64, hint: u64) -> Result<Vec<u8>, FsError> {
    let mut bytes = Vec::with_capacity(usize::try_from(hint.min(max)).unwrap_or(0));
    (&mut r)
        .take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| FsError::io(path, e))?;
    if bytes.len() as u64 > max {
        return Err(FsError::TooLarge {
            path: path.to_path_buf(),
            size: bytes.len() as u64,
            limit: max,
        });
    }
    Ok(bytes)
}

/// A regular file at least this large is read in [`READ_PIECE`]-byte pieces on the
/// threads of the current pool ([`read_parallel`]).
pub const PARALLEL_READ_MIN: u64 = 16 << 20;

/// The piece each thread of a parallel read reads at once.
pub const READ_PIECE: usize = 8 << 20;

/// Reads a regular file of `len` bytes (its length when opened) in pieces, on the
/// threads of the current rayon pool, into a zeroed allocation: the copy out of the page
/// cache and the faults of fresh memory, the whole cost of reading a cached file, are
/// shared by the threads (one with `--threads 1`). `None` when the file is smaller than
/// [`PARALLEL_READ_MIN`], on systems without positioned reads, or when it is no longer
/// `len` bytes long (it changed while read): the caller then reads it from start to end.
pub fn read_parallel(file: &File, path: &Path, len: u64) -> Result<Option<Vec<u8>>, FsError> {
    #[cfg(unix)]
    {
        use rayon::prelude::*;
        use std::os::unix::fs::FileExt;
        if len < PARALLEL_READ_MIN {
            return Ok(None);
        }
        let Ok(n) = usize::try_from(len) else {
            return Ok(None);
        };
        let mut bytes = vec![0u8; n];
        let read = bytes
            .par_chunks_mut(READ_PIECE)
            .enumerate()
            .try_for_each(|(i, piece)| file.read_exact_at(piece, (i * READ_PIECE) as u64));
        match read {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(FsError::io(path, e)),
        }
        // A byte past the end: the file grew while it was read.
        let mut one = [0u8; 1];
        if file
            .read_at(&mut one, len)
            .map_err(|e| FsError::io(path, e))?
            != 0
        {
            return Ok(None);
        }
        Ok(Some(bytes))
    }
    #[cfg(not(unix))]
    {
        let _ = (file, path, len);
        Ok(None)
    }
}

/// Reads a named input whole: a regular file the user named, or standard input for `-`.
/// A named FIFO, device, socket or folder is refused at once, before it is read or waited
/// on ([`FsError::NotRegular`]): a symlink to `/dev/zero` or a FIFO in a committed tree
/// cannot fill memory or hang the run, whatever names it (an input, `--manifest`,
/// `--poses`). A stream is read by piping it to standard input (`-`). More than `max`
/// bytes, or no bytes at all, are errors.
pub fn read_input(path: &Path, max: u64) -> Result<Vec<u8>, FsError> {
    if path != Path::new("-") {
        return read_regular(path, max);
    }
    let bytes = read_bounded(std::io::stdin().lock(), Path::new("<stdin>"), max, 0)?;
    if bytes.is_empty() {
        return Err(FsError::Empty {
            path: "<stdin>".into(),
        });
    }
    Ok(bytes)
}

/// Reads a file whole, only if it is a regular file: the open does not block on a FIFO,
/// the type is checked on the open handle (a symlink to `/dev/zero` is not read), and
/// more than `max` bytes, or none, are errors. Every named path is read through it
/// ([`read_input`] adds standard input), as are the files a directory walk finds.
pub fn read_regular(path: &Path, max: u64) -> Result<Vec<u8>, FsError> {
    let (file, meta) = open_regular(path)?;
    if meta.len() > max {
        return Err(FsError::TooLarge {
            path: path.to_path_buf(),
            size: meta.len(),
            limit: max,
        });
    }
    let bytes = match read_parallel(&file, path, meta.len())? {
        Some(bytes) => bytes,
        None => read_bounded(file, path, max, meta.len())?,
    };
    if bytes.is_empty() {
        return Err(FsError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok(bytes)
}

/// Opens `path` for reading only if it is a regular file. The check is made on the open
/// handle, and the open itself does not block on a FIFO (Unix), so a file swapped for a
/// FIFO between a look and the open cannot hang the process.
pub fn open_regular(path: &Path) -> Result<(File, Metadata), FsError> {
    // A first look avoids even opening devices (opening some has side effects).
    let meta = std::fs::metadata(path).map_err(|e| FsError::io(path, e))?;
    if let Some(kind) = special_kind(&meta) {
        return Err(FsError::NotRegular {
            path: path.to_path_buf(),
            kind,
        });
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // No wait for a writer on a FIFO; no effect on a regular file.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| FsError::io(path, e))?;
    let meta = file.metadata().map_err(|e| FsError::io(path, e))?;
    if let Some(kind) = special_kind(&meta) {
        return Err(FsError::NotRegular {
            path: path.to_path_buf(),
            kind,
        });
    }
    Ok((file, meta))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn a_named_device_or_fifo_is_refused_before_it_is_read() {
        if Path::new("/dev/zero").exists() {
            match read_input(Path::new("/dev/zero"), 1000) {
                Err(FsError::NotRegular { kind, .. }) => assert_eq!(kind, "a character device"),
                other => panic!("{other:?}"),
            }
        }
        let d = std::env::temp_dir().join(format!("dash-fs-fifo-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        let fifo = d.join("in.glb");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            // No writer: a read that waited would hang here.
            match read_input(&fifo, 1000) {
                Err(FsError::NotRegular { kind, .. }) => assert_eq!(kind, "a FIFO"),
                other => panic!("{other:?}"),
            }
        }
        #[cfg(unix)]
        if Path::new("/dev/zero").exists() {
            let link = d.join("z.glb");
            std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
            assert!(matches!(
                read_input(&link, u64::MAX),
                Err(FsError::NotRegular { .. })
            ));
        }
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn resources_must_be_regular_files() {
        if !Path::new("/dev/zero").exists() {
            return;
        }
        assert!(matches!(
            open_regular(Path::new("/dev/zero")).map(|_| ()),
            Err(FsError::NotRegular {
                kind: "a character device",
                ..
            })
        ));
        assert!(matches!(
            open_regular(Path::new("/")).map(|_| ()),
            Err(FsError::NotRegular {
                kind: "a directory",
                ..
            })
        ));
    }

    #[test]
    #[allow(
        clippy::cast_possible_truncation,
        reason = "test sizes and byte patterns"
    )]
    fn a_large_file_read_in_parallel_is_the_file() {
        let p = std::env::temp_dir().join(format!("dash-fs-large-{}", std::process::id()));
        let n = (PARALLEL_READ_MIN as usize) + 3 * READ_PIECE + 12_345;
        let data: Vec<u8> = (0..n).map(|i| (i * 7 + i / 4099) as u8).collect();
        std::fs::write(&p, &data).unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let read = pool.install(|| read_input(&p, u64::MAX)).unwrap();
        assert!(read == data, "the bytes differ");
        assert!(read_regular(&p, u64::MAX).unwrap() == data);
        // a file that is not as long as it was: read from start to end instead
        let f = File::open(&p).unwrap();
        assert!(read_parallel(&f, &p, n as u64 - 1).unwrap().is_none());
        assert!(read_parallel(&f, &p, n as u64 + 1).unwrap().is_none());
        std::fs::remove_file(&p).unwrap();
    }

    #[test]
    fn empty_input_is_an_error() {
        let dir = std::env::temp_dir().join(format!("dash-fs-empty-{}", std::process::id()));
        std::fs::write(&dir, b"").unwrap();
        assert!(matches!(read_input(&dir, 10), Err(FsError::Empty { .. })));
        std::fs::remove_file(&dir).unwrap();
    }
}
