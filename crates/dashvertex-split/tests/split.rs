//! The split on real files: the output draws exactly the same skinned triangles as the
//! input at the rest pose and every keyframe (the skinning evaluator, bit for bit in
//! f64), every part within the budget, and the official validator finding no error.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::cast_possible_truncation
)]

use std::path::PathBuf;

use dashvertex_core::Limits;
use dashvertex_gltf::export::BufferFiles;
use dashvertex_gltf::{Container, Gltf};
use dashvertex_skin::{Pose, Rig, Skin, skin_point};
use dashvertex_split::{Options, SplitError, split_gltf};
use dashvertex_testkit::oracle::{messages, oracle};
use dashvertex_testkit::{Scratch, repo};

fn corpus(name: &str) -> Gltf {
    let path = repo()
        .join("fixtures/corpus/gltf/khronos_samples")
        .join(name);
    dashvertex_gltf::load_path(&path, &Limits::default()).expect("loads")
}

fn opts(n: usize) -> Options {
    Options::new(n)
}

/// One primitive as drawn: elements, and per vertex its position and sets.
struct Prim {
    arity: usize,
    indices: Vec<u32>,
    positions: Vec<[f32; 3]>,
    sets: Vec<Vec<dashvertex_core::InfluenceSet>>,
}

/// What a document draws: per skinned node, its skin and each primitive, read once.
fn drawn(g: &Gltf) -> Vec<(Skin, Vec<Prim>)> {
    let limits = Limits::default();
    let sets = dashvertex_gltf::skinning::primitive_sets(&g.root);
    let mut draws = Vec::new();
    for node in &g.root.nodes {
        let (Some(m), Some(s)) = (node.mesh, node.skin) else {
            continue;
        };
        let skin = Skin::read(g, s as usize, &limits).expect("skin");
        let mut prims = Vec::new();
        for p in sets.iter().filter(|p| p.mesh == m as usize) {
            let read =
                dashvertex_split::read::read(g, p, skin.joints.len(), &limits).expect("read");
            let pos = p
                .attributes
                .iter()
                .find(|(n, _)| n == "POSITION")
                .and_then(|(_, a)| *a)
                .map(|a| dashvertex_gltf::accessor::read(g, a, &limits).expect("positions"));
            prims.push(Prim {
                arity: read.arity,
                positions: (0..read.vertices)
                    .map(|v| dashvertex_gltf::import::position_at(pos.as_ref(), v))
                    .collect(),
                sets: (0..read.vertices).map(|v| read.stored.sets_of(v)).collect(),
                indices: read.indices,
            });
        }
        draws.push((skin, prims));
    }
    draws
}

/// Every skinned element each node draws, as the bits of its corners' skinned
/// positions, sorted: the picture, independent of how it is cut into primitives.
fn picture(d: &[(Skin, Vec<Prim>)], rig: &Rig, pose: &Pose) -> Vec<[u64; 9]> {
    let globals = rig.globals(pose);
    let mut out = Vec::new();
    for (skin, prims) in d {
        let joints = skin.joint_matrices(&globals);
        for p in prims {
            let skinned: Vec<[u64; 3]> = p
                .positions
                .iter()
                .zip(&p.sets)
                .map(|(&at, sets)| skin_point(at, sets, &joints).map(f64::to_bits))
                .collect();
            for e in p.indices.chunks(p.arity) {
                let mut key = [0u64; 9];
                for (k, &v) in e.iter().enumerate() {
                    key[3 * k..3 * k + 3].copy_from_slice(&skinned[v as usize]);
                }
                out.push(key);
            }
        }
    }
    out.sort_unstable();
    out
}

/// The rest pose and every keyframe time of every animation of `g`.
fn moments(g: &Gltf) -> Vec<(Option<usize>, f64)> {
    let anims = dashvertex_skin::animations(g, &Limits::default()).expect("animations");
    let mut m = vec![(None, 0.0)];
    for (i, a) in anims.iter().enumerate() {
        m.extend(a.times().into_iter().map(|t| (Some(i), t)));
    }
    m
}

fn same_picture(input: &Gltf, output: &Gltf) {
    let anims = dashvertex_skin::animations(input, &Limits::default()).expect("animations");
    let (ri, ro) = (Rig::new(input), Rig::new(output));
    let (di, dout) = (drawn(input), drawn(output));
    for (a, t) in moments(input) {
        let (pi, po) = match a.and_then(|a| anims.get(a)) {
            Some(anim) => (anim.pose_at(ri.rest(), t), anim.pose_at(ro.rest(), t)),
            None => (ri.rest().clone(), ro.rest().clone()),
        };
        let (x, y) = (picture(&di, &ri, &pi), picture(&dout, &ro, &po));
        assert_eq!(x.len(), y.len(), "elements drawn at {a:?} t={t}");
        assert!(x == y, "the skinned triangles differ at {a:?} t={t}");
    }
}

fn split_to_glb(g: &Gltf, o: &Options) -> (Vec<u8>, dashvertex_split::Report) {
    let s = split_gltf(g, o, &[], &Limits::default()).expect("splits");
    let ed = s.editor.expect("something to split");
    let w = ed
        .finish_files(Container::Glb, &BufferFiles::Embed)
        .expect("written");
    (w.main, s.report)
}

// spec: SP3 SP5
#[test]
fn corpus_files_split_at_several_budgets_draw_the_same_triangles() {
    let dir = Scratch::new("split-corpus");
    let mut written: Vec<PathBuf> = Vec::new();
    for (name, budgets) in [
        ("CesiumMan.glb", &[8usize, 16][..]),
        ("Fox.glb", &[4, 8, 16][..]),
        ("RiggedFigure.glb", &[8, 16][..]),
    ] {
        let input = corpus(name);
        for &n in budgets {
            let (bytes, report) = split_to_glb(&input, &opts(n));
            // Deterministic: the same bytes twice.
            assert_eq!(bytes, split_to_glb(&input, &opts(n)).0, "{name} N={n}");
            let output =
                dashvertex_gltf::load(&bytes, &dashvertex_gltf::NoFiles, &Limits::default())
                    .expect("output loads");
            for skin in &output.root.skins {
                assert!(skin.joints.len() <= n, "{name} N={n}: a skin over budget");
            }
            for p in &report.primitives {
                assert!(p.parts.len() >= p.lower_bound);
                assert!(p.parts.iter().all(|x| x.joints <= n && x.skin_joints <= n));
                assert_eq!(
                    p.parts.iter().map(|x| x.elements).sum::<usize>(),
                    p.elements,
                    "{name} N={n}: every element in one part"
                );
            }
            same_picture(&input, &output);
            let path = dir.path().join(format!("{name}-{n}.glb"));
            std::fs::write(&path, &bytes).expect("written");
            written.push(path);
        }
    }
    let Some(reports) = oracle(&written) else {
        return;
    };
    for (line, file) in reports.iter().zip(&written) {
        let errors = messages(line, 0);
        assert!(errors.is_empty(), "{}: {errors:?}", file.display());
    }
}

#[test]
fn a_budget_no_triangle_fits_is_refused_with_its_location() {
    let input = corpus("RiggedFigure.glb");
    let Err(SplitError::TooManyJoints {
        mesh,
        primitive,
        first,
        needed,
        count,
        ..
    }) = split_gltf(&input, &opts(4), &[], &Limits::default())
    else {
        panic!("refused")
    };
    assert_eq!((mesh, primitive), (0, 0));
    assert!(count > 0 && needed > 4);
    let f = first.first().expect("one listed");
    assert_eq!(f.vertices.len(), 3);
    assert!(f.joints.len() > 4 && f.names.len() == f.joints.len());
}

#[test]
fn reduce_makes_every_triangle_fit_and_reports_the_displacement() {
    let input = corpus("CesiumMan.glb");
    let anims = dashvertex_skin::animations(&input, &Limits::default()).expect("animations");
    let o = Options {
        reduce: true,
        ..Options::new(4)
    };
    let s = split_gltf(&input, &o, &anims, &Limits::default()).expect("splits");
    let p = s.report.primitives.first().expect("a primitive");
    let r = p.reduced.as_ref().expect("reduced");
    assert!(r.vertices > 0 && r.max_displacement > 0.0 && r.max_weight_lost > 0.0);
    assert!(r.moments > 1, "keyframes measured");
    assert!(p.parts.iter().all(|x| x.joints <= 4));
    // The same bound, just below what it moves, refuses.
    let tight = Options {
        max_error: Some(r.max_displacement * 0.5),
        ..o
    };
    assert!(matches!(
        split_gltf(&input, &tight, &anims, &Limits::default()),
        Err(SplitError::MaxError { .. })
    ));
}

// spec: SP14
#[test]
fn reduce_with_fit_refits_the_changed_vertices_within_the_same_budget() {
    let input = corpus("CesiumMan.glb");
    let limits = Limits::default();
    let anims = dashvertex_skin::animations(&input, &limits).expect("animations");
    let plain_opts = Options {
        reduce: true,
        ..Options::new(4)
    };
    let fit_opts = Options {
        fit: true,
        ..plain_opts.clone()
    };
    let plain = split_gltf(&input, &plain_opts, &anims, &limits).expect("splits");
    let fitted = split_gltf(&input, &fit_opts, &anims, &limits).expect("splits");
    let a = plain.report.primitives[0].reduced.clone().expect("reduced");
    let b = fitted.report.primitives[0]
        .reduced
        .clone()
        .expect("reduced");
    assert_eq!((a.fitted_vertices, a.max_displacement_plain), (None, None));
    assert_eq!(a.vertices, b.vertices);
    assert!(b.fitted_vertices.is_some_and(|n| n > 0 && n <= b.vertices));
    // The renormalized weights the fit started from are the plain split's.
    assert_eq!(b.max_displacement_plain, Some(a.max_displacement));
    assert!(b.max_displacement < a.max_displacement, "{b:?} vs {a:?}");
    for p in &fitted.report.primitives {
        assert!(p.parts.iter().all(|x| x.joints <= 4 && x.skin_joints <= 4));
    }
    let write = |s: dashvertex_split::Split<'_>| {
        s.editor
            .expect("split")
            .finish_files(Container::Glb, &BufferFiles::Embed)
            .expect("written")
            .main
    };
    let bytes = write(fitted);
    assert_eq!(
        bytes,
        write(split_gltf(&input, &fit_opts, &anims, &limits).expect("splits")),
        "the same bytes twice"
    );
    let dir = Scratch::new("split-fit");
    let path = dir.path().join("fitted.glb");
    std::fs::write(&path, &bytes).expect("written");
    if let Some(reports) = oracle(std::slice::from_ref(&path)) {
        let errors = messages(&reports[0], 0);
        assert!(errors.is_empty(), "{errors:?}");
    }
}

#[test]
fn a_skin_within_the_budget_is_left_alone() {
    let input = corpus("Fox.glb");
    let s = split_gltf(&input, &opts(64), &[], &Limits::default()).expect("ok");
    assert!(s.editor.is_none());
    assert_eq!(s.report.skins_within, 1);
}
