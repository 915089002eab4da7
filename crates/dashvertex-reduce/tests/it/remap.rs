//! `remap`: a glTF's joint order rewritten to a manifest's skins identically, bit for
//! bit, under the rest pose, synthetic rotations and the file's own animations, applied
//! by joint name to the original and the remapped file.

use dashvertex_core::Limits;
use dashvertex_gltf::export::{BufferFiles, Written};
use dashvertex_gltf::{Container, Gltf, MemoryFiles, NoFiles, import, skinning};
use dashvertex_reduce::manifest::{Entry, Manifest, VERSION};
use dashvertex_reduce::remap::{Options, RemapError, remap};
use dashvertex_skin::{Local, Pose, Rig, Skin, skin_point};
use dashvertex_testkit::repo;

fn load_file(rel: &str) -> Gltf {
    dashvertex_gltf::load_path(&repo().join(rel), &Limits::default()).unwrap()
}

fn load_written(w: &Written) -> Gltf {
    let files = MemoryFiles {
        files: w
            .files
            .iter()
            .map(|(n, b)| (n.as_str(), b.as_slice()))
            .collect(),
    };
    dashvertex_gltf::load(&w.main, &files, &Limits::default()).unwrap()
}

/// A manifest numbering `names` in the order given; `retired` entries are tombstones.
fn manifest(names: &[&str], retired: &[&str]) -> Manifest {
    Manifest {
        version: VERSION,
        bones: names
            .iter()
            .enumerate()
            .map(|(i, n)| Entry {
                index: u32::try_from(i).unwrap(),
                name: (*n).to_owned(),
                parent: None,
                removed: retired.contains(n),
                aliases: Vec::new(),
            })
            .collect(),
    }
}

/// The rest pose with some joints rotated, chosen and turned by their name only, so the
/// same pose is applied to both files whatever their node and joint numbering.
fn named_pose(g: &Gltf, seed: u32) -> Pose {
    let mut pose = Rig::new(g).rest().clone();
    for (i, node) in g.root.nodes.iter().enumerate() {
        let Some(name) = &node.name else { continue };
        let h = name.bytes().fold(seed.wrapping_mul(2_654_435_761), |h, b| {
            h.rotate_left(5) ^ u32::from(b)
        });
        if h % 3 == 0 {
            continue;
        }
        let angle = f64::from(h % 97) / 97.0 * 1.2 - 0.6;
        let axis = match h % 3 {
            1 => [1.0, 0.0, 0.0],
            _ => [0.0, 0.6, 0.8],
        };
        let (s, c) = (angle / 2.0).sin_cos();
        if let Local::Trs { t, s: sc, .. } = pose.local[i] {
            pose.local[i] = Local::Trs {
                t: [t[0] + f64::from(h % 7) * 0.01, t[1], t[2]],
                r: [axis[0] * s, axis[1] * s, axis[2] * s, c],
                s: sc,
            };
        }
    }
    pose
}

/// Skinned positions as bits, per `(mesh, primitive)`.
type Skinned = Vec<((usize, usize), Vec<[u64; 3]>)>;

/// Every skinned primitive's positions at `pose`, as bits.
fn skinned(g: &Gltf, pose: &Pose) -> Skinned {
    let rig = Rig::new(g);
    let globals = rig.globals(pose);
    import::primitives(g, &Limits::default())
        .unwrap()
        .iter()
        .filter(|p| !p.sets.is_empty())
        .map(|p| {
            let skin = Skin::read(g, p.skin.unwrap(), &Limits::default()).unwrap();
            let joints = skin.joint_matrices(&globals);
            let positions = (0..p.len())
                .map(|v| {
                    let sets: Vec<_> = p.sets.iter().map(|s| s.get(v)).collect();
                    skin_point(p.position(v), &sets, &joints).map(f64::to_bits)
                })
                .collect();
            ((p.mesh, p.primitive), positions)
        })
        .collect()
}

/// The poses both files are compared under: rest, three by-name rotations, and up to
/// eight keyframe moments of each of the original's animations (moved onto the remapped
/// file's nodes by name).
fn poses(a: &Gltf, b: &Gltf) -> Vec<(Pose, Pose)> {
    let mut out = vec![(Rig::new(a).rest().clone(), Rig::new(b).rest().clone())];
    for seed in 1..=3 {
        out.push((named_pose(a, seed), named_pose(b, seed)));
    }
    let anims = dashvertex_skin::animations(a, &Limits::default()).unwrap();
    if !anims.is_empty() {
        let moved = dashvertex_skin::retarget(&anims, a, b).unwrap();
        let (ra, rb) = (Rig::new(a), Rig::new(b));
        for (x, y) in anims.iter().zip(&moved) {
            for t in x.times().into_iter().take(8) {
                out.push((x.pose_at(ra.rest(), t), y.pose_at(rb.rest(), t)));
            }
        }
    }
    out
}

/// Asserts that `b` skins exactly as `a` under every pose, and that the poses move
/// something (so the comparison means something).
fn assert_skins_identically(a: &Gltf, b: &Gltf) {
    let list = poses(a, b);
    let rest = skinned(a, &list[0].0);
    let mut moved = false;
    for (pa, pb) in &list {
        let (sa, sb) = (skinned(a, pa), skinned(b, pb));
        assert_eq!(sa.len(), sb.len());
        for ((ka, va), (kb, vb)) in sa.iter().zip(&sb) {
            assert_eq!(ka, kb);
            for (v, (x, y)) in va.iter().zip(vb).enumerate() {
                assert_eq!(x, y, "primitive {ka:?} vertex {v} differs");
            }
        }
        moved |= sa != rest;
    }
    assert!(moved, "no pose moved a vertex");
}

/// Every vertex keeps its influences: the same weights (bits) in the same slots, on
/// joints of the same name; the weight storage is unchanged.
fn assert_same_influences(a: &Gltf, b: &Gltf) {
    let (pa, pb) = (
        import::primitives(a, &Limits::default()).unwrap(),
        import::primitives(b, &Limits::default()).unwrap(),
    );
    assert_eq!(pa.len(), pb.len());
    for (x, y) in pa.iter().zip(&pb) {
        let (na, nb) = (
            skinning::joint_names(&a.root, x.skin.unwrap()),
            skinning::joint_names(&b.root, y.skin.unwrap()),
        );
        assert_eq!(x.storage, y.storage);
        assert_eq!(x.sets.len(), y.sets.len());
        for (sx, sy) in x.sets.iter().zip(&y.sets) {
            assert_eq!(sx.weights.component_type, sy.weights.component_type);
            for v in 0..x.len() {
                let (ix, iy) = (sx.get(v), sy.get(v));
                for c in 0..4 {
                    assert_eq!(ix.weights[c].to_bits(), iy.weights[c].to_bits());
                    assert_eq!(sx.weights.get(v, c), sy.weights.get(v, c));
                    if ix.weights[c] != 0.0 {
                        assert_eq!(
                            na[ix.joints[c] as usize], nb[iy.joints[c] as usize],
                            "vertex {v} slot {c}"
                        );
                    }
                }
            }
        }
    }
}

fn remap_to(g: &Gltf, m: &Manifest, container: Container, files: &BufferFiles) -> Gltf {
    let plan = remap(g, m, &Options::default()).unwrap();
    assert!(!plan.already_in_order());
    load_written(&plan.finish(container, files).unwrap().unwrap())
}

#[test]
fn blender_rig_remapped_to_the_other_exports_manifest_skins_identically() {
    let (r24, r25) = (
        load_file("fixtures/blender/rig24_all.glb"),
        load_file("fixtures/blender/rig25_all.glb"),
    );
    // The numbering `dashvertex manifest init` gives rig25 (a superset of rig24's bones).
    let skeleton: Vec<_> =
        dashvertex_reduce::input::bone_refs(&dashvertex_gltf::import::skeleton(&r25, 0).unwrap());
    let m = Manifest::init(&skeleton).unwrap();
    for (name, g) in [("rig24", &r24), ("rig25", &r25)] {
        let names = skinning::joint_names(&g.root, 0);
        assert!(
            m.first_out_of_order(&names, false).is_some(),
            "{name} starts in manifest order"
        );
        let plan = remap(g, &m, &Options { locked: true }).unwrap();
        if name == "rig24" {
            assert_eq!(plan.skins[0].placeholders, vec!["hand_l_extra".to_owned()]);
        }
        let out = load_written(
            &plan
                .finish(Container::Glb, &BufferFiles::Embed)
                .unwrap()
                .unwrap(),
        );
        let after = skinning::joint_names(&out.root, 0);
        assert_eq!(m.first_out_of_order(&after, false), None, "{name}");
        assert_skins_identically(g, &out);
        assert_same_influences(g, &out);
        // Remapping the result changes nothing.
        assert!(
            remap(&out, &m, &Options { locked: true })
                .unwrap()
                .already_in_order()
        );
    }
}

#[test]
fn bones_missing_from_the_manifest_are_appended_or_refused_when_locked() {
    let r25 = load_file("fixtures/blender/rig25_all.glb");
    let r24 = load_file("fixtures/blender/rig24_all.glb");
    let skeleton =
        dashvertex_reduce::input::bone_refs(&dashvertex_gltf::import::skeleton(&r24, 0).unwrap());
    let m = Manifest::init(&skeleton).unwrap();
    match remap(&r25, &m, &Options { locked: true }) {
        Err(RemapError::NotInManifest { skin: 0, bones }) => {
            assert_eq!(bones, vec!["hand_l_extra".to_owned()]);
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    let out = remap_to(
        &r25,
        &m,
        Container::Gltf,
        &BufferFiles::Beside { stem: "out".into() },
    );
    let names = skinning::joint_names(&out.root, 0);
    assert_eq!(names.len(), m.len() + 1);
    assert_eq!(names.last().map(String::as_str), Some("hand_l_extra"));
    assert_eq!(m.first_out_of_order(&names, true), None);
    assert!(m.first_out_of_order(&names, false).is_some());
    assert_skins_identically(&r25, &out);
    assert_same_influences(&r25, &out);
}

#[test]
fn animated_rig_reversed_with_placeholders_and_retired_indices_skins_identically() {
    let g = load_file("fixtures/blender/loss_rig.glb");
    let mut names = skinning::joint_names(&g.root, 0);
    names.reverse();
    let mut order: Vec<&str> = vec!["retired_bone", "not_in_file"];
    order.extend(names.iter().map(String::as_str));
    let m = manifest(&order, &["retired_bone"]);
    let out = remap_to(&g, &m, Container::Glb, &BufferFiles::Embed);
    let after = skinning::joint_names(&out.root, 0);
    assert_eq!(after[..2], ["retired_bone", "not_in_file"]);
    assert_eq!(m.first_out_of_order(&after, false), None);
    assert!(
        !dashvertex_skin::animations(&g, &Limits::default())
            .unwrap()
            .is_empty()
    );
    assert_skins_identically(&g, &out);
    assert_same_influences(&g, &out);
}

#[test]
fn normalized_integer_and_multiset_weights_are_written_back_as_stored() {
    for (file, reorder) in [
        (
            "spec/vectors/gltf/weights-unorm8-valid.gltf",
            vec!["joint1", "joint0"],
        ),
        (
            "spec/vectors/gltf/multiset-valid.gltf",
            vec![
                "joint5", "joint2", "joint7", "joint0", "joint6", "joint1", "joint4", "joint3",
            ],
        ),
    ] {
        let g = load_file(file);
        let m = manifest(&reorder, &[]);
        let out = remap_to(&g, &m, Container::Glb, &BufferFiles::Embed);
        assert_skins_identically(&g, &out);
        assert_same_influences(&g, &out);
        let report = dashvertex_validate::validate_bytes(
            "out.glb",
            &remap(&g, &m, &Options::default())
                .unwrap()
                .finish(Container::Glb, &BufferFiles::Embed)
                .unwrap()
                .unwrap()
                .main,
            &dashvertex_validate::Options::default(),
        );
        assert_eq!(report.counts.errors, 0, "{file}: {:#?}", report.diagnostics);
        assert_eq!(
            report.counts.warnings, 0,
            "{file}: {:#?}",
            report.diagnostics
        );
    }
}

#[test]
fn a_file_in_manifest_order_needs_no_change() {
    let g = load_file("spec/vectors/gltf/valid-minimal.gltf");
    // A manifest with the file's order, and one more bone after it.
    let plan = remap(
        &g,
        &manifest(&["joint0", "joint1", "later"], &[]),
        &Options::default(),
    )
    .unwrap();
    assert!(plan.already_in_order());
    assert_eq!(plan.skins[0].mismatch, None);
    assert_eq!(
        plan.finish(Container::Gltf, &BufferFiles::Embed).unwrap(),
        None
    );
}

#[test]
fn a_mesh_shared_by_skins_with_different_joint_lists_is_refused() {
    let text =
        std::fs::read_to_string(repo().join("spec/vectors/gltf/valid-minimal.gltf")).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    doc["skins"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"joints": [2, 1]}));
    doc["nodes"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"name": "second", "mesh": 0, "skin": 1}));
    let bytes = serde_json::to_vec(&doc).unwrap();
    let g = dashvertex_gltf::load(&bytes, &NoFiles, &Limits::default()).unwrap();
    match remap(
        &g,
        &manifest(&["joint1", "joint0"], &[]),
        &Options::default(),
    ) {
        Err(e @ RemapError::SharedMesh { mesh: 0, .. }) => {
            assert!(
                e.to_string().contains("mesh 0 is used with skins 0 and 1"),
                "{e}"
            );
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_file_without_skins_is_refused() {
    let g = load_file("spec/vectors/gltf/skins-empty-array.gltf");
    assert!(matches!(
        remap(&g, &manifest(&["a"], &[]), &Options::default()),
        Err(RemapError::NoSkin)
    ));
}

/// Issue 22 (11): manifests of 125,000 and 1 M bones. Nothing is built per manifest bone
/// beyond the manifest itself: a file already in order is found so by one sorted index, a
/// file that needs placeholders for every index is refused before any is made (a skin
/// cannot use more than 65,536 joints), and a retired bone with weight is refused when
/// locked. The CPU time grows with the manifest, not with its square (a per-skin,
/// per-bone build of placeholders or an O(n²) lookup would grow 64× from n to 8n).
#[test]
fn a_manifest_of_a_million_bones_is_matched_without_building_per_bone() {
    let g = load_file("spec/vectors/gltf/skin-joint-order.gltf");
    let checks = |n: usize| {
        let n = u32::try_from(n).unwrap();
        let big = |first: &str, second: &str| Manifest {
            version: VERSION,
            bones: (0..n)
                .map(|i| Entry {
                    index: i,
                    name: match i {
                        0 => first.to_owned(),
                        1 => second.to_owned(),
                        _ => format!("b{i}"),
                    },
                    parent: None,
                    removed: false,
                    aliases: Vec::new(),
                })
                .collect(),
        };
        let in_order = remap(&g, &big("joint0", "joint1"), &Options { locked: true }).unwrap();
        assert!(in_order.already_in_order());
        match remap(&g, &big("joint1", "joint0"), &Options::default()) {
            Err(RemapError::Joints(e)) => {
                assert!(e.to_string().contains(&format!("{n} joints")), "{e}");
            }
            other => panic!("expected the joint limit, got {:?}", other.map(|r| r.skins)),
        }
        let mut retired = big("joint0", "joint1");
        if let Some(e) = retired.bones.get_mut(1) {
            e.removed = true;
        }
        match remap(&g, &retired, &Options { locked: true }) {
            Err(e @ RemapError::RetiredWeighted { .. }) => {
                assert!(e.to_string().contains("vertex 1"), "{e}");
            }
            other => panic!("expected retired weight, got {:?}", other.map(|r| r.skins)),
        }
    };
    dashvertex_testkit::growth::assert_grows_at_most("a large manifest", checks, 125_000, 24.0);
}

/// The weights accessors are kept as they are (their `name` stays; a rewrite would drop
/// it), so sets may store weights in different formats: here set 0 FLOAT, set 1
/// normalized UNSIGNED_BYTE.
#[test]
fn weights_accessors_are_kept_and_may_differ_in_format() {
    let g = load_file("spec/vectors/gltf/multiset-valid.gltf");
    let mut bin = g.buffer(0).unwrap().unwrap().to_vec();
    let mut doc: serde_json::Value = serde_json::from_slice(
        &std::fs::read(repo().join("spec/vectors/gltf/multiset-valid.gltf")).unwrap(),
    )
    .unwrap();
    // Set 1's FLOAT weights (accessor 4), as normalized UNSIGNED_BYTE in a new view.
    let w1 = dashvertex_gltf::accessor::read(&g, 4, &Limits::default()).unwrap();
    let offset = bin.len();
    for v in 0..w1.count {
        for c in 0..4 {
            bin.push((w1.get(v, c) * 255.0).round() as u8);
        }
    }
    doc["buffers"][0] = serde_json::json!({"uri": "buf.bin", "byteLength": bin.len()});
    let views = doc["bufferViews"].as_array_mut().unwrap();
    views.push(serde_json::json!({"buffer": 0, "byteOffset": offset, "byteLength": w1.count * 4, "target": 34962}));
    let view = views.len() - 1;
    let accessors = doc["accessors"].as_array_mut().unwrap();
    accessors[2]["name"] = "set 0 weights".into();
    accessors.push(serde_json::json!({"bufferView": view, "componentType": 5121, "normalized": true, "count": w1.count, "type": "VEC4", "name": "set 1 weights"}));
    let unorm = accessors.len() - 1;
    doc["meshes"][0]["primitives"][0]["attributes"]["WEIGHTS_1"] = unorm.into();
    let text = serde_json::to_vec(&doc).unwrap();
    let files = MemoryFiles {
        files: vec![("buf.bin", bin.as_slice())],
    };
    let mixed = dashvertex_gltf::load(&text, &files, &Limits::default()).unwrap();
    let m = manifest(
        &[
            "joint5", "joint2", "joint7", "joint0", "joint6", "joint1", "joint4", "joint3",
        ],
        &[],
    );
    let written = remap(&mixed, &m, &Options::default())
        .unwrap()
        .finish(Container::Glb, &BufferFiles::Embed)
        .unwrap()
        .unwrap();
    assert_skins_identically(&mixed, &load_written(&written));
    // The GLB's JSON chunk: after the 12-byte header, a length and a type.
    let len = u32::from_le_bytes(written.main[12..16].try_into().unwrap()) as usize;
    let json: serde_json::Value = serde_json::from_slice(&written.main[20..20 + len]).unwrap();
    let attributes = &json["meshes"][0]["primitives"][0]["attributes"];
    let accessor = |name: &str| &json["accessors"][attributes[name].as_u64().unwrap() as usize];
    assert_eq!(accessor("WEIGHTS_0")["name"], "set 0 weights");
    assert_eq!(accessor("WEIGHTS_1")["name"], "set 1 weights");
    assert_eq!(accessor("WEIGHTS_1")["normalized"], true);
    assert!(
        accessor("JOINTS_0").get("name").is_none(),
        "the joints are new accessors"
    );
}
