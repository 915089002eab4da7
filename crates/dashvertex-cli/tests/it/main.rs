//! Integration tests of the `dash` and `dash-validate` commands: the `.case` files in `tests/cases/`, and what a transcript cannot show (hostile files, thread counts, schemas, pseudo-terminals).
//!
//! One test binary per crate: each module here was a test target of its own.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::Path;

/// Every `tests/cases/*.case` script against its `.out` transcript
/// (`BLESS=1 cargo test -p dashvertex-cli --test it cases` rewrites them).
#[test]
fn cases() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    dashvertex_testkit::cases::run_all(
        &dir,
        &[
            ("dash", Path::new(env!("CARGO_BIN_EXE_dash"))),
            (
                "dash-validate",
                Path::new(env!("CARGO_BIN_EXE_dash-validate")),
            ),
        ],
    );
}

mod adversarial;
mod adversarial_budgets;
mod behaviour;
mod blender_loss;
mod cli;
mod fix;
mod hostile_files;
mod pruned_output;
mod reduce;
mod remap;
mod threads;
mod validate_cli;
mod validate_hostile_files;
mod validate_threads;
