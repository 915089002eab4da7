#![no_main]
//! Fuzz target: see `dash_fuzz::json_schema_agreement`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| dash_fuzz::json_schema_agreement(data));
