//! The rules every reader of a bone manifest applies (`spec/reduction.md` §3): the format
//! version, indices 0, 1, 2, … in order, and non-empty, distinct names. The file format
//! itself (serde types, schema) lives with its writer, `dashvertex-reduce`.

/// Manifest format version.
pub const MANIFEST_VERSION: u32 = 1;

/// Checks a parsed manifest's version and its entries as `(index, name)` in file order;
/// the error says what is wrong in one line.
pub fn check_manifest<'a>(
    version: u32,
    entries: impl IntoIterator<Item = (u64, &'a str)>,
) -> Result<(), String> {
    if version != MANIFEST_VERSION {
        return Err(format!(
            "version {version} (this dash reads version {MANIFEST_VERSION})"
        ));
    }
    let mut names = std::collections::BTreeSet::new();
    for (i, (index, name)) in entries.into_iter().enumerate() {
        if index != i as u64 {
            return Err(format!(
                "entry {i} has index {index}; indices must be 0, 1, 2, … in order"
            ));
        }
        if name.is_empty() || !names.insert(name) {
            return Err(format!("bone name {name:?} is empty or used twice"));
        }
    }
    Ok(())
}
