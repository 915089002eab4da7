//! The commands against hostile filesystems, each run a child process under the 256 MiB
//! address-space limit and a time bound (issue 22, spec/security.md §2 and §4): manifest
//! locks reached through symlinks, FIFOs and long names; outputs that alias inputs;
//! multi-file outputs that must be committed together; directory walks that must stay
//! in their folder, never block and go on past what they cannot read.

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use dashvertex_testkit::{Scratch, changes, repo, run_limited, snapshot};

fn dash(dir: &Path, args: &[&str], secs: u64) -> Output {
    run_limited(Path::new(env!("CARGO_BIN_EXE_dashvertex")), dir, args, secs)
}

fn validate(dir: &Path, args: &[&str], secs: u64) -> Output {
    run_limited(
        Path::new(env!("CARGO_BIN_EXE_dash-validate")),
        dir,
        args,
        secs,
    )
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn mkfifo(path: &Path) -> bool {
    Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success())
}

/// The minimal valid glTF vector with its buffer in the file `bin` beside it.
fn gltf_with_buffer(path: &Path, bin: &str) {
    let bytes = crate::adversarial::gltf_with_uri(path, bin);
    std::fs::write(path.with_file_name(bin), bytes).unwrap();
}

/// A weights document with a root and one child bone named `bone`.
fn weights(path: &Path, bone: &str) {
    std::fs::write(
        path,
        format!(
            r#"{{"type":"DashBoneWeights","vertexCount":1,"bones":[{{"name":"root","weights":[0.5]}},{{"name":"{bone}","parent":"root","weights":[0.5]}}]}}"#
        ),
    )
    .unwrap();
}

fn bones(manifest: &Path) -> Vec<String> {
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(manifest).unwrap()).unwrap();
    m["bones"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn concurrent_runs_through_a_symlink_lose_no_bone() {
    // spec: W2
    // Half the runs name real/m.json, half a symlink to it in another folder
    // (the lock used to sit beside the name given: 15 of 15 trials lost bones).
    let dir = Scratch::new("lock-link");
    let d = dir.path();
    std::fs::create_dir_all(d.join("real")).unwrap();
    std::fs::create_dir_all(d.join("other")).unwrap();
    std::os::unix::fs::symlink("../real/m.json", d.join("other/m.json")).unwrap();
    let runs = 6;
    for i in 0..runs {
        weights(&d.join(format!("w{i}.json")), &format!("bone{i}"));
    }
    for trial in 0..8 {
        let _ = std::fs::remove_file(d.join("real/m.json"));
        let children: Vec<_> = (0..runs)
            .map(|i| {
                let manifest = if i % 2 == 0 {
                    "real/m.json"
                } else {
                    "other/m.json"
                };
                Command::new(env!("CARGO_BIN_EXE_dashvertex"))
                    .args([
                        "reduce",
                        &format!("w{i}.json"),
                        "-o",
                        &format!("out{i}.json"),
                        "--manifest",
                        manifest,
                        "-q",
                    ])
                    .current_dir(d)
                    .spawn()
                    .unwrap()
            })
            .collect();
        for mut c in children {
            assert!(c.wait().unwrap().success(), "trial {trial}");
        }
        let got = bones(&d.join("real/m.json"));
        for i in 0..runs {
            assert!(
                got.contains(&format!("bone{i}")),
                "trial {trial}: bone{i} lost: {got:?}"
            );
        }
        assert!(
            std::fs::symlink_metadata(d.join("other/m.json"))
                .unwrap()
                .file_type()
                .is_symlink(),
            "the link stays a link"
        );
        let left: Vec<_> = std::fs::read_dir(d.join("real"))
            .unwrap()
            .chain(std::fs::read_dir(d.join("other")).unwrap())
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".lock"))
            .collect();
        assert!(left.is_empty(), "lock files left: {left:?}");
    }
}

#[test]
fn a_fifo_manifest_fails_at_once_and_a_long_name_locks() {
    // spec: W2
    let dir = Scratch::new("lock-fifo");
    let d = dir.path();
    weights(&d.join("w.json"), "arm");
    if mkfifo(&d.join("m.json")) {
        let o = dash(
            d,
            &["reduce", "w.json", "-o", "o.json", "--manifest", "m.json"],
            5,
        );
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("FIFO"), "{}", stderr(&o));
        let o = dash(d, &["manifest", "update", "m.json", "--from", "w.json"], 5);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(!d.join("o.json").exists());
        assert!(!d.join(".m.json.lock").exists());
    } else {
        eprintln!("SKIPPED the FIFO case: mkfifo is not available");
    }
    // 251 bytes: `.NAME.lock` would be 257, over the 255 a folder allows.
    let long = format!("{}.json", "m".repeat(246));
    let o = dash(
        d,
        &["reduce", "w.json", "-o", "o.json", "--manifest", &long],
        5,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(bones(&d.join(&long)), ["root", "arm"]);
}

#[test]
fn outputs_that_name_inputs_are_refused_before_anything_is_read() {
    // spec: W3
    let dir = Scratch::new("alias");
    let d = dir.path();
    std::fs::create_dir_all(d.join("sub")).unwrap();
    weights(&d.join("w.json"), "arm");
    let o = dash(
        d,
        &["reduce", "w.json", "-o", "m.json", "--manifest", "m.json"],
        5,
    );
    // No manifest yet: the two names still name one file.
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = dash(d, &["manifest", "init", "w.json", "-o", "m.json"], 5);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::hard_link(d.join("m.json"), d.join("hard.json")).unwrap();
    std::os::unix::fs::symlink("../m.json", d.join("sub/link.json")).unwrap();
    std::os::unix::fs::symlink("../w.json", d.join("sub/input.json")).unwrap();
    let before = snapshot(d);
    for (args, both) in [
        (
            vec!["reduce", "w.json", "-o", "./m.json", "--manifest", "m.json"],
            ["./m.json", "--manifest m.json"],
        ),
        (
            vec![
                "reduce",
                "w.json",
                "-o",
                "hard.json",
                "--manifest",
                "m.json",
            ],
            ["hard.json", "--manifest m.json"],
        ),
        (
            vec![
                "reduce",
                "w.json",
                "-o",
                "sub/link.json",
                "--manifest",
                "m.json",
            ],
            ["sub/link.json", "--manifest m.json"],
        ),
        (
            vec![
                "reduce",
                "w.json",
                "-o",
                "o.json",
                "--report",
                "sub/../m.json",
                "--manifest",
                "m.json",
            ],
            ["--report sub/../m.json", "--manifest m.json"],
        ),
        (
            vec!["reduce", "w.json", "-o", "r.json", "--report", "r.json"],
            ["--report r.json", "-o r.json"],
        ),
        (
            vec!["reduce", "sub/input.json", "-o", "w.json"],
            ["-o w.json", "the input sub/input.json"],
        ),
        (
            vec!["convert", "w.json", "sub/input.json"],
            ["sub/input.json", "the input w.json"],
        ),
        (
            vec!["fix", "w.json", "-o", "sub/../w.json"],
            ["-o sub/../w.json", "the input w.json"],
        ),
        (
            vec!["fix", "sub/input.json", "--dry-run", "--report", "w.json"],
            ["--report w.json", "the input"],
        ),
        (
            vec!["manifest", "init", "w.json", "-o", "sub/input.json"],
            ["sub/input.json", "the input w.json"],
        ),
    ] {
        let o = dash(d, &args, 5);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        for name in both {
            assert!(
                stderr(&o).contains(name),
                "{args:?} names {name}: {}",
                stderr(&o)
            );
        }
        assert_eq!(
            changes(&before, &snapshot(d)),
            Vec::<String>::new(),
            "{args:?}"
        );
    }
    // A .gltf output whose buffer file would be the input's own buffer file.
    gltf_with_buffer(&d.join("model.gltf"), "out.bin");
    let before = snapshot(d);
    let o = dash(
        d,
        &[
            "reduce",
            "model.gltf",
            "-o",
            "out.gltf",
            "--normalize",
            "unit",
        ],
        5,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("out.bin"), "{}", stderr(&o));
    assert_eq!(changes(&before, &snapshot(d)), Vec::<String>::new());
    // The same output beside its input: the .bin of -o is the input's .bin.
    let o = dash(
        d,
        &[
            "remap",
            "model.gltf",
            "--manifest",
            "m.json",
            "-o",
            "out.gltf",
        ],
        5,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(changes(&before, &snapshot(d)), Vec::<String>::new());
}

#[test]
fn multi_file_outputs_are_committed_together() {
    // spec: W4
    let dir = Scratch::new("together");
    let d = dir.path();
    gltf_with_buffer(&d.join("model.gltf"), "model.bin");
    std::fs::write(d.join("out.bin"), b"old buffer").unwrap();
    // The .gltf cannot be written (a folder holds its name): the .bin stays old.
    std::fs::create_dir(d.join("out.gltf")).unwrap();
    std::fs::write(d.join("out.gltf/keep"), b"").unwrap();
    let before = snapshot(d);
    for args in [
        vec![
            "reduce",
            "model.gltf",
            "-o",
            "out.gltf",
            "--normalize",
            "unit",
        ],
        vec!["fix", "model.gltf", "-o", "out.gltf", "--embed"],
        vec!["fix", "model.gltf", "-o", "out.gltf"],
    ] {
        let o = dash(d, &args, 10);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert_eq!(
            changes(&before, &snapshot(d)),
            Vec::<String>::new(),
            "{args:?}"
        );
    }
    // A --report path that cannot be written: neither the output nor the manifest is.
    weights(&d.join("w.json"), "arm");
    let before = snapshot(d);
    for args in [
        vec![
            "reduce",
            "w.json",
            "-o",
            "r.json",
            "--manifest",
            "m.json",
            "--report",
            "missing/report.json",
        ],
        vec![
            "reduce",
            "model.gltf",
            "-o",
            "r.gltf",
            "--normalize",
            "unit",
            "--report",
            "out.gltf",
        ],
        vec![
            "fix",
            "model.gltf",
            "-o",
            "f.gltf",
            "--report",
            "missing/f.json",
        ],
    ] {
        let o = dash(d, &args, 10);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert_eq!(
            changes(&before, &snapshot(d)),
            Vec::<String>::new(),
            "{args:?}"
        );
    }
}

#[test]
fn an_output_through_a_symlink_keeps_its_buffer_beside_the_real_file() {
    // spec: W4
    let dir = Scratch::new("out-link");
    let d = dir.path();
    std::fs::create_dir_all(d.join("real")).unwrap();
    std::fs::create_dir_all(d.join("links")).unwrap();
    gltf_with_buffer(&d.join("model.gltf"), "model.bin");
    std::os::unix::fs::symlink("../real/r.gltf", d.join("links/r.gltf")).unwrap();
    for args in [
        vec![
            "reduce",
            "model.gltf",
            "-o",
            "links/r.gltf",
            "--normalize",
            "unit",
        ],
        vec!["fix", "model.gltf", "-o", "links/r.gltf"],
    ] {
        let o = dash(d, &args, 10);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        assert!(
            d.join("real/r.bin").exists(),
            "{args:?}: no .bin beside the real file"
        );
        assert!(
            !d.join("links/r.bin").exists(),
            "{args:?}: .bin beside the link"
        );
        let o = validate(d, &["real/r.gltf"], 5);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        std::fs::remove_file(d.join("real/r.bin")).unwrap();
    }
}

#[test]
fn missing_inputs_are_usage_errors() {
    let dir = Scratch::new("missing");
    let d = dir.path();
    gltf_with_buffer(&d.join("model.gltf"), "model.bin");
    std::fs::create_dir(d.join("poses")).unwrap();
    for args in [
        vec!["reduce", "nothing.gltf", "-o", "o.gltf"],
        vec!["reduce", "nothing.json", "-o", "o.json"],
        vec!["fix", "nothing.glb", "-o", "o.glb"],
        vec![
            "remap",
            "nothing.gltf",
            "--manifest",
            "m.json",
            "-o",
            "o.gltf",
        ],
        vec![
            "remap",
            "model.gltf",
            "--manifest",
            "none.json",
            "-o",
            "o.gltf",
        ],
        vec![
            "reduce",
            "model.gltf",
            "-o",
            "o.gltf",
            "--report",
            "r.json",
            "--poses",
            "poses",
        ],
        vec![
            "reduce",
            "model.gltf",
            "-o",
            "o.gltf",
            "--report",
            "r.json",
            "--poses",
            "nothing.gltf",
        ],
    ] {
        let o = dash(d, &args, 5);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(!d.join("o.gltf").exists() && !d.join("r.json").exists());
    }
}

/// A folder with every kind of entry a pull request can plant.
fn planted(d: &Path) -> bool {
    std::fs::create_dir_all(d.join("tree/sub")).unwrap();
    std::fs::create_dir_all(d.join("outside")).unwrap();
    let t = d.join("tree");
    std::fs::copy(
        repo().join("spec/vectors/gltf/valid-minimal.gltf"),
        t.join("a.gltf"),
    )
    .unwrap();
    std::fs::copy(
        repo().join("spec/vectors/gltf/joints-out-of-range.gltf"),
        t.join("sub/bad.gltf"),
    )
    .unwrap();
    std::fs::copy(
        repo().join("spec/vectors/gltf/valid-minimal.gltf"),
        d.join("outside/secret.gltf"),
    )
    .unwrap();
    std::os::unix::fs::symlink("/", t.join("root")).unwrap();
    std::os::unix::fs::symlink("../outside", t.join("out")).unwrap();
    std::os::unix::fs::symlink("../outside/secret.gltf", t.join("secret.gltf")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", t.join("z.glb")).unwrap();
    mkfifo(&t.join("x.gltf"))
}

#[test]
fn directory_walks_stay_in_their_folder_and_never_block() {
    // spec: D1 D2
    let dir = Scratch::new("walk");
    let d = dir.path();
    let fifo = planted(d);
    for format in ["human", "sarif"] {
        let o = validate(d, &["--format", format, "tree"], 10);
        // sub/bad.gltf is invalid: exit 1, with a result for each regular file.
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let out = String::from_utf8_lossy(&o.stdout);
        let e = stderr(&o);
        assert!(out.contains("a.gltf") && out.contains("bad.gltf"), "{out}");
        assert!(!out.contains("secret"), "read outside the folder: {out}");
        for refused in ["tree/root", "tree/out", "tree/secret.gltf", "tree/z.glb"] {
            assert!(
                e.contains(&format!("skipped {refused}: a symlink that leads outside")),
                "{e}"
            );
        }
        if fifo {
            assert!(e.contains("skipped tree/x.gltf: a FIFO"), "{e}");
        }
    }
    // A link to a folder outside named on the command line is followed (the user named
    // it); links inside it are not followed further.
    let o = validate(d, &["tree/out"], 10);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn an_unreadable_folder_is_reported_and_the_walk_goes_on() {
    // spec: D2
    let dir = Scratch::new("walk-unreadable");
    let d = dir.path();
    std::fs::create_dir_all(d.join("tree/locked")).unwrap();
    std::fs::copy(
        repo().join("spec/vectors/gltf/valid-minimal.gltf"),
        d.join("tree/a.gltf"),
    )
    .unwrap();
    std::fs::copy(
        repo().join("spec/vectors/gltf/valid-minimal.gltf"),
        d.join("tree/locked/b.gltf"),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        d.join("tree/locked"),
        std::fs::Permissions::from_mode(0o000),
    )
    .unwrap();
    // Root reads every folder: run as nobody when the test runs as root.
    let root = std::fs::read_dir(d.join("tree/locked")).is_ok();
    let exe = env!("CARGO_BIN_EXE_dash-validate");
    let mut cmd = if root {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", exe]);
        c
    } else {
        Command::new(exe)
    };
    let Ok(o) = cmd
        .args(["--format", "sarif", "tree"])
        .current_dir(d)
        .output()
    else {
        eprintln!("SKIPPED: cannot run as another user");
        std::fs::set_permissions(
            d.join("tree/locked"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        return;
    };
    std::fs::set_permissions(
        d.join("tree/locked"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let log: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let run = &log["runs"][0];
    let uris: Vec<&str> = run["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["location"]["uri"].as_str().unwrap())
        .collect();
    assert_eq!(uris, ["tree/a.gltf", "tree/locked"], "{log}");
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{log}");
    assert_eq!(results[0]["ruleId"], "IO_ERROR");
    assert!(
        results[0]["message"]["text"]
            .as_str()
            .unwrap()
            .contains("Permission denied"),
        "{log}"
    );
}

#[test]
fn ignore_rules_that_hide_files_are_never_silent() {
    // spec: D1
    let dir = Scratch::new("walk-ignored");
    let d = dir.path();
    std::fs::create_dir_all(d.join("tree/sub")).unwrap();
    for f in ["tree/a.gltf", "tree/sub/b.gltf"] {
        std::fs::copy(
            repo().join("spec/vectors/gltf/valid-minimal.gltf"),
            d.join(f),
        )
        .unwrap();
    }
    std::fs::write(d.join("tree/.gitignore"), "*\n").unwrap();
    let o = validate(d, &["tree"], 5);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "tree: .gitignore rules excluded 1 file and 1 folder (-v lists them; --all-files checks them too)"
        ),
        "{}",
        stderr(&o)
    );
    let o = validate(d, &["-v", "tree"], 5);
    assert!(stderr(&o).contains("skipped tree/a.gltf: excluded by a .gitignore rule"));
    let o = validate(d, &["--all-files", "tree"], 5);
    assert!(String::from_utf8_lossy(&o.stdout).contains("checked 2 file(s)"));
    // A .gitignore that is a FIFO, or a link to a device, is not read (nor waited on).
    std::fs::remove_file(d.join("tree/.gitignore")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", d.join("tree/.gitignore")).unwrap();
    std::fs::create_dir_all(d.join("tree/sub")).unwrap();
    if mkfifo(&d.join("tree/sub/.gitignore")) {
        let o = validate(d, &["tree"], 5);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let e = stderr(&o);
        assert!(
            e.contains("tree/.gitignore: a symlink that leads outside"),
            "{e}"
        );
        assert!(e.contains("tree/sub/.gitignore: is a FIFO"), "{e}");
        assert!(String::from_utf8_lossy(&o.stdout).contains("checked 2 file(s)"));
    }
}

#[test]
fn sarif_names_a_file_whose_name_is_not_utf8() {
    let dir = Scratch::new("walk-bytes");
    let d = dir.path();
    std::fs::create_dir_all(d.join("tree")).unwrap();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.gltf");
    let path: PathBuf = d.join("tree").join(name);
    std::fs::copy(
        repo().join("spec/vectors/gltf/joints-out-of-range.gltf"),
        &path,
    )
    .unwrap();
    let o = validate(d, &["--format", "sarif", "tree"], 5);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let log: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let uri = log["runs"][0]["artifacts"][0]["location"]["uri"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(uri, "tree/caf%E9.gltf");
    // The URI names the file: decoded, its bytes are the name's.
    let decoded: Vec<u8> = {
        let b = uri.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < b.len() {
            if b[i] == b'%' {
                out.push(
                    u8::from_str_radix(std::str::from_utf8(&b[i + 1..i + 3]).unwrap(), 16).unwrap(),
                );
                i += 3;
            } else {
                out.push(b[i]);
                i += 1;
            }
        }
        out
    };
    assert!(d.join(std::ffi::OsStr::from_bytes(&decoded)).exists());
}
