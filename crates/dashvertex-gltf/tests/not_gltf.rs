//! A JSON text that is not glTF is refused by name, not read as an empty document
//! (issue 49: `load_path("examples/rig.json")` returned `Ok`).
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use dashvertex_core::Limits;
use dashvertex_gltf::{NoFiles, load, load_path};

#[test]
fn dashvertex_json_and_other_json_objects_are_not_gltf() {
    let rig = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/rig.json");
    let e = load_path(&rig, &Limits::default()).unwrap_err();
    assert!(e.to_string().contains("not a glTF document"), "{e}");
    let e = load(br#"{"name": "settings"}"#, &NoFiles, &Limits::default()).unwrap_err();
    assert!(e.to_string().contains("not a glTF document"), "{e}");
    // The smallest glTF (an asset and nothing else) and one without `asset` but with
    // glTF's members are still read: the validator reports what they lack.
    assert!(
        load(
            br#"{"asset": {"version": "2.0"}}"#,
            &NoFiles,
            &Limits::default()
        )
        .is_ok()
    );
    assert!(load(br#"{"meshes": []}"#, &NoFiles, &Limits::default()).is_ok());
}
