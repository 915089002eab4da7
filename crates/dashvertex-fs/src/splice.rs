//! Outputs that carry ranges of an input file unchanged, and the sparse reads that go
//! with them.
//!
//! A job that rewrites a large file but changes only part of it (reduce keeps a mesh's
//! NORMAL, TEXCOORD and indices byte for byte) need not bring the untouched ranges into
//! memory at all: it reads only the ranges it uses ([`SpliceSource::read_sparse`]), lays
//! its output out with *holes* where the carried ranges go, and the writer fills each
//! hole from the input file inside the kernel (`copy_file_range` where the system has
//! it, through [`std::io::copy`] between files; a plain copy elsewhere).
//!
//! The input must not change between its read and the end of the write: the source is
//! held open, and its [`Stamp`] (length, modification time, status change time, device
//! and inode) is taken when it is opened. The writer refuses (nothing replaced) when the
//! open file's stamp differs after the last hole is filled, when its path names another
//! file by then, or when the file ends before a hole's range does. The status change time
//! matters: a program can write the same number of bytes and set the modification time
//! back, but no program can set the ctime back.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use crate::error::FsError;

pub use dashvertex_core::file::Hole;

/// An input file held open for a sparse read and the splice of its ranges into an
/// output, with what it looked like when it was opened.
#[derive(Clone, Debug)]
pub struct SpliceSource {
    file: Arc<File>,
    path: PathBuf,
    len: u64,
    stamp: Stamp,
}

/// What a file looked like: any difference means it changed (or the path now names
/// another file).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
    /// Status change time, seconds and nanoseconds (Unix).
    changed: Option<(i64, i64)>,
    /// Device and inode (Unix).
    id: Option<(u64, u64)>,
}

impl Stamp {
    fn of(meta: &std::fs::Metadata) -> Stamp {
        #[cfg(unix)]
        let (changed, id) = {
            use std::os::unix::fs::MetadataExt;
            (
                Some((meta.ctime(), meta.ctime_nsec())),
                Some((meta.dev(), meta.ino())),
            )
        };
        #[cfg(not(unix))]
        let (changed, id) = (None, None);
        Stamp {
            len: meta.len(),
            modified: meta.modified().ok(),
            changed,
            id,
        }
    }
}

impl SpliceSource {
    /// Opens `path` if it is a regular file of at most `max` bytes; `Ok(None)` for
    /// anything else (standard input, a FIFO, a device), which a caller reads whole.
    pub fn open(path: &Path, max: u64) -> Result<Option<SpliceSource>, FsError> {
        if path == Path::new("-") {
            return Ok(None);
        }
        match std::fs::metadata(path) {
            Ok(m) if m.is_file() => {}
            _ => return Ok(None),
        }
        let (file, meta) = crate::input::open_regular(path)?;
        if meta.len() > max {
            return Err(FsError::TooLarge {
                path: path.to_path_buf(),
                size: meta.len(),
                limit: max,
            });
        }
        if meta.len() == 0 {
            return Err(FsError::Empty {
                path: path.to_path_buf(),
            });
        }
        Ok(Some(SpliceSource {
            file: Arc::new(file),
            path: path.to_path_buf(),
            len: meta.len(),
            stamp: Stamp::of(&meta),
        }))
    }

    /// The file's length when it was opened.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the file was empty when opened (never, for an opened source).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The path it was opened by.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads `buf.len()` bytes at `offset` without moving the file's offset (positioned
    /// reads, so that several threads can read one file); a file that ends before them
    /// is an error (it changed since it was opened).
    pub fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<(), FsError> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileExt;
            self.file
                .read_exact_at(buf, offset)
                .map_err(|e| FsError::io(&self.path, e))
        }
        #[cfg(not(unix))]
        {
            // One read at a time where a positioned read needs the shared offset.
            static ONE: std::sync::Mutex<()> = std::sync::Mutex::new(());
            let _guard = ONE
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let mut f = &*self.file;
            f.seek(SeekFrom::Start(offset))
                .and_then(|_| f.read_exact(buf))
                .map_err(|e| FsError::io(&self.path, e))
        }
    }

    /// The whole file in memory except the ranges `absent` (sorted, disjoint, inside
    /// the file), which stay zero and are never touched: a large allocation is made
    /// zeroed by the system (fresh pages, mapped on first touch), so an absent range
    /// costs neither a read nor resident memory.
    pub fn read_sparse(&self, absent: &[Range<u64>]) -> Result<Vec<u8>, FsError> {
        let too_large = || FsError::TooLarge {
            path: self.path.clone(),
            size: self.len,
            limit: usize::MAX as u64,
        };
        let len = usize::try_from(self.len).map_err(|_| too_large())?;
        let mut out = vec![0u8; len];
        // The ranges to read, cut into pieces of at most READ_PIECE bytes, each a slice
        // of `out` of its own: read on the threads of the current pool.
        let mut pieces: Vec<(u64, &mut [u8])> = Vec::new();
        let mut rest: &mut [u8] = &mut out;
        let mut at = 0u64;
        for r in absent.iter().chain(std::iter::once(&(self.len..self.len))) {
            if r.start < at || r.end < r.start || r.end > self.len {
                return Err(FsError::io(
                    &self.path,
                    std::io::Error::other("sparse read: ranges out of order"),
                ));
            }
            let gap = usize::try_from(r.start - at).map_err(|_| too_large())?;
            let skip = usize::try_from(r.end - r.start).map_err(|_| too_large())?;
            let (read, after) = std::mem::take(&mut rest).split_at_mut(gap);
            let mut offset = at;
            for piece in read.chunks_mut(crate::input::READ_PIECE) {
                let n = piece.len() as u64;
                pieces.push((offset, piece));
                offset += n;
            }
            rest = after.get_mut(skip..).unwrap_or_default();
            at = r.end;
        }
        {
            use rayon::prelude::*;
            pieces
                .into_par_iter()
                .try_for_each(|(offset, piece)| self.read_at(piece, offset))?;
        }
        Ok(out)
    }

    /// Refuses a file that is not as it was opened (length, modification and status
    /// change times, device and inode), or whose path now names another file.
    fn unchanged(&self) -> Result<(), FsError> {
        let meta = self
            .file
            .metadata()
            .map_err(|e| FsError::io(&self.path, e))?;
        if Stamp::of(&meta) != self.stamp {
            return Err(changed(&self.path));
        }
        // The name: a file renamed over it meanwhile is another file.
        match std::fs::metadata(&self.path) {
            Ok(now) if Stamp::of(&now).id == self.stamp.id => Ok(()),
            _ => Err(changed(&self.path)),
        }
    }
}

fn changed(path: &Path) -> FsError {
    FsError::io(
        path,
        std::io::Error::other(
            "the input changed while dash was reading and copying it; run the command again",
        ),
    )
}

/// The holes of an output and the file that fills them. Without a source there are no
/// holes: the output's bytes are all in memory.
#[derive(Clone, Debug, Default)]
pub struct Holes {
    /// The input file the holes are filled from.
    pub source: Option<SpliceSource>,
    /// The holes, in output order, disjoint.
    pub holes: Vec<Hole>,
}

impl PartialEq for Holes {
    fn eq(&self, other: &Holes) -> bool {
        self.holes == other.holes
            && match (&self.source, &other.source) {
                (None, None) => true,
                (Some(a), Some(b)) => Arc::ptr_eq(&a.file, &b.file),
                _ => false,
            }
    }
}

impl Eq for Holes {}

impl Holes {
    /// Whether every byte of the output is in memory.
    pub fn is_empty(&self) -> bool {
        self.holes.is_empty()
    }

    /// Bytes the holes stand for.
    pub fn bytes(&self) -> u64 {
        self.holes.iter().map(|h| h.len).sum()
    }

    /// Writes `bytes` to `w` with each hole filled from the source: the bytes between
    /// holes from memory, the holes by a copy between files where `w` is a file
    /// (`copy_file_range`). Holes that are out of order, overlap, or lie outside
    /// `bytes`, a source that ends early or changed since it was opened, are errors.
    pub fn write_to<W: Write>(&self, bytes: &[u8], w: &mut W) -> std::io::Result<()> {
        let Some(src) = self.source.as_ref().filter(|_| !self.holes.is_empty()) else {
            return w.write_all(bytes);
        };
        let bad = || std::io::Error::other("an output's holes are out of order");
        let mut at = 0usize;
        for h in &self.holes {
            let start = usize::try_from(h.at).map_err(|_| bad())?;
            let end =
                h.at.checked_add(h.len)
                    .and_then(|e| usize::try_from(e).ok())
                    .ok_or_else(bad)?;
            let between = bytes.get(at..start).ok_or_else(bad)?;
            if end > bytes.len() {
                return Err(bad());
            }
            w.write_all(between)?;
            let mut f = &*src.file;
            f.seek(SeekFrom::Start(h.from))?;
            let copied = std::io::copy(&mut f.take(h.len), w)?;
            if copied != h.len {
                return Err(std::io::Error::other(
                    "the input ended early: it changed while dash was copying it",
                ));
            }
            at = end;
        }
        w.write_all(bytes.get(at..).ok_or_else(bad)?)?;
        src.unchanged()
            .map_err(|_| std::io::Error::other("the input changed while dash was copying it"))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    fn scratch(tag: &str, bytes: &[u8]) -> PathBuf {
        let p = std::env::temp_dir().join(format!("dash-splice-{tag}-{}", std::process::id()));
        std::fs::write(&p, bytes).unwrap();
        p
    }

    #[test]
    #[allow(clippy::single_range_in_vec_init, clippy::reversed_empty_ranges)]
    fn a_sparse_read_leaves_absent_ranges_zero() {
        let data: Vec<u8> = (0..=255u8).cycle().take(10_000).collect();
        let p = scratch("sparse", &data);
        let s = SpliceSource::open(&p, 1 << 20).unwrap().unwrap();
        let got = s.read_sparse(&[100..200, 5000..9000]).unwrap();
        for (i, (&g, &d)) in got.iter().zip(&data).enumerate() {
            let absent = (100..200).contains(&i) || (5000..9000).contains(&i);
            assert_eq!(g, if absent { 0 } else { d }, "byte {i}");
        }
        assert!(s.read_sparse(&[200..100]).is_err());
        assert!(s.read_sparse(&[5000..9000, 100..200]).is_err());
        assert!(s.read_sparse(&[9000..20_000]).is_err());
        std::fs::remove_file(p).unwrap();
    }

    #[test]
    fn holes_are_filled_from_the_source_into_files_and_buffers() {
        let data: Vec<u8> = (0..=250u8).cycle().take(300_000).collect();
        let p = scratch("holes", &data);
        let src = SpliceSource::open(&p, 1 << 20).unwrap().unwrap();
        let mut bytes = vec![7u8; 1000];
        let holes = Holes {
            source: Some(src),
            holes: vec![
                Hole {
                    at: 10,
                    from: 5,
                    len: 90,
                },
                Hole {
                    at: 500,
                    from: 200_000,
                    len: 400,
                },
            ],
        };
        for b in bytes.get_mut(10..100).unwrap() {
            *b = 0;
        }
        let mut expect = bytes.clone();
        expect
            .get_mut(10..100)
            .unwrap()
            .copy_from_slice(data.get(5..95).unwrap());
        expect
            .get_mut(500..900)
            .unwrap()
            .copy_from_slice(data.get(200_000..200_400).unwrap());
        let mut v = Vec::new();
        holes.write_to(&bytes, &mut v).unwrap();
        assert_eq!(v, expect);
        let out = scratch("holes-out", b"");
        let mut f = std::io::BufWriter::new(File::create(&out).unwrap());
        holes.write_to(&bytes, &mut f).unwrap();
        drop(f);
        assert_eq!(std::fs::read(&out).unwrap(), expect);
        // overlapping, past the end, and past the source's end
        for bad in [
            vec![
                Hole {
                    at: 10,
                    from: 0,
                    len: 20,
                },
                Hole {
                    at: 20,
                    from: 0,
                    len: 5,
                },
            ],
            vec![Hole {
                at: 990,
                from: 0,
                len: 20,
            }],
            vec![Hole {
                at: 0,
                from: 299_990,
                len: 20,
            }],
        ] {
            let h = Holes {
                holes: bad,
                ..holes.clone()
            };
            assert!(h.write_to(&bytes, &mut Vec::new()).is_err());
        }
        std::fs::remove_file(p).unwrap();
        std::fs::remove_file(out).unwrap();
    }

    #[test]
    fn a_source_that_changed_is_refused() {
        let p = scratch("changed", &[1u8; 4096]);
        let src = SpliceSource::open(&p, 1 << 20).unwrap().unwrap();
        std::fs::write(&p, [2u8; 8192]).unwrap();
        let holes = Holes {
            source: Some(src),
            holes: vec![Hole {
                at: 0,
                from: 0,
                len: 16,
            }],
        };
        assert!(holes.write_to(&[0u8; 32], &mut Vec::new()).is_err());
        std::fs::remove_file(p).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_same_length_rewrite_with_its_time_set_back_is_refused() {
        // spec: V2
        let p = scratch("same-length", &[1u8; 4096]);
        let src = SpliceSource::open(&p, 1 << 20).unwrap().unwrap();
        let holes = |src: &SpliceSource| Holes {
            source: Some(src.clone()),
            holes: vec![Hole {
                at: 0,
                from: 0,
                len: 16,
            }],
        };
        // Untouched: copied.
        holes(&src).write_to(&[0u8; 32], &mut Vec::new()).unwrap();
        let modified = std::fs::metadata(&p).unwrap().modified().unwrap();
        // The clock the kernel stamps files with ticks coarsely: let it move on.
        std::thread::sleep(std::time::Duration::from_millis(50));
        let f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
        std::os::unix::fs::FileExt::write_all_at(&f, &[2u8; 4096], 0).unwrap();
        f.set_modified(modified).unwrap();
        drop(f);
        let now = std::fs::metadata(&p).unwrap();
        assert_eq!((now.len(), now.modified().unwrap()), (4096, modified));
        assert!(holes(&src).write_to(&[0u8; 32], &mut Vec::new()).is_err());
        std::fs::remove_file(&p).unwrap();
    }

    #[test]
    fn a_file_renamed_over_the_source_is_refused() {
        let p = scratch("renamed", &[1u8; 4096]);
        let src = SpliceSource::open(&p, 1 << 20).unwrap().unwrap();
        let other = scratch("renamed-other", &[1u8; 4096]);
        std::fs::rename(&other, &p).unwrap();
        let holes = Holes {
            source: Some(src),
            holes: vec![Hole {
                at: 0,
                from: 0,
                len: 16,
            }],
        };
        assert!(holes.write_to(&[0u8; 32], &mut Vec::new()).is_err());
        std::fs::remove_file(&p).unwrap();
    }

    #[test]
    fn only_regular_files_are_sources() {
        assert!(SpliceSource::open(Path::new("-"), 10).unwrap().is_none());
        if Path::new("/dev/zero").exists() {
            assert!(
                SpliceSource::open(Path::new("/dev/zero"), 10)
                    .unwrap()
                    .is_none()
            );
        }
    }
}
