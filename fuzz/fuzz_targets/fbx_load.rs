#![no_main]
//! Fuzz target: see `dash_fuzz::fbx_load`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| dash_fuzz::fbx_load(data));
