//! The `fbx_load` target: FBX bytes through ufbx and dash's FBX conversions.

use dashvertex_core::Limits;

/// `fbx_load`: any bytes read as FBX within the fuzz limits never panic, hang or pass
/// ufbx's memory bound; a scene that loads is checked, and its GLB (the same bytes on
/// a second conversion) loads in dash's glTF reader, and its DashVertex document has a
/// vertex per control point.
pub fn fbx_load(data: &[u8]) {
    let limits = crate::fuzz_limits();
    let Ok(scene) = dashvertex_fbx::load(data, &limits) else {
        return;
    };
    let mut findings = 0u64;
    dashvertex_fbx::check(
        &scene,
        &dashvertex_fbx::CheckOptions::default(),
        &mut |_, at, message| {
            assert!(!message().is_empty(), "an empty message at {}", at.object());
            findings += 1;
        },
    );
    if let Ok(first) = dashvertex_fbx::to_glb(&scene) {
        let again = dashvertex_fbx::to_glb(&scene).map(|c| c.glb);
        assert!(
            again.as_ref().is_ok_and(|g| *g == first.glb),
            "the GLB differs on a second conversion"
        );
        if let Err(e) =
            dashvertex_gltf::load_owned(first.glb, &dashvertex_gltf::NoFiles, &Limits::default())
        {
            panic!("the GLB of an FBX does not load: {e}");
        }
    }
    let _ = dashvertex_fbx::to_document(&scene);
    let _ = findings;
}
