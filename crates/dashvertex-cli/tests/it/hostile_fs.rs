//! CLI-level property tests of hostile filesystems (spec/security.md §2 and §4), each
//! run a child process under the 256 MiB address-space limit:
//!
//! - planted trees: folders with FIFOs, symlinks to `/`, to folders and files outside,
//!   to `/dev/zero`, dangling links, links inside, `.gitignore` files of random
//!   patterns (some FIFOs or links themselves), names that are not UTF-8. `dash-validate
//!   DIR` must end in time, change nothing, report no file outside the folder, report
//!   every plain file no rule hides, and print the same at 1 and 2 threads;
//! - aliases: an output spelled as an input (or another output) in a random way
//!   (`./`, `sub/..`, a symlink, a hard link) for a random command must exit 2 and
//!   change nothing.
//!
//! `PROPTEST_CASES=N` runs more cases (the default is 24).

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use dashvertex_testkit::{Scratch, changes, repo, run_limited, snapshot};
use proptest::prelude::*;

/// What a planted entry is.
#[derive(Clone, Debug)]
enum Kind {
    /// A copy of a repository vector (valid or not).
    File(usize),
    /// A FIFO.
    Fifo,
    /// A symlink to `/`.
    LinkRoot,
    /// A symlink to the folder beside the tree.
    LinkOutsideFolder,
    /// A symlink to a file beside the tree.
    LinkOutsideFile,
    /// A symlink to `/dev/zero`.
    LinkZero,
    /// A symlink to nothing.
    Dangling,
    /// A symlink to the n-th plain file planted (inside the tree).
    LinkInside(usize),
    /// A `.gitignore` with these lines.
    Gitignore(Vec<String>),
    /// A `.gitignore` that is a FIFO.
    GitignoreFifo,
}

/// Vectors copied into trees (only extensions a walk takes, none JSON: a JSON file that
/// is not vertex data is skipped by content, which this test does not model).
const VECTORS: &[&str] = &[
    "spec/vectors/gltf/valid-minimal.gltf",
    "spec/vectors/gltf/joints-out-of-range.gltf",
    "spec/vectors/gltf/multiset-valid.glb",
    "examples/rig.dmx",
    "spec/vectors/binary/valid-raw.raw",
];

#[derive(Clone, Debug)]
struct Plant {
    /// Folder inside the tree (0 to 2 levels).
    folder: Vec<&'static str>,
    /// File name bytes (for `.gitignore` kinds, ignored).
    name: Vec<u8>,
    kind: Kind,
}

fn name() -> impl Strategy<Value = Vec<u8>> {
    (
        prop_oneof![
            Just(b"a".to_vec()),
            Just(b"b".to_vec()),
            Just(b".h".to_vec()),
            Just(b"caf\xe9".to_vec()),
            Just(b"\xff\xfe".to_vec()),
            Just(b"x y#".to_vec()),
        ],
        prop_oneof![
            Just(".gltf"),
            Just(".glb"),
            Just(".dmx"),
            Just(".raw"),
            Just(".txt")
        ],
        0u8..4,
    )
        .prop_map(|(mut stem, ext, n)| {
            stem.push(b'0' + n);
            stem.extend_from_slice(ext.as_bytes());
            stem
        })
}

fn pattern() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("*".to_owned()),
        Just("*.glb".to_owned()),
        Just("!a*".to_owned()),
        Just("d/".to_owned()),
        Just("/e".to_owned()),
        Just("**/b*".to_owned()),
        Just("[ab]0.gltf".to_owned()),
        Just("# comment".to_owned()),
        Just("\\!x".to_owned()),
        Just("[".to_owned()),
    ]
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        6 => (0..VECTORS.len()).prop_map(Kind::File),
        1 => Just(Kind::Fifo),
        1 => Just(Kind::LinkRoot),
        1 => Just(Kind::LinkOutsideFolder),
        1 => Just(Kind::LinkOutsideFile),
        1 => Just(Kind::LinkZero),
        1 => Just(Kind::Dangling),
        2 => (0usize..8).prop_map(Kind::LinkInside),
        2 => proptest::collection::vec(pattern(), 1..4).prop_map(Kind::Gitignore),
        1 => Just(Kind::GitignoreFifo),
    ]
}

fn plant() -> impl Strategy<Value = Plant> {
    (
        proptest::collection::vec(prop_oneof![Just("d"), Just("e"), Just(".g")], 0..3),
        name(),
        kind(),
    )
        .prop_map(|(folder, name, kind)| Plant { folder, name, kind })
}

fn tree() -> impl Strategy<Value = Vec<Plant>> {
    proptest::collection::vec(plant(), 1..14)
}

/// Plants `plants` under `d/tree` (and a folder `d/outside`); returns the plain files
/// planted, relative to `d`.
fn build(d: &Path, plants: &[Plant]) -> Vec<PathBuf> {
    let outside = d.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::copy(repo().join(VECTORS[0]), outside.join("secret.gltf")).unwrap();
    let mut plain: Vec<PathBuf> = Vec::new();
    for p in plants {
        let mut folder = PathBuf::from("tree");
        for f in &p.folder {
            folder.push(f);
        }
        std::fs::create_dir_all(d.join(&folder)).unwrap();
        let rel = folder.join(std::ffi::OsStr::from_bytes(&p.name));
        let at = d.join(&rel);
        if std::fs::symlink_metadata(&at).is_ok()
            && !matches!(p.kind, Kind::Gitignore(_) | Kind::GitignoreFifo)
        {
            continue;
        }
        let fifo = |path: &Path| {
            let _ = std::process::Command::new("mkfifo").arg(path).status();
        };
        let up = "../".repeat(p.folder.len() + 1);
        let link = |target: &str| {
            let _ = std::os::unix::fs::symlink(target, &at);
        };
        match &p.kind {
            Kind::File(v) => {
                std::fs::copy(repo().join(VECTORS[*v]), &at).unwrap();
                plain.push(rel);
            }
            Kind::Fifo => fifo(&at),
            Kind::LinkRoot => link("/"),
            Kind::LinkOutsideFolder => link(&format!("{up}outside")),
            Kind::LinkOutsideFile => link(&format!("{up}outside/secret.gltf")),
            Kind::LinkZero => link("/dev/zero"),
            Kind::Dangling => link("nothing-here.gltf"),
            Kind::LinkInside(n) => {
                if let Some(target) = plain.get(*n) {
                    let _ = std::os::unix::fs::symlink(d.join(target), &at);
                }
            }
            Kind::Gitignore(lines) => {
                let g = d.join(&folder).join(".gitignore");
                if !g.exists() {
                    std::fs::write(g, lines.join("\n")).unwrap();
                }
            }
            Kind::GitignoreFifo => {
                let g = d.join(&folder).join(".gitignore");
                if std::fs::symlink_metadata(&g).is_err() {
                    fifo(&g);
                }
            }
        }
    }
    plain
}

/// Percent-decodes a SARIF URI into bytes.
fn decode(uri: &str) -> Vec<u8> {
    let b = uri.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        let hex = b
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (c, hex) {
            (b'%', Some(v)) => {
                out.push(v);
                i += 3;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

fn check_tree(plants: &[Plant]) -> Result<(), TestCaseError> {
    let dir = Scratch::new("hostile-tree");
    let d = dir.path();
    let plain = build(d, plants);
    let exe = Path::new(env!("CARGO_BIN_EXE_dash-validate"));
    let before = snapshot(d);
    let one = run_limited(exe, d, &["--threads", "1", "--format", "sarif", "tree"], 20);
    let two = run_limited(exe, d, &["--threads", "2", "--format", "sarif", "tree"], 20);
    prop_assert_eq!(changes(&before, &snapshot(d)), Vec::<String>::new());
    prop_assert_eq!(
        &one.stdout,
        &two.stdout,
        "output differs between thread counts"
    );
    let log: serde_json::Value = serde_json::from_slice(&one.stdout)
        .map_err(|e| TestCaseError::fail(format!("SARIF does not parse: {e}")))?;
    let artifacts = log["runs"][0]["artifacts"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut reported: Vec<PathBuf> = Vec::new();
    for a in &artifacts {
        let uri = a["location"]["uri"].as_str().unwrap_or_default();
        let path = PathBuf::from(std::ffi::OsStr::from_bytes(&decode(uri)));
        prop_assert!(path.starts_with("tree"), "{} is not in the tree", uri);
        // Every reported file exists under the tree: the URI names it.
        prop_assert!(
            std::fs::symlink_metadata(d.join(&path)).is_ok(),
            "{} names no file",
            uri
        );
        let real = std::fs::canonicalize(d.join(&path)).unwrap();
        prop_assert!(
            real.starts_with(std::fs::canonicalize(d.join("tree")).unwrap()),
            "{} leads outside",
            uri
        );
        reported.push(path);
    }
    // A plain file that no .gitignore can hide (none in its folder or above) and that is
    // not hidden is reported, unless a link inside reached it first (one result each).
    let gitignores = |p: &Path| {
        p.ancestors()
            .skip(1)
            .any(|a| std::fs::symlink_metadata(d.join(a).join(".gitignore")).is_ok())
    };
    for p in &plain {
        let hidden = p
            .components()
            .any(|c| c.as_os_str().as_bytes().starts_with(b"."));
        let walked = p
            .extension()
            .is_some_and(|x| ["gltf", "glb", "dmx", "raw"].iter().any(|e| x == *e));
        if hidden || !walked || gitignores(p) {
            continue;
        }
        let same = |q: &PathBuf| {
            std::fs::canonicalize(d.join(q)).ok() == std::fs::canonicalize(d.join(p)).ok()
        };
        prop_assert!(
            reported.iter().any(same),
            "{} is not reported: {:?}",
            p.display(),
            reported
        );
    }
    Ok(())
}

/// How an output names an input.
#[derive(Clone, Copy, Debug)]
enum Spelling {
    Same,
    DotSlash,
    UpAndBack,
    Symlink,
    HardLink,
}

fn spell(d: &Path, name: &str, how: Spelling) -> String {
    match how {
        Spelling::Same => name.to_owned(),
        Spelling::DotSlash => format!("./{name}"),
        Spelling::UpAndBack => format!("sub/../{name}"),
        Spelling::Symlink => {
            let link = format!("sub/link-{name}");
            let _ = std::os::unix::fs::symlink(format!("../{name}"), d.join(&link));
            link
        }
        Spelling::HardLink => {
            let link = format!("hard-{name}");
            let _ = std::fs::hard_link(d.join(name), d.join(&link));
            link
        }
    }
}

fn check_alias(command: usize, how: Spelling) -> Result<(), TestCaseError> {
    let dir = Scratch::new("hostile-alias");
    let d = dir.path();
    std::fs::create_dir_all(d.join("sub")).unwrap();
    std::fs::write(
        d.join("w.json"),
        r#"{"type":"DashBoneWeights","vertexCount":1,"bones":[{"name":"root","weights":[0.5]},{"name":"arm","parent":"root","weights":[0.5]}]}"#,
    )
    .unwrap();
    std::fs::copy(repo().join("examples/rig.json"), d.join("rig.json")).unwrap();
    let init = run_limited(
        Path::new(env!("CARGO_BIN_EXE_dashvertex")),
        d,
        &["manifest", "init", "w.json", "-o", "m.json"],
        10,
    );
    prop_assert_eq!(init.status.code(), Some(0));
    let m = spell(d, "m.json", how);
    let w = spell(d, "w.json", how);
    let rig = spell(d, "rig.json", how);
    let args: Vec<&str> = match command {
        0 => vec!["reduce", "w.json", "-o", &m, "--manifest", "m.json"],
        1 => vec![
            "reduce",
            "w.json",
            "-o",
            "o.json",
            "--manifest",
            "m.json",
            "--report",
            &m,
        ],
        2 => vec!["reduce", "w.json", "-o", &w],
        3 => vec!["reduce", "w.json", "-o", "o.json", "--report", &w],
        4 => vec!["fix", "rig.json", "-o", &rig],
        5 => vec!["fix", "rig.json", "-o", "o.json", "--report", &rig],
        6 => vec!["convert", "rig.json", &rig],
        7 => vec!["manifest", "init", "w.json", "-o", &w],
        _ => vec!["manifest", "update", "m.json", "--from", &m],
    };
    let before = snapshot(d);
    let o = run_limited(Path::new(env!("CARGO_BIN_EXE_dashvertex")), d, &args, 10);
    prop_assert_eq!(
        o.status.code(),
        Some(2),
        "{:?}: {}",
        args,
        String::from_utf8_lossy(&o.stderr)
    );
    prop_assert!(String::from_utf8_lossy(&o.stderr).contains("is the same file as"));
    prop_assert_eq!(changes(&before, &snapshot(d)), Vec::<String>::new());
    Ok(())
}

fn spelling() -> impl Strategy<Value = Spelling> {
    prop_oneof![
        Just(Spelling::Same),
        Just(Spelling::DotSlash),
        Just(Spelling::UpAndBack),
        Just(Spelling::Symlink),
        Just(Spelling::HardLink),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(24),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn walks_of_planted_trees_are_contained(plants in tree()) {
        check_tree(&plants)?;
    }

    #[test]
    fn outputs_spelled_as_inputs_are_refused(command in 0usize..9, how in spelling()) {
        check_alias(command, how)?;
    }
}
