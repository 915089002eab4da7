//! One set of four bone influences.

/// Number of slots in one influence set (the width of a glTF `JOINTS_n` / `WEIGHTS_n` VEC4
/// and of the DashVertex `skinIndex` / `skinWeight` arrays).
pub const SLOTS: usize = 4;

/// A weight the canonical influence order compares: binary32 (the model, the reducer) or
/// binary64 (the repair's working precision).
pub trait Weight: Copy {
    /// IEEE 754 total order.
    fn total(&self, other: &Self) -> std::cmp::Ordering;
}

impl Weight for f32 {
    fn total(&self, other: &Self) -> std::cmp::Ordering {
        self.total_cmp(other)
    }
}

impl Weight for f64 {
    fn total(&self, other: &Self) -> std::cmp::Ordering {
        self.total_cmp(other)
    }
}

/// The canonical order of a vertex's influences, in which the reducer keeps the first K
/// and the repair lays sets out (spec/reduction.md, spec/fix.md): heavier first, ties by
/// the lower bone index. A total order, so the result never depends on input order.
///
/// ```
/// let mut v = [(3, 0.25f32), (1, 0.5), (2, 0.25)];
/// v.sort_by(dashvertex_core::canonical_order);
/// assert_eq!(v, [(1, 0.5), (2, 0.25), (3, 0.25)]);
/// ```
pub fn canonical_order<W: Weight>(a: &(u32, W), b: &(u32, W)) -> std::cmp::Ordering {
    b.1.total(&a.1).then(a.0.cmp(&b.0))
}

/// Four (bone index, weight) pairs. Slot `k` of `joints` pairs with slot `k` of `weights`.
///
/// Unused slots hold bone 0 with weight 0 (the padding rule of `spec/dashvertex.md` §5).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct InfluenceSet {
    /// Bone indices, one per slot.
    pub joints: [u32; SLOTS],
    /// Weights, one per slot.
    pub weights: [f32; SLOTS],
}

impl InfluenceSet {
    /// The all-padding set: bone 0 with weight 0 in every slot.
    pub const ZERO: InfluenceSet = InfluenceSet {
        joints: [0; SLOTS],
        weights: [0.0; SLOTS],
    };

    /// Builds a set from up to four pairs, padding the rest with bone 0 / weight 0.
    ///
    /// Returns `None` when more than four pairs are given.
    pub fn from_pairs(pairs: &[(u32, f32)]) -> Option<Self> {
        if pairs.len() > SLOTS {
            return None;
        }
        let mut set = Self::ZERO;
        for ((j, w), (bone, weight)) in set.joints.iter_mut().zip(set.weights.iter_mut()).zip(pairs)
        {
            *j = *bone;
            *w = *weight;
        }
        Some(set)
    }

    /// The four (bone index, weight) pairs in slot order.
    pub fn pairs(&self) -> impl Iterator<Item = (u32, f32)> + '_ {
        self.joints
            .iter()
            .copied()
            .zip(self.weights.iter().copied())
    }

    /// True when every slot holds bone 0 and a weight equal to zero (`-0.0` included).
    pub fn is_zero(&self) -> bool {
        self.joints.iter().all(|&j| j == 0) && self.weights.iter().all(|&w| w == 0.0)
    }

    /// Bit-exact equality (distinguishes `-0.0` from `0.0`, compares NaN payloads).
    pub fn bit_eq(&self, other: &Self) -> bool {
        self.joints == other.joints && crate::f32_bits_eq(&self.weights, &other.weights)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_pairs_pads_with_bone_zero_weight_zero() {
        let s = InfluenceSet::from_pairs(&[(3, 0.5), (7, 0.5)]).unwrap();
        assert_eq!(s.joints, [3, 7, 0, 0]);
        assert_eq!(s.weights, [0.5, 0.5, 0.0, 0.0]);
        assert!(InfluenceSet::from_pairs(&[(0, 0.0); 5]).is_none());
    }

    #[test]
    fn bit_eq_distinguishes_negative_zero() {
        let a = InfluenceSet::ZERO;
        let mut b = a;
        b.weights[0] = -0.0;
        assert_eq!(a, b);
        assert!(!a.bit_eq(&b));
        assert!(b.is_zero());
    }
}
