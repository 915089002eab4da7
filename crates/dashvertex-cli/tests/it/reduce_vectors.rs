//! The skeleton conversion vectors of `spec/reduction.md` §5 (`spec/vectors/reduce/`):
//! each input reduced to DashVertex JSON gives its expected file byte for byte
//! (`BLESS=1` writes them, to be read by hand).

use dashvertex_testkit::repo;
use std::process::Command;

// spec: R5.1 R5.2 R5.3 R5.4 R5.5
#[test]
fn reduce_vectors() {
    let dir = repo().join("spec/vectors/reduce");
    let list: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("vectors.json")).unwrap()).unwrap();
    let tmp = std::env::temp_dir().join(format!("dash-reduce-vectors-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let bless = std::env::var_os("BLESS").is_some();
    let mut failed = Vec::new();
    for (i, v) in list["vectors"].as_array().unwrap().iter().enumerate() {
        let input = dir.join(v["input"].as_str().unwrap());
        let expected = dir.join(v["expected"].as_str().unwrap());
        let out = tmp.join(format!("out{i}.json"));
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_dashvertex"));
        cmd.args(["reduce", "-q"]).arg(&input).arg("-o").arg(&out);
        if let Some(m) = v["manifest"].as_str() {
            let copy = tmp.join(format!("manifest{i}.json"));
            std::fs::copy(dir.join(m), &copy).unwrap();
            cmd.arg("--manifest").arg(&copy);
        }
        let o = cmd.output().unwrap();
        assert!(
            o.status.success(),
            "{}: {}",
            input.display(),
            String::from_utf8_lossy(&o.stderr)
        );
        let got = std::fs::read(&out).unwrap();
        if bless {
            std::fs::write(&expected, &got).unwrap();
        } else if std::fs::read(&expected).ok().as_deref() != Some(got.as_slice()) {
            failed.push(expected.display().to_string());
        }
    }
    assert!(failed.is_empty(), "differ (BLESS=1 to accept): {failed:?}");
}

/// Blender's per-bone attributes without a skin, reduced to GLB: the new skin over the
/// bone nodes (and new nodes for bones without one) binds every vertex where it is, so
/// skinning the output at its rest pose gives the positions back (binary32 inverse bind
/// matrices: within 1e-6 of the 1.9 m model).
// spec: R5.6
#[test]
fn per_bone_attributes_get_a_skin_that_binds_at_the_rest_pose() {
    let limits = dashvertex_core::Limits::default();
    let tmp = std::env::temp_dir().join(format!("dash-reduce-skin-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    for input in [
        "fixtures/blender/rig_per_bone_attributes.gltf",
        "fixtures/blender/rig_per_bone_attributes_no_nodes.gltf",
    ] {
        let out = tmp.join("out.glb");
        let o = Command::new(env!("CARGO_BIN_EXE_dashvertex"))
            .current_dir(repo())
            .args(["reduce", "-q", input, "--normalize", "unit", "-o"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let g = dashvertex_gltf::load_path(&out, &limits).unwrap();
        assert_eq!(g.root.skins.len(), 1, "{input}: one skin");
        assert!(
            g.root.meshes[0].primitives[0]
                .attributes
                .keys()
                .all(|k| !k.starts_with('_')),
            "{input}: the per-bone attributes are dropped"
        );
        let rig = dashvertex_skin::Rig::new(&g);
        let globals = rig.globals(rig.rest());
        let skin = dashvertex_skin::Skin::read(&g, 0, &limits).unwrap();
        let joints = skin.joint_matrices(&globals);
        let prims = dashvertex_gltf::import::import(&g, &limits).unwrap();
        let mesh = &prims[0].document.mesh;
        let mut worst = 0.0f64;
        for (v, vertex) in mesh.vertices().iter().enumerate() {
            let p = dashvertex_skin::skin_point(vertex.position, mesh.sets_of(v), &joints);
            for (a, b) in p.iter().zip(vertex.position) {
                worst = worst.max((a - f64::from(b)).abs());
            }
        }
        assert!(worst < 1e-6, "{input}: rest pose moves a vertex by {worst}");
    }
}
