#![no_main]
//! Fuzz target: see `dash_fuzz::binary_decode`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| dash_fuzz::binary_decode(data));
