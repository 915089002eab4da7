//! The split vectors of `spec/split.md` (`spec/vectors/split/`): each file split as
//! `vectors.json` says gives the outcome of its `.expected.json` — the report, or the
//! refusal — and every written output is valid and within its budget.
//! A vector's optional `maxParts` is `--max-parts` (default 4,096), named `.pN` in its
//! expected outcome's file name. Regenerate the expected outcomes with
//! `BLESS=1 cargo test -p dashvertex-split --test vectors` and read the diff.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use dashvertex_core::Limits;
use dashvertex_gltf::Container;
use dashvertex_gltf::export::BufferFiles;
use dashvertex_split::{Options, SplitError, split_gltf};
use dashvertex_testkit::repo;
use serde_json::{Value, json};

/// The refusal as the vector records it: its kind and its message.
fn refusal(e: &SplitError) -> Value {
    let kind = match e {
        SplitError::TooManyJoints { .. } => "TooManyJoints",
        SplitError::Unfixable { .. } => "Unfixable",
        SplitError::Unsupported { .. } => "Unsupported",
        SplitError::MaxError { .. } => "MaxError",
        SplitError::TooManyParts { .. } => "TooManyParts",
        SplitError::NodeExtension { .. } => "NodeExtension",
        SplitError::OutputBudget { .. } => "OutputBudget",
        SplitError::UnknownExtension { .. } => "UnknownExtension",
        _ => "Other",
    };
    json!({"refused": kind, "message": e.to_string()})
}

// spec: SP1 SP2 SP3 SP4 SP6 SP7 SP8 SP9 SP10 SP11 SP12 SP13
#[test]
fn split_vectors() {
    let dir = repo().join("spec/vectors/split");
    let list: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(dir.join("vectors.json")).unwrap()).unwrap();
    let bless = std::env::var_os("BLESS").is_some();
    let limits = Limits::default();
    let mut failures = Vec::new();
    for v in &list {
        let file = v["file"].as_str().unwrap();
        let n = usize::try_from(v["maxJoints"].as_u64().unwrap()).unwrap();
        let reduce = v["reduce"].as_bool().unwrap();
        // `--max-parts`, when the vector sets one.
        let max_parts = v["maxParts"].as_u64().map(|p| usize::try_from(p).unwrap());
        let g = dashvertex_gltf::load_path(&dir.join(file), &limits).unwrap();
        let anims = dashvertex_skin::animations(&g, &limits).unwrap();
        let opts = Options {
            reduce,
            max_parts: max_parts.unwrap_or(dashvertex_split::DEFAULT_MAX_PARTS),
            ..Options::new(n)
        };
        let outcome = match split_gltf(&g, &opts, &anims, &limits) {
            Err(e) => refusal(&e),
            Ok(s) => {
                let mut out = json!({"report": s.report});
                if let Some(ed) = s.editor {
                    let w = ed
                        .finish_files(Container::Gltf, &BufferFiles::Embed)
                        .unwrap();
                    let doc: Value = serde_json::from_slice(&w.main).unwrap();
                    // Valid, and every skin within the budget.
                    let opts = dashvertex_validate::Options::new()
                        .with_format(dashvertex_formats::Format::Gltf);
                    let (report, _) = dashvertex_validate::validate_owned(
                        file,
                        w.main.clone(),
                        &dashvertex_gltf::NoFiles,
                        &opts,
                    );
                    assert_eq!(report.counts.errors, 0, "{file}: {:?}", report.diagnostics);
                    for s in doc["skins"].as_array().unwrap() {
                        assert!(s["joints"].as_array().unwrap().len() <= n, "{file}");
                    }
                    // What the rewrite made of the structure, for the reader.
                    out["meshes"] = json!(doc["meshes"].as_array().map(|m| {
                        m
                        .iter()
                        .map(|m| json!({
                            "name": m["name"],
                            "weights": m["weights"],
                            "primitives": m["primitives"].as_array().unwrap().len(),
                            "mode": m["primitives"][0]["mode"],
                            "targets": m["primitives"][0]["targets"].as_array().map(Vec::len),
                            "material": m["primitives"][0]["material"],
                            "extras": m["primitives"][0]["extras"],
                        }))
                        .collect::<Vec<_>>()
                    }));
                    out["nodes"] = doc["nodes"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .filter(|x| x.get("skin").is_some())
                        .cloned()
                        .collect();
                    out["skins"] = doc["skins"].clone();
                    out["channels"] = doc["animations"][0]["channels"].clone();
                    out["scenes"] = doc["scenes"].clone();
                    // References held by extensions, as the rewrite left them ([SP13]).
                    if let Some(x) = doc.get("extensions") {
                        out["extensions"] = x.clone();
                    }
                }
                out
            }
        };
        let expected_path = dir.join(format!(
            "{}.n{n}{}{}.expected.json",
            file.trim_end_matches(".gltf"),
            max_parts.map_or_else(String::new, |p| format!(".p{p}")),
            if reduce { ".reduce" } else { "" }
        ));
        let mut text = serde_json::to_string_pretty(&outcome).unwrap();
        text.push('\n');
        if bless {
            std::fs::write(&expected_path, &text).unwrap();
        }
        let on_disk = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if on_disk != text {
            failures.push(format!("{} ({})", expected_path.display(), v["rule"]));
        }
    }
    assert!(failures.is_empty(), "outcomes differ: {failures:?}");
}
