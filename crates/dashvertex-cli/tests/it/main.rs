//! Integration tests of the `dashvertex` and `dash-validate` commands: the `.case` files in `tests/cases/`, and what a transcript cannot show (hostile files, thread counts, schemas, pseudo-terminals).
//!
//! One test binary per crate: each module here was a test target of its own.
// Tests may unwrap and index; their casts build fixtures from sizes they choose, so the
// workspace's cast lints (for code that reads input) do not apply.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap
)]

use std::path::Path;

/// The commands a `RUN:` line may name.
fn commands() -> [(&'static str, &'static Path); 2] {
    [
        ("dashvertex", Path::new(env!("CARGO_BIN_EXE_dashvertex"))),
        (
            "dash-validate",
            Path::new(env!("CARGO_BIN_EXE_dash-validate")),
        ),
    ]
}

/// One test per `tests/cases/NAME.case` script against its `.out` transcript, named
/// `cases::NAME` (`BLESS=1 cargo test -p dashvertex-cli --test it cases` rewrites them;
/// `… cases::fix` runs one).
macro_rules! cases {
    ($($test:ident => $name:literal,)*) => {
        mod cases {
            use std::path::Path;

            fn dir() -> std::path::PathBuf {
                Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases")
            }

            $(
                #[test]
                fn $test() {
                    dashvertex_testkit::cases::run_one(&dir(), $name, &super::commands());
                }
            )*

            /// A case file without a test here would never run.
            #[test]
            fn every_case_file_has_a_test() {
                let listed: Vec<&str> = vec![$($name),*];
                assert_eq!(
                    dashvertex_testkit::cases::names(&dir()),
                    listed,
                    "tests/cases and the cases! list in tests/it/main.rs differ: add the new case there"
                );
            }
        }
    };
}

cases! {
    color => "color",
    convert_gltf => "convert-gltf",
    fix => "fix",
    fix_every_refusal => "fix-every-refusal",
    help => "help",
    inspect_foreign_dmx => "inspect-foreign-dmx",
    inspect_gltf => "inspect-gltf",
    inspect_gltf_errors => "inspect-gltf-errors",
    inspect_invalid_name => "inspect-invalid-name",
    inspect_multiset_dmx => "inspect-multiset-dmx",
    inspect_multiset_json => "inspect-multiset-json",
    inspect_raw => "inspect-raw",
    inspect_rig_dmx => "inspect-rig-dmx",
    inspect_stdin => "inspect-stdin",
    manifest_diff => "manifest-diff",
    manifest_duplicate_alias => "manifest-duplicate-alias",
    manifest_neutral_bone => "manifest-neutral-bone",
    manifest_rename => "manifest-rename",
    manifest_retired_weight => "manifest-retired-weight",
    manifest_update => "manifest-update",
    reduce_arm => "reduce-arm",
    reduce_defaults => "reduce-defaults",
    reduce_loss_report => "reduce-loss-report",
    reduce_other_rig => "reduce-other-rig",
    reduce_own_output => "reduce-own-output",
    reduce_per_bone_attributes => "reduce-per-bone-attributes",
    reduce_rest_pose => "reduce-rest-pose",
    remap => "remap",
    split => "split",
    usage => "usage",
    validate_human => "validate-human",
    validate_json => "validate-json",
    validate_levels => "validate-levels",
    validate_quiet => "validate-quiet",
    validate_sarif => "validate-sarif",
}

mod adversarial;
mod adversarial_budgets;
mod adversarial_fs;
mod behaviour;
mod blender_loss;
mod carried_errors;
mod cli;
mod compressed;
mod declared_numbers;
mod doc_paths;
mod fbx;
mod fix;
mod golden_bytes;
mod help;
mod hostile_files;
mod hostile_fs;
mod hostile_manifests;
mod hostile_meshopt;
mod hostile_named;
mod hostile_sets;
mod hostile_split;
mod loss_report;
mod pruned_output;
mod real_exports;
mod reduce;
mod reduce_vectors;
mod remap;
mod resources;
mod sparse_reduce;
mod split_references;
mod threads;
mod validate_cli;
mod validate_hostile_files;
mod validate_threads;
