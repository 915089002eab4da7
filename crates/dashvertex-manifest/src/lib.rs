//! The bone manifest: an append-only map from bone name to bone index
//! (`spec/reduction.md` §3), and its one reader: the validator's `--manifest`, the
//! reducer and the `dash manifest` commands all read and check it here.
//!
//! New bones get the next free indices in a fixed order (parents before children,
//! siblings by name); removed bones keep their index as a tombstone, never reused unless
//! the manifest is compacted; renames keep the index. Nothing depends on the order in
//! which an input lists its bones.

#![deny(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap
)]

use std::collections::{BTreeMap, BTreeSet, HashMap};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Manifest format version.
pub const VERSION: u32 = 1;

/// One bone of the manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Entry {
    /// The stable index.
    pub index: u32,
    /// The bone's current name.
    pub name: String,
    /// The parent's name when the bone was last seen (informational).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// Set when the bone left the skeleton: the index stays reserved.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub removed: bool,
    /// Earlier names of this bone (renames), oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
}

/// The manifest file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(title = "DashBoneManifest")]
pub struct Manifest {
    /// Always 1.
    pub version: u32,
    /// Bones in index order; indices are 0, 1, 2, … without gaps.
    pub bones: Vec<Entry>,
}

/// A bone of an input skeleton: a name and its parent's name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BoneRef {
    /// The bone's name, matched exactly against the entries' current names (aliases do
    /// not count); names within one skeleton must differ
    /// ([`ManifestError::DuplicateBone`] otherwise).
    pub name: String,
    /// Parent name, `None` for a root.
    pub parent: Option<String>,
}

/// What a manifest operation changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// Bones added, with their new index.
    pub added: Vec<(String, u32)>,
    /// Bones marked removed.
    pub removed: Vec<(String, u32)>,
    /// Removed bones that came back (same index).
    pub revived: Vec<(String, u32)>,
    /// Renames applied: old name, new name, index.
    pub renamed: Vec<(String, String, u32)>,
    /// Parent names that changed.
    pub reparented: Vec<(String, u32)>,
}

impl Changes {
    /// True when the manifest is unchanged.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty()
            && self.removed.is_empty()
            && self.revived.is_empty()
            && self.renamed.is_empty()
            && self.reparented.is_empty()
    }

    /// One line per change.
    pub fn describe(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (n, i) in &self.added {
            out.push(format!("add bone {n:?} as index {i}"));
        }
        for (n, i) in &self.revived {
            out.push(format!("bring back bone {n:?} at its index {i}"));
        }
        for (n, i) in &self.removed {
            out.push(format!("retire bone {n:?} (index {i} stays reserved)"));
        }
        for (a, b, i) in &self.renamed {
            out.push(format!("rename bone {a:?} to {b:?} (index {i})"));
        }
        for (n, i) in &self.reparented {
            out.push(format!("record a new parent for bone {n:?} (index {i})"));
        }
        out
    }
}

/// Where a list of bones numbered by position (a glTF skin's joints) first departs from
/// a manifest's numbering: [`Manifest::first_out_of_order`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OrderMismatch {
    /// Joint `joint` is bone `name`, which the manifest numbers `index`.
    Moved {
        /// The joint's position in the list.
        joint: usize,
        /// Its bone name.
        name: String,
        /// The manifest's index for that name.
        index: u32,
    },
    /// Joint `joint` is bone `name`, which the manifest does not have.
    Unknown {
        /// The joint's position in the list.
        joint: usize,
        /// Its bone name.
        name: String,
    },
}

impl OrderMismatch {
    /// The joint's position in the list.
    pub fn joint(&self) -> usize {
        match self {
            OrderMismatch::Moved { joint, .. } | OrderMismatch::Unknown { joint, .. } => *joint,
        }
    }
}

impl std::fmt::Display for OrderMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OrderMismatch::Moved { joint, name, index } => {
                write!(
                    f,
                    "joint {joint} is bone {name:?} but the manifest numbers it {index}"
                )
            }
            OrderMismatch::Unknown { joint, name } => {
                write!(
                    f,
                    "joint {joint} is bone {name:?}, which the manifest does not have"
                )
            }
        }
    }
}

/// Why a manifest could not be read, or an operation on it failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ManifestError {
    /// The text is not JSON of the manifest's shape.
    #[error("invalid manifest: {0}")]
    Json(#[source] serde_json::Error),
    /// A format version this dash does not read.
    #[error("invalid manifest: version {0} (this dash reads version {VERSION})")]
    Version(u32),
    /// Indices are not 0, 1, 2, … in file order.
    #[error(
        "invalid manifest: entry {entry} has index {index}; indices must be 0, 1, 2, … in order"
    )]
    Index {
        /// Position of the entry in the file.
        entry: usize,
        /// The index it carries.
        index: u32,
    },
    /// A bone name is empty or used twice.
    #[error("invalid manifest: bone name {0:?} is empty or used twice")]
    Name(String),
    /// A rename names a bone the manifest does not have, or a name already taken.
    #[error("rename {from:?} -> {to:?}: {why}")]
    Rename {
        /// The name to rename, as given; it must be the current name of a bone (an alias
        /// is not enough).
        from: String,
        /// The new name, as given; no bone may have it as its current name, not
        /// even a removed bone.
        to: String,
        /// Why it cannot be applied.
        why: String,
    },
    /// `--locked` and the manifest would change.
    #[error("the manifest is locked but would change:\n  {}", .0.join("\n  "))]
    Locked(Vec<String>),
    /// Every 32-bit bone index is taken.
    #[error("every 32-bit bone index is taken")]
    Full,
    /// An input skeleton repeats a name.
    #[error("the skeleton has two bones named {0:?}")]
    DuplicateBone(String),
}

/// The order in which new bones are numbered: a depth-first walk from the roots, parents
/// before children, roots and siblings sorted by name (byte order). Bones whose parent is
/// not in the skeleton count as roots; cycles are broken at the first bone met.
pub fn canonical_order(bones: &[BoneRef]) -> Vec<String> {
    let names: BTreeSet<&str> = bones.iter().map(|b| b.name.as_str()).collect();
    let mut children: BTreeMap<Option<&str>, BTreeSet<&str>> = BTreeMap::new();
    for b in bones {
        let parent = b
            .parent
            .as_deref()
            .filter(|p| names.contains(p) && *p != b.name);
        children.entry(parent).or_default().insert(&b.name);
    }
    let mut out = Vec::with_capacity(bones.len());
    let mut seen = BTreeSet::new();
    let mut stack: Vec<&str> = children
        .get(&None)
        .map(|c| c.iter().rev().copied().collect())
        .unwrap_or_default();
    let mut remaining: Vec<&str> = names.iter().rev().copied().collect();
    loop {
        while let Some(n) = stack.pop() {
            if !seen.insert(n) {
                continue;
            }
            out.push(n.to_owned());
            if let Some(c) = children.get(&Some(n)) {
                stack.extend(c.iter().rev().copied());
            }
        }
        // Bones only reachable through a cycle: start again from the smallest unseen.
        match remaining.pop() {
            Some(n) if !seen.contains(n) => stack.push(n),
            Some(_) => {}
            None => break,
        }
    }
    out
}

impl Manifest {
    /// An empty manifest.
    pub fn new() -> Self {
        Manifest {
            version: VERSION,
            bones: Vec::new(),
        }
    }

    /// Parses and checks a manifest file: its version, indices 0, 1, 2, … in order, and
    /// non-empty, distinct names.
    pub fn from_json(text: &str) -> Result<Self, ManifestError> {
        let m: Manifest = serde_json::from_str(text).map_err(ManifestError::Json)?;
        if m.version != VERSION {
            return Err(ManifestError::Version(m.version));
        }
        let mut names = BTreeSet::new();
        for (entry, e) in m.bones.iter().enumerate() {
            if usize::try_from(e.index).ok() != Some(entry) {
                return Err(ManifestError::Index {
                    entry,
                    index: e.index,
                });
            }
            if e.name.is_empty() || !names.insert(e.name.as_str()) {
                return Err(ManifestError::Name(e.name.clone()));
            }
        }
        Ok(m)
    }

    /// The indices of removed bones (tombstones), ascending: weight on one of them is an
    /// error, and they still count toward the index range.
    pub fn removed_indices(&self) -> Vec<u32> {
        self.bones
            .iter()
            .filter(|e| e.removed)
            .map(|e| e.index)
            .collect()
    }

    /// The canonical text: pretty JSON, bones in index order, trailing newline.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    /// Index of a bone by current name (removed bones included).
    pub fn index_of(&self, name: &str) -> Option<u32> {
        self.bones.iter().find(|e| e.name == name).map(|e| e.index)
    }

    /// Name → index for every bone (removed ones included).
    pub fn lookup(&self) -> HashMap<&str, u32> {
        self.bones
            .iter()
            .map(|e| (e.name.as_str(), e.index))
            .collect()
    }

    /// The first bone of `bones` (bone `i` at position `i`, as a glTF skin numbers its
    /// joints) whose position is not its manifest index, or that the manifest does not
    /// have; `None` when every position is the manifest's index. A list shorter than the
    /// manifest is in order when its positions agree. With `extra`, bones the manifest
    /// does not have are in order after the manifest's indices (where `dash remap`
    /// appends them); without, any such bone is out of order (the manifest is locked).
    /// Names are matched exactly against the entries' current names, retired bones
    /// included. Linear in `bones`.
    pub fn first_out_of_order<S: AsRef<str>>(
        &self,
        bones: &[S],
        extra: bool,
    ) -> Option<OrderMismatch> {
        let lookup = self.lookup();
        bones.iter().enumerate().find_map(|(joint, name)| {
            let name = name.as_ref();
            match lookup.get(name) {
                None if extra && joint >= self.bones.len() => None,
                None => Some(OrderMismatch::Unknown {
                    joint,
                    name: name.to_owned(),
                }),
                Some(&index) if usize::try_from(index).ok() != Some(joint) => {
                    Some(OrderMismatch::Moved {
                        joint,
                        name: name.to_owned(),
                        index,
                    })
                }
                Some(_) => None,
            }
        })
    }

    /// Number of indices (live and retired).
    pub fn len(&self) -> usize {
        self.bones.len()
    }

    /// True when there is no bone.
    pub fn is_empty(&self) -> bool {
        self.bones.is_empty()
    }

    /// Applies renames (`old → new`): the index stays, the old name becomes an alias.
    pub fn rename(&mut self, renames: &[(String, String)]) -> Result<Changes, ManifestError> {
        let mut changes = Changes::default();
        for (from, to) in renames {
            let err = |why: &str| ManifestError::Rename {
                from: from.clone(),
                to: to.clone(),
                why: why.to_owned(),
            };
            if self.index_of(to).is_some() {
                return Err(err("the new name is already in the manifest"));
            }
            let e = self
                .bones
                .iter_mut()
                .find(|e| &e.name == from)
                .ok_or_else(|| err("no bone has the old name"))?;
            e.aliases.push(std::mem::replace(&mut e.name, to.clone()));
            changes.renamed.push((from.clone(), to.clone(), e.index));
        }
        Ok(changes)
    }

    /// Adds the bones of `skeleton` that the manifest lacks (revives retired ones), and,
    /// when `complete` says the skeleton is the whole rig, retires bones it no longer has.
    pub fn update(
        &mut self,
        skeleton: &[BoneRef],
        complete: bool,
    ) -> Result<Changes, ManifestError> {
        let mut seen = BTreeSet::new();
        for b in skeleton {
            if !seen.insert(b.name.as_str()) {
                return Err(ManifestError::DuplicateBone(b.name.clone()));
            }
        }
        let mut changes = Changes::default();
        let parents: HashMap<&str, Option<&String>> = skeleton
            .iter()
            .map(|b| (b.name.as_str(), b.parent.as_ref()))
            .collect();
        for e in &mut self.bones {
            match parents.get(e.name.as_str()) {
                Some(p) => {
                    if e.removed {
                        e.removed = false;
                        changes.revived.push((e.name.clone(), e.index));
                    }
                    if e.parent.as_ref() != *p {
                        e.parent = p.cloned();
                        changes.reparented.push((e.name.clone(), e.index));
                    }
                }
                None if complete && !e.removed => {
                    e.removed = true;
                    changes.removed.push((e.name.clone(), e.index));
                }
                None => {}
            }
        }
        let mut known: std::collections::HashSet<String> =
            self.bones.iter().map(|e| e.name.clone()).collect();
        for name in canonical_order(skeleton) {
            if known.insert(name.clone()) {
                let index = u32::try_from(self.bones.len()).map_err(|_| ManifestError::Full)?;
                let parent = parents.get(name.as_str()).copied().flatten().cloned();
                changes.added.push((name.clone(), index));
                self.bones.push(Entry {
                    index,
                    name,
                    parent,
                    removed: false,
                    aliases: Vec::new(),
                });
            }
        }
        Ok(changes)
    }

    /// A manifest for a skeleton, from scratch.
    pub fn init(skeleton: &[BoneRef]) -> Result<Self, ManifestError> {
        let mut m = Manifest::new();
        m.update(skeleton, true)?;
        Ok(m)
    }

    /// Drops retired bones and renumbers the rest in index order; returns the
    /// old → new table of the bones that moved.
    #[allow(clippy::cast_possible_truncation)]
    pub fn compact(&mut self) -> Vec<(String, u32, u32)> {
        let mut moved = Vec::new();
        self.bones.retain(|e| !e.removed);
        // i < the number of entries, whose indices are distinct u32s (`from_json` checks,
        // `update` adds the next one): i < 2^32.
        for (i, e) in self.bones.iter_mut().enumerate() {
            if e.index != i as u32 {
                moved.push((e.name.clone(), e.index, i as u32));
                e.index = i as u32;
            }
        }
        moved
    }
}

/// The JSON Schema of the manifest file.
pub fn schema() -> schemars::Schema {
    let mut s = schemars::generate::SchemaSettings::draft2020_12()
        .for_deserialize()
        .into_generator()
        .into_root_schema_for::<Manifest>();
    s.insert(
        "$id".into(),
        serde_json::Value::String("https://dash.invalid/schemas/manifest.schema.json".into()),
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(name: &str, parent: Option<&str>) -> BoneRef {
        BoneRef {
            name: name.into(),
            parent: parent.map(Into::into),
        }
    }

    #[test]
    fn new_bones_are_numbered_parents_first_siblings_by_name() {
        let sk = [
            b("spine", Some("root")),
            b("arm_r", Some("spine")),
            b("root", None),
            b("arm_l", Some("spine")),
            b("head", Some("spine")),
            b("tail", Some("root")),
        ];
        assert_eq!(
            canonical_order(&sk),
            ["root", "spine", "arm_l", "arm_r", "head", "tail"]
        );
        let m = Manifest::init(&sk).unwrap();
        assert_eq!(m.index_of("head"), Some(4));
    }

    #[test]
    fn removed_bones_keep_their_index_and_compact_renumbers() {
        let mut m = Manifest::init(&[b("a", None), b("b", Some("a")), b("c", Some("a"))]).unwrap();
        let ch = m
            .update(&[b("a", None), b("c", Some("a")), b("d", Some("c"))], true)
            .unwrap();
        assert_eq!(ch.removed, vec![("b".to_owned(), 1)]);
        assert_eq!(ch.added, vec![("d".to_owned(), 3)]);
        assert_eq!(m.index_of("c"), Some(2));
        let ch = m.update(&[b("a", None), b("b", Some("a"))], false).unwrap();
        assert_eq!(ch.revived, vec![("b".to_owned(), 1)]);
        m.bones[2].removed = true;
        assert_eq!(m.compact(), vec![("d".to_owned(), 3, 2)]);
        assert_eq!(Manifest::from_json(&m.to_json()).unwrap(), m);
    }

    #[test]
    fn only_version_1_manifests_with_ordered_indices_and_distinct_names_are_read() {
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
            (
                r#"{"version": 1, "bones": [{"index": 0, "name": ""}]}"#,
                "empty",
            ),
            (r#"[1, 2]"#, "invalid manifest"),
        ] {
            let err = Manifest::from_json(text).unwrap_err();
            assert!(err.to_string().contains(says), "{text}: {err}");
        }
        let json = Manifest::from_json("{").unwrap_err();
        assert!(
            std::error::Error::source(&json).is_some(),
            "the JSON error is the source"
        );
        let m = Manifest::from_json(
            r#"{"version": 1, "bones": [{"index": 0, "name": "root"},
                {"index": 1, "name": "gone", "removed": true}, {"index": 2, "name": "arm"}]}"#,
        )
        .unwrap();
        assert_eq!((m.len(), m.removed_indices()), (3, vec![1]));
    }

    #[test]
    fn renames_keep_the_index() {
        let mut m = Manifest::init(&[b("a", None), b("b", Some("a"))]).unwrap();
        m.rename(&[("b".into(), "B".into())]).unwrap();
        assert_eq!(m.index_of("B"), Some(1));
        assert_eq!(m.bones[1].aliases, ["b"]);
        assert!(m.rename(&[("zz".into(), "y".into())]).is_err());
        assert!(m.rename(&[("a".into(), "B".into())]).is_err());
    }
}
