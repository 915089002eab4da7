//! The WebAssembly modules and the glTF codec link neither the filesystem crate (and its
//! walker, glob and signal crates) nor rayon (issue 49): their normal dependency trees,
//! as `cargo tree -e normal` resolves them for that package alone, hold none of them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;

/// Crates no WebAssembly module (nor `dashvertex-gltf` on its own) may link.
const FORBIDDEN: &[&str] = &["dashvertex-fs", "rayon", "ignore", "globset", "signal-hook"];

/// The package names in `package`'s normal dependency tree, with its default features.
fn tree(package: &str) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(&root)
        .args([
            "tree",
            "--offline",
            "-e",
            "normal",
            "--prefix",
            "none",
            "-p",
            package,
        ])
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut names: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn webassembly_modules_and_the_gltf_codec_link_no_filesystem_crate_nor_rayon() {
    for package in [
        "dashvertex-wasm",
        "dashvertex-inspect-wasm",
        "dashvertex-gltf",
    ] {
        let names = tree(package);
        // The tree was read: the package and its codec are in it.
        assert!(names.iter().any(|n| n == package), "{package}: {names:?}");
        assert!(
            names.iter().any(|n| n == "dashvertex-core"),
            "{package}: {names:?}"
        );
        let linked: Vec<&String> = names
            .iter()
            .filter(|n| FORBIDDEN.contains(&n.as_str()))
            .collect();
        assert!(linked.is_empty(), "{package} links {linked:?}");
    }
}

#[test]
fn the_command_line_links_both() {
    // The same query sees them where they belong, so the test above can fail.
    let names = tree("dashvertex-app");
    for needed in ["dashvertex-fs", "rayon"] {
        assert!(
            names.iter().any(|n| n == needed),
            "dashvertex-app: {names:?}"
        );
    }
}
