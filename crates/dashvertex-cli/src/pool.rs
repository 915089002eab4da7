//! The process's thread pool: started once, before any work, on the main thread, with the
//! threads `--threads` asks for as the shared policy counts them
//! ([`dashvertex_app::threads`]); commands run inside it ([`run`]), so every parallel loop
//! of the libraries uses it.

use std::sync::OnceLock;

use dashvertex_app::threads::{self, Started};

pub use dashvertex_app::threads::PER_CORE;

static POOL: OnceLock<rayon::ThreadPool> = OnceLock::new();

/// Starts the process's pool (once; a second call reports the first pool).
pub fn start(requested: usize, cores: usize) -> Started {
    let (wanted, capped) = threads::wanted(requested, cores);
    let fit = threads::fit(wanted);
    let pool = POOL.get_or_init(|| {
        match threads::first_that_builds(fit, threads::build_with_calling_thread) {
            Some((pool, _)) => pool,
            // Not one more thread starts: the calling thread is the pool's only worker
            // (nothing to spawn, so nothing to fail but memory itself).
            None => match rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .use_current_thread()
                .build()
            {
                Ok(pool) => pool,
                Err(_) => unreachable_pool(),
            },
        }
    });
    Started {
        wanted,
        threads: pool.current_num_threads(),
        capped,
    }
}

/// Building a one-thread pool on the calling thread fails only when that thread already
/// belongs to a pool: [`start`] runs once, on the main thread, and an attempt hands the
/// calling thread to rayon only once every other thread runs, so that a failed build
/// cannot leave it in one. Should it happen all the same, the process stops with the
/// same message as any failed start.
fn unreachable_pool() -> ! {
    anstream::eprintln!("error: no thread pool could be set up, not even on the calling thread");
    std::process::exit(2)
}

/// Runs `f` in the process's pool (on the calling thread when [`start`] was not called).
pub fn run<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    match POOL.get() {
        Some(pool) => pool.install(f),
        None => f(),
    }
}
