//! `dashvertex reduce` writes the same bytes as the reducer did before the speed work of
//! issue 26 (the typed block reads, the check that walks only changed accessors), on
//! every skinned fixture file, at one thread and at three: `golden_reduce.txt` holds the
//! FNV-1a 64 of each output as that reducer wrote it (or the exit code of its refusal).

use std::path::Path;
use std::process::Command;

use dashvertex_testkit::Scratch;

/// FNV-1a, 64 bits: enough to tell two outputs apart, and small enough to keep here.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

const CONFIGS: [&[&str]; 2] = [
    &["--max-influences", "4", "--normalize", "unit"],
    &[
        "--max-influences",
        "2",
        "--normalize",
        "unit",
        "--quantize",
        "unorm8",
    ],
];

#[test]
fn reduce_outputs_match_the_recorded_bytes_at_one_and_three_threads() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let table = include_str!("golden_reduce.txt");
    let dir = Scratch::new("golden-bytes");
    let mut checked = 0;
    for line in table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let mut f = line.split_whitespace();
        let (file, config, want) = (f.next().unwrap(), f.next().unwrap(), f.next().unwrap());
        let args = CONFIGS[config.parse::<usize>().unwrap()];
        for threads in ["1", "3"] {
            let out = dir.path().join(format!("out-{threads}.glb"));
            let _ = std::fs::remove_file(&out);
            let o = Command::new(env!("CARGO_BIN_EXE_dashvertex"))
                .args(["--threads", threads, "reduce"])
                .arg(root.join(file))
                .arg("-o")
                .arg(&out)
                .arg("-q")
                .args(args)
                .output()
                .unwrap();
            let got = if o.status.success() {
                format!("{:016x}", fnv1a(&std::fs::read(&out).unwrap()))
            } else {
                format!("exit{}", o.status.code().unwrap_or(-1))
            };
            assert_eq!(
                got,
                want,
                "{file} config {config} at {threads} thread(s): {}",
                String::from_utf8_lossy(&o.stderr)
            );
            checked += 1;
        }
    }
    assert!(checked >= 100, "only {checked} outputs checked");
}
