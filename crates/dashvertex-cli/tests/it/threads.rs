//! `dashvertex reduce` writes the same bytes and says the same at any thread count: GLB files
//! with several primitives and influence sets, spread over more vertices than one
//! parallel chunk, reduced at 1, 2 and 7 threads to GLB, to `.gltf` with a `.bin`, and
//! with quantized weights.

use std::path::Path;
use std::process::Command;

use dashvertex_testkit::Scratch;
use dashvertex_testkit::gltf::SkinnedGlb;

fn reduce(dir: &Path, threads: &str, args: &[&str]) -> (Vec<u8>, Vec<u8>, Option<Vec<u8>>) {
    let out = format!("out-{threads}");
    let ext = if args.contains(&"gltf") {
        "gltf"
    } else {
        "glb"
    };
    let name = format!("{out}.{ext}");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_dashvertex"));
    cmd.args(["--threads", threads, "reduce", "in.glb", "-o", &name])
        .args(args.iter().filter(|a| **a != "gltf"))
        .current_dir(dir);
    let o = cmd.output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let bin = std::fs::read(dir.join(format!("{out}.bin"))).ok();
    let mut main = std::fs::read(dir.join(&name)).unwrap();
    // The .gltf names its .bin after itself: make the names comparable.
    if ext == "gltf" {
        main = String::from_utf8(main)
            .unwrap()
            .replace(&format!("{out}.bin"), "out.bin")
            .into_bytes();
    }
    (main, o.stderr, bin)
}

#[test]
fn outputs_are_identical_at_any_thread_count() {
    let dir = Scratch::new("reduce-threads");
    let d = dir.path();
    let spec = SkinnedGlb {
        vertices: 50_000,
        primitives: 3,
        sets: 3,
        joints: 40,
        fault_every: 0,
        seed: 11,
    };
    std::fs::write(d.join("in.glb"), spec.build()).unwrap();
    for args in [
        &["--max-influences", "4", "--normalize", "unit"][..],
        &[
            "--max-influences",
            "6",
            "--normalize",
            "unit",
            "--quantize",
            "unorm8",
        ][..],
        &["--max-influences", "2", "--normalize", "unit", "gltf"][..],
    ] {
        let one = reduce(d, "1", args);
        for t in ["2", "7"] {
            let other = reduce(d, t, args);
            assert!(one.0 == other.0, "{args:?}: output differs at {t} threads");
            assert_eq!(
                String::from_utf8_lossy(&one.1),
                String::from_utf8_lossy(&other.1),
                "{args:?}: report differs at {t} threads"
            );
            assert!(one.2 == other.2, "{args:?}: .bin differs at {t} threads");
        }
        if args.contains(&"gltf") {
            assert!(one.2.is_some(), "a .gltf output writes its .bin beside it");
        }
    }
}
