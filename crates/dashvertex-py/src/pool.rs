//! The worker threads: one rayon pool per thread count asked for, built on first use
//! and kept, so every call runs its parallel loops on the same threads. The library
//! loops join their results in a fixed order, so the count changes only the speed.
//!
//! rayon's global pool is never built (as in the CLI): when building it fails, rayon
//! keeps it marked as set while holding none, and the next parallel loop panics. A pool
//! that cannot start its threads is retried with half as many, down to a pool on the
//! calling thread alone.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::errors::{Failure, Result};

/// Each worker's stack, as a main thread's (the CLI's choice).
const STACK_BYTES: usize = 8 << 20;

/// The most threads per core a caller may ask for: more only queue for the cores.
const PER_CORE: usize = 4;

static POOLS: OnceLock<Mutex<HashMap<usize, Arc<rayon::ThreadPool>>>> = OnceLock::new();

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}

/// The threads `threads` stands for: `None` or 0 is one per core.
fn wanted(threads: Option<usize>) -> Result<usize> {
    let most = cores() * PER_CORE;
    match threads.unwrap_or(0) {
        0 => Ok(cores()),
        n if n > most => Err(Failure::option(format!(
            "threads={n} is more than {PER_CORE} per core ({most} on this machine)"
        ))),
        n => Ok(n),
    }
}

/// The first pool that starts, from `n` threads halving down; `None` when not even one
/// worker starts.
fn build(mut n: usize) -> Option<rayon::ThreadPool> {
    loop {
        let built = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .stack_size(STACK_BYTES)
            .thread_name(|i| format!("dashvertex-{i}"))
            .build();
        match built {
            Ok(p) => return Some(p),
            Err(_) if n > 1 => n /= 2,
            Err(_) => return None,
        }
    }
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
            None => build(n).map(|p| {
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
