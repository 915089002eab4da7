//! Writing outputs: atomic replacement of regular files, direct writes to everything
//! else.
//!
//! | destination | what happens |
//! |---|---|
//! | `-` | standard output |
//! | missing, or a regular file | a new file beside it (exclusive create, the old file's mode and owner), written, synced, renamed over it, the folder synced |
//! | a symlink | followed: its final target is the destination, the link stays |
//! | a character device, FIFO or socket (`/dev/null`, `/proc/self/fd/1`) | opened and written directly; never replaced |
//! | a directory | refused |
//!
//! The temporary file is named `.NAME.dash-tmp-PID-N` beside the destination. It is removed
//! when writing fails, when the [`Output`] is dropped without [`Output::commit`], and on
//! SIGINT, SIGTERM or SIGHUP once [`install_signal_cleanup`] has run. A run killed with
//! SIGKILL cannot clean up; the next write to the same destination removes temporary files
//! whose process is gone (Linux).

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::FsError;
use crate::input::special_kind;
use crate::splice::Holes;

/// Temporary files not yet renamed or removed, for the signal handler.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static COUNTER: AtomicU64 = AtomicU64::new(0);
const TMP_TAG: &str = ".dash-tmp-";

fn pending(f: impl FnOnce(&mut Vec<PathBuf>)) {
    let mut guard = PENDING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    f(&mut guard);
}

/// Removes every temporary file a write in progress holds (what the signal handler
/// does). Safe to call at any time; the writes then fail at commit.
pub(crate) fn remove_pending_temps() {
    pending(|list| {
        for p in list.drain(..) {
            let _ = std::fs::remove_file(p);
        }
    });
}

/// Installs a handler that removes temporary files on SIGINT, SIGTERM and SIGHUP, then
/// ends the process as the signal would have. Call once, early, in a command's `main`.
/// Without it (or on systems without signals) an interrupted run may leave a
/// `.NAME.dash-tmp-PID-N` file.
pub fn install_signal_cleanup() {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        let _ = std::thread::Builder::new()
            .name("dash-signals".into())
            .spawn(move || {
                if let Some(sig) = signals.forever().next() {
                    remove_pending_temps();
                    let _ = signal_hook::low_level::emulate_default_handler(sig);
                    std::process::exit(128 + sig);
                }
            });
    }
}

enum Target {
    Stdout(BufWriter<std::io::Stdout>),
    Direct(BufWriter<File>),
    Atomic {
        file: BufWriter<File>,
        tmp: PathBuf,
        dest: PathBuf,
    },
    Done,
}

/// An output being written; nothing is visible at the destination (for a regular file)
/// until [`Output::commit`].
pub struct Output {
    name: PathBuf,
    target: Target,
}

/// Where a destination path finally points: symlinks followed, also dangling ones (a
/// link's relative target is taken from the link's folder). A `.gltf` output's buffer
/// files belong in this path's folder, beside the file the output really is.
pub fn follow_links(path: &Path) -> Result<PathBuf, FsError> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let t = std::fs::read_link(&p).map_err(|e| FsError::io(&p, e))?;
                p = if t.is_absolute() {
                    t
                } else {
                    p.parent().unwrap_or(Path::new(".")).join(t)
                };
            }
            _ => return Ok(p),
        }
    }
    Err(FsError::io(
        path,
        std::io::Error::other("too many levels of symbolic links"),
    ))
}

fn temp_prefix(name: &str) -> String {
    let mut end = name.len().min(180);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    format!(".{}{TMP_TAG}", name.get(..end).unwrap_or_default())
}

/// Removes `.NAME.dash-tmp-PID-N` files of processes that no longer run (Linux only:
/// elsewhere a process cannot be told alive from a file name).
fn remove_stale(dir: &Path, prefix: &str) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let me = std::process::id().to_string();
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(prefix)) else {
            continue;
        };
        let Some((pid, _)) = rest.split_once('-') else {
            continue;
        };
        if !pid.is_empty()
            && pid.bytes().all(|b| b.is_ascii_digit())
            && pid != me
            && !Path::new("/proc").join(pid).exists()
        {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

impl Output {
    /// Whether [`Output::create`] writes `path` directly (`-`, a device, a FIFO, a
    /// socket) rather than through a temporary file renamed over it: opening such a
    /// destination is already visible (a FIFO's open waits for its reader), so a caller
    /// that must refuse an output before anyone sees it decides before opening one.
    pub fn is_direct(path: &Path) -> bool {
        path == Path::new("-")
            || std::fs::metadata(path).is_ok_and(|m| !m.is_dir() && special_kind(&m).is_some())
    }

    /// Opens `path` for writing (`-` is standard output); see the module table.
    pub fn create(path: &Path) -> Result<Output, FsError> {
        let name = path.to_path_buf();
        if path == Path::new("-") {
            return Ok(Output {
                name: "<stdout>".into(),
                target: Target::Stdout(BufWriter::with_capacity(1 << 16, std::io::stdout())),
            });
        }
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() => {
                return Err(FsError::NotRegular {
                    path: name,
                    kind: "a directory",
                });
            }
            Ok(meta) if special_kind(&meta).is_some() => {
                // Opened through the path as given, so that links such as
                // /proc/self/fd/1 reach what they stand for.
                let file = OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(|e| FsError::io(path, e))?;
                return Ok(Output {
                    name,
                    target: Target::Direct(BufWriter::with_capacity(1 << 16, file)),
                });
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(FsError::io(path, e)),
        }
        let dest = follow_links(path)?;
        let existing = std::fs::metadata(&dest).ok();
        let dir = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let file_name = dest
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or_else(|| FsError::io(path, std::io::Error::other("the path names no file")))?;
        let prefix = temp_prefix(&file_name);
        remove_stale(&dir, &prefix);
        let tmp = dir.join(format!(
            "{prefix}{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        if let Some(m) = &existing {
            use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
            options.mode(m.permissions().mode() & 0o7777);
        }
        // Named as the user named the destination: the temporary name means nothing to them.
        let file = options.open(&tmp).map_err(|e| FsError::io(path, e))?;
        pending(|l| l.push(tmp.clone()));
        let out = Output {
            name,
            target: Target::Atomic {
                file: BufWriter::with_capacity(1 << 16, file),
                tmp,
                dest,
            },
        };
        if let (Some(m), Target::Atomic { file, tmp, .. }) = (&existing, &out.target) {
            // The create mode passed through the umask; the old mode is set exactly.
            file.get_ref()
                .set_permissions(m.permissions())
                .map_err(|e| FsError::io(tmp, e))?;
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt;
                // Best effort: only a privileged process may give a file away.
                let _ = std::os::unix::fs::fchown(file.get_ref(), Some(m.uid()), Some(m.gid()));
            }
        }
        Ok(out)
    }

    /// The destination as the user named it.
    pub fn path(&self) -> &Path {
        &self.name
    }

    /// Finishes the output: flushes, and for a regular file syncs it, renames it over the
    /// destination and syncs the folder. On error the destination is as it was.
    pub fn commit(mut self) -> Result<(), FsError> {
        let name = self.name.clone();
        match std::mem::replace(&mut self.target, Target::Done) {
            Target::Stdout(mut w) => w.flush().map_err(|e| FsError::io(name, e)),
            Target::Direct(w) => {
                let f = w
                    .into_inner()
                    .map_err(|e| FsError::io(&name, e.into_error()))?;
                // Devices and pipes often cannot be synced; what was written stands.
                let _ = f.sync_all();
                Ok(())
            }
            Target::Atomic { file, tmp, dest } => {
                let result = (|| -> std::io::Result<()> {
                    let f = file.into_inner().map_err(|e| e.into_error())?;
                    f.sync_all()?;
                    drop(f);
                    std::fs::rename(&tmp, &dest)?;
                    if let Some(dir) = dest.parent().filter(|d| !d.as_os_str().is_empty()) {
                        // Some filesystems cannot sync a folder; the rename stands anyway.
                        let _ = File::open(dir).and_then(|d| d.sync_all());
                    }
                    Ok(())
                })();
                pending(|l| l.retain(|p| p != &tmp));
                if let Err(e) = result {
                    let _ = std::fs::remove_file(&tmp);
                    return Err(FsError::io(name, e));
                }
                Ok(())
            }
            Target::Done => Ok(()),
        }
    }
}

impl Output {
    /// Writes `bytes` with `holes` filled from their source file ([`Holes::write_to`]):
    /// a regular file's carried ranges are copied inside the kernel.
    pub fn write_spliced(&mut self, bytes: &[u8], holes: &Holes) -> std::io::Result<()> {
        match &mut self.target {
            Target::Stdout(w) => holes.write_to(bytes, w),
            Target::Direct(w) => holes.write_to(bytes, w),
            Target::Atomic { file, .. } => holes.write_to(bytes, file),
            Target::Done => Err(std::io::Error::other("output already committed")),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match &mut self.target {
            Target::Stdout(w) => w.write(buf),
            Target::Direct(w) => w.write(buf),
            Target::Atomic { file, .. } => file.write(buf),
            Target::Done => Err(std::io::Error::other("output already committed")),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        match &mut self.target {
            Target::Stdout(w) => w.write_all(buf),
            Target::Direct(w) => w.write_all(buf),
            Target::Atomic { file, .. } => file.write_all(buf),
            Target::Done => Err(std::io::Error::other("output already committed")),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.target {
            Target::Stdout(w) => w.flush(),
            Target::Direct(w) => w.flush(),
            // Nothing is visible before commit; flushing early only costs.
            Target::Atomic { .. } | Target::Done => Ok(()),
        }
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if let Target::Atomic { tmp, .. } = &self.target {
            let _ = std::fs::remove_file(tmp);
            let tmp = tmp.clone();
            pending(|l| l.retain(|p| p != &tmp));
        }
    }
}

/// A regular file replaced by a [`Batch`], and how to put the old one back.
struct Replaced {
    dest: PathBuf,
    /// A hard link to the file `dest` held before (named like a temporary file, so a
    /// killed run's is cleaned up as one); `None` when `dest` did not exist, and for the
    /// batch's last file, which is never undone (nothing after it can fail the renames).
    backup: Option<PathBuf>,
}

impl Replaced {
    fn undo(self) {
        match self.backup {
            Some(b) => {
                let _ = std::fs::rename(&b, &self.dest);
                pending(|l| l.retain(|p| p != &b));
            }
            None => {
                let _ = std::fs::remove_file(&self.dest);
            }
        }
    }

    fn forget(self) {
        if let Some(b) = self.backup {
            let _ = std::fs::remove_file(&b);
            pending(|l| l.retain(|p| p != &b));
        }
    }
}

/// What a special file of a [`Batch`] is sent at commit: bytes, and the holes in them
/// filled from their source file, if any.
type Pending<'a> = (&'a [u8], Option<&'a Holes>);

/// Several outputs committed together (a `.gltf` and its `.bin` files, an output with
/// its manifest and report): every one is written to its temporary file first, so a
/// destination that cannot be opened or written fails the batch before any destination
/// changes; then each is renamed over its destination, keeping a hard link to the old
/// file, so that a rename that fails puts the earlier ones back. Outputs that are not
/// regular files (standard output, a device, a FIFO) cannot be taken back: they are
/// written last, once every regular file is in place.
#[derive(Default)]
pub struct Batch<'a> {
    /// Regular files, written to their temporary files.
    atomic: Vec<Output>,
    /// Special files, with the bytes (and holes) to write at commit (`None`: written
    /// already).
    direct: Vec<(Output, Option<Pending<'a>>)>,
    /// How many of `atomic` (the first ones) [`Batch::sync`] has synced.
    synced: usize,
}

impl<'a> Batch<'a> {
    /// An empty batch.
    pub fn new() -> Batch<'a> {
        Batch::default()
    }

    /// Opens `path` and, for a regular file, writes `bytes` to its temporary file
    /// (nothing visible yet); a special file is written at [`Batch::commit`].
    pub fn add(&mut self, path: &Path, bytes: &'a [u8]) -> Result<(), FsError> {
        self.add_with(path, bytes, None)
    }

    /// As [`Batch::add`], with `holes` in `bytes` filled from their source file
    /// ([`Output::write_spliced`]).
    pub fn add_spliced(
        &mut self,
        path: &Path,
        bytes: &'a [u8],
        holes: &'a Holes,
    ) -> Result<(), FsError> {
        self.add_with(path, bytes, Some(holes))
    }

    fn add_with(
        &mut self,
        path: &Path,
        bytes: &'a [u8],
        holes: Option<&'a Holes>,
    ) -> Result<(), FsError> {
        let mut out = Output::create(path)?;
        if matches!(out.target, Target::Atomic { .. }) {
            match holes {
                Some(h) => out.write_spliced(bytes, h),
                None => out.write_all(bytes),
            }
            .map_err(|e| FsError::io(out.path().to_path_buf(), e))?;
            self.atomic.push(out);
        } else {
            self.direct.push((out, Some((bytes, holes))));
        }
        Ok(())
    }

    /// Adds an output the caller has written (a streamed report).
    pub fn add_output(&mut self, out: Output) {
        if matches!(out.target, Target::Atomic { .. }) {
            self.atomic.push(out);
        } else {
            self.direct.push((out, None));
        }
    }

    /// Flushes and syncs the temporary files added so far, changing no destination: the
    /// first step of [`Batch::commit`], taken early so that the wait for the disk can
    /// overlap other work (checking the output). A batch dropped afterwards removes its
    /// temporary files as usual.
    pub fn sync(&mut self) -> Result<(), FsError> {
        for out in self.atomic.iter_mut().skip(self.synced) {
            out.sync()?;
            self.synced += 1;
        }
        Ok(())
    }

    /// Replaces every destination, or none (see the type's notes).
    pub fn commit(mut self) -> Result<(), FsError> {
        // Everything written and synced before the first rename.
        self.sync()?;
        let Batch {
            atomic: ready,
            direct,
            ..
        } = self;
        let mut done: Vec<Replaced> = Vec::with_capacity(ready.len());
        let mut folders: Vec<PathBuf> = Vec::new();
        let last = ready.len().saturating_sub(1);
        for (k, out) in ready.into_iter().enumerate() {
            // The old file is kept only while a later rename could fail and need it
            // back: never for the last one.
            match out.replace(k < last) {
                Ok(r) => {
                    if let Some(dir) = r.dest.parent().filter(|d| !d.as_os_str().is_empty())
                        && !folders.iter().any(|f| f == dir)
                    {
                        folders.push(dir.to_path_buf());
                    }
                    done.push(r);
                }
                Err(e) => {
                    for r in done.into_iter().rev() {
                        r.undo();
                    }
                    return Err(e);
                }
            }
        }
        // Each folder synced once, after its last rename.
        for dir in &folders {
            // Some filesystems cannot sync a folder; the renames stand anyway.
            let _ = File::open(dir).and_then(|d| d.sync_all());
        }
        for r in done {
            r.forget();
        }
        for (mut out, bytes) in direct {
            if let Some((bytes, holes)) = bytes {
                match holes {
                    Some(h) => out.write_spliced(bytes, h),
                    None => out.write_all(bytes),
                }
                .map_err(|e| FsError::io(out.path().to_path_buf(), e))?;
            }
            out.commit()?;
        }
        Ok(())
    }
}

impl Output {
    /// Flushes and syncs a temporary file (batch step one).
    fn sync(&mut self) -> Result<(), FsError> {
        if let Target::Atomic { file, tmp, .. } = &mut self.target {
            let tmp = tmp.clone();
            file.flush().map_err(|e| FsError::io(&tmp, e))?;
            file.get_ref()
                .sync_all()
                .map_err(|e| FsError::io(&tmp, e))?;
        }
        Ok(())
    }

    /// Renames the temporary file over the destination, keeping a link to the old file
    /// when `keep_old` (batch step two; the caller syncs the folder).
    fn replace(mut self, keep_old: bool) -> Result<Replaced, FsError> {
        let Target::Atomic { file, tmp, dest } = std::mem::replace(&mut self.target, Target::Done)
        else {
            return Err(FsError::io(
                &self.name,
                std::io::Error::other("not a regular file"),
            ));
        };
        drop(file);
        let existed = std::fs::symlink_metadata(&dest).is_ok_and(|m| m.is_file());
        let backup = if existed && keep_old {
            let b = tmp.with_file_name(format!(
                "{}old-{}",
                tmp.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                COUNTER.fetch_add(1, Ordering::Relaxed)
            ));
            // Best effort: without hard links the old file cannot be put back.
            std::fs::hard_link(&dest, &b).ok().map(|()| {
                pending(|l| l.push(b.clone()));
                b
            })
        } else {
            None
        };
        let renamed = std::fs::rename(&tmp, &dest);
        pending(|l| l.retain(|p| p != &tmp));
        if let Err(e) = renamed {
            let _ = std::fs::remove_file(&tmp);
            if let Some(b) = backup {
                let _ = std::fs::remove_file(&b);
                pending(|l| l.retain(|p| p != &b));
            }
            return Err(FsError::io(&self.name, e));
        }
        Ok(Replaced {
            dest,
            backup: if existed { backup } else { None },
        })
    }
}

/// Writes `bytes` to `path` as one [`Output`] (`-` is standard output).
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), FsError> {
    let mut out = Output::create(path)?;
    out.write_all(bytes)
        .map_err(|e| FsError::io(out.path().to_path_buf(), e))?;
    out.commit()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    fn dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("dash-fs-out-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn names(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn replaces_a_regular_file_and_leaves_no_temp() {
        let d = dir("plain");
        let p = d.join("out.bin");
        write_file(&p, b"one").unwrap();
        write_file(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        assert_eq!(names(&d), ["out.bin"]);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn keeps_the_mode_follows_links_and_writes_devices_directly() {
        use std::os::unix::fs::PermissionsExt;
        let d = dir("unix");
        let p = d.join("secret.json");
        std::fs::write(&p, b"old").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
        write_file(&p, b"new").unwrap();
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o600);
        let link = d.join("link.json");
        std::os::unix::fs::symlink("secret.json", &link).unwrap();
        write_file(&link, b"through").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(&p).unwrap(), b"through");
        let dangling = d.join("dangling.json");
        std::os::unix::fs::symlink("target.json", &dangling).unwrap();
        write_file(&dangling, b"made").unwrap();
        assert_eq!(std::fs::read(d.join("target.json")).unwrap(), b"made");
        if Path::new("/dev/null").exists() {
            write_file(Path::new("/dev/null"), b"gone").unwrap();
            let m = std::fs::metadata("/dev/null").unwrap();
            assert!(special_kind(&m).is_some(), "/dev/null is still a device");
        }
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn an_uncommitted_output_leaves_the_destination_alone() {
        let d = dir("drop");
        let p = d.join("keep.bin");
        std::fs::write(&p, b"before").unwrap();
        {
            let mut o = Output::create(&p).unwrap();
            o.write_all(b"partial").unwrap();
        }
        assert_eq!(std::fs::read(&p).unwrap(), b"before");
        assert_eq!(names(&d), ["keep.bin"]);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_batch_replaces_all_or_nothing() {
        let d = dir("batch");
        std::fs::write(d.join("m.gltf"), b"old gltf").unwrap();
        std::fs::write(d.join("m.bin"), b"old bin").unwrap();
        // The .gltf cannot be written (a folder is in the way): the .bin stays old.
        std::fs::create_dir(d.join("x.gltf")).unwrap();
        let mut b = Batch::new();
        b.add(&d.join("m.bin"), b"new bin").unwrap();
        assert!(b.add(&d.join("x.gltf"), b"new gltf").is_err());
        drop(b);
        assert_eq!(std::fs::read(d.join("m.bin")).unwrap(), b"old bin");
        // A rename that fails puts back what the batch replaced before it.
        let mut b = Batch::new();
        b.add(&d.join("m.bin"), b"new bin").unwrap();
        b.add(&d.join("m.gltf"), b"new gltf").unwrap();
        b.add(&d.join("fresh.json"), b"new").unwrap();
        b.add(&d.join("late.json"), b"late").unwrap();
        // The last destination turns into a folder between the write and the rename.
        std::fs::create_dir(d.join("late.json")).unwrap();
        std::fs::write(d.join("late.json/keep"), b"").unwrap();
        assert!(b.commit().is_err());
        assert_eq!(std::fs::read(d.join("m.bin")).unwrap(), b"old bin");
        assert_eq!(std::fs::read(d.join("m.gltf")).unwrap(), b"old gltf");
        assert!(!d.join("fresh.json").exists());
        std::fs::remove_dir_all(d.join("late.json")).unwrap();
        std::fs::remove_dir(d.join("x.gltf")).unwrap();
        assert_eq!(
            names(&d),
            ["m.bin", "m.gltf"],
            "no temporary or backup file stays"
        );
        // And a batch that succeeds replaces every file.
        let mut b = Batch::new();
        b.add(&d.join("m.bin"), b"new bin").unwrap();
        b.add(&d.join("m.gltf"), b"new gltf").unwrap();
        b.commit().unwrap();
        assert_eq!(std::fs::read(d.join("m.gltf")).unwrap(), b"new gltf");
        assert_eq!(names(&d), ["m.bin", "m.gltf"]);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_batch_synced_early_changes_nothing_until_its_commit() {
        let d = dir("synced");
        std::fs::write(d.join("m.glb"), b"old").unwrap();
        // Synced, then dropped (the check of the output failed): nothing changed, no
        // temporary file stays.
        let mut b = Batch::new();
        b.add(&d.join("m.glb"), b"new").unwrap();
        b.sync().unwrap();
        assert_eq!(std::fs::read(d.join("m.glb")).unwrap(), b"old");
        drop(b);
        assert_eq!(std::fs::read(d.join("m.glb")).unwrap(), b"old");
        assert_eq!(names(&d), ["m.glb"]);
        // Synced, one more file added, committed: both replaced.
        let mut b = Batch::new();
        b.add(&d.join("m.glb"), b"new").unwrap();
        b.sync().unwrap();
        b.add(&d.join("r.json"), b"{}").unwrap();
        b.sync().unwrap();
        b.commit().unwrap();
        assert_eq!(std::fs::read(d.join("m.glb")).unwrap(), b"new");
        assert_eq!(std::fs::read(d.join("r.json")).unwrap(), b"{}");
        assert_eq!(names(&d), ["m.glb", "r.json"]);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn stale_temps_of_dead_processes_are_removed() {
        if !Path::new("/proc/self").exists() {
            return;
        }
        let d = dir("stale");
        // PID 4194305 is above Linux's largest (2^22), so it never runs.
        std::fs::write(d.join(".x.glb.dash-tmp-4194305-0"), b"left by a kill").unwrap();
        write_file(&d.join("x.glb"), b"new").unwrap();
        assert_eq!(names(&d), ["x.glb"]);
        std::fs::remove_dir_all(&d).unwrap();
    }
}
