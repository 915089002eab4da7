#![no_main]
//! Fuzz target: see `dash_fuzz::meshopt_decode`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| dash_fuzz::meshopt_decode(data));
