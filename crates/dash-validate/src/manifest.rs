//! Bone counts from a bone manifest (`schemas/manifest.schema.json`, written by
//! `dash manifest`), so `--manifest FILE` can range-check bone indices.
//!
//! Only what range checking needs is read: the format version and the entries, whose
//! indices must be 0, 1, 2, … in order. Removed bones (tombstones) keep their index, so
//! they count.

use serde::Deserialize;

/// The manifest format version this reader understands.
pub const MANIFEST_VERSION: u32 = 1;

#[derive(Deserialize)]
struct File {
    version: u32,
    bones: Vec<Entry>,
}

#[derive(Deserialize)]
struct Entry {
    index: u64,
    name: String,
}

/// The number of bone indices a manifest defines, or why the text is not a manifest.
pub fn manifest_bone_count(text: &str) -> Result<u64, String> {
    let file: File = serde_json::from_str(text).map_err(|e| format!("not a bone manifest: {e}"))?;
    if file.version != MANIFEST_VERSION {
        return Err(format!(
            "manifest version {} (this dash-validate reads version {MANIFEST_VERSION})",
            file.version
        ));
    }
    let mut names = std::collections::BTreeSet::new();
    for (i, e) in file.bones.iter().enumerate() {
        if e.index != i as u64 {
            return Err(format!(
                "manifest entry {i} has index {}; indices must be 0, 1, 2, … in order",
                e.index
            ));
        }
        if e.name.is_empty() || !names.insert(e.name.as_str()) {
            return Err(format!(
                "manifest bone name {:?} is empty or used twice",
                e.name
            ));
        }
    }
    Ok(file.bones.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_every_index_including_removed_bones() {
        let text = r#"{"version": 1, "bones": [
            {"index": 0, "name": "root"},
            {"index": 1, "name": "gone", "removed": true},
            {"index": 2, "name": "arm", "parent": "root", "aliases": ["limb"]}]}"#;
        assert_eq!(manifest_bone_count(text), Ok(3));
    }

    #[test]
    fn refuses_what_is_not_a_version_1_manifest() {
        for (text, says) in [
            (r#"{"version": 2, "bones": []}"#, "version 2"),
            (
                r#"{"version": 1, "bones": [{"index": 1, "name": "a"}]}"#,
                "index 1",
            ),
            (
                r#"{"version": 1, "bones": [{"index": 0, "name": "a"}, {"index": 1, "name": "a"}]}"#,
                "used twice",
            ),
            (r#"[1, 2]"#, "not a bone manifest"),
        ] {
            let err = manifest_bone_count(text).unwrap_err();
            assert!(err.contains(says), "{text}: {err}");
        }
    }
}
