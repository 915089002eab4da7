//! The progress bar of a `dash-validate` run.

use std::io::IsTerminal;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::walk::Item;

/// A progress bar on standard error (bytes over all files), shown only on a terminal
/// and only once a run has taken more than a second.
pub(crate) struct Progress {
    /// The bar, once shown.
    pub(crate) bar: std::sync::OnceLock<indicatif::ProgressBar>,
    start: Instant,
    total: u64,
    done_before: std::sync::atomic::AtomicU64,
}

impl Progress {
    pub(crate) fn new(files: &[Item]) -> Self {
        Progress {
            bar: std::sync::OnceLock::new(),
            start: Instant::now(),
            total: files
                .iter()
                .filter_map(|i| std::fs::metadata(i.path()).ok())
                .map(|m| m.len())
                .sum(),
            done_before: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Bytes of the current file done.
    pub(crate) fn update(&self, in_file: u64) {
        if !std::io::stderr().is_terminal() || self.start.elapsed() < Duration::from_secs(1) {
            return;
        }
        let bar = self.bar.get_or_init(|| {
            let b = indicatif::ProgressBar::new(self.total);
            if let Ok(style) =
                indicatif::ProgressStyle::with_template("{bar:30} {bytes}/{total_bytes} {msg}")
            {
                b.set_style(style);
            }
            b
        });
        let before = self.done_before.load(std::sync::atomic::Ordering::Relaxed);
        bar.set_position(before + in_file);
    }

    pub(crate) fn file_done(&self, path: &Path) {
        let len = std::fs::metadata(path).map_or(0, |m| m.len());
        self.done_before
            .fetch_add(len, std::sync::atomic::Ordering::Relaxed);
        self.update(0);
    }

    pub(crate) fn clear(&self) {
        if let Some(b) = self.bar.get() {
            b.finish_and_clear();
        }
    }
}
