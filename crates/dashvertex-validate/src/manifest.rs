//! Bone counts from a bone manifest (`schemas/manifest.schema.json`, written by
//! `dash manifest`), so `--manifest FILE` can range-check bone indices.
//!
//! Only what the checks need is read; the manifest rules are `dashvertex_core::check_manifest`,
//! the same as the writer's. Removed bones (tombstones) keep their index, so they count
//! toward the range, and weight on one is `BONE_REMOVED`.

use serde::Deserialize;

#[derive(Deserialize)]
struct File {
    version: u32,
    bones: Vec<Entry>,
}

#[derive(Deserialize)]
struct Entry {
    index: u64,
    name: String,
    #[serde(default)]
    removed: bool,
}

/// What a bone manifest tells the validator.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ManifestBones {
    /// Number of bone indices the manifest defines (removed bones included).
    pub count: u64,
    /// The indices of removed bones, ascending.
    pub removed: Vec<u32>,
}

/// Reads a bone manifest, or says why the text is not one.
pub fn manifest_bones(text: &str) -> Result<ManifestBones, String> {
    let file: File = serde_json::from_str(text).map_err(|e| format!("not a bone manifest: {e}"))?;
    dashvertex_core::check_manifest(
        file.version,
        file.bones.iter().map(|e| (e.index, e.name.as_str())),
    )
    .map_err(|e| format!("bone manifest: {e}"))?;
    Ok(ManifestBones {
        count: file.bones.len() as u64,
        removed: file
            .bones
            .iter()
            .filter(|e| e.removed)
            .filter_map(|e| u32::try_from(e.index).ok())
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_every_index_and_lists_removed_bones() {
        let text = r#"{"version": 1, "bones": [
            {"index": 0, "name": "root"},
            {"index": 1, "name": "gone", "removed": true},
            {"index": 2, "name": "arm", "parent": "root", "aliases": ["limb"]}]}"#;
        assert_eq!(
            manifest_bones(text),
            Ok(ManifestBones {
                count: 3,
                removed: vec![1]
            })
        );
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
            let err = manifest_bones(text).unwrap_err();
            assert!(err.contains(says), "{text}: {err}");
        }
    }
}
