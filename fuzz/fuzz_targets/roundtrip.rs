#![no_main]
//! Fuzz target: see `dash_fuzz::roundtrip`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| dash_fuzz::roundtrip(data));
