#![no_main]
//! Fuzz target: see `dash_fuzz::reduce`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| dash_fuzz::reduce(data));
