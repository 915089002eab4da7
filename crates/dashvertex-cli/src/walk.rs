//! The files a `dash-validate` run checks: the paths it was given, folders walked into
//! the vertex-data files they hold (contained, `.gitignore` respected), and JSON that is
//! not vertex data set aside with a word on why.

use std::path::{Path, PathBuf};

use dashvertex_formats::Format;

use crate::common;

const EXTENSIONS: &[&str] = &["json", "dmx", "raw", "gltf", "glb"];

/// One file of a run, as the walk gives it (the validate job reads each as its kind says).
pub(crate) use dashvertex_app::validate::Input as Item;

/// Expands directories into the files they hold (spec/security.md §4: each once, no
/// symlink followed out of the folder, regular files only, hidden and `.gitignore`d paths
/// skipped unless `all`, unreadable entries reported and passed). A file named on the
/// command line is always checked (unless `skip_other`); a `.json` found in a directory is
/// checked only when it holds vertex data (DashVertex or glTF): bone manifests, weights
/// documents and other JSON are listed as skipped on standard error, not reported
/// invalid. What is refused, and how many paths `.gitignore` rules excluded, is noted.
pub(crate) fn expand(inputs: &[PathBuf], all: bool, skip_other: bool, max: u64) -> Vec<Item> {
    let walk = dashvertex_fs::Walk::new()
        .extensions(EXTENSIONS)
        .hidden(all)
        .gitignore(!all);
    let mut out = Vec::new();
    for input in inputs {
        let folder = input.is_dir();
        let found = skip_other || folder;
        let (mut files, mut folders) = (0u64, 0u64);
        for e in walk.run(std::slice::from_ref(input)) {
            let p = match e {
                dashvertex_fs::WalkEntry::File(p) => p,
                dashvertex_fs::WalkEntry::Skipped { path, why } => {
                    if !why.starts_with("not a vertex-data") {
                        common::detail(format_args!("skipped {}: {why}", path.display()));
                    }
                    continue;
                }
                dashvertex_fs::WalkEntry::Refused { path, why } => {
                    common::note(format_args!("skipped {}: {why}", path.display()));
                    continue;
                }
                dashvertex_fs::WalkEntry::Unreadable { path, error } => {
                    out.push(Item::Unreadable(path, error));
                    continue;
                }
                dashvertex_fs::WalkEntry::Ignored { path, folder } => {
                    if folder {
                        folders += 1;
                    } else if EXTENSIONS
                        .iter()
                        .any(|x| path.extension().is_some_and(|e| e.eq_ignore_ascii_case(x)))
                    {
                        files += 1;
                    } else {
                        continue;
                    }
                    common::detail(format_args!(
                        "skipped {}: excluded by a .gitignore rule",
                        path.display()
                    ));
                    continue;
                }
            };
            if found
                && p.extension().and_then(|x| x.to_str()) == Some("json")
                && let Some(what) = not_vertex_data(&p, max, folder)
            {
                common::info(format_args!("skipped {}: {what}", p.display()));
                continue;
            }
            out.push(if folder {
                Item::Found(p)
            } else {
                Item::Named(p)
            });
        }
        if files + folders > 0 {
            let plural =
                |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
            let what = match (files, folders) {
                (f, 0) => plural(f, "file", "files"),
                (0, d) => plural(d, "folder", "folders"),
                (f, d) => format!(
                    "{} and {}",
                    plural(f, "file", "files"),
                    plural(d, "folder", "folders")
                ),
            };
            common::note(format_args!(
                "{}: .gitignore rules excluded {what} (-v lists them; --all-files checks them too)",
                input.display()
            ));
        }
    }
    out
}

/// What a JSON file is when it is not vertex data; `None` for DashVertex, glTF, and
/// anything that cannot be told (broken JSON is checked, and reported).
fn not_vertex_data(path: &Path, max: u64, found: bool) -> Option<&'static str> {
    #[derive(serde::Deserialize)]
    struct Probe {
        #[serde(rename = "type")]
        kind: Option<serde_json::Value>,
        bones: Option<serde::de::IgnoredAny>,
        version: Option<serde::de::IgnoredAny>,
    }
    let bytes = if found {
        dashvertex_fs::read_regular(path, max).ok()?
    } else {
        dashvertex_fs::read_input(path, max).ok()?
    };
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace())?;
    // Vertex data is what the one detector says it is.
    if *first != b'{' || Format::text_kind(&bytes).is_some() {
        return None;
    }
    let p: Probe = serde_json::from_slice(&bytes).ok()?;
    Some(match p.kind.as_ref().and_then(|k| k.as_str()) {
        Some("DashBoneWeights") => {
            "a per-bone weights document (dashvertex reduce reads it), not vertex data"
        }
        _ if p.bones.is_some() && p.version.is_some() => "a bone manifest, not vertex data",
        _ => "JSON that is neither DashVertex nor glTF",
    })
}
