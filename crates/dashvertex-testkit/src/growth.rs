//! Complexity guards that hold on a loaded machine: the CPU time a piece of work takes at
//! size n and at 8n, measured on the calling thread in the same run.
//!
//! Wall-clock bounds fail when other processes share the cores; the thread's own CPU time
//! does not grow with their load, and a ratio between two sizes cancels the machine's
//! speed. Linear work grows about 8× from n to 8n, n·log n about 9–10×, quadratic 64×:
//! [`assert_grows_at_most`] with a bound of 24 separates them with a wide margin.

use std::time::Duration;

/// CPU time the calling thread has run so far (`/proc/thread-self/schedstat`, Linux).
/// `None` where the kernel does not say.
pub fn thread_cpu() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// The least CPU time of three runs of `work(size)` on this thread.
fn least_of_three(work: &mut impl FnMut(usize), size: usize) -> Option<Duration> {
    let mut least: Option<Duration> = None;
    for _ in 0..3 {
        let before = thread_cpu()?;
        work(size);
        let spent = thread_cpu()?.saturating_sub(before);
        least = Some(least.map_or(spent, |l| l.min(spent)));
    }
    least
}

/// How many times more CPU time `work(8 * n)` takes than `work(n)` (the least of three
/// runs each), or `None` where the thread's CPU time cannot be read.
pub fn growth(mut work: impl FnMut(usize), n: usize) -> Option<f64> {
    let small = least_of_three(&mut work, n)?;
    let large = least_of_three(&mut work, 8 * n)?;
    // A floor of 1 ms keeps a size too small to measure from making the ratio noise.
    let floor = Duration::from_millis(1);
    Some(large.as_secs_f64() / small.max(floor).as_secs_f64())
}

/// Fails the test when `work` grows more than `bound` times from `n` to `8n` (see the
/// module's notes for the bound). Prints a SKIPPED line where CPU time cannot be read.
pub fn assert_grows_at_most(what: &str, work: impl FnMut(usize), n: usize, bound: f64) {
    match growth(work, n) {
        Some(g) => assert!(
            g <= bound,
            "{what}: {g:.1}× the CPU time from n = {n} to 8n (at most {bound}× expected)"
        ),
        None => eprintln!("SKIPPED: {what}: this kernel does not report a thread's CPU time"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn linear(n: usize) {
        let mut s = 0u64;
        for i in 0..n as u64 * 2_000 {
            s = std::hint::black_box(s.wrapping_add(i));
        }
    }

    fn quadratic(n: usize) {
        let mut s = 0u64;
        for i in 0..n as u64 {
            for j in 0..n as u64 {
                s = std::hint::black_box(s.wrapping_add(i ^ j));
            }
        }
    }

    #[test]
    fn linear_and_quadratic_work_are_told_apart() {
        let (Some(lin), Some(quad)) = (growth(linear, 2_000), growth(quadratic, 400)) else {
            eprintln!("SKIPPED: no thread CPU time here");
            return;
        };
        assert!(lin < 24.0, "linear grew {lin}");
        assert!(quad > 24.0, "quadratic grew {quad}");
    }
}
