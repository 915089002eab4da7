//! Named paths that are not regular files (spec/security.md [R2]) and standard output
//! redirected onto an input ([W3]), at the level of the whole process: every command, for
//! every role a path can have (the input, `--manifest` read or updated, `--poses`, both
//! sides of `manifest diff`), and every kind of special file (a FIFO with no writer, a
//! symlink to `/dev/zero`, a folder, a symlink to a FIFO). Each run is a child under the
//! 256 MiB address-space limit and a time bound: it must end at once with exit 2, name
//! what the path is, and write nothing.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use dashvertex_testkit::{Scratch, changes, repo, run_limited, snapshot};

fn dash(dir: &Path, args: &[&str]) -> Output {
    run_limited(Path::new(env!("CARGO_BIN_EXE_dashvertex")), dir, args, 20)
}

fn validate(dir: &Path, args: &[&str]) -> Output {
    run_limited(
        Path::new(env!("CARGO_BIN_EXE_dash-validate")),
        dir,
        args,
        20,
    )
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The kinds of special file planted under the name `s.<ext>`, and the word the refusal
/// must use for each.
fn plant(d: &Path, kind: &str, name: &str) -> Option<&'static str> {
    let path = d.join(name);
    match kind {
        "fifo" => Command::new("mkfifo")
            .arg(&path)
            .status()
            .is_ok_and(|s| s.success())
            .then_some("a FIFO"),
        "fifo-link" => {
            let real = d.join(format!("real-{name}"));
            let made = Command::new("mkfifo")
                .arg(&real)
                .status()
                .is_ok_and(|s| s.success());
            (made && std::os::unix::fs::symlink(&real, &path).is_ok()).then_some("a FIFO")
        }
        "zero" => (Path::new("/dev/zero").exists()
            && std::os::unix::fs::symlink("/dev/zero", &path).is_ok())
        .then_some("a character device"),
        "folder" => std::fs::create_dir(&path).is_ok().then_some("a directory"),
        _ => None,
    }
}

/// Every command line with one path in `role` replaced by `{}`: the special file.
fn command_lines() -> Vec<(&'static str, Vec<&'static str>)> {
    vec![
        ("input", vec!["inspect", "{}"]),
        ("input", vec!["convert", "{}", "out.json"]),
        ("input", vec!["reduce", "{}", "-o", "out.json"]),
        ("input", vec!["fix", "{}", "-o", "out.glb"]),
        (
            "input",
            vec!["remap", "{}", "--manifest", "m.json", "-o", "out.glb"],
        ),
        (
            "input",
            vec!["split", "{}", "-o", "out.glb", "--max-joints", "2"],
        ),
        ("input", vec!["manifest", "init", "{}", "-o", "new.json"]),
        (
            "manifest",
            vec!["reduce", "rig.glb", "-o", "out.glb", "--manifest", "{}"],
        ),
        (
            "manifest",
            vec![
                "reduce",
                "rig.glb",
                "-o",
                "out.glb",
                "--manifest",
                "{}",
                "--locked",
            ],
        ),
        (
            "manifest",
            vec!["remap", "rig.glb", "--manifest", "{}", "-o", "out.glb"],
        ),
        ("manifest", vec!["manifest", "diff", "m.json", "{}"]),
        ("manifest", vec!["manifest", "diff", "{}", "m.json"]),
        ("manifest", vec!["manifest", "show", "{}"]),
        (
            "poses",
            vec![
                "reduce", "rig.glb", "-o", "out.glb", "--report", "r.json", "--poses", "{}",
            ],
        ),
    ]
}

#[test]
fn every_named_special_file_is_refused_at_once() {
    // spec: R2
    let rig = repo().join("fixtures/blender/loss_rig.glb");
    let mut ran = 0;
    for kind in ["fifo", "fifo-link", "zero", "folder"] {
        for (role, line) in command_lines() {
            let dir = Scratch::new("named-special");
            let d = dir.path();
            std::fs::copy(&rig, d.join("rig.glb")).unwrap();
            let made = dash(d, &["manifest", "init", "rig.glb", "-o", "m.json"]);
            assert_eq!(made.status.code(), Some(0), "{}", stderr(&made));
            let name = if role == "manifest" {
                "s.json"
            } else {
                "s.glb"
            };
            let Some(word) = plant(d, kind, name) else {
                eprintln!("SKIPPED {kind}: it cannot be made here");
                continue;
            };
            let args: Vec<&str> = line
                .iter()
                .map(|a| if *a == "{}" { name } else { a })
                .collect();
            let before = snapshot(d);
            let o = dash(d, &args);
            ran += 1;
            assert_eq!(o.status.code(), Some(2), "{kind} {args:?}: {}", stderr(&o));
            let named = if word == "a directory" {
                stderr(&o).contains(word) || stderr(&o).contains("is a folder")
            } else {
                stderr(&o).contains(word)
            };
            assert!(named, "{kind} {args:?}: {}", stderr(&o));
            if word != "a directory" {
                assert!(
                    stderr(&o).contains("standard input"),
                    "{kind} {args:?}: {}",
                    stderr(&o)
                );
            }
            let changed = changes(&before, &snapshot(d));
            assert!(changed.is_empty(), "{kind} {args:?} wrote {changed:?}");
        }
        // The validator: the file itself, and as the manifest.
        let dir = Scratch::new("named-special-validate");
        let d = dir.path();
        std::fs::copy(&rig, d.join("rig.glb")).unwrap();
        let Some(word) = plant(d, kind, "s.json") else {
            continue;
        };
        // A folder named as the input is walked (spec/security.md §4), not refused.
        let lines = if kind == "folder" {
            vec![vec!["--manifest", "s.json", "rig.glb"]]
        } else {
            vec![vec!["s.json"], vec!["--manifest", "s.json", "rig.glb"]]
        };
        for args in lines {
            let o = validate(d, &args);
            ran += 1;
            let all = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
            assert_eq!(o.status.code(), Some(2), "{kind} {args:?}: {all}");
            assert!(
                all.contains(word) || (word == "a directory" && all.contains("folder")),
                "{kind} {args:?}: {all}"
            );
        }
    }
    assert!(ran > 40, "only {ran} runs");
}

/// `dashvertex CMD … -o - >> IN`: standard output appended to the input is refused
/// before anything is read or written, like `-o IN`, whatever the input's size.
#[test]
fn standard_output_redirected_onto_the_input_is_an_alias() {
    // spec: W3
    let rig = repo().join("fixtures/blender/loss_rig.glb");
    let dir = Scratch::new("stdout-alias");
    let d = dir.path();
    // A large input too: the sparse read path (512 KiB and more) and the small one.
    let big = dashvertex_testkit::gltf::SkinnedGlb {
        vertices: 40_000,
        ..Default::default()
    }
    .build();
    assert!(big.len() >= 512 << 10, "{}", big.len());
    std::fs::write(d.join("big.glb"), &big).unwrap();
    std::fs::copy(&rig, d.join("rig.glb")).unwrap();
    let made = Command::new(env!("CARGO_BIN_EXE_dashvertex"))
        .args(["manifest", "init", "rig.glb", "-o", "m.json"])
        .current_dir(d)
        .stderr(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(made.success());
    for input in ["rig.glb", "big.glb"] {
        for line in [
            vec!["reduce", input, "-o", "-", "--to", "glb"],
            vec!["fix", input, "-o", "-", "--to", "glb"],
            vec!["convert", input, "-", "--to", "json"],
        ] {
            let before = std::fs::read(d.join(input)).unwrap();
            let out = std::fs::OpenOptions::new()
                .append(true)
                .open(d.join(input))
                .unwrap();
            let o = Command::new("sh")
                .arg("-c")
                .arg(format!(
                    "ulimit -v {} && exec \"$0\" \"$@\"",
                    dashvertex_testkit::MEMORY_KIB
                ))
                .arg(env!("CARGO_BIN_EXE_dashvertex"))
                .args(&line)
                .current_dir(d)
                .stdin(Stdio::null())
                .stdout(out)
                .stderr(Stdio::piped())
                .output()
                .unwrap();
            assert_eq!(o.status.code(), Some(2), "{line:?}: {}", stderr(&o));
            assert!(
                stderr(&o).contains("standard output") && stderr(&o).contains(input),
                "{line:?}: {}",
                stderr(&o)
            );
            assert!(
                std::fs::read(d.join(input)).unwrap() == before,
                "{line:?} changed the input"
            );
        }
        // Standard input from the file and -o naming it: the same file too.
        let o = Command::new(env!("CARGO_BIN_EXE_dashvertex"))
            .args(["reduce", "-", "-o", input])
            .current_dir(d)
            .stdin(std::fs::File::open(d.join(input)).unwrap())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("standard input"), "{}", stderr(&o));
    }
    // Standard output to another file is fine.
    let out = std::fs::File::create(d.join("copy.glb")).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_dashvertex"))
        .args(["reduce", "rig.glb", "-o", "-", "--to", "glb"])
        .current_dir(d)
        .stdout(out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}
