//! Collects diagnostics: every finding is counted, the first few are kept.

use std::collections::BTreeMap;

use crate::codes::Code;
use crate::diagnostic::{Diagnostic, Location};

/// Where checks put their findings.
#[derive(Debug)]
pub struct Sink {
    max: usize,
    counts: BTreeMap<Code, u64>,
    kept: Vec<Diagnostic>,
    /// Codes the user allowed: neither counted nor kept.
    allowed: Vec<Code>,
    /// Codes counted but never kept ([`crate::Level::Count`]).
    counted: Vec<Code>,
}

impl Sink {
    /// A sink that keeps at most `max` diagnostics (all are counted).
    pub fn new(max: usize) -> Self {
        Sink {
            max,
            counts: BTreeMap::new(),
            kept: Vec::new(),
            allowed: Vec::new(),
            counted: Vec::new(),
        }
    }

    /// The sink a validation run with `opts` reports into: its diagnostic limit, and the
    /// codes it allows left out.
    pub fn for_options(opts: &crate::Options) -> Self {
        let mut s = Sink::new(opts.max_diagnostics);
        s.allowed = opts
            .levels
            .iter()
            .filter(|(_, l)| **l == crate::Level::Allow)
            .map(|(c, _)| *c)
            .collect();
        s.counted = opts
            .levels
            .iter()
            .filter(|(_, l)| **l == crate::Level::Count)
            .map(|(c, _)| *c)
            .collect();
        s
    }

    /// Records a finding of `code`; where it is (`at`) and what it says (`message`) are
    /// worked out only when the diagnostic is kept: most findings of a large file are only
    /// counted, and a location can cost a JSON Pointer and a line lookup.
    pub fn report<M: Into<String>>(
        &mut self,
        code: Code,
        at: impl FnOnce() -> Location,
        message: impl FnOnce() -> M,
    ) {
        self.push(code, || Diagnostic::new(code, message(), at()));
    }

    /// Records a finding; `make` runs only when the diagnostic is kept.
    pub fn push(&mut self, code: Code, make: impl FnOnce() -> Diagnostic) {
        if self.allowed.contains(&code) {
            return;
        }
        let n = self.counts.entry(code).or_insert(0);
        *n += 1;
        if self.kept.len() < self.max && !self.counted.contains(&code) {
            self.kept.push(make());
        }
    }

    #[cfg(test)]
    pub fn total(&self) -> u64 {
        self.counts.values().sum()
    }

    /// Appends the findings of `later`, a sink that checked what comes after this one's
    /// (a later chunk of vertices): the result is what one sink would hold had it seen
    /// both in order, whatever the chunking.
    pub fn append(&mut self, later: Sink) {
        for (code, n) in later.counts {
            *self.counts.entry(code).or_insert(0) += n;
        }
        let room = self.max.saturating_sub(self.kept.len());
        self.kept.extend(later.kept.into_iter().take(room));
    }

    /// A sink for a later chunk of the same checks, keeping as many as this one may.
    pub fn fork(&self) -> Sink {
        let mut s = Sink::new(self.max.saturating_sub(self.kept.len()));
        s.allowed.clone_from(&self.allowed);
        s.counted.clone_from(&self.counted);
        s
    }

    /// Splits into the counts per code and the kept diagnostics.
    pub fn into_parts(self) -> (BTreeMap<Code, u64>, Vec<Diagnostic>) {
        (self.counts, self.kept)
    }
}
