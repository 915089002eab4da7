#![no_main]
//! Fuzz target: see `dash_fuzz::validate_any`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| dash_fuzz::validate_any(data));
