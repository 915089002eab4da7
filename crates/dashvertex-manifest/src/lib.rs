//! The bone manifest: an append-only map from bone name to bone index
//! (`spec/reduction.md` §3), and its one reader: the validator's `--manifest`, the
//! reducer and the `dashvertex manifest` commands all read and check it here.
//!
//! New bones get the next free indices in a fixed order (parents before children,
//! siblings by name); removed bones keep their index as a tombstone, never reused unless
//! the manifest is compacted; renames keep the index. Nothing depends on the order in
//! which an input lists its bones.

mod diff;
mod lookup;
mod read;
mod update;

use std::collections::{BTreeMap, BTreeSet};

pub use diff::Difference;
pub use lookup::Lookup;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Manifest format version.
pub const VERSION: u32 = 1;

/// The joint Blender's glTF exporter adds to a skin to hold the vertices no bone weights
/// (its "neutral bone"). A manifest that numbers it keeps an index for a bone no rig has,
/// so the commands that add it say so.
pub const BLENDER_NEUTRAL_BONE: &str = "neutral_bone";

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
    /// Earlier names of this bone (renames), oldest first. An input bone with one of
    /// these names is this bone; no other bone may have it as its name or alias.
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
    /// The bone's name, matched exactly against the entries' current names and aliases
    /// (former names); names within one skeleton must differ
    /// ([`ManifestError::DuplicateBone`] otherwise) and may not be two names of one
    /// manifest bone ([`ManifestError::SameBone`]).
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
    /// A bone name or alias is empty or only whitespace.
    #[error("invalid manifest: {0} is empty or only whitespace")]
    Name(NameUse),
    /// A bone of an input skeleton has an empty or whitespace-only name, which no manifest
    /// entry may have: every later run could not read the manifest back.
    #[error(
        "bone {position} of the skeleton is named {name:?}; a manifest numbers bones by name, so give it a name in the asset (glTF: the joint node's `name`; an unnamed node is numbered as node<N>)"
    )]
    BlankBone {
        /// Its position in the skeleton (a glTF skin's joint index, a DashVertex bone).
        position: usize,
        /// The name as given.
        name: String,
    },
    /// Two entries (or one entry twice) claim one string as a name or alias, so an input
    /// bone with that name could be either.
    #[error(
        "invalid manifest: {name:?} is {first} and {second}; every name and alias must name one bone"
    )]
    NameClash {
        /// The string claimed twice.
        name: String,
        /// The first claim, in index order (a name before an alias).
        first: NameUse,
        /// The second claim.
        second: NameUse,
    },
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
    /// The manifest has more bones than the reader allows
    /// ([`Manifest::from_json_within`]).
    #[error("the manifest has more than {limit} bones")]
    TooManyBones {
        /// The most bones allowed.
        limit: u64,
    },
    /// Every 32-bit bone index is taken.
    #[error("every 32-bit bone index is taken")]
    Full,
    /// An input skeleton repeats a name.
    #[error("the skeleton has two bones named {0:?}")]
    DuplicateBone(String),
    /// An input skeleton has two bones that are one manifest bone (its name and a former
    /// name, or two former names).
    #[error(
        "the skeleton has bones {first:?} and {second:?}, which are one manifest bone ({bone}); rename one of them in the asset, or give the old one back its own bone with `dashvertex manifest update` after renaming"
    )]
    SameBone {
        /// The first of the two, in skeleton order.
        first: String,
        /// The second.
        second: String,
        /// The manifest bone both answer to.
        bone: NameUse,
    },
}

impl ManifestError {
    /// The JSON Pointer, in the manifest file, of what a reading error is about.
    pub fn pointer(&self) -> Option<String> {
        match self {
            ManifestError::Index { entry, .. } => Some(format!("/bones/{entry}/index")),
            ManifestError::Name(at) | ManifestError::NameClash { second: at, .. } => {
                Some(at.pointer())
            }
            _ => None,
        }
    }
}

/// Where a name sits in a manifest: a bone's current name or one of its aliases.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameUse {
    /// The bone's index (its entry).
    pub index: u32,
    /// The bone's current name.
    pub bone: String,
    /// `Some(k)`: alias `k` of the bone; `None`: its current name.
    pub alias: Option<u32>,
}

impl NameUse {
    /// The JSON Pointer of the name in the manifest file.
    pub fn pointer(&self) -> String {
        match self.alias {
            None => format!("/bones/{}/name", self.index),
            Some(k) => format!("/bones/{}/aliases/{k}", self.index),
        }
    }
}

impl std::fmt::Display for NameUse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.alias {
            None => write!(f, "the name of bone {} ({})", self.index, self.pointer()),
            Some(_) => write!(
                f,
                "an alias of bone {} {:?} ({})",
                self.index,
                self.bone,
                self.pointer()
            ),
        }
    }
}

/// True for a name no bone may have: empty, or only whitespace (which no tool shows
/// apart from another such name).
pub fn is_blank(name: &str) -> bool {
    name.trim().is_empty()
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
    /// non-empty names and aliases, each string naming one bone
    /// ([`ManifestError::NameClash`] naming both claims otherwise). `O(n log n)`.
    pub fn from_json(text: &str) -> Result<Self, ManifestError> {
        Self::from_json_within(text, u64::MAX)
    }

    /// [`Manifest::from_json`] for a manifest of at most `max_bones` bones: one with more
    /// is refused ([`ManifestError::TooManyBones`]) as soon as entry `max_bones + 1` is
    /// read, so the memory a manifest takes is bounded by `max_bones`, whatever the file.
    pub fn from_json_within(text: &str, max_bones: u64) -> Result<Self, ManifestError> {
        let m = read::decode(text, max_bones)?;
        if m.version != VERSION {
            return Err(ManifestError::Version(m.version));
        }
        for (entry, e) in m.bones.iter().enumerate() {
            if usize::try_from(e.index).ok() != Some(entry) {
                return Err(ManifestError::Index {
                    entry,
                    index: e.index,
                });
            }
        }
        m.check_names()?;
        Ok(m)
    }

    /// Checks that no name or alias is empty or only whitespace and that each names one
    /// bone (what [`Manifest::from_json`] checks of the names, for a manifest built in
    /// code).
    pub fn check_names(&self) -> Result<(), ManifestError> {
        for (i, e) in self.bones.iter().enumerate() {
            let index = u32::try_from(i).unwrap_or(u32::MAX);
            let alias = e
                .aliases
                .iter()
                .position(|a| is_blank(a))
                .map(|k| u32::try_from(k).unwrap_or(u32::MAX));
            if is_blank(&e.name) || alias.is_some() {
                return Err(ManifestError::Name(NameUse {
                    index,
                    bone: e.name.clone(),
                    alias: if is_blank(&e.name) { None } else { alias },
                }));
            }
        }
        let keys = lookup::sorted_keys(self);
        // Empty strings sort first.
        if let Some(&k) = keys.first() {
            let at = lookup::name_use(self, k);
            let empty = match at.alias {
                None => at.bone.is_empty(),
                Some(a) => usize::try_from(at.index)
                    .ok()
                    .and_then(|i| self.bones.get(i))
                    .and_then(|e| e.aliases.get(usize::try_from(a).ok()?))
                    .is_some_and(String::is_empty),
            };
            if empty {
                return Err(ManifestError::Name(at));
            }
        }
        match lookup::first_clash(self, &keys) {
            Some(e) => Err(e),
            None => Ok(()),
        }
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

    /// Index of the bone that answers to `name`, its current name or an alias (removed
    /// bones included). Linear: build a [`Manifest::lookup`] for many names.
    pub fn index_of(&self, name: &str) -> Option<u32> {
        self.bones
            .iter()
            .find(|e| e.name == name)
            .or_else(|| {
                self.bones
                    .iter()
                    .find(|e| e.aliases.iter().any(|a| a == name))
            })
            .map(|e| e.index)
    }

    /// The manifest's names and aliases indexed for matching input bones ([`Lookup`]).
    pub fn lookup(&self) -> Lookup<&Manifest> {
        Lookup::new(self)
    }

    /// The first bone of `bones` (bone `i` at position `i`, as a glTF skin numbers its
    /// joints) whose position is not its manifest index, or that the manifest does not
    /// have; `None` when every position is the manifest's index. A list shorter than the
    /// manifest is in order when its positions agree. With `extra`, bones the manifest
    /// does not have are in order after the manifest's indices (where `dashvertex remap`
    /// appends them); without, any such bone is out of order (the manifest is locked).
    /// Names are matched against the entries' current names and aliases, retired bones
    /// included. `O((n + bones) log n)`; [`Lookup::first_out_of_order`] reuses one index.
    pub fn first_out_of_order<S: AsRef<str>>(
        &self,
        bones: &[S],
        extra: bool,
    ) -> Option<OrderMismatch> {
        self.lookup().first_out_of_order(bones, extra)
    }

    /// Number of indices (live and retired).
    pub fn len(&self) -> usize {
        self.bones.len()
    }

    /// True when there is no bone.
    pub fn is_empty(&self) -> bool {
        self.bones.is_empty()
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
                "\"a\" is the name of bone 0 (/bones/0/name) and the name of bone 1",
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

    /// The issue-23 rig: a bone renamed in the manifest, an older asset still using the
    /// old name.
    fn renamed_rig() -> Manifest {
        let mut m = Manifest::init(&[
            b("root", None),
            b("hand_l", Some("root")),
            b("fingers_l", Some("hand_l")),
            b("tip_l", Some("fingers_l")),
        ])
        .unwrap();
        m.rename(&[("fingers_l".into(), "fingers.L".into())])
            .unwrap();
        m
    }

    #[test]
    fn an_old_name_finds_the_bone_and_adds_nothing() {
        let mut m = renamed_rig();
        assert_eq!(
            m.bones[3].parent.as_deref(),
            Some("fingers.L"),
            "children follow"
        );
        let before = m.clone();
        let old_asset = [
            b("root", None),
            b("hand_l", Some("root")),
            b("fingers_l", Some("hand_l")),
            b("tip_l", Some("fingers_l")),
        ];
        let ch = m.update(&old_asset, true).unwrap();
        assert!(ch.is_empty(), "{:?}", ch.describe());
        assert_eq!(m, before);
        assert_eq!(m.index_of("fingers_l"), Some(2));
        assert_eq!(m.lookup().index_of("fingers_l"), Some(2));
        assert_eq!(
            m.first_out_of_order(&["root", "hand_l", "fingers_l", "tip_l"], false),
            None
        );
        // A parent recorded under the old name is the same parent.
        m.bones[3].parent = Some("fingers_l".into());
        assert!(m.update(&old_asset, false).unwrap().is_empty());
        // Both names in one skeleton are one bone twice.
        let both = [b("fingers_l", None), b("fingers.L", None)];
        let err = m.update(&both, false).unwrap_err();
        assert!(matches!(err, ManifestError::SameBone { .. }), "{err}");
        assert!(
            err.to_string().contains("\"fingers_l\" and \"fingers.L\""),
            "{err}"
        );
    }

    #[test]
    fn update_all_is_update_in_turn() {
        let sk1 = [b("a", None), b("b", Some("a"))];
        let sk2 = [b("a", None), b("b", None), b("c", Some("b"))];
        let sk3 = [b("c", Some("a")), b("d", None)];
        let mut one = Manifest::init(&[b("a", None)]).unwrap();
        one.bones[0].removed = true;
        let mut turn = one.clone();
        let mut all = Changes::default();
        for sk in [&sk1[..], &sk2, &sk3] {
            let c = turn.update(sk, false).unwrap();
            all.added.extend(c.added);
            all.revived.extend(c.revived);
            all.reparented.extend(c.reparented);
        }
        let ch = one.update_all(&[&sk1, &sk2, &sk3], false).unwrap();
        assert_eq!(one, turn);
        assert_eq!(ch, all);
        assert_eq!(ch.reparented.len(), 2, "b loses its parent, c changes it");
    }

    #[test]
    fn a_blank_name_never_enters_a_manifest() {
        // spec: M7
        for blank in ["", " ", "\t\n", "\u{3000}"] {
            // From a skeleton (reduce, manifest update, Python's assign).
            let mut m = Manifest::new();
            let err = m
                .update(&[b("root", None), b(blank, Some("root"))], false)
                .unwrap_err();
            assert!(
                matches!(&err, ManifestError::BlankBone { position: 1, name } if name == blank),
                "{blank:?}: {err}"
            );
            assert!(m.is_empty(), "nothing added");
            // By a rename.
            let mut m = Manifest::init(&[b("root", None)]).unwrap();
            let err = m.rename(&[("root".into(), blank.into())]).unwrap_err();
            assert!(err.to_string().contains("whitespace"), "{err}");
            // Read from a file.
            let text = format!(
                r#"{{"version": 1, "bones": [{{"index": 0, "name": {}}}]}}"#,
                serde_json::to_string(blank).unwrap()
            );
            let err = Manifest::from_json(&text).unwrap_err();
            assert_eq!(err.pointer().as_deref(), Some("/bones/0/name"), "{err}");
            let text = format!(
                r#"{{"version": 1, "bones": [{{"index": 0, "name": "a", "aliases": ["b", {}]}}]}}"#,
                serde_json::to_string(blank).unwrap()
            );
            let err = Manifest::from_json(&text).unwrap_err();
            assert_eq!(
                err.pointer().as_deref(),
                Some("/bones/0/aliases/1"),
                "{err}"
            );
        }
    }

    #[test]
    fn duplicate_aliases_are_refused_naming_both_bones() {
        for (bones, says) in [
            (
                r#"{"index": 0, "name": "a"}, {"index": 1, "name": "b", "aliases": ["a"]}"#,
                "\"a\" is the name of bone 0 (/bones/0/name) and an alias of bone 1 \"b\" (/bones/1/aliases/0)",
            ),
            (
                r#"{"index": 0, "name": "a", "aliases": ["x"]}, {"index": 1, "name": "b", "aliases": ["x"]}"#,
                "an alias of bone 0 \"a\" (/bones/0/aliases/0) and an alias of bone 1 \"b\" (/bones/1/aliases/0)",
            ),
            (
                r#"{"index": 0, "name": "a", "aliases": ["x", "x"]}"#,
                "(/bones/0/aliases/0) and an alias of bone 0 \"a\" (/bones/0/aliases/1)",
            ),
            (
                r#"{"index": 0, "name": "a", "aliases": ["a"]}"#,
                "the name of bone 0 (/bones/0/name) and an alias of bone 0",
            ),
            (
                r#"{"index": 0, "name": "a", "aliases": [""]}"#,
                "/bones/0/aliases/0) is empty",
            ),
        ] {
            let text = format!(r#"{{"version": 1, "bones": [{bones}]}}"#);
            let err = Manifest::from_json(&text).unwrap_err();
            assert!(err.to_string().contains(says), "{text}: {err}");
            assert!(err.pointer().is_some(), "{err}");
        }
    }

    #[test]
    fn renames_keep_every_string_to_one_bone() {
        let mut m = renamed_rig();
        let refuse = |m: &mut Manifest, from: &str, to: &str, says: &str| {
            let before = m.clone();
            let err = m.rename(&[(from.into(), to.into())]).unwrap_err();
            assert!(err.to_string().contains(says), "{from}->{to}: {err}");
            assert_eq!(*m, before, "nothing applied");
        };
        refuse(
            &mut m,
            "root",
            "fingers_l",
            "former name (an alias) of bone 2 (\"fingers.L\")",
        );
        refuse(&mut m, "root", "hand_l", "already the name of bone 1");
        refuse(
            &mut m,
            "fingers_l",
            "f",
            "a former name of bone 2 (now \"fingers.L\")",
        );
        refuse(&mut m, "root", "root", "the same");
        // Back to the old name: the alias leaves the list.
        m.rename(&[("fingers.L".into(), "fingers_l".into())])
            .unwrap();
        assert_eq!(
            (m.bones[2].name.as_str(), &m.bones[2].aliases[..]),
            ("fingers_l", &["fingers.L".to_owned()][..])
        );
        // A chain in one call.
        m.rename(&[("root".into(), "r1".into()), ("r1".into(), "r2".into())])
            .unwrap();
        assert_eq!(m.bones[0].aliases, ["root", "r1"]);
        assert_eq!(m.bones[1].parent.as_deref(), Some("r2"));
        m.check_names().unwrap();
        let err = m
            .rename(&[("hand_l".into(), "x".into()), ("tip_l".into(), "x".into())])
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("new name (an earlier rename) of bone 1"),
            "{err}"
        );
    }

    #[test]
    fn a_rename_is_one_difference() {
        let old = Manifest::init(&[b("root", None), b("fingers_l", Some("root"))]).unwrap();
        let mut new = old.clone();
        new.rename(&[("fingers_l".into(), "fingers.L".into())])
            .unwrap();
        // The older asset reduced against the renamed manifest changes nothing.
        assert!(
            new.update(&[b("root", None), b("fingers_l", Some("root"))], false)
                .unwrap()
                .is_empty()
        );
        let d = old.diff(&new);
        assert_eq!(
            d,
            [Difference::Renamed {
                from: "fingers_l".into(),
                to: "fingers.L".into(),
                index: 1
            }]
        );
        assert_eq!(
            d[0].to_string(),
            "renamed bone \"fingers_l\" to \"fingers.L\""
        );
        let mut later = new.clone();
        later
            .update(&[b("root", None), b("toe", Some("root"))], true)
            .unwrap();
        later.bones[0].removed = true;
        let back = later.diff(&old);
        let text: Vec<String> = old.diff(&later).iter().map(ToString::to_string).collect();
        assert_eq!(
            text,
            [
                "retired bone \"root\" (index 0)",
                "renamed bone \"fingers_l\" to \"fingers.L\"",
                "retired bone \"fingers.L\" (index 1)",
                "added bone \"toe\" at index 2",
            ]
        );
        assert!(
            back.contains(&Difference::Removed {
                name: "toe".into(),
                index: 2
            }),
            "{back:?}"
        );
        let mut compacted = later.clone();
        compacted.compact();
        assert!(later.diff(&compacted).contains(&Difference::Moved {
            name: "toe".into(),
            from: 2,
            to: 0
        }));
    }

    #[test]
    fn a_manifest_beyond_the_bone_bound_is_refused_while_read() {
        let m = Manifest::init(&[b("a", None), b("b", Some("a")), b("c", Some("a"))]).unwrap();
        let text = m.to_json();
        assert_eq!(Manifest::from_json_within(&text, 3).unwrap(), m);
        let err = Manifest::from_json_within(&text, 2).unwrap_err();
        assert!(
            matches!(err, ManifestError::TooManyBones { limit: 2 }),
            "{err}"
        );
        for (bad, says) in [
            (r#"{"version": 1, "bones": [], "x": 1}"#, "unknown field"),
            (
                r#"{"version": 1, "version": 1, "bones": []}"#,
                "duplicate field",
            ),
            (r#"{"bones": []}"#, "missing field"),
            (r#"{"version": 1, "bones": []} []"#, "trailing"),
            (
                r#"{"version": 1, "bones": [{"index": 0, "name": "a", "y": 2}]}"#,
                "unknown field",
            ),
        ] {
            let err = Manifest::from_json(bad).unwrap_err();
            assert!(err.to_string().contains(says), "{bad}: {err}");
        }
    }

    #[test]
    fn lookups_are_fast_on_a_large_manifest() {
        let n = 200_000u32;
        let m = Manifest {
            version: VERSION,
            bones: (0..n)
                .map(|i| Entry {
                    index: i,
                    name: format!("b{i}"),
                    parent: None,
                    removed: false,
                    aliases: vec![format!("old{i}")],
                })
                .collect(),
        };
        m.check_names().unwrap();
        let l = m.lookup();
        assert_eq!(l.index_of("old199999"), Some(199_999));
        let names: Vec<String> = (0..n).map(|i| format!("old{i}")).collect();
        assert_eq!(l.first_out_of_order(&names, false), None);
    }
}
