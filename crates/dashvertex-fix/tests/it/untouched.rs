//! The shortcut for parts nothing is wrong with ([`part::untouched`]) against the full
//! repair ([`part::fix`]): it says "untouched" exactly when the repair would list no
//! change and drop no set, on random parts with and without faults, one chunk or several.

use dashvertex_fix::part::{self, Influences, PartContext};
use dashvertex_fix::vertex::Storage;
use dashvertex_fix::{OutOfRange, Policy, SumRule, ZeroSum};
use proptest::prelude::*;

/// A weight as the fixer holds it: binary32 values for FLOAT, stored integers for unorm8.
fn weight(unorm: bool) -> BoxedStrategy<f64> {
    if unorm {
        prop_oneof![3 => Just(0.0), 4 => (0u32..=255).prop_map(f64::from), 1 => Just(255.0)].boxed()
    } else {
        prop_oneof![
            3 => Just(0.0),
            1 => Just(-0.0),
            4 => (0u32..=16).prop_map(|k| f64::from(k as f32 / 16.0)),
            1 => Just(1.0),
            1 => Just(-0.5),
            1 => Just(f64::NAN),
            1 => Just(f64::from(f32::from_bits(3))),
        ]
        .boxed()
    }
}

fn ctx(policy: &Policy, bones: u64) -> PartContext<'_> {
    PartContext {
        policy,
        bones: Some(bones),
        root: 0,
        skinned: true,
        listed: None,
    }
}

/// Whether the full repair leaves `inf` as it is.
fn full_repair_untouched(inf: &Influences, policy: &Policy, bones: u64) -> bool {
    let mut copy = inf.clone();
    let none = |_: usize| [0.0f32; 3];
    match part::fix(&mut copy, &none, &ctx(policy, bones)) {
        Ok(r) => r.changes.is_empty() && r.sets_dropped == 0,
        Err(_) => false,
    }
}

fn shortcut_untouched(inf: &Influences, policy: &Policy, bones: u64) -> bool {
    let width = inf.sets * 4;
    let fill = |first: usize, j: &mut [u32], w: &mut [f64]| {
        let at = first * width;
        j.copy_from_slice(&inf.joints[at..at + j.len()]);
        w.copy_from_slice(&inf.weights[at..at + w.len()]);
        true
    };
    part::untouched(
        inf.vertices(),
        inf.sets,
        inf.storage,
        &fill,
        &ctx(policy, bones),
    )
}

fn parts() -> impl Strategy<Value = (Influences, u64)> {
    (1usize..40, 1usize..4, 1u32..7, any::<bool>()).prop_flat_map(|(n, sets, bones, unorm)| {
        let slots = n * sets * 4;
        (
            proptest::collection::vec(0..bones + 2, slots),
            proptest::collection::vec(weight(unorm), slots),
        )
            .prop_map(move |(joints, weights)| {
                let storage = if unorm {
                    Storage::Unorm(255)
                } else {
                    Storage::Float
                };
                (
                    Influences {
                        sets,
                        joints,
                        weights,
                        storage,
                    },
                    u64::from(bones),
                )
            })
    })
}

fn policy() -> impl Strategy<Value = Policy> {
    (
        prop_oneof![Just(SumRule::Dash), Just(SumRule::Gltf)],
        prop_oneof![Just(ZeroSum::Root), Just(ZeroSum::Keep)],
    )
        .prop_map(|(sum, zero_sum)| Policy {
            out_of_range: OutOfRange::Drop,
            zero_sum,
            ..Policy::for_rule(sum)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn shortcut_agrees_with_the_full_repair((inf, bones) in parts(), p in policy()) {
        prop_assert_eq!(
            shortcut_untouched(&inf, &p, bones),
            full_repair_untouched(&inf, &p, bones)
        );
        // Once repaired, a part is untouched by both.
        let mut fixed = inf.clone();
        if part::fix(&mut fixed, &|_| [0.0; 3], &ctx(&p, bones)).is_ok() {
            prop_assert!(full_repair_untouched(&fixed, &p, bones));
            prop_assert!(shortcut_untouched(&fixed, &p, bones));
        }
    }
}

/// Many chunks: one fault in a late chunk, or a last set used by one vertex of a late
/// chunk only, is seen.
#[test]
fn faults_and_used_sets_in_any_chunk_are_seen() {
    let policy = Policy::for_rule(SumRule::Gltf);
    let n = 50_000;
    let mut inf = Influences {
        sets: 2,
        joints: vec![0; n * 8],
        weights: vec![0.0; n * 8],
        storage: Storage::Float,
    };
    for v in 0..n {
        inf.joints[v * 8] = 1;
        inf.weights[v * 8] = 1.0;
    }
    // Every vertex uses set 0 only: the full repair drops set 1.
    assert!(!full_repair_untouched(&inf, &policy, 4));
    assert!(!shortcut_untouched(&inf, &policy, 4));
    // One vertex late in the file uses set 1, after a full set 0: nothing to do.
    let late = 40_000;
    for (k, (j, w)) in [(1, 0.25), (2, 0.25), (3, 0.25), (4, 0.125), (5, 0.125)]
        .into_iter()
        .enumerate()
    {
        inf.joints[late * 8 + k] = j;
        inf.weights[late * 8 + k] = w;
    }
    assert!(full_repair_untouched(&inf, &policy, 8));
    assert!(shortcut_untouched(&inf, &policy, 8));
    // A duplicate joint in the last chunk.
    inf.joints[(n - 1) * 8 + 1] = 1;
    inf.weights[(n - 1) * 8 + 1] = 0.0;
    inf.weights[(n - 1) * 8] = 0.5;
    inf.joints[(n - 1) * 8 + 4] = 1;
    inf.weights[(n - 1) * 8 + 4] = 0.5;
    assert!(!full_repair_untouched(&inf, &policy, 8));
    assert!(!shortcut_untouched(&inf, &policy, 8));
}

/// Over many chunks, a repair that lists three changes counts every change and step the
/// full listing has, and lists its first three.
#[test]
fn listing_three_changes_over_many_chunks_counts_them_all() {
    let policy = Policy {
        zero_sum: ZeroSum::Root,
        ..Policy::for_rule(SumRule::Gltf)
    };
    let n = 70_000;
    let mut inf = Influences {
        sets: 1,
        joints: vec![0; n * 4],
        weights: vec![0.0; n * 4],
        storage: Storage::Float,
    };
    for v in 0..n {
        inf.joints[v * 4] = 1;
        // Every fifth vertex sums to 0.5 (normalized); every seventh has no weight
        // (bound to the root).
        inf.weights[v * 4] = if v % 7 == 3 {
            0.0
        } else if v % 5 == 1 {
            0.5
        } else {
            1.0
        };
    }
    let none = |_: usize| [0.0f32; 3];
    let run = |listed| {
        let mut copy = inf.clone();
        let ctx = PartContext {
            listed,
            ..ctx(&policy, 4)
        };
        (part::fix(&mut copy, &none, &ctx).unwrap(), copy)
    };
    let (all, fixed_all) = run(None);
    let (some, fixed_some) = run(Some(3));
    assert_eq!(all.changed_vertices(), some.changed_vertices());
    assert_eq!(all.changed_vertices(), all.changes.len() as u64);
    assert_eq!(some.unlisted, all.changed_vertices() - 3);
    assert_eq!(all.steps, some.steps);
    assert_eq!(&all.changes[..3], &some.changes[..]);
    assert_eq!(fixed_all, fixed_some);
}
