//! The nodes skinning needs, posed at a moment.

use super::plan::{Posing, Sample};
use crate::math::{IDENTITY, Mat4, mul};
use crate::motion::turn;
use crate::rig::Local;
use crate::{Animation, Channel, Rig, Skin};

/// The nodes skinning needs (every joint of the skins and their ancestors), numbered
/// compactly parents first, with their rest transforms and the channels that drive
/// them: a moment costs these nodes and channels, not every node of the document.
pub(crate) struct Nodes {
    /// Compact number of each document node, `u32::MAX` for nodes no joint needs.
    compact: Vec<u32>,
    /// Compact parent of each needed node.
    parent: Vec<Option<usize>>,
    /// Rest transform of each needed node.
    rest: Vec<Local>,
    /// Per animation: (compact node, channel) for the channels on needed nodes.
    channels: Vec<Vec<(usize, usize)>>,
}

impl Nodes {
    pub(crate) fn new(rig: &Rig, skins: &[&Skin], anims: &[Animation]) -> Nodes {
        let needed = rig.needed(skins.iter().flat_map(|s| s.joints.iter().copied()));
        let mut compact = vec![u32::MAX; rig.len()];
        for (c, &n) in needed.iter().enumerate() {
            if let Some(slot) = compact.get_mut(n) {
                *slot = u32::try_from(c).unwrap_or(u32::MAX);
            }
        }
        let of = |n: usize| -> Option<usize> {
            compact
                .get(n)
                .copied()
                .filter(|&c| c != u32::MAX)
                .and_then(|c| usize::try_from(c).ok())
        };
        let parent = needed.iter().map(|&n| rig.parent(n).and_then(of)).collect();
        let rest = needed
            .iter()
            .map(|&n| {
                rig.rest()
                    .local
                    .get(n)
                    .copied()
                    .unwrap_or(Local::Matrix(IDENTITY))
            })
            .collect();
        let channels = anims
            .iter()
            .map(|a| {
                a.channels
                    .iter()
                    .enumerate()
                    .filter_map(|(i, c)| Some((of(c.node)?, i)))
                    .collect()
            })
            .collect();
        Nodes {
            compact,
            parent,
            rest,
            channels,
        }
    }

    /// Needed nodes.
    pub(crate) fn len(&self) -> usize {
        self.rest.len()
    }

    /// Channels on needed nodes, over every animation.
    pub(crate) fn channels(&self) -> usize {
        self.channels.iter().map(Vec::len).sum()
    }

    /// The global matrix of every needed node at sample `s`, by compact number.
    pub(crate) fn globals(&self, posing: &Posing<'_>, s: &Sample) -> Vec<Mat4> {
        let mut local = self.rest.clone();
        match (posing, s.anim) {
            (_, None) => {}
            (Posing::Animations(anims), Some(i)) => {
                let drive = self.channels.get(i).map_or(&[][..], Vec::as_slice);
                let chans: &[Channel] = anims.get(i).map_or(&[][..], |a| &a.channels);
                for &(n, c) in drive {
                    if let (Some(l), Some(c)) = (local.get_mut(n), chans.get(c)) {
                        c.apply(l, s.time);
                    }
                }
            }
            (Posing::Motion(m), Some(_)) => {
                if let Some((node, axis, degrees)) = m.turn_at(s.index) {
                    let c = self.compact.get(node).copied().filter(|&c| c != u32::MAX);
                    let slot = c
                        .and_then(|c| usize::try_from(c).ok())
                        .and_then(|c| local.get_mut(c));
                    if let Some(l) = slot {
                        turn(l, axis, degrees);
                    }
                }
            }
        }
        let mut g: Vec<Mat4> = Vec::with_capacity(local.len());
        for (i, l) in local.iter().enumerate() {
            let m = l.matrix();
            let m = match self.parent.get(i).copied().flatten() {
                Some(p) => mul(g.get(p).unwrap_or(&IDENTITY), &m),
                None => m,
            };
            g.push(m);
        }
        g
    }

    /// Document node `n`'s global matrix among `globals`, if skinning needs it.
    pub(crate) fn global<'g>(&self, globals: &'g [Mat4], n: usize) -> Option<&'g Mat4> {
        let c = self.compact.get(n).copied().filter(|&c| c != u32::MAX)?;
        globals.get(usize::try_from(c).ok()?)
    }
}
