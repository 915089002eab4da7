//! The thread-pool policy every native front end shares: how many threads a request
//! stands for (`0`: one per core; at most [`PER_CORE`] per core), how many fit under the
//! process's memory limit, each worker's stack, and how a pool that cannot start all its
//! threads is retried with fewer. The CLI builds one pool for the process, on its main
//! thread ([`build_with_calling_thread`]); the Python package one per count asked for
//! ([`build`]); neither states a number of its own.
//!
//! rayon's global pool is never built: when `build_global` fails (a thread cannot be
//! started under an address-space limit), rayon marks the global pool as set while
//! holding none, and the first parallel loop panics (`GlobalPoolAlreadyInitialized`).
//! A local pool can be built again with fewer threads after a failure; and because rayon
//! registers the calling thread before it starts the others, a pool that failed to start
//! a thread would leave the calling thread in a dead pool: so every other thread is
//! started first, waiting for its part of the pool, and the pool is assembled only
//! once all of them run.
//!
//! The calling (main) thread as the pool's first worker: a command runs on it, and only
//! the parallel loops go to the other threads. Work on the main thread allocates from
//! glibc's main arena, which grows its heap in large steps; a secondary arena grows a page
//! range at a time, one `mprotect` call each, which costs a small file about a tenth of
//! its run. It also starts one thread fewer.
//!
//! The thread count changes only how fast a job runs: every parallel step joins its
//! results in a fixed order, so outputs and reports are the same at any count.

/// The most threads per core `--threads` can start: more only queue for the cores.
pub const PER_CORE: usize = 4;

/// Each started worker's stack: a main thread's, as parallel loops may run any step.
pub const STACK_BYTES: usize = 8 << 20;

/// The address space one worker thread takes: its stack and, with glibc, the allocator
/// arena its first allocation creates (64 MiB reserved on 64-bit systems).
const THREAD_ADDRESS_SPACE: u64 = STACK_BYTES as u64 + (64 << 20);

/// Under a memory limit, the pool's threads may take a quarter of it: the rest is for
/// the data. (Threads that fit but leave no room make the first large read fail.)
const LIMIT_SHARE: u64 = 4;

/// What a front end's pool start gave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Started {
    /// The threads wanted: the count asked for, one per core for 0, at most [`PER_CORE`]
    /// per core.
    pub wanted: usize,
    /// The threads working (the calling thread alone counts as 1).
    pub threads: usize,
    /// Whether the request was for more than [`PER_CORE`] per core.
    pub capped: bool,
}

/// The threads `requested` (0: one per core) stands for on `cores` cores, and whether
/// the per-core bound cut it.
pub fn wanted(requested: usize, cores: usize) -> (usize, bool) {
    let cores = cores.max(1);
    let most = cores.saturating_mul(PER_CORE);
    match requested {
        0 => (cores, false),
        n => (n.min(most), n > most),
    }
}

/// One attempt at a pool of `n` threads: the pool, or how many of its threads (the
/// calling one among them) were running when one more could not be started (the others
/// have ended when this returns).
pub type Attempt<P> = Result<P, usize>;

/// The first pool `build` can start, trying `wanted` threads first; after a failure
/// where `k` threads did start, `k / 2`: a pool that barely fits would leave no room for
/// the data, and under an address-space limit each thread costs its stack and, with
/// glibc, an allocator arena. `None` when no pool beside the calling thread alone can be
/// started; the count tried last otherwise.
pub fn first_that_builds<P>(
    wanted: usize,
    mut build: impl FnMut(usize) -> Attempt<P>,
) -> Option<(P, usize)> {
    let mut n = wanted.max(1);
    loop {
        match build(n) {
            Ok(p) => return Some((p, n)),
            Err(started) => {
                let next = started.min(n.saturating_sub(1)) / 2;
                if next == 0 {
                    return None;
                }
                n = next;
            }
        }
    }
}

/// A rayon pool of `n` threads counting the calling thread, or how many threads (the
/// calling one among them) were running when one more could not be started. The
/// threads of a failed attempt have ended when this returns, so the next attempt finds
/// their stacks free.
pub fn build_with_calling_thread(n: usize) -> Attempt<rayon::ThreadPool> {
    let mut parked = Vec::new();
    for i in 1..n {
        match park(format!("dash-worker-{i}")) {
            Ok(p) => parked.push(p),
            Err(_) => {
                let running = parked.len() + 1;
                // Each ends as soon as its channel closes.
                for (tx, handle) in parked {
                    drop(tx);
                    let _ = handle.join();
                }
                return Err(running);
            }
        }
    }
    let mut waiting = parked.into_iter();
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .use_current_thread()
        .spawn_handler(move |thread| {
            // The threads run until the pool is dropped: their handles are let go.
            let (tx, _handle) = waiting
                .next()
                .ok_or_else(|| std::io::Error::other("no started thread left"))?;
            tx.send(thread)
                .map_err(|_| std::io::Error::other("a started thread has ended"))
        })
        .build()
        // Not reached with every thread running; counted as the calling thread alone.
        .map_err(|_| 1)
}

/// A thread started ahead of the pool: it runs the worker it is sent, and ends without
/// one when the sender is dropped.
type Parked = (
    std::sync::mpsc::Sender<rayon::ThreadBuilder>,
    std::thread::JoinHandle<()>,
);

/// Starts a thread named `name` that waits for its part of the pool.
fn park(name: String) -> std::io::Result<Parked> {
    let (tx, rx) = std::sync::mpsc::channel::<rayon::ThreadBuilder>();
    let handle = std::thread::Builder::new()
        .name(name)
        .stack_size(STACK_BYTES)
        .spawn(move || {
            if let Ok(worker) = rx.recv() {
                worker.run();
            }
        })?;
    Ok((tx, handle))
}

/// The threads a pool for `requested` (0: one per core) should start on this machine:
/// the count asked for, capped at [`PER_CORE`] per core and at what the memory limit
/// leaves room for (see [`room`]). `Started::capped` says whether the per-core cap cut it.
pub fn plan(requested: usize) -> Started {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let (wanted, capped) = wanted(requested, cores);
    let threads = fit(wanted);
    Started {
        wanted,
        threads,
        capped,
    }
}

/// The threads of `wanted` that fit under the process's memory limit (at least 1).
pub fn fit(wanted: usize) -> usize {
    wanted.min(room(memory_limit()).saturating_add(1)).max(1)
}

/// A pool of `n` worker threads beside the calling one (which stays out of it), or how
/// many were running when one more could not be started.
pub fn build(n: usize) -> Attempt<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .stack_size(STACK_BYTES)
        .thread_name(|i| format!("dashvertex-{i}"))
        .build()
        // rayon does not say how many started: count the calling thread alone.
        .map_err(|_| 1)
}

/// The smaller of the process's address-space and data-size limits (`ulimit -v`,
/// `ulimit -d`) when one is set, as Linux lists them in `/proc/self/limits`; `None`
/// when neither is set or they cannot be read (other systems).
fn memory_limit() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/limits").ok()?;
    memory_limit_in(&text)
}

/// The memory limit a `/proc/self/limits` text sets (its soft limits).
pub fn memory_limit_in(limits: &str) -> Option<u64> {
    limits
        .lines()
        .filter(|l| l.starts_with("Max address space") || l.starts_with("Max data size"))
        .filter_map(|l| l.split_whitespace().nth(3)?.parse::<u64>().ok())
        .min()
}

/// How many threads beside the calling one fit in a memory limit of `limit` bytes (any
/// number without).
pub fn room(limit: Option<u64>) -> usize {
    limit.map_or(usize::MAX, |l| {
        usize::try_from(l / LIMIT_SHARE / THREAD_ADDRESS_SPACE).unwrap_or(usize::MAX)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_count_is_bounded_by_the_cores() {
        assert_eq!(wanted(0, 6), (6, false));
        assert_eq!(wanted(3, 2), (3, false));
        assert_eq!(wanted(8, 2), (8, false));
        assert_eq!(wanted(28, 2), (8, true));
        assert_eq!(wanted(1000, 0), (PER_CORE, true));
    }

    #[test]
    fn a_memory_limit_leaves_three_quarters_to_the_data() {
        let limits = "Limit                     Soft Limit           Hard Limit           Units\n\
                      Max data size             unlimited            unlimited            bytes\n\
                      Max address space         268435456            268435456            bytes\n";
        assert_eq!(memory_limit_in(limits), Some(268_435_456));
        // 256 MiB: a quarter is less than one thread's stack and arena.
        assert_eq!(room(memory_limit_in(limits)), 0);
        assert_eq!(room(Some(2 << 30)), 7);
        assert_eq!(room(None), usize::MAX);
        let unlimited =
            "Max address space         unlimited            unlimited            bytes\n";
        assert_eq!(memory_limit_in(unlimited), None);
    }

    #[test]
    fn a_pool_that_cannot_start_takes_half_of_what_did() {
        // Room for 5 threads: 28 starts 5 and fails, so 2 (half of 5) are tried.
        let mut tried = Vec::new();
        let got = first_that_builds(28, |n| {
            tried.push(n);
            if n <= 5 { Ok(n) } else { Err(5) }
        });
        assert_eq!(got, Some((2, 2)));
        assert_eq!(tried, [28, 2]);
        // A pool that fits once but not again halves until it does.
        let mut tried = Vec::new();
        let got = first_that_builds(8, |n| {
            tried.push(n);
            if n == 1 { Ok(n) } else { Err(n) }
        });
        assert_eq!(got, Some((1, 1)));
        assert_eq!(tried, [8, 3, 1]);
        // Room for one thread only, or none: the calling thread alone.
        let one: Option<((), usize)> = first_that_builds(6, |_| Err(1));
        assert_eq!(one, None);
        let none: Option<((), usize)> = first_that_builds(1, |_| Err(0));
        assert_eq!(none, None);
    }
}
