//! The worker threads: one rayon pool per thread count asked for, built on first use
//! and kept, so every call runs its parallel loops on the same threads. How many threads
//! a count stands for, what fits under a memory limit and how a pool that cannot start
//! is retried are the policy every front end shares ([`dashvertex_app::threads`]); this
//! module only keeps the pools and says a capped request as a Python keyword error.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use dashvertex_app::threads;

use crate::errors::{Failure, Result};

static POOLS: OnceLock<Mutex<HashMap<usize, Arc<rayon::ThreadPool>>>> = OnceLock::new();

/// The threads `threads` stands for (`None` or 0: one per core), refused when the policy
/// would cap it: a keyword asking for more than the machine runs is a mistake to name.
fn wanted(threads: Option<usize>) -> Result<usize> {
    let plan = threads::plan(threads.unwrap_or(0));
    if plan.capped {
        return Err(Failure::option(format!(
            "threads={} is more than {} per core ({} on this machine)",
            threads.unwrap_or(0),
            threads::PER_CORE,
            plan.wanted
        )));
    }
    Ok(plan.threads)
}

/// Runs `f` on the pool of `threads` threads (on the calling thread alone when no worker
/// can be started).
pub fn run<R: Send>(threads: Option<usize>, f: impl FnOnce() -> R + Send) -> Result<R> {
    let n = wanted(threads)?;
    let pools = POOLS.get_or_init(|| Mutex::new(HashMap::new()));
    let pool = {
        let mut map = pools
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match map.get(&n) {
            Some(p) => Some(Arc::clone(p)),
            None => threads::first_that_builds(n, threads::build).map(|(p, _)| {
                let p = Arc::new(p);
                map.insert(n, Arc::clone(&p));
                p
            }),
        }
    };
    Ok(match pool {
        Some(p) => p.install(f),
        None => f(),
    })
}
