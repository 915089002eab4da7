//! Functions still over the limit (issue 49), each capped at its length when the check came
//! in: it may shrink but not grow, and once it fits its entry must go (the check fails on a
//! stale entry), so the list only gets shorter. Split a function into named steps rather
//! than raising its number.

/// `(file, function, lines)` of each function allowed over the limit for now.
pub const ALLOWED: &[(&str, &str, usize)] = &[];
