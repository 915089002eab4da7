//! Matching bone names against a manifest: every entry answers to its current name and to
//! each of its aliases (former names), so an asset made before a rename still finds the
//! bone's index.

use std::borrow::Borrow;
use std::cmp::Ordering;

use crate::{Entry, Manifest, ManifestError, NameUse, OrderMismatch};

/// A manifest's names and aliases, sorted once for lookups in `O(log n)`.
///
/// `M` is `&Manifest` for a lookup that borrows ([`Manifest::lookup`]) or `Manifest` for
/// one that owns its manifest and can be kept (the validator's joint order). Memory: eight
/// bytes per name and alias. When two entries claim one string (a manifest built in code;
/// [`Manifest::from_json`] refuses it), a current name wins over an alias, then the
/// lower index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lookup<M> {
    manifest: M,
    /// `(entry, slot)`: slot 0 is the entry's name, slot `k + 1` its alias `k`; sorted
    /// by the string, then by slot kind (names first), then by entry.
    keys: Vec<(u32, u32)>,
}

/// The string a key stands for (empty when the key is stale, which cannot happen: keys
/// are built from the manifest they are read with).
fn key_str(m: &Manifest, (entry, slot): (u32, u32)) -> &str {
    let Some(e) = usize::try_from(entry).ok().and_then(|i| m.bones.get(i)) else {
        return "";
    };
    match slot.checked_sub(1) {
        None => e.name.as_str(),
        Some(k) => usize::try_from(k)
            .ok()
            .and_then(|k| e.aliases.get(k))
            .map_or("", String::as_str),
    }
}

/// The keys of every name and alias of `m`, sorted as [`Lookup`] says.
pub(crate) fn sorted_keys(m: &Manifest) -> Vec<(u32, u32)> {
    let total = m
        .bones
        .iter()
        .map(|e| 1 + e.aliases.len())
        .fold(0usize, usize::saturating_add);
    let mut keys = Vec::with_capacity(total);
    for (i, e) in m.bones.iter().enumerate() {
        let Ok(entry) = u32::try_from(i) else { break };
        keys.push((entry, 0));
        for k in 0..e.aliases.len() {
            let Some(slot) = u32::try_from(k).ok().and_then(|k| k.checked_add(1)) else {
                break;
            };
            keys.push((entry, slot));
        }
    }
    keys.sort_unstable_by(|&a, &b| {
        key_str(m, a)
            .cmp(key_str(m, b))
            .then((a.1 != 0).cmp(&(b.1 != 0)))
            .then(a.0.cmp(&b.0))
            .then(a.1.cmp(&b.1))
    });
    keys
}

/// What a key is, for an error message.
pub(crate) fn name_use(m: &Manifest, (entry, slot): (u32, u32)) -> NameUse {
    let bone = usize::try_from(entry)
        .ok()
        .and_then(|i| m.bones.get(i))
        .map_or_else(String::new, |e| e.name.clone());
    NameUse {
        index: entry,
        bone,
        alias: slot.checked_sub(1),
    }
}

/// The first pair of keys that claim one string, if any.
pub(crate) fn first_clash(m: &Manifest, keys: &[(u32, u32)]) -> Option<ManifestError> {
    keys.windows(2).find_map(|w| match w {
        [a, b] if key_str(m, *a) == key_str(m, *b) => Some(ManifestError::NameClash {
            name: key_str(m, *a).to_owned(),
            first: name_use(m, *a),
            second: name_use(m, *b),
        }),
        _ => None,
    })
}

impl<M: Borrow<Manifest>> Lookup<M> {
    /// Indexes `manifest`'s names and aliases.
    pub fn new(manifest: M) -> Self {
        let keys = sorted_keys(manifest.borrow());
        Lookup { manifest, keys }
    }

    /// The manifest looked up.
    pub fn manifest(&self) -> &Manifest {
        self.manifest.borrow()
    }

    /// The manifest, given back.
    pub fn into_inner(self) -> M {
        self.manifest
    }

    /// The position (= index) of the entry that answers to `name` (its current name or
    /// an alias; removed bones included).
    pub fn position(&self, name: &str) -> Option<usize> {
        let m = self.manifest.borrow();
        let at = self
            .keys
            .partition_point(|&k| key_str(m, k).cmp(name) == Ordering::Less);
        let &(entry, _) = self.keys.get(at).filter(|&&k| key_str(m, k) == name)?;
        usize::try_from(entry).ok()
    }

    /// The entry that answers to `name`.
    pub fn entry(&self, name: &str) -> Option<&Entry> {
        self.position(name)
            .and_then(|i| self.manifest.borrow().bones.get(i))
    }

    /// The index of the bone that answers to `name`.
    pub fn index_of(&self, name: &str) -> Option<u32> {
        self.entry(name).map(|e| e.index)
    }

    /// True when some entry answers to `name`.
    pub fn contains(&self, name: &str) -> bool {
        self.position(name).is_some()
    }

    /// The current name of the bone `name` stands for (`name` itself when no entry
    /// answers to it).
    pub fn current_name<'a>(&'a self, name: &'a str) -> &'a str {
        self.entry(name).map_or(name, |e| e.name.as_str())
    }

    /// See [`Manifest::first_out_of_order`]; `O(bones · log n)`.
    pub fn first_out_of_order<S: AsRef<str>>(
        &self,
        bones: &[S],
        extra: bool,
    ) -> Option<OrderMismatch> {
        let len = self.manifest.borrow().bones.len();
        bones.iter().enumerate().find_map(|(joint, name)| {
            let name = name.as_ref();
            match self.index_of(name) {
                None if extra && joint >= len => None,
                None => Some(OrderMismatch::Unknown {
                    joint,
                    name: name.to_owned(),
                }),
                Some(index) if usize::try_from(index).ok() != Some(joint) => {
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
}
