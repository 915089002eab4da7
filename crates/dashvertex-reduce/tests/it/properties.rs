//! Property tests of the reducer, one per invariant of `spec/reduction.md` §4.

use dashvertex_core::weights::check_float_sets;
use dashvertex_core::{Document, InfluenceSet};
use dashvertex_reduce::input::{Candidates, Input, Origin};
use dashvertex_reduce::manifest::{BoneRef, Manifest};
use dashvertex_reduce::{Config, Empty, Normalize, Quantize, Reduced};
use proptest::prelude::*;

/// A skeleton (names unique, parents earlier) and per-vertex (bone, weight) lists.
#[derive(Clone, Debug)]
struct Case {
    bones: Vec<BoneRef>,
    vertices: Vec<Vec<(u32, f32)>>,
}

fn weight() -> impl Strategy<Value = f32> {
    prop_oneof![
        8 => (1u32..=1000).prop_map(|n| n as f32 / 1000.0),
        1 => Just(0.25f32),
        1 => Just(0.0f32),
        1 => (1u32..100).prop_map(|n| -(n as f32) / 100.0),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    (2usize..12).prop_flat_map(|nb| {
        let parents = proptest::collection::vec(any::<u32>(), nb);
        let vertices = proptest::collection::vec(
            proptest::collection::vec((0..nb as u32, weight()), 1..12),
            1..20,
        );
        (parents, vertices).prop_map(move |(parents, vertices)| Case {
            vertices: vertices.into_iter().map(at_most_one).collect(),
            bones: (0..nb)
                .map(|i| BoneRef {
                    name: format!("bone_{}", (i * 7919) % 1000),
                    parent: if i == 0 {
                        None
                    } else {
                        Some(format!(
                            "bone_{}",
                            ((parents[i] as usize % i) * 7919) % 1000
                        ))
                    },
                })
                .collect(),
        })
    })
}

/// Scales a vertex's positive weights down so that no bone's repeats sum above 1: the
/// reducer refuses such a vertex without normalization (tested on its own below), and
/// the invariants are about what it accepts. Repeated bones stay repeated.
fn at_most_one(mut list: Vec<(u32, f32)>) -> Vec<(u32, f32)> {
    let mut sums = std::collections::HashMap::new();
    for &(b, w) in &list {
        if w > 0.0 {
            *sums.entry(b).or_insert(0.0f64) += f64::from(w);
        }
    }
    let most = sums.values().copied().fold(0.0, f64::max);
    if most > 1.0 {
        for (_, w) in &mut list {
            if *w > 0.0 {
                *w = ((f64::from(*w) / most) * 0.999) as f32;
            }
        }
    }
    list
}

fn input(c: &Case) -> Input<'static> {
    let counts: Vec<u32> = c.vertices.iter().map(|v| v.len() as u32).collect();
    let mut cands = Candidates::with_counts(&counts);
    for (v, list) in c.vertices.iter().enumerate() {
        for (k, &(b, w)) in list.iter().enumerate() {
            assert!(cands.push(v, b, w, k as u32), "room for every pair");
        }
    }
    Input {
        bones: c.bones.clone(),
        positions: vec![[0.0; 3]; c.vertices.len()],
        data: dashvertex_reduce::input::Data::Lists(cands),
        origin: Origin::BoneWeights,
    }
}

fn run(c: &Case, manifest: &Manifest, cfg: &Config) -> Reduced {
    let i = input(c);
    let map = dashvertex_reduce::index_map(&i, manifest).unwrap();
    dashvertex_reduce::reduce(&i, &map, dashvertex_reduce::root_index(&i, manifest), cfg).unwrap()
}

fn config() -> impl Strategy<Value = Config> {
    (
        1usize..=9,
        any::<bool>(),
        0u8..3,
        prop_oneof![Just(0.0f32), Just(0.05f32)],
    )
        .prop_map(|(k, unit, q, min_weight)| {
            Config::default()
                .with_max_influences(k)
                .with_quantize(match q {
                    0 => Quantize::F32,
                    1 => Quantize::Unorm16,
                    _ => Quantize::Unorm8,
                })
                .with_normalize(if unit || q > 0 {
                    Normalize::Unit
                } else {
                    Normalize::None
                })
                .with_min_weight(min_weight)
                .with_empty(Empty::Zero)
        })
}

/// Output as (bone name, weight bits) per vertex, to compare across manifests.
fn by_name(r: &Reduced, m: &Manifest) -> Vec<Vec<(String, u32)>> {
    r.influences
        .chunks(r.sets)
        .map(|v| {
            v.iter()
                .flat_map(|s| s.pairs())
                .filter(|&(_, w)| w != 0.0)
                .map(|(b, w)| (m.bones[b as usize].name.clone(), w.to_bits()))
                .collect()
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn determinism(c in case(), cfg in config()) {
        let m = Manifest::init(&c.bones).unwrap();
        prop_assert_eq!(run(&c, &m, &cfg), run(&c, &m, &cfg));
    }

    #[test]
    fn permutation_invariance(c in case(), cfg in config(), seed in any::<u64>()) {
        // Shuffle the bone list (renumbering candidates) and each vertex's candidates.
        let n = c.bones.len();
        let mut perm: Vec<usize> = (0..n).collect();
        let mut s = seed;
        for i in (1..n).rev() {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            perm.swap(i, (s >> 33) as usize % (i + 1));
        }
        let inverse: Vec<u32> = {
            let mut inv = vec![0u32; n];
            for (new, &old) in perm.iter().enumerate() {
                inv[old] = new as u32;
            }
            inv
        };
        let shuffled = Case {
            bones: perm.iter().map(|&old| c.bones[old].clone()).collect(),
            vertices: c.vertices.iter().map(|v| {
                let mut v: Vec<(u32, f32)> = v.iter().map(|&(b, w)| (inverse[b as usize], w)).collect();
                v.reverse();
                v
            }).collect(),
        };
        let m1 = Manifest::init(&c.bones).unwrap();
        let m2 = Manifest::init(&shuffled.bones).unwrap();
        prop_assert_eq!(&m1, &m2);
        prop_assert_eq!(run(&c, &m1, &cfg), run(&shuffled, &m2, &cfg));
    }

    #[test]
    fn stability_adding_a_bone_never_changes_existing_indices(c in case(), parent in any::<usize>(), name in "[a-z]{1,8}") {
        let mut m = Manifest::init(&c.bones).unwrap();
        let before = m.clone();
        let mut bones = c.bones.clone();
        prop_assume!(!bones.iter().any(|b| b.name == name));
        bones.push(BoneRef { name: name.clone(), parent: Some(c.bones[parent % c.bones.len()].name.clone()) });
        let ch = m.update(&bones, true).unwrap();
        prop_assert_eq!(ch.added.len(), 1);
        for e in &before.bones {
            prop_assert_eq!(m.index_of(&e.name), Some(e.index));
        }
    }

    #[test]
    fn stability_adding_a_zero_weight_bone_changes_no_output(c in case(), cfg in config(), parent in any::<usize>()) {
        let mut m = Manifest::init(&c.bones).unwrap();
        let base = by_name(&run(&c, &m, &cfg), &m);
        let mut more = c.clone();
        more.bones.push(BoneRef { name: "zz_new".into(), parent: Some(c.bones[parent % c.bones.len()].name.clone()) });
        m.update(&more.bones, true).unwrap();
        prop_assert_eq!(by_name(&run(&more, &m, &cfg), &m), base);
    }

    #[test]
    fn stability_removing_an_unused_bone_changes_nothing(
        c in case(),
        pick in any::<prop::sample::Index>(),
        cfg in config(),
    ) {
        // Make one bone other than the root unused: its influences go (a vertex left with
        // none is bound to the root instead).
        let unused = 1 + pick.index(c.bones.len() - 1) as u32;
        let c = Case {
            bones: c.bones,
            vertices: c
                .vertices
                .into_iter()
                .map(|v| {
                    let kept: Vec<(u32, f32)> = v.iter().copied().filter(|&(b, _)| b != unused).collect();
                    if kept.is_empty() { vec![(0, v.first().map_or(1.0, |x| x.1))] } else { kept }
                })
                .collect(),
        };
        let m = Manifest::init(&c.bones).unwrap();
        let full = run(&c, &m, &cfg);
        let fewer = Case {
            bones: c.bones.iter().enumerate().filter(|(i, _)| *i as u32 != unused).map(|(_, b)| b.clone()).collect(),
            vertices: c.vertices.iter().map(|v| v.iter().map(|&(b, w)| (if b > unused { b - 1 } else { b }, w)).collect()).collect(),
        };
        let mut m2 = m.clone();
        m2.update(&fewer.bones, true).unwrap();
        // The retired bone keeps its index; every other index and the output are unchanged.
        prop_assert_eq!(run(&fewer, &m2, &cfg), full);
    }

    #[test]
    fn optimality_no_dropped_weight_exceeds_a_kept_one(c in case(), k in 1usize..6) {
        let m = Manifest::init(&c.bones).unwrap();
        let cfg = Config::default().with_max_influences(k).with_empty(Empty::Zero);
        let r = run(&c, &m, &cfg);
        let i = input(&c);
        let map = dashvertex_reduce::index_map(&i, &m).unwrap();
        for (v, out) in r.influences.chunks(r.sets).enumerate() {
            let kept: Vec<(u32, f32)> = out.iter().flat_map(|s| s.pairs()).filter(|p| p.1 != 0.0).collect();
            // Merged input influences per output bone.
            let mut all: std::collections::BTreeMap<u32, f64> = Default::default();
            for c in i.candidates_of(v).iter().filter(|c| c.weight > 0.0) {
                *all.entry(map[c.bone as usize]).or_default() += f64::from(c.weight);
            }
            for (&b, &w) in &all {
                if kept.iter().any(|&(kb, _)| kb == b) {
                    continue;
                }
                for &(kb, kw) in &kept {
                    let (w, kw) = (w as f32, kw);
                    prop_assert!(w < kw || (w == kw && b > kb), "vertex {v}: dropped {b}={w} beats kept {kb}={kw}");
                }
            }
            // Heaviest first across sets.
            for pair in kept.windows(2) {
                prop_assert!(pair[0].1 > pair[1].1 || (pair[0].1 == pair[1].1 && pair[0].0 < pair[1].0));
            }
        }
    }

    #[test]
    fn normalization_unit_passes_the_gltf_rule_and_quantized_sums_are_exact(c in case(), cfg in config()) {
        let m = Manifest::init(&c.bones).unwrap();
        let r = run(&c, &m, &cfg);
        for (v, out) in r.influences.chunks(r.sets).enumerate() {
            if out.iter().all(InfluenceSet::is_zero) {
                continue;
            }
            if cfg.normalize == Normalize::Unit && cfg.quantize == Quantize::F32 {
                prop_assert!(check_float_sets(out).passes(), "vertex {v}: {out:?}");
            }
            if let (Some(max), Some(ints)) = (cfg.quantize.max(), &r.integers) {
                let total: u32 = ints[v * r.sets..(v + 1) * r.sets].iter().flatten().sum();
                prop_assert_eq!(total, max);
            }
        }
    }

    #[test]
    fn idempotence_reducing_the_output_again_changes_nothing(c in case(), cfg in config()) {
        let m = Manifest::init(&c.bones).unwrap();
        let once = run(&c, &m, &cfg);
        let again_case = Case {
            bones: m.bones.iter().map(|e| BoneRef { name: e.name.clone(), parent: e.parent.clone() }).collect(),
            vertices: once.influences.chunks(once.sets).map(|v| v.iter().flat_map(|s| s.pairs()).filter(|p| p.1 != 0.0).collect()).collect(),
        };
        let twice = run(&again_case, &m, &cfg);
        prop_assert_eq!(&twice.influences, &once.influences);
        prop_assert_eq!(&twice.integers, &once.integers);
    }

    #[test]
    fn output_passes_dash_validate_and_round_trips_through_the_codecs(c in case(), cfg in config()) {
        let m = Manifest::init(&c.bones).unwrap();
        let i = input(&c);
        // Without normalization the reducer keeps weights as given: a bone listed twice
        // whose weights add up past 1 stays past 1 (and the validator says so).
        if cfg.normalize == Normalize::None {
            for v in &c.vertices {
                let mut per_bone: std::collections::BTreeMap<u32, f64> = Default::default();
                for &(b, w) in v.iter().filter(|x| x.1 > 0.0) {
                    *per_bone.entry(b).or_default() += f64::from(w);
                }
                prop_assume!(per_bone.values().all(|&w| (w as f32) <= 1.0));
            }
        }
        let r = run(&c, &m, &cfg);
        let doc = Document {
            mesh: r.to_mesh(&i.positions),
            skeleton: Some(dashvertex_reduce::manifest_skeleton(None, &i, &m)),
        };
        let json = dashvertex_json::encode_document(&doc).unwrap();
        let back = dashvertex_json::decode(&json, &dashvertex_core::Limits::default()).unwrap();
        prop_assert!(back.document.bit_eq(&doc));
        let bin = dashvertex_binary::encode_document(&doc, &Default::default()).unwrap();
        prop_assert!(dashvertex_binary::decode(&bin, &dashvertex_core::Limits::default()).unwrap().document.bit_eq(&doc));
        let profile = if cfg.normalize == Normalize::Unit { dashvertex_validate::Profile::Gltf } else { dashvertex_validate::Profile::Dash };
        let report = dashvertex_validate::validate_bytes("out.json", json.as_bytes(), &dashvertex_validate::Options::new().with_profile(profile));
        // Vertices left empty by `--empty zero` are the only allowed finding.
        let bad: Vec<_> = report.diagnostics.iter()
            .filter(|d| !matches!(d.code.as_str(), "WEIGHTS_ALL_ZERO" | "WEIGHT_SUM") || !r.influences.chunks(r.sets).nth(d.location.vertex.unwrap_or(0) as usize).is_some_and(|v| v.iter().all(InfluenceSet::is_zero)))
            .filter(|d| d.code.as_str() != "BONE_PARENT_ORDER")
            .collect();
        prop_assert!(bad.is_empty(), "{:#?}", bad);
    }

    #[test]
    fn weights_above_one_are_refused_without_normalization(c in case(), v in any::<usize>(), b in any::<u32>()) {
        // Bone b twice at 0.75 in vertex v: 1.5 after merging.
        let mut c = c;
        let nb = c.bones.len() as u32;
        let n = c.vertices.len();
        c.vertices[v % n] = vec![(b % nb, 0.75), (b % nb, 0.75)];
        let m = Manifest::init(&c.bones).unwrap();
        let i = input(&c);
        let map = dashvertex_reduce::index_map(&i, &m).unwrap();
        let root = dashvertex_reduce::root_index(&i, &m);
        let none = Config::default().with_normalize(Normalize::None).with_empty(Empty::Zero);
        let e = dashvertex_reduce::reduce(&i, &map, root, &none).unwrap_err();
        prop_assert!(
            matches!(&e, dashvertex_reduce::ReduceError::AboveOne { vertex, merged, .. }
                if *vertex == (v % n) as u64 && !merged.is_empty()),
            "{e}"
        );
        let unit = Config::default().with_normalize(Normalize::Unit).with_empty(Empty::Zero);
        prop_assert!(dashvertex_reduce::reduce(&i, &map, root, &unit).is_ok());
    }
}
