//! Changing a manifest: renames, and bringing it up to date with input skeletons. Both
//! match bones by name and alias ([`Lookup`]), so an asset that still uses a bone's former
//! name gets the bone's index and adds nothing.

use std::collections::HashMap;

use crate::lookup::name_use;
use crate::{BoneRef, Changes, Entry, Manifest, ManifestError, canonical_order};

/// A change [`Manifest::update_all`] works out before applying it.
/// Positions are entries, or `n + k` for the k-th bone added (appended) by the call.
enum Op {
    /// A retired bone is back.
    Revive(usize),
    /// A bone's parent (by current name) changed.
    Parent(usize, Option<String>),
    /// A bone left the (complete) skeleton.
    Retire(usize),
    /// A new bone, appended.
    Add(String, Option<String>),
}

impl Manifest {
    /// Applies renames (`old → new`, in order): the index stays, the old name becomes an
    /// alias, and bones whose recorded parent was the old name record the new one.
    /// Renaming a bone back to one of its aliases takes that alias out of the list. The
    /// old name must be a bone's current name; the new one may not be any other bone's
    /// name or alias (removed bones included).
    pub fn rename(&mut self, renames: &[(String, String)]) -> Result<Changes, ManifestError> {
        let mut plan: Vec<(usize, &str, &str)> = Vec::with_capacity(renames.len());
        {
            let lookup = self.lookup();
            // Names given by earlier renames of this call, and each entry's name now.
            let mut claimed: HashMap<&str, usize> = HashMap::new();
            let mut current: HashMap<usize, &str> = HashMap::new();
            for (from, to) in renames {
                let err = |why: String| ManifestError::Rename {
                    from: from.clone(),
                    to: to.clone(),
                    why,
                };
                let owner =
                    |name: &str| claimed.get(name).copied().or_else(|| lookup.position(name));
                let name_now = |e: usize| {
                    current
                        .get(&e)
                        .copied()
                        .or_else(|| self.bones.get(e).map(|x| x.name.as_str()))
                };
                if crate::is_blank(to) {
                    return Err(err("the new name is empty or only whitespace".into()));
                }
                let e = match owner(from) {
                    Some(e) if name_now(e) == Some(from.as_str()) => e,
                    Some(e) => {
                        return Err(err(format!(
                            "{from:?} is a former name of bone {e} (now {:?}); rename it by its current name",
                            name_now(e).unwrap_or_default()
                        )));
                    }
                    None => return Err(err("no bone has the old name".into())),
                };
                if from == to {
                    return Err(err("the old and new names are the same".into()));
                }
                if let Some(o) = owner(to).filter(|&o| o != e) {
                    let now = name_now(o).unwrap_or_default();
                    let what = if claimed.contains_key(to.as_str()) {
                        "new name (an earlier rename)"
                    } else if now == to {
                        "name"
                    } else {
                        "former name (an alias)"
                    };
                    return Err(err(format!(
                        "the new name is already the {what} of bone {o} ({now:?}); every name and alias names one bone"
                    )));
                }
                claimed.insert(to, e);
                current.insert(e, to);
                plan.push((e, from, to));
            }
        }
        let mut changes = Changes::default();
        let mut parent_renames: HashMap<String, String> = HashMap::new();
        for (e, from, to) in plan {
            let Some(entry) = self.bones.get_mut(e) else {
                continue;
            };
            entry.aliases.retain(|a| a != to);
            entry.aliases.push(from.to_owned());
            entry.name = to.to_owned();
            changes
                .renamed
                .push((from.to_owned(), to.to_owned(), entry.index));
            parent_renames.insert(from.to_owned(), to.to_owned());
        }
        // A chain a -> b -> c within one call: children of `a` follow to `c`.
        if !parent_renames.is_empty() {
            let lookup = self.lookup();
            let targets: Vec<Option<String>> = self
                .bones
                .iter()
                .map(|x| {
                    let p = x.parent.as_deref()?;
                    parent_renames
                        .contains_key(p)
                        .then(|| lookup.current_name(p).to_owned())
                })
                .collect();
            for (x, t) in self.bones.iter_mut().zip(targets) {
                if let Some(t) = t {
                    x.parent = Some(t);
                }
            }
        }
        Ok(changes)
    }

    /// Adds the bones of `skeleton` that the manifest lacks (revives retired ones), and,
    /// when `complete` says the skeleton is the whole rig, retires bones it no longer has.
    /// See [`Manifest::update_all`].
    pub fn update(
        &mut self,
        skeleton: &[BoneRef],
        complete: bool,
    ) -> Result<Changes, ManifestError> {
        self.update_all(&[skeleton], complete)
    }

    /// [`Manifest::update`] with several skeletons at once (a glTF file's primitives), as
    /// if each were applied in turn, with one index of the manifest: `O((n + b) log n)`
    /// for `n` entries and `b` input bones, whatever the number of skeletons.
    ///
    /// A bone matches the entry that answers to its name or an alias, so an asset that
    /// still uses a former name gets that bone's index; parents are compared by the bone
    /// they name. Refused: a bone whose name is empty or only whitespace
    /// ([`ManifestError::BlankBone`]), a skeleton that repeats a name
    /// ([`ManifestError::DuplicateBone`]) or has two names of one manifest bone
    /// ([`ManifestError::SameBone`]).
    pub fn update_all(
        &mut self,
        skeletons: &[&[BoneRef]],
        complete: bool,
    ) -> Result<Changes, ManifestError> {
        for skeleton in skeletons {
            if let Some((position, b)) = skeleton
                .iter()
                .enumerate()
                .find(|(_, b)| crate::is_blank(&b.name))
            {
                return Err(ManifestError::BlankBone {
                    position,
                    name: b.name.clone(),
                });
            }
        }
        let base = self.bones.len();
        let mut ops = Vec::new();
        {
            let lookup = self.lookup();
            // Position (an entry, or `base + k` for the k-th addition of this call) ->
            // (removed, parent by current name) as earlier skeletons of this call left it.
            let mut state: HashMap<usize, (bool, Option<String>)> = HashMap::new();
            // Names added by this call -> their position.
            let mut added: HashMap<String, usize> = HashMap::new();
            let mut seen = vec![false; if complete { base } else { 0 }];
            for skeleton in skeletons {
                let mut parents: HashMap<&str, Option<&str>> =
                    HashMap::with_capacity(skeleton.len());
                let mut bones_of: HashMap<usize, &str> = HashMap::new();
                for b in *skeleton {
                    if parents.insert(&b.name, b.parent.as_deref()).is_some() {
                        return Err(ManifestError::DuplicateBone(b.name.clone()));
                    }
                    if let Some(p) = lookup.position(&b.name)
                        && let Some(other) = bones_of.insert(p, &b.name)
                    {
                        return Err(ManifestError::SameBone {
                            first: other.to_owned(),
                            second: b.name.clone(),
                            bone: name_use(
                                lookup.manifest(),
                                (u32::try_from(p).unwrap_or(u32::MAX), 0),
                            ),
                        });
                    }
                }
                // Parents by the current name of the bone they name.
                let canonical = |name: &str| lookup.current_name(name).to_owned();
                let mut found: Vec<(usize, Option<String>)> = Vec::new();
                for b in *skeleton {
                    let wanted = b.parent.as_deref().map(canonical);
                    match lookup.position(&b.name) {
                        Some(p) => {
                            if let Some(s) = seen.get_mut(p) {
                                *s = true;
                            }
                            found.push((p, wanted));
                        }
                        None => {
                            if let Some(&p) = added.get(b.name.as_str()) {
                                found.push((p, wanted));
                            }
                        }
                    }
                }
                // Revivals and new parents in index order, as the manifest lists them.
                found.sort_by_key(|f| f.0);
                for (p, wanted) in found {
                    let (removed, parent) = state.entry(p).or_insert_with(|| {
                        self.bones.get(p).map_or((false, None), |e| {
                            (e.removed, e.parent.as_deref().map(canonical))
                        })
                    });
                    if *removed {
                        *removed = false;
                        ops.push(Op::Revive(p));
                    }
                    if *parent != wanted {
                        parent.clone_from(&wanted);
                        ops.push(Op::Parent(p, wanted));
                    }
                }
                for name in canonical_order(skeleton) {
                    if lookup.contains(&name) || added.contains_key(&name) {
                        continue;
                    }
                    let parent = parents.get(name.as_str()).copied().flatten().map(canonical);
                    let p = base.saturating_add(added.len());
                    added.insert(name.clone(), p);
                    state.insert(p, (false, parent.clone()));
                    ops.push(Op::Add(name, parent));
                }
            }
            if complete {
                for (p, s) in seen.iter().enumerate() {
                    let removed = match state.get(&p) {
                        Some(s) => s.0,
                        None => self.bones.get(p).is_some_and(|e| e.removed),
                    };
                    if !s && !removed {
                        ops.push(Op::Retire(p));
                    }
                }
            }
        }
        self.apply(ops)
    }

    /// Applies what [`Manifest::update_all`] worked out, reporting each change.
    fn apply(&mut self, ops: Vec<Op>) -> Result<Changes, ManifestError> {
        let mut changes = Changes::default();
        for op in ops {
            match op {
                Op::Revive(p) => {
                    if let Some(e) = self.bones.get_mut(p) {
                        e.removed = false;
                        changes.revived.push((e.name.clone(), e.index));
                    }
                }
                Op::Parent(p, parent) => {
                    if let Some(e) = self.bones.get_mut(p) {
                        e.parent = parent;
                        changes.reparented.push((e.name.clone(), e.index));
                    }
                }
                Op::Retire(p) => {
                    if let Some(e) = self.bones.get_mut(p) {
                        e.removed = true;
                        changes.removed.push((e.name.clone(), e.index));
                    }
                }
                Op::Add(name, parent) => {
                    let index = u32::try_from(self.bones.len()).map_err(|_| ManifestError::Full)?;
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
        }
        Ok(changes)
    }
}
