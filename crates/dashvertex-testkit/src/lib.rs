//! Test support shared by the dash crates' integration tests (a dev-dependency only).
//!
//! - [`repo`]: the repository root, so tests read `examples/`, `spec/vectors/` and
//!   `fixtures/` from the clone and nothing beside it;
//! - [`Scratch`]: a fresh folder per test, removed when the test passes;
//! - [`run_limited`]: a command in a child process under an address-space limit and a
//!   time bound, failing the test on a crash, a signal or an exit code other than 0/1/2;
//! - [`growth`]: complexity guards as the CPU-time ratio of work at n and 8n (never a
//!   wall-clock bound);
//! - [`snapshot`] and [`changes`]: what a run created, changed or removed in a folder;
//! - [`gltf::SkinnedGlb`]: skinned GLB files with several primitives and sets and
//!   chosen faults, built in memory;
//! - [`animated::AnimatedGlb`]: animated skinned GLB files of hostile sizes (keyframes,
//!   unused nodes, coincident vertices, swings between keys, non-finite values);
//! - [`shaped::ShapedGlb`]: large GLB files shaped like Blender's exports (NORMAL,
//!   TEXCOORD_0, indices, 16 influences) for the whole-process benchmarks;
//! - [`oracle::oracle`]: the official Khronos validator as a test oracle;
//! - [`cases`]: command-line cases as `.case` scripts with `.out` transcripts;
//! - [`hostile`]: a proptest strategy of input files — mutated seeds from the repository,
//!   random bytes, and glTF files whose declared numbers lie ([`declared`]) — for
//!   CLI-level property tests.
#![allow(clippy::panic, clippy::expect_used, clippy::indexing_slicing)]
// Test support builds fixtures from small constant sizes the tests choose, never from
// numbers in a file it reads, so the workspace's cast lints (denied for every library that
// parses input) are allowed here rather than spelled as `try_from` on constants.
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap
)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

pub mod animated;
pub mod cases;
pub mod declared;
pub mod fbx;
pub mod gltf;
pub mod growth;
pub mod hostile;
pub mod oracle;
pub mod shaped;

/// The repository root (two levels above a crate's manifest folder).
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fresh, empty folder under the system temp folder, removed on drop unless the
/// thread is panicking (so a failing test leaves its files to look at).
pub struct Scratch(PathBuf);

impl Scratch {
    /// Creates `$TMP/dash-<tag>-<pid>-<n>`, removing what a previous run left there.
    pub fn new(tag: &str) -> Scratch {
        use std::sync::atomic::{AtomicU64, Ordering};
        static N: AtomicU64 = AtomicU64::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let d = std::env::temp_dir().join(format!("dash-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("create a scratch folder");
        Scratch(d)
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// Address-space limit of [`run_limited`] children: 256 MiB.
pub const MEMORY_KIB: u64 = 256 * 1024;

/// A child that has used no CPU for this long is taken to wait forever (on a FIFO, a
/// lock, a terminal) and is killed: a hang guard, far beyond any test's work even on a
/// loaded machine, never a bound on speed.
pub const HANG_SECS: u64 = 300;

/// Runs `exe args…` in `dir` under `ulimit -v` [`MEMORY_KIB`] and `ulimit -t secs` (CPU
/// seconds, which other processes' load does not use up), with standard input empty.
/// Fails the test when the child spends more than `secs` of CPU (the kernel stops it),
/// waits longer than [`HANG_SECS`] (it is killed), or ends other than with exit 0, 1 or 2
/// (a crash, an abort at the memory limit, a signal).
pub fn run_limited(exe: &Path, dir: &Path, args: &[&str], secs: u64) -> Output {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {MEMORY_KIB} && ulimit -t {secs} && exec \"$0\" \"$@\""
        ))
        .arg(exe)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn a child");
    // Drain the pipes while waiting: a chatty child must not block on a full pipe.
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stdout, &mut b);
        b
    });
    let err = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stderr, &mut b);
        b
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed() > Duration::from_secs(HANG_SECS.max(secs)) {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{} {args:?} still waiting after {HANG_SECS} s",
                exe.display()
            );
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let output = Output {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    };
    let code = output.status.code();
    assert!(
        matches!(code, Some(0..=2)),
        "{} {args:?}: exit {code:?} (a crash, a signal, the memory limit or over {secs} CPU s)\n{}",
        exe.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// One file's state in a [`snapshot`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileState {
    /// Size in bytes (0 for folders and links).
    pub len: u64,
    /// FNV-1a hash of the contents (0 for folders and links).
    pub hash: u64,
    /// Permission bits (Unix), else 0.
    pub mode: u32,
    /// "file", "dir", "link" or "other".
    pub kind: &'static str,
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Asserts that a run was refused (exit status 1) and that its standard error says
/// `says`; the message shows what it said instead.
#[track_caller]
pub fn assert_refused(o: &Output, says: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains(says), "expected {says:?} in: {err}");
}

/// The files below `dir` whose extension is one of `extensions`, sorted (folders are
/// walked without recursion; links are not followed into).
pub fn files_under(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = snapshot(dir)
        .into_iter()
        .filter(|(p, s)| {
            s.kind == "file"
                && Path::new(p)
                    .extension()
                    .and_then(|x| x.to_str())
                    .is_some_and(|x| extensions.contains(&x))
        })
        .map(|(p, _)| dir.join(p))
        .collect();
    out.sort();
    out
}

/// Every entry below `dir` (not following links), by relative path.
pub fn snapshot(dir: &Path) -> BTreeMap<String, FileState> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let Ok(meta) = std::fs::symlink_metadata(&p) else {
                continue;
            };
            let ft = meta.file_type();
            let kind = if ft.is_file() {
                "file"
            } else if ft.is_dir() {
                stack.push(p.clone());
                "dir"
            } else if ft.is_symlink() {
                "link"
            } else {
                "other"
            };
            let hash = if ft.is_file() {
                std::fs::read(&p).map(|b| fnv(&b)).unwrap_or(0)
            } else {
                0
            };
            #[cfg(unix)]
            let mode = std::os::unix::fs::PermissionsExt::mode(&meta.permissions());
            #[cfg(not(unix))]
            let mode = 0;
            let rel = p.strip_prefix(dir).unwrap_or(&p).display().to_string();
            out.insert(
                rel,
                FileState {
                    len: if ft.is_file() { meta.len() } else { 0 },
                    hash,
                    mode,
                    kind,
                },
            );
        }
    }
    out
}

/// The paths created, changed or removed between two snapshots, sorted.
pub fn changes(
    before: &BTreeMap<String, FileState>,
    after: &BTreeMap<String, FileState>,
) -> Vec<String> {
    let mut out: Vec<String> = after
        .iter()
        .filter(|(k, v)| before.get(*k) != Some(v))
        .map(|(k, _)| k.clone())
        .collect();
    out.extend(before.keys().filter(|k| !after.contains_key(*k)).cloned());
    out.sort();
    out.dedup();
    out
}
