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
mod overlap;
mod read;
mod update;

use std::collections::{BTreeMap, BTreeSet};

pub use diff::Difference;
pub use lookup::Lookup;
pub use overlap::Overlap;
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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

impl Default for Manifest {
    /// An empty manifest of the current [`VERSION`], as [`Manifest::new`] gives, which
    /// [`Manifest::from_json`] reads back (not version 0, which no reader accepts).
    fn default() -> Self {
        Manifest::new()
    }
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
mod tests;
