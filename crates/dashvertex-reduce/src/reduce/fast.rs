//! The fast selection, for vertices whose weights are all positive and finite on distinct
//! bones when there is no threshold: each influence is one packed key inserted branch-free
//! into a small sorted array, per-bone columns are scanned a block of vertices at a time,
//! and the usual vertex is finished without buffers. It selects exactly what
//! [`super::select`] does (a test compares them); any other vertex goes there.

use std::cmp::Ordering;

use dashvertex_core::InfluenceSet;
use dashvertex_core::weights::normalize_unit_set;

use super::chunk::Scratch;
use super::finish::Finish;
use super::select::{Stamps, order};
use super::{Normalize, ReduceError, bone_label, note_drop};
use crate::input::Data;

/// Influences the fast selection keeps per vertex at most; a larger K takes the general
/// path.
pub(super) const TOP: usize = 16;
/// Vertices selected together from per-bone columns (a block of each column is scanned
/// in turn, so memory access stays sequential).
const BLOCK: usize = 256;

/// A sort key ordering like [`order`] for positive finite weights: their bit patterns grow
/// with the value, so `(!bits, bone)` ascending is weight descending, bone ascending.
fn key(bone: u32, w: f32) -> u64 {
    (u64::from(!w.to_bits()) << 32) | u64::from(bone)
}

/// The influence behind a [`key`].
fn unkey(k: u64) -> (u32, f32) {
    (
        (k & 0xFFFF_FFFF) as u32,
        f32::from_bits(!((k >> 32) as u32)),
    )
}

/// What a weight means to the fast selection.
enum Weight {
    /// Zero (either sign): not an influence.
    Zero,
    /// Positive and finite.
    Fast,
    /// Negative, NaN or infinite: the general path decides.
    Other,
}

#[inline(always)]
fn classify(w: f32) -> Weight {
    let bits = w.to_bits();
    // Positive finite non-zero weights are exactly the bit patterns 1 ..= 0x7F7F_FFFF.
    if bits.wrapping_sub(1) < 0x7F7F_FFFF {
        Weight::Fast
    } else if bits << 1 == 0 {
        Weight::Zero
    } else {
        Weight::Other
    }
}

/// The fast selection of one vertex: its `K` first keys, sorted (unused slots
/// `u64::MAX`), how many influences it was offered and the first key it dropped.
#[derive(Clone, Copy)]
struct Sel<const K: usize> {
    keys: [u64; K],
    offered: u64,
    best_dropped: u64,
}

impl<const K: usize> Sel<K> {
    const EMPTY: Self = Sel {
        keys: [u64::MAX; K],
        offered: 0,
        best_dropped: u64::MAX,
    };

    /// Offers a positive finite influence. Branch-free when it is kept: the key walks
    /// down the sorted slots, each keeping the smaller of itself and the key, and what
    /// falls off the end is dropped; influences often come heaviest first, and then a
    /// full selection drops the key at once.
    #[inline(always)]
    fn offer(&mut self, bone: u32, w: f32) {
        let mut x = key(bone, w);
        if self.keys.last().is_none_or(|&last| x < last) {
            for slot in &mut self.keys {
                let low = (*slot).min(x);
                x = (*slot).max(x);
                *slot = low;
            }
        }
        self.best_dropped = self.best_dropped.min(x);
        self.offered += 1;
    }

    /// The selection for `k ≤ K`: the kept influences into `list`, and the number
    /// dropped with the first of them.
    fn take(&self, k: usize, list: &mut Vec<(u32, f32)>) -> (u64, u64) {
        list.clear();
        list.extend(self.keys.iter().take(self.kept(k)).map(|&x| unkey(x)));
        self.dropped(k)
    }

    /// How many influences the selection for `k ≤ K` keeps.
    #[inline(always)]
    fn kept(&self, k: usize) -> usize {
        usize::try_from(self.offered).map_or(k, |offered| offered.min(k))
    }

    /// The number of influences the selection for `k ≤ K` drops, with the first of them.
    #[inline(always)]
    fn dropped(&self, k: usize) -> (u64, u64) {
        // Keys k.. were kept only because K > k: the first of them was dropped too.
        let best = self
            .best_dropped
            .min(self.keys.get(k).copied().unwrap_or(u64::MAX));
        (self.offered - self.kept(k) as u64, best)
    }
}

/// Bit `i` set when `w[i] != 0` (at most 64 weights). Full chunks go through one flag
/// byte per weight, which compiles to vector compares, and a multiply that gathers eight
/// flags into a byte.
#[inline]
fn nonzero_mask(w: &[f32]) -> u64 {
    if let Ok(w) = <&[f32; 64]>::try_from(w) {
        let mut flags = [0u8; 64];
        for (f, &x) in flags.iter_mut().zip(w) {
            *f = u8::from(x != 0.0);
        }
        let mut m = 0u64;
        for (g, eight) in flags.chunks_exact(8).enumerate() {
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(eight);
            // Byte k (0 or 1) lands on bit 56 + k.
            let x = u64::from_le_bytes(bytes).wrapping_mul(0x0102_0408_1020_4080) >> 56;
            m |= x << (g * 8);
        }
        return m;
    }
    let mut m = 0u64;
    for (i, &x) in w.iter().enumerate() {
        m |= u64::from(x != 0.0) << (i & 63);
    }
    m
}

impl Finish<'_> {
    /// Puts the fast selection of vertex `v` into `sc.list` and records what it dropped.
    /// Returns whether it dropped anything.
    fn take_fast<const K: usize>(&mut self, v: usize, sel: &Sel<K>, sc: &mut Scratch) -> bool {
        sel.take(self.cfg.max_influences, &mut sc.list);
        self.record_fast(v, sel)
    }

    /// Records what the fast selection of vertex `v` dropped; returns whether it dropped
    /// anything.
    #[inline(always)]
    fn record_fast<const K: usize>(&mut self, v: usize, sel: &Sel<K>) -> bool {
        let (dropped, best_dropped) = sel.dropped(self.cfg.max_influences);
        let listed = sel.kept(self.cfg.max_influences) as u64 + dropped;
        self.report.max_influences_in = self.report.max_influences_in.max(listed);
        if dropped > 0 {
            let (b, w) = unkey(best_dropped);
            let (input, map) = (self.input, self.map);
            note_drop(&mut self.report, w, v as u64, b, || {
                format!("vertex {v}, {}", bone_label(input, map, b))
            });
            self.report.dropped += dropped;
        }
        dropped > 0
    }

    /// Finishes vertex `v` from its fast selection. In two cases this is
    /// [`Finish::take_fast`] followed by [`Finish::vertex`] without the buffers: nothing
    /// is normalized or quantized (any number of sets), or at most four influences are
    /// kept into a single set, nothing is quantized and normalizing neither reorders nor
    /// zeroes a weight (the usual case). Otherwise it is exactly those two.
    #[inline(always)]
    fn fast_vertex<const K: usize>(
        &mut self,
        v: usize,
        sel: &Sel<K>,
        sc: &mut Scratch,
    ) -> Result<(), ReduceError> {
        let k = self.cfg.max_influences;
        let kept = sel.kept(k);
        if self.cfg.normalize == Normalize::None && self.qmax.is_none() && kept > 0 {
            // Nothing to rescale or round: the selection, in order, is the output, in as
            // many sets as it fills.
            let dropped = self.record_fast(v, sel);
            let (base, sets) = (self.slot(v), kept.div_ceil(4));
            if let Some(out) = self.influences.get_mut(base..base + sets) {
                for (set, keys) in out
                    .iter_mut()
                    .zip(sel.keys.get(..kept).unwrap_or_default().chunks(4))
                {
                    for ((&x, j), w) in keys
                        .iter()
                        .zip(set.joints.iter_mut())
                        .zip(set.weights.iter_mut())
                    {
                        (*j, *w) = unkey(x);
                    }
                }
            }
            self.widest = self.widest.max(sets);
            self.report.changed += u64::from(dropped);
            return Ok(());
        }
        if self.max_sets == 1 && self.qmax.is_none() && kept > 0 {
            let mut set = InfluenceSet::ZERO;
            for ((&x, j), w) in sel
                .keys
                .iter()
                .take(kept)
                .zip(set.joints.iter_mut())
                .zip(set.weights.iter_mut())
            {
                (*j, *w) = unkey(x);
            }
            let listed = set.weights;
            // `unit` (the unnormalized case returned above). The slots past `kept` are
            // zero: the set normalizes as its kept slice.
            normalize_unit_set(&mut set.weights);
            let ordered = set.weights.iter().take(kept).all(|&w| w != 0.0)
                && set
                    .joints
                    .iter()
                    .zip(set.weights.iter())
                    .take(kept)
                    .zip(
                        set.joints
                            .iter()
                            .zip(set.weights.iter())
                            .skip(1)
                            .take(kept - 1),
                    )
                    .all(|((&ba, &wa), (&bb, &wb))| {
                        order(&(ba, wa), &(bb, wb)) != Ordering::Greater
                    });
            if ordered {
                let dropped = self.record_fast(v, sel);
                let changed = dropped
                    || listed
                        .iter()
                        .zip(&set.weights)
                        .any(|(a, b)| a.to_bits() != b.to_bits());
                let slot = self.slot(v);
                if let Some(out) = self.influences.get_mut(slot) {
                    *out = set;
                }
                self.report.changed += u64::from(changed);
                return Ok(());
            }
        }
        let dirty = self.take_fast(v, sel, sc);
        self.vertex(v, dirty, sc)
    }
}

/// The fast selection of every vertex of `input` from sets or lists, with `K ≥ k` known
/// at compile time. A vertex the fast selection cannot take goes down the general path.
pub(super) fn reduce_rows<const K: usize>(
    f: &mut Finish,
    sc: &mut Scratch,
    cands: &mut Vec<crate::input::Cand>,
) -> Result<(), ReduceError> {
    let (input, map) = (f.input, f.map);
    let out = |b: u32| map.get(b as usize).copied().unwrap_or(u32::MAX);
    // glTF sets are decoded a block of vertices at a time, set by set, into `block`
    // (`block[s * width + i]`: set `s` of vertex `start + i`), at most the range's
    // vertices wide, so that it never holds more sets than the accessors do.
    let mut block: Vec<InfluenceSet> = Vec::new();
    let range = f.range.clone();
    let width = BLOCK.min(range.len()).max(1);
    for start in range.clone().step_by(width) {
        let end = (start + width).min(range.end);
        if let Data::Views(sets) = &input.data {
            block.resize(sets.len() * width, InfluenceSet::ZERO);
            for (set, dst) in sets.iter().zip(block.chunks_exact_mut(width)) {
                set.get_block(start, dst.get_mut(..end - start).unwrap_or_default());
            }
        }
        for v in start..end {
            sc.stamps.next_vertex();
            let mut sel = Sel::<K>::EMPTY;
            let mut fast = true;
            let mut offer = |b: u32, w: f32, stamps: &mut Stamps| match classify(w) {
                Weight::Zero => {}
                Weight::Fast => {
                    let b = out(b);
                    if stamps.repeated(b) {
                        fast = false;
                    } else {
                        sel.offer(b, w);
                    }
                }
                Weight::Other => fast = false,
            };
            match &input.data {
                Data::Sets(sets) => {
                    for set in sets {
                        if let Some(x) = set.get(v) {
                            for (&b, &w) in x.joints.iter().zip(&x.weights) {
                                offer(b, w, &mut sc.stamps);
                            }
                        }
                    }
                }
                Data::Lists(lists) => {
                    for c in lists.of(v) {
                        offer(c.bone, c.weight, &mut sc.stamps);
                    }
                }
                Data::Views(_) => {
                    for x in block.iter().skip(v - start).step_by(width) {
                        for (&b, &w) in x.joints.iter().zip(&x.weights) {
                            offer(b, w, &mut sc.stamps);
                        }
                    }
                }
                Data::Columns(_) => fast = false,
            }
            if fast {
                f.fast_vertex(v, &sel, sc)?;
            } else {
                let dirty = f.general(v, cands, sc)?;
                f.vertex(v, dirty, sc)?;
            }
        }
    }
    Ok(())
}

/// The fast selection from per-bone columns: a block of vertices at a time, each column's
/// block scanned in turn with zeros skipped 64 at a time. A column lists a bone once per
/// vertex and the columns' bones are distinct, so there is no repeat to look for.
pub(super) fn reduce_columns<const K: usize>(
    f: &mut Finish,
    cols: &[(u32, Vec<f32>)],
    sc: &mut Scratch,
    cands: &mut Vec<crate::input::Cand>,
) -> Result<(), ReduceError> {
    let map = f.map;
    let n = f.range.end;
    let mut sels: Vec<Sel<K>> = std::iter::repeat_n(Sel::EMPTY, BLOCK).collect();
    let mut bail = [false; BLOCK];
    for start in f.range.clone().step_by(BLOCK) {
        let end = (start + BLOCK).min(n);
        sels.fill(Sel::EMPTY);
        bail.fill(false);
        for (bone, col) in cols {
            let b = map.get(*bone as usize).copied().unwrap_or(u32::MAX);
            let col = col.get(start..end.min(col.len())).unwrap_or_default();
            for (c, chunk) in col.chunks(64).enumerate() {
                let mut m = nonzero_mask(chunk);
                while m != 0 {
                    let j = m.trailing_zeros() as usize;
                    m &= m - 1;
                    let w = chunk.get(j).copied().unwrap_or(0.0);
                    match classify(w) {
                        Weight::Fast => {
                            if let Some(s) = sels.get_mut(c * 64 + j) {
                                s.offer(b, w);
                            }
                        }
                        _ => {
                            if let Some(x) = bail.get_mut(c * 64 + j) {
                                *x = true;
                            }
                        }
                    }
                }
            }
        }
        for (v, (sel, bailed)) in (start..end).zip(sels.iter().zip(bail)) {
            if bailed {
                let dirty = f.general(v, cands, sc)?;
                f.vertex(v, dirty, sc)?;
            } else {
                f.fast_vertex(v, sel, sc)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use dashvertex_core::InfluenceSet;

    use super::nonzero_mask;
    use crate::input::Input;
    use crate::reduce::test_inputs::{identity, input};
    use crate::reduce::{Config, Empty, Normalize, Quantize, reduce, reduce_with};

    #[test]
    fn nonzero_mask_marks_every_non_zero_weight() {
        let mut w = [0.0f32; 64];
        for i in [0, 1, 7, 8, 31, 32, 55, 63] {
            w[i] = if i % 2 == 0 { 0.5 } else { f32::NAN };
        }
        w[9] = -0.0;
        w[10] = f32::from_bits(1);
        let expected = [0u32, 1, 7, 8, 10, 31, 32, 55, 63]
            .iter()
            .fold(0u64, |m, &i| m | 1 << i);
        assert_eq!(nonzero_mask(&w), expected);
        assert_eq!(nonzero_mask(&w[..11]), expected & 0x7FF);
        assert_eq!(nonzero_mask(&[]), 0);
    }

    use proptest::prelude::*;

    /// The settings the property tests draw: `k` influences, quantized to `q` (f32,
    /// unorm16, unorm8; quantizing implies `unit`), normalized with `unit`.
    fn config(k: usize, q: u8, unit: bool) -> Config {
        Config {
            max_influences: k,
            normalize: if unit || q > 0 {
                Normalize::Unit
            } else {
                Normalize::None
            },
            quantize: [Quantize::F32, Quantize::Unorm16, Quantize::Unorm8][usize::from(q)],
            empty: Empty::Zero,
            ..Config::default()
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

        /// The fast selection selects exactly what the general path selects, from
        /// lists, per-bone columns and influence sets alike, whatever the weights
        /// (zeros, `-0.0`, negatives, infinities and repeated bones included).
        #[test]
        fn fast_path_equals_general_path(
            lists in proptest::collection::vec(proptest::collection::vec((0u32..10, prop_oneof![
                8 => (1u32..200).prop_map(|n| n as f32 / 100.0),
                2 => Just(0.5f32),
                1 => Just(0.0f32),
                1 => Just(-0.0f32),
                1 => Just(-0.25f32),
                1 => Just(f32::INFINITY),
            ]), 0..20), 1..8),
            k in 1usize..18,
            q in 0u8..3,
            unit_norm in any::<bool>(),
        ) {
            let cfg = config(k, q, unit_norm);
            let refs: Vec<&[(u32, f32)]> = lists.iter().map(Vec::as_slice).collect();
            let from_lists = input(&refs, 10);
            // Columns: the first weight each vertex gives a bone.
            let mut columns: Vec<(u32, Vec<f32>)> =
                (0..10).map(|b| (b, vec![0.0; lists.len()])).collect();
            for (v, l) in lists.iter().enumerate() {
                for (b, w) in l.iter().rev() {
                    columns[*b as usize].1[v] = *w;
                }
            }
            let from_columns = Input {
                data: crate::input::Data::Columns(columns),
                ..from_lists.clone()
            };
            // Sets: four list entries per set, zero-padded.
            let n_sets = lists.iter().map(|l| l.len().div_ceil(4)).max().unwrap_or(0);
            let mut sets = vec![vec![InfluenceSet::ZERO; lists.len()]; n_sets];
            for (v, l) in lists.iter().enumerate() {
                for (i, (b, w)) in l.iter().enumerate() {
                    sets[i / 4][v].joints[i % 4] = *b;
                    sets[i / 4][v].weights[i % 4] = *w;
                }
            }
            let from_sets = Input {
                data: crate::input::Data::Sets(sets),
                ..from_lists.clone()
            };
            for i in [&from_lists, &from_columns, &from_sets] {
                let fast = reduce_with(i, &identity(10), None, &cfg, true);
                let general = reduce_with(i, &identity(10), None, &cfg, false);
                prop_assert_eq!(fast, general);
            }
        }

        /// The same on vertices the fast selection takes whole (distinct bones, positive
        /// weights), kept into one set or several, normalized or not.
        #[test]
        fn fast_path_equals_general_path_on_distinct_bones(
            lists in proptest::collection::vec(
                (Just((0u32..24).collect::<Vec<u32>>()).prop_shuffle(), 0usize..20,
                 proptest::collection::vec((1u32..200).prop_map(|n| n as f32 / 4000.0), 20)),
                1..8),
            k in 1usize..18,
            q in 0u8..3,
            unit_norm in any::<bool>(),
        ) {
            let cfg = config(k, q, unit_norm);
            let lists: Vec<Vec<(u32, f32)>> = lists
                .into_iter()
                .map(|(bones, m, w)| bones.into_iter().zip(w).take(m).collect())
                .collect();
            let refs: Vec<&[(u32, f32)]> = lists.iter().map(Vec::as_slice).collect();
            let i = input(&refs, 24);
            let fast = reduce_with(&i, &identity(24), None, &cfg, true);
            let general = reduce_with(&i, &identity(24), None, &cfg, false);
            prop_assert_eq!(fast, general);
        }

        /// Blocks of vertices change nothing: a long input reduces as its vertices do
        /// one at a time.
        #[test]
        fn blocks_change_nothing(
            lists in proptest::collection::vec(proptest::collection::vec((0u32..70, (1u32..200).prop_map(|n| n as f32 / 100.0)), 0..9), 250..600),
        ) {
            let refs: Vec<&[(u32, f32)]> = lists.iter().map(Vec::as_slice).collect();
            let mut columns: Vec<(u32, Vec<f32>)> =
                (0..70).map(|b| (b, vec![0.0; lists.len()])).collect();
            for (v, l) in lists.iter().enumerate() {
                for (b, w) in l.iter().rev() {
                    columns[*b as usize].1[v] = *w;
                }
            }
            let whole = Input {
                data: crate::input::Data::Columns(columns),
                ..input(&refs, 70)
            };
            let cfg = Config { empty: Empty::Zero, normalize: Normalize::Unit, ..Config::default() };
            let all = reduce(&whole, &identity(70), None, &cfg).unwrap();
            let last = lists.len() - 1;
            for v in [0, 63, 64, 200, last.min(255), last.min(256), last] {
                let one = Input {
                    positions: vec![[0.0; 3]],
                    data: crate::input::Data::Columns(match &whole.data {
                        crate::input::Data::Columns(c) => c.iter().map(|(b, col)| (*b, vec![col[v]])).collect(),
                        _ => unreachable!(),
                    }),
                    ..whole.clone()
                };
                let r = reduce(&one, &identity(70), None, &cfg).unwrap();
                prop_assert_eq!(r.influences[0], all.influences[v]);
            }
        }
    }
}
