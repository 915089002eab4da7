//! The difference between two numberings of one rig ([`Manifest::diff`]): what `dash
//! manifest diff` prints. A bone is followed across the two by its name or any alias, so a
//! rename is one change, not an addition and a removal.

use crate::{Lookup, Manifest};

/// One difference from an older numbering to a newer one.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Difference {
    /// A live bone the older numbering does not have.
    Added {
        /// Its name.
        name: String,
        /// Its index.
        index: u32,
    },
    /// The same bone under a new name.
    Renamed {
        /// The name in the older numbering.
        from: String,
        /// The name in the newer one.
        to: String,
        /// Its index in the newer one.
        index: u32,
    },
    /// The same bone at another index (only compacting moves an index).
    Moved {
        /// Its name in the newer numbering.
        name: String,
        /// The older index.
        from: u32,
        /// The newer index.
        to: u32,
    },
    /// A live bone that the newer numbering retires.
    Retired {
        /// Its name.
        name: String,
        /// Its (reserved) index.
        index: u32,
    },
    /// A retired bone that is live again.
    BroughtBack {
        /// Its name.
        name: String,
        /// Its index.
        index: u32,
    },
    /// A live bone of the older numbering that the newer one does not have at all.
    Removed {
        /// Its name.
        name: String,
        /// Its older index.
        index: u32,
    },
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Difference::Added { name, index } => write!(f, "added bone {name:?} at index {index}"),
            Difference::Renamed { from, to, .. } => write!(f, "renamed bone {from:?} to {to:?}"),
            Difference::Moved { name, from, to } => {
                write!(f, "moved bone {name:?} from index {from} to {to}")
            }
            Difference::Retired { name, index } => {
                write!(f, "retired bone {name:?} (index {index})")
            }
            Difference::BroughtBack { name, index } => {
                write!(f, "brought back bone {name:?} (index {index})")
            }
            Difference::Removed { name, index } => {
                write!(f, "removed bone {name:?} (was index {index})")
            }
        }
    }
}

impl Manifest {
    /// What changed from `self` (the older numbering) to `newer`, in `newer`'s index
    /// order, then the bones `newer` lost. Each entry of `newer` is matched to the entry
    /// of `self` that answers to its name, else to its latest alias that `self` knows
    /// (names and aliases on both sides); an entry of `self` is matched at most once.
    /// `O(n log n)` in the bones of both.
    ///
    /// ```
    /// use dashvertex_manifest::{BoneRef, Difference, Manifest};
    /// let bone = |name: &str, parent: Option<&str>| BoneRef { name: name.into(), parent: parent.map(Into::into) };
    /// let old = Manifest::init(&[bone("root", None), bone("arm", Some("root"))])?;
    /// let mut new = old.clone();
    /// new.rename(&[("arm".into(), "arm_L".into())])?;
    /// new.update(&[bone("root", None), bone("arm_L", Some("root")), bone("hand", Some("arm_L"))], false)?;
    /// let changes: Vec<String> = old.diff(&new).iter().map(ToString::to_string).collect();
    /// assert_eq!(changes.len(), 2, "{changes:?}");
    /// assert!(matches!(&old.diff(&new)[0], Difference::Renamed { to, .. } if to == "arm_L"));
    /// # Ok::<(), dashvertex_manifest::ManifestError>(())
    /// ```
    pub fn diff(&self, newer: &Manifest) -> Vec<Difference> {
        let older = Lookup::new(self);
        let mut matched = vec![false; self.bones.len()];
        let mut out = Vec::new();
        for e in &newer.bones {
            let was = std::iter::once(&e.name)
                .chain(e.aliases.iter().rev())
                .find_map(|n| {
                    older
                        .position(n)
                        .filter(|&p| !matched.get(p).copied().unwrap_or(true))
                })
                .and_then(|p| Some((p, self.bones.get(p)?)));
            let Some((p, old)) = was else {
                if !e.removed {
                    out.push(Difference::Added {
                        name: e.name.clone(),
                        index: e.index,
                    });
                }
                continue;
            };
            if let Some(m) = matched.get_mut(p) {
                *m = true;
            }
            if old.name != e.name {
                out.push(Difference::Renamed {
                    from: old.name.clone(),
                    to: e.name.clone(),
                    index: e.index,
                });
            }
            if old.index != e.index {
                out.push(Difference::Moved {
                    name: e.name.clone(),
                    from: old.index,
                    to: e.index,
                });
            }
            match (old.removed, e.removed) {
                (false, true) => out.push(Difference::Retired {
                    name: e.name.clone(),
                    index: e.index,
                }),
                (true, false) => out.push(Difference::BroughtBack {
                    name: e.name.clone(),
                    index: e.index,
                }),
                _ => {}
            }
        }
        for (e, _) in self
            .bones
            .iter()
            .zip(&matched)
            .filter(|(e, m)| !**m && !e.removed)
        {
            out.push(Difference::Removed {
                name: e.name.clone(),
                index: e.index,
            });
        }
        out
    }
}
