//! How much of an input's skeleton a manifest already numbers. A manifest made for one
//! rig and handed another rig's bones gives the second rig indices after the first's,
//! leaving the first rig's bones as holes in every vertex's palette; the reducer warns
//! when an input shares fewer than half its bones with the manifest it is numbered by
//! (unless most of the manifest's bones are among them: the same rig, grown).

use std::collections::BTreeSet;

use crate::Manifest;

/// The bones an input and a manifest have in common, counted by [`Manifest::overlap`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overlap {
    /// The input's distinct bone names.
    pub input: usize,
    /// The input's bones the manifest answers to, by current name or alias (a retired
    /// bone counts: the manifest knew it).
    pub shared: usize,
    /// The manifest's live (not retired) bones.
    pub manifest: usize,
}

impl Overlap {
    /// True when the manifest has live bones and the input shares fewer than half of its
    /// own bones with it, and fewer than half of the manifest's live bones: most likely
    /// another rig's manifest. A manifest whose bones are mostly in the input (one made
    /// from part of the rig, which the input extends) is not foreign, nor is an empty
    /// manifest (a new one) or an input without bones.
    pub fn is_foreign(&self) -> bool {
        let doubled = self.shared.saturating_mul(2);
        self.manifest > 0 && self.input > 0 && doubled < self.input && doubled < self.manifest
    }
}

impl Manifest {
    /// Counts the distinct names of `bones` and how many of them this manifest answers to
    /// (current names and aliases, retired bones included), beside its live bones.
    /// `O((n + m) log m)` for `n` names and `m` names and aliases in the manifest.
    ///
    /// ```
    /// use dashvertex_manifest::{BoneRef, Manifest};
    /// let bone = |name: &str| BoneRef { name: name.into(), parent: Some("root".into()) };
    /// let rig = [BoneRef { name: "root".into(), parent: None }, bone("arm"), bone("leg"), bone("head")];
    /// let m = Manifest::init(&rig).unwrap();
    /// let other = m.overlap(["root", "wing_l", "wing_r"]);
    /// assert_eq!((other.shared, other.input, other.manifest), (1, 3, 4));
    /// assert!(other.is_foreign());
    /// assert!(!m.overlap(["root", "arm", "leg", "head", "tail"]).is_foreign());
    /// ```
    pub fn overlap<'a>(&self, bones: impl IntoIterator<Item = &'a str>) -> Overlap {
        let names: BTreeSet<&str> = bones.into_iter().collect();
        let lookup = self.lookup();
        Overlap {
            input: names.len(),
            shared: names.iter().filter(|n| lookup.contains(n)).count(),
            manifest: self.bones.iter().filter(|e| !e.removed).count(),
        }
    }
}
