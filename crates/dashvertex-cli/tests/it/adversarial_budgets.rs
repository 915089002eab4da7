//! Issue 22's classes of work and resources, at the level of the whole process (each run a
//! child under the 256 MiB address-space limit and a time bound, as in `adversarial.rs`):
//! thread pools that cannot start, loss measurement over keyframes × joints × vertices,
//! `fix --zero-sum nearest` on coincident points, non-finite animation data.

use std::path::Path;
use std::process::Output;

use dashvertex_testkit::Scratch;
use dashvertex_testkit::animated::{AnimatedGlb, Poison};
use dashvertex_testkit::gltf::SkinnedGlb;

fn limited(dir: &Path, args: &[&str], secs: u64) -> Output {
    dashvertex_testkit::run_limited(Path::new(env!("CARGO_BIN_EXE_dashvertex")), dir, args, secs)
}

fn limited_validate(dir: &Path, args: &[&str], secs: u64) -> Output {
    dashvertex_testkit::run_limited(
        Path::new(env!("CARGO_BIN_EXE_dash-validate")),
        dir,
        args,
        secs,
    )
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn read(dir: &Path, name: &str) -> Vec<u8> {
    std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn a_thread_pool_that_cannot_start_degrades_and_the_output_is_the_same() {
    // spec: TP1
    let dir = Scratch::new("adv-threads");
    let d = dir.path();
    let clean = SkinnedGlb {
        vertices: 20_000,
        ..SkinnedGlb::default()
    };
    std::fs::write(d.join("in.glb"), clean.build()).unwrap();
    let faulty = SkinnedGlb {
        fault_every: 7,
        ..clean
    };
    std::fs::write(d.join("faulty.glb"), faulty.build()).unwrap();
    let mut first: Option<(Vec<u8>, Vec<u8>, Vec<u8>)> = None;
    // 28 threads did not fit under the limit, nor 1000 under 2 GB: the pool now halves
    // until it starts, down to the calling thread alone, and --threads is capped at four
    // per core.
    for threads in ["1", "28", "1000", "0"] {
        let t = ["--threads", threads];
        let reduce = limited(
            d,
            &[
                &t[..],
                &["reduce", "in.glb", "-o", "r.glb", "--normalize", "unit"],
            ]
            .concat(),
            30,
        );
        assert_eq!(
            reduce.status.code(),
            Some(0),
            "{threads}: {}",
            stderr(&reduce)
        );
        let fix = limited(
            d,
            &[
                &t[..],
                &[
                    "fix",
                    "faulty.glb",
                    "-o",
                    "f.glb",
                    "--out-of-range",
                    "drop",
                    "--zero-sum",
                    "nearest",
                ],
            ]
            .concat(),
            30,
        );
        assert_eq!(fix.status.code(), Some(0), "{threads}: {}", stderr(&fix));
        let validate = limited_validate(d, &[&t[..], &["--format", "json", "."]].concat(), 30);
        assert_eq!(
            validate.status.code(),
            Some(1),
            "{threads}: {}",
            stderr(&validate)
        );
        for o in [&reduce, &fix, &validate] {
            assert!(!stderr(o).contains("panicked"), "{threads}: {}", stderr(o));
        }
        let got = (read(d, "r.glb"), read(d, "f.glb"), validate.stdout.clone());
        match &first {
            None => first = Some(got),
            Some(f) => assert!(*f == got, "--threads {threads}: another output"),
        }
    }
}

fn report(dir: &Path, name: &str) -> serde_json::Value {
    serde_json::from_slice(&read(dir, name)).unwrap()
}

/// `dashvertex reduce in.glb` to K influences with a loss report, under the limit.
fn reduce_report(dir: &Path, k: &str, extra: &[&str], secs: u64) -> Output {
    limited(
        dir,
        &[
            &[
                "reduce",
                "in.glb",
                "-o",
                "out.glb",
                "--max-influences",
                k,
                "--normalize",
                "unit",
                "--report",
                "r.json",
            ][..],
            extra,
        ]
        .concat(),
        secs,
    )
}

#[test]
fn loss_work_is_linear_in_the_input_not_keyframes_times_nodes() {
    // spec: LW1
    let dir = Scratch::new("adv-loss-work");
    let d = dir.path();
    // The issue's two files, smaller for a debug build: keyframes beside 10,000 nodes no
    // skin uses (65,000 keyframes took 28.5 s), 100,000 such nodes (with 9,000
    // keyframes, 23 s), and 10,000 animated ones. Only the skin's joints and their
    // ancestors are posed now, once per moment (write_issue_22_examples writes the
    // full-size files).
    for (keyframes, others, animated) in [
        (15_000, 10_000, false),
        (3_000, 100_000, false),
        (1_000, 10_000, true),
    ] {
        let file = AnimatedGlb {
            keyframes,
            other_nodes: others,
            animate_others: animated,
            ..AnimatedGlb::default()
        };
        std::fs::write(d.join("in.glb"), file.build()).unwrap();
        let o = reduce_report(d, "1", &[], 60);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let p = &report(d, "r.json")["displacement"]["primitives"][0];
        assert!(p["max"].as_f64().unwrap() > 0.01, "{p}");
    }
    // --max-error measures once per K tried, each within the same bound.
    let o = limited(
        d,
        &[
            "reduce",
            "in.glb",
            "-o",
            "e.glb",
            "--max-error",
            "0.001",
            "--normalize",
            "unit",
        ],
        60,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Keyframes × vertices beyond the budget: the moments are thinned by the stated rule,
    // and the report and the terminal say so.
    let file = AnimatedGlb {
        vertices: 5_000,
        keyframes: 5_000,
        ..AnimatedGlb::default()
    };
    std::fs::write(d.join("in.glb"), file.build()).unwrap();
    let o = reduce_report(d, "1", &[], 60);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let r = report(d, "r.json");
    let p = &r["displacement"]["primitives"][0];
    let (measured, full) = (
        p["moments"].as_u64().unwrap(),
        p["momentsFull"].as_u64().unwrap(),
    );
    assert!(measured < full && measured > 1, "{p}");
    assert_eq!(full, 1 + 5_000 + 3 * 4_999);
    assert!(
        r["note"].as_str().unwrap().contains("work budget"),
        "{}",
        r["note"]
    );
    assert!(stderr(&o).contains("the work budget cut"), "{}", stderr(&o));
}

#[test]
fn a_curve_that_swings_between_keys_is_measured_there() {
    // spec: LS1
    let dir = Scratch::new("adv-loss-swing");
    let d = dir.path();
    let file = AnimatedGlb {
        keyframes: 6,
        interpolation: "CUBICSPLINE",
        ..AnimatedGlb::default()
    };
    std::fs::write(d.join("in.glb"), file.build()).unwrap();
    let o = reduce_report(d, "1", &[], 10);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let p = &report(d, "r.json")["displacement"]["primitives"][0];
    // At every key the joint is at rest: nothing moves there; between keys it swings.
    assert!(p["maxAtKeyframes"].as_f64().unwrap() < 1e-6, "{p}");
    assert!(p["max"].as_f64().unwrap() > 0.05, "{p}");
    assert_eq!(p["moments"], 1 + 6 + 3 * 5);
    // K = 1 used to pass --max-error at the keys alone.
    let o = limited(
        d,
        &[
            "reduce",
            "in.glb",
            "-o",
            "e.glb",
            "--max-error",
            "0.001",
            "--max-influences",
            "2",
            "--normalize",
            "unit",
        ],
        10,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(!d.join("e.glb").exists());
}

#[test]
fn non_finite_animation_data_is_refused_where_it_is() {
    // spec: NF1
    let dir = Scratch::new("adv-loss-nan");
    let d = dir.path();
    for (poison, needle) in [
        (Poison::NanTranslation, "animation 0, sampler 1"),
        (Poison::InfScale, "animation 0, sampler 1"),
        (Poison::NanRotation, "animation 0, sampler 0"),
        (Poison::NanInverseBind, "/skins/0/inverseBindMatrices"),
        (Poison::NanPosition, "vertex 99"),
    ] {
        let file = AnimatedGlb {
            poison: Some(poison),
            ..AnimatedGlb::default()
        };
        std::fs::write(d.join("in.glb"), file.build()).unwrap();
        for args in [
            &["--report", "r.json", "--max-influences", "1"][..],
            &["--max-error", "0.001"][..],
        ] {
            let _ = std::fs::remove_file(d.join("out.glb"));
            let o = limited(
                d,
                &[
                    &["reduce", "in.glb", "-o", "out.glb", "--normalize", "unit"][..],
                    args,
                ]
                .concat(),
                10,
            );
            assert_eq!(
                o.status.code(),
                Some(1),
                "{poison:?} {args:?}: {}",
                stderr(&o)
            );
            let e = stderr(&o);
            // The validator (ACCESSOR_INVALID_FLOAT) or the loss path names the place.
            assert!(
                e.contains(needle) || e.contains("ACCESSOR_INVALID_FLOAT"),
                "{poison:?} {args:?}: {e}"
            );
            assert!(!d.join("out.glb").exists(), "{poison:?}: nothing written");
        }
    }
}

#[test]
fn a_zero_diagonal_prints_the_loss_and_no_share_of_it() {
    let dir = Scratch::new("adv-loss-diagonal");
    let d = dir.path();
    let file = AnimatedGlb {
        coincident: true,
        ..AnimatedGlb::default()
    };
    std::fs::write(d.join("in.glb"), file.build()).unwrap();
    let o = reduce_report(d, "1", &[], 10);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("no share of it is defined"), "{e}");
    assert!(!e.contains("0.000%"), "{e}");
    let p = &report(d, "r.json")["displacement"]["primitives"][0];
    assert!(p["max"].as_f64().unwrap() > 0.01, "{p}");
    assert_eq!(p["diagonal"].as_f64(), Some(0.0));
    assert!(p["maxOfDiagonal"].is_null(), "{p}");
}

#[test]
fn nearest_on_coincident_vertices_takes_n_log_n() {
    // spec: NN1
    let dir = Scratch::new("adv-nearest");
    let d = dir.path();
    // 200,000 vertices at one position, every other one without weight (over 20 s
    // before): each takes the lowest-index weighted vertex's influences, vertex 1's.
    let file = AnimatedGlb {
        vertices: 200_000,
        coincident: true,
        zero_every: 2,
        keyframes: 0,
        ..AnimatedGlb::default()
    };
    std::fs::write(d.join("in.glb"), file.build()).unwrap();
    let o = limited(
        d,
        &[
            "fix",
            "in.glb",
            "-o",
            "out.glb",
            "--zero-sum",
            "nearest",
            "--report",
            "fix.json",
        ],
        60,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = limited_validate(d, &["out.glb"], 60);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// Writes the issue's examples into `$DASH_EXAMPLES_DIR` (for measuring them by hand:
/// `DASH_EXAMPLES_DIR=/tmp/x cargo test -p dashvertex-cli --test it write_issue_22 -- --ignored`).
#[test]
#[ignore]
fn write_issue_22_examples() {
    let Some(dir) = std::env::var_os("DASH_EXAMPLES_DIR") else {
        return;
    };
    let d = Path::new(&dir);
    std::fs::create_dir_all(d).unwrap();
    let files = [
        (
            "keys65k-nodes10k.glb",
            AnimatedGlb {
                keyframes: 65_000,
                other_nodes: 10_000,
                ..AnimatedGlb::default()
            },
        ),
        (
            "keys9k-nodes100k.glb",
            AnimatedGlb {
                keyframes: 9_000,
                other_nodes: 100_000,
                ..AnimatedGlb::default()
            },
        ),
        (
            "keys20k-verts20k.glb",
            AnimatedGlb {
                keyframes: 20_000,
                vertices: 20_000,
                ..AnimatedGlb::default()
            },
        ),
        (
            "keys1k-animated10k.glb",
            AnimatedGlb {
                keyframes: 1_000,
                other_nodes: 10_000,
                animate_others: true,
                ..AnimatedGlb::default()
            },
        ),
        (
            "swing.glb",
            AnimatedGlb {
                keyframes: 6,
                interpolation: "CUBICSPLINE",
                ..AnimatedGlb::default()
            },
        ),
        (
            "nan-translation.glb",
            AnimatedGlb {
                poison: Some(Poison::NanTranslation),
                ..AnimatedGlb::default()
            },
        ),
        (
            "inf-scale.glb",
            AnimatedGlb {
                poison: Some(Poison::InfScale),
                ..AnimatedGlb::default()
            },
        ),
        (
            "nan-rotation.glb",
            AnimatedGlb {
                poison: Some(Poison::NanRotation),
                ..AnimatedGlb::default()
            },
        ),
        (
            "coincident-anim.glb",
            AnimatedGlb {
                coincident: true,
                ..AnimatedGlb::default()
            },
        ),
    ];
    for (name, spec) in files {
        std::fs::write(d.join(name), spec.build()).unwrap();
    }
    for n in [10_000, 40_000, 200_000] {
        let spec = AnimatedGlb {
            vertices: n,
            coincident: true,
            zero_every: 2,
            keyframes: 0,
            ..AnimatedGlb::default()
        };
        std::fs::write(d.join(format!("coincident{n}.glb")), spec.build()).unwrap();
    }
}

fn poison() -> impl proptest::strategy::Strategy<Value = Option<Poison>> {
    proptest::sample::select(vec![
        None,
        None,
        None,
        Some(Poison::NanTranslation),
        Some(Poison::InfScale),
        Some(Poison::NanRotation),
        Some(Poison::NanInverseBind),
        Some(Poison::NanPosition),
    ])
}

fn animated() -> impl proptest::strategy::Strategy<Value = AnimatedGlb> {
    use proptest::prelude::*;
    (
        (1usize..400, any::<bool>(), 0usize..5, 2usize..8),
        (0usize..3000, any::<bool>(), 0usize..400),
        proptest::sample::select(vec!["LINEAR", "STEP", "CUBICSPLINE"]),
        poison(),
    )
        .prop_map(
            |((vertices, coincident, zero_every, joints), (others, animate, keyframes), i, p)| {
                AnimatedGlb {
                    vertices,
                    coincident,
                    // A poisoned file has every weight: its refusal is for the poison.
                    zero_every: if p.is_some() { 0 } else { zero_every },
                    joints,
                    other_nodes: others,
                    animate_others: animate,
                    keyframes: if p.is_some_and(|p| {
                        matches!(
                            p,
                            Poison::NanTranslation | Poison::InfScale | Poison::NanRotation
                        )
                    }) {
                        keyframes.max(1)
                    } else {
                        keyframes
                    },
                    interpolation: i,
                    poison: p,
                }
            },
        )
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(12),
        ..proptest::prelude::ProptestConfig::default()
    })]

    /// Generated animated files: the loss report and `fix --zero-sum nearest` end in
    /// time under the limit; a poisoned file is refused and nothing written; a measured
    /// loss is finite, at least its keyframe figure, sampled in full (these files are
    /// within the budget), and has no share of a zero diagonal.
    #[test]
    fn generated_animated_files_are_measured_or_refused(spec in animated()) {
        // spec: LW1 NF1 LS1 NN1
        let dir = Scratch::new("adv-loss-prop");
        let d = dir.path();
        std::fs::write(d.join("in.glb"), spec.build()).unwrap();
        let o = reduce_report(d, "1", &[], 30);
        let code = o.status.code();
        if spec.poison.is_some() {
            proptest::prop_assert_eq!(code, Some(1), "{:?}: {}", spec, stderr(&o));
            proptest::prop_assert!(!d.join("out.glb").exists());
        } else if code == Some(0) {
            let p = &report(d, "r.json")["displacement"]["primitives"][0];
            let (max, keys) = (p["max"].as_f64().unwrap(), p["maxAtKeyframes"].as_f64().unwrap());
            proptest::prop_assert!(max.is_finite() && max >= keys, "{}", p);
            proptest::prop_assert_eq!(&p["moments"], &p["momentsFull"]);
            if spec.coincident {
                proptest::prop_assert!(p["maxOfDiagonal"].is_null(), "{}", p);
            }
        } else {
            proptest::prop_assert_eq!(code, Some(1), "{}", stderr(&o));
        }
        let o = limited(d, &["fix", "in.glb", "-o", "f.glb", "--zero-sum", "nearest"], 30);
        proptest::prop_assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
        proptest::prop_assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    }
}
