//! Issue 22's classes of work and resources, at the level of the whole process (each run a
//! child under the 256 MiB address-space limit and a time bound, as in `adversarial.rs`):
//! thread pools that cannot start, loss measurement over keyframes × joints × vertices,
//! `fix --zero-sum nearest` on coincident points, non-finite animation data.

use std::path::Path;
use std::process::Output;

use dashvertex_testkit::Scratch;
use dashvertex_testkit::gltf::SkinnedGlb;

fn limited(dir: &Path, args: &[&str], secs: u64) -> Output {
    dashvertex_testkit::run_limited(Path::new(env!("CARGO_BIN_EXE_dash")), dir, args, secs)
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
