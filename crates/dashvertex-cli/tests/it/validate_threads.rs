//! The report does not depend on the thread count: multi-primitive, multi-set GLB files
//! with faults spread over more vertices than one parallel chunk holds are validated at
//! 1, 2 and 7 threads, and the text and JSON reports are byte for byte the same.

use std::path::Path;
use std::process::Command;

use dashvertex_testkit::Scratch;
use dashvertex_testkit::gltf::SkinnedGlb;

fn run(dir: &Path, args: &[&str]) -> (Option<i32>, Vec<u8>) {
    let o = Command::new(env!("CARGO_BIN_EXE_dash-validate"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (o.status.code(), o.stdout)
}

#[test]
fn directory_reports_are_identical_at_any_thread_count() {
    // Files are checked in parallel but reported in walk order.
    let dir = Scratch::new("threads-dir");
    let d = dir.path();
    for (i, faults) in [0usize, 7, 0, 3, 11, 0].into_iter().enumerate() {
        let spec = SkinnedGlb {
            vertices: 2000 + 500 * i,
            primitives: 1 + i % 2,
            sets: 1 + i % 3,
            fault_every: faults,
            seed: i as u64,
            ..SkinnedGlb::default()
        };
        std::fs::write(d.join(format!("f{i}.glb")), spec.build()).unwrap();
    }
    std::fs::copy(
        dashvertex_testkit::repo().join("examples/rig.json"),
        d.join("rig.json"),
    )
    .unwrap();
    for format in ["human", "json"] {
        let one = run(d, &["--threads", "1", "--format", format, "."]);
        for t in ["2", "7"] {
            let other = run(d, &["--threads", t, "--format", format, "."]);
            assert_eq!(one.0, other.0);
            assert!(
                one.1 == other.1,
                "{format}: the report at {t} threads differs"
            );
        }
        assert_eq!(one.0, Some(1));
    }
}

#[test]
fn reports_are_identical_at_any_thread_count() {
    let dir = Scratch::new("threads");
    let d = dir.path();
    let files = [
        (
            "clean.glb",
            SkinnedGlb {
                vertices: 70_000,
                primitives: 2,
                sets: 2,
                fault_every: 0,
                seed: 3,
                ..SkinnedGlb::default()
            },
        ),
        (
            "faulty.glb",
            SkinnedGlb {
                vertices: 90_000,
                primitives: 3,
                sets: 3,
                fault_every: 997,
                seed: 5,
                ..SkinnedGlb::default()
            },
        ),
        (
            "dense.glb",
            SkinnedGlb {
                vertices: 40_000,
                primitives: 2,
                sets: 1,
                fault_every: 3,
                seed: 7,
                ..SkinnedGlb::default()
            },
        ),
    ];
    for (name, spec) in &files {
        std::fs::write(d.join(name), spec.build()).unwrap();
    }
    for (name, _) in &files {
        for (format, max) in [("human", "200"), ("json", "100000")] {
            {
                let base = ["--format", format, "--max-diagnostics", max, name];
                let one = run(d, &[&["--threads", "1"][..], &base[..]].concat());
                for t in ["2", "7"] {
                    let other = run(d, &[&["--threads", t][..], &base[..]].concat());
                    assert_eq!(one.0, other.0, "{name} {format}: exit at {t} threads");
                    assert!(
                        one.1 == other.1,
                        "{name} {format} --max-diagnostics {max}: the report at {t} threads differs"
                    );
                }
                if *name != "clean.glb" {
                    assert_eq!(one.0, Some(1), "{name} has faults");
                }
            }
        }
    }
}
