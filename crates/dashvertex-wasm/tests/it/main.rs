//! Integration tests of dashvertex-wasm's plain Rust layer (the wasm-bindgen layer over
//! it is exercised in a real browser by `tools/web-test.sh`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod decode;
mod reduce;
mod validate;

/// A file of the repository's `examples/` folder.
pub fn example(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
