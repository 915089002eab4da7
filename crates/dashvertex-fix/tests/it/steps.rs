//! Each step on one vertex: what it changes, and that nothing else changes.

use dashvertex_fix::vertex::{Context, Outcome, RefusalKind, Scratch, Storage, fix};
use dashvertex_fix::{BadWeights, OutOfRange, Policy, Step, SumRule, ZeroSum};

fn policy(sum: SumRule) -> Policy {
    Policy {
        out_of_range: OutOfRange::Drop,
        zero_sum: ZeroSum::Root,
        ..Policy::for_rule(sum)
    }
}

fn run(
    joints: &[u32],
    weights: &[f64],
    storage: Storage,
    p: &Policy,
) -> (Vec<u32>, Vec<f64>, Vec<Step>) {
    let (mut j, mut w) = (joints.to_vec(), weights.to_vec());
    let ctx = Context {
        policy: p,
        storage,
        bones: Some(10),
        root: 3,
    };
    let out = fix(&mut j, &mut w, &ctx, &mut Scratch::default()).unwrap();
    let Outcome::Fixed(steps) = out else {
        panic!("{out:?}")
    };
    (j, w, steps.iter().collect())
}

#[test]
fn a_valid_vertex_is_left_exactly_as_it_was() {
    // spec: F1
    let p = policy(SumRule::Gltf);
    // Slot order inside a set is kept: only sets out of order are laid out again.
    let (j, w, s) = run(&[2, 1, 0, 0], &[0.25, 0.75, 0.0, 0.0], Storage::Float, &p);
    assert_eq!(
        (j, w, s),
        (vec![2, 1, 0, 0], vec![0.25, 0.75, 0.0, 0.0], vec![])
    );
    let (j, w, s) = run(
        &[2, 1, 0, 0],
        &[55.0, 200.0, 0.0, 0.0],
        Storage::Unorm(255),
        &p,
    );
    assert_eq!(
        (j, w, s),
        (vec![2, 1, 0, 0], vec![55.0, 200.0, 0.0, 0.0], vec![])
    );
}

#[test]
fn duplicates_are_merged_into_the_first_slot() {
    let p = policy(SumRule::Gltf);
    let (j, w, s) = run(&[4, 2, 4, 0], &[0.25, 0.5, 0.25, 0.0], Storage::Float, &p);
    assert_eq!(j, [4, 2, 0, 0]);
    assert_eq!(w, [0.5, 0.5, 0.0, 0.0]);
    assert_eq!(s, [Step::DuplicateJoint, Step::Padding]);
}

#[test]
fn out_of_range_joints_are_dropped_and_the_rest_renormalized() {
    let p = policy(SumRule::Gltf);
    let (j, w, s) = run(&[1, 12, 0, 0], &[0.5, 0.5, 0.0, 0.0], Storage::Float, &p);
    assert_eq!((j, w), (vec![1, 0, 0, 0], vec![1.0, 0.0, 0.0, 0.0]));
    assert_eq!(s, [Step::OutOfRangeJoint, Step::Padding, Step::Normalize]);
    let refuse = Policy {
        out_of_range: OutOfRange::Error,
        ..p
    };
    let ctx = Context {
        policy: &refuse,
        storage: Storage::Float,
        bones: Some(10),
        root: 0,
    };
    let err = fix(
        &mut [1, 12, 0, 0],
        &mut [0.5, 0.5, 0.0, 0.0],
        &ctx,
        &mut Scratch::default(),
    )
    .unwrap_err();
    assert_eq!(err.len(), 1);
    assert_eq!(err[0].slot, Some(1));
    assert_eq!(err[0].kind, RefusalKind::OutOfRange);
    assert!(
        err[0].message.contains("`drop` out-of-range policy"),
        "{}",
        err[0].message
    );
    // spec: F7
    // The only weight out of range: once dropped (as `drop` would), the vertex has none,
    // so the same run also names the zero-sum policy.
    let err = fix(
        &mut [12, 0, 0, 0],
        &mut [1.0, 0.0, 0.0, 0.0],
        &Context {
            policy: &Policy {
                sum: SumRule::Gltf,
                zero_sum: ZeroSum::Error,
                ..refuse
            },
            ..ctx
        },
        &mut Scratch::default(),
    )
    .unwrap_err();
    let kinds: Vec<RefusalKind> = err.iter().map(|r| r.kind).collect();
    assert_eq!(kinds, [RefusalKind::OutOfRange, RefusalKind::ZeroSum]);
    assert!(
        err[1]
            .message
            .contains("`root` or `nearest` zero-sum policy"),
        "{}",
        err[1].message
    );
}

#[test]
fn bad_weights_become_zero_or_refuse() {
    let p = policy(SumRule::Dash);
    let (j, w, s) = run(
        &[1, 2, 3, 0],
        &[f64::NAN, -0.25, 1.0, -0.0],
        Storage::Float,
        &p,
    );
    assert_eq!(j, [0, 0, 3, 0]);
    assert_eq!(w, [0.0, 0.0, 1.0, 0.0]);
    assert!(w[3].is_sign_positive());
    assert_eq!(
        s,
        [
            Step::NonFiniteWeight,
            Step::NegativeWeight,
            Step::NegativeZero,
            Step::Padding
        ]
    );
    let strict = Policy {
        bad_weights: BadWeights::Error,
        ..p
    };
    let ctx = Context {
        policy: &strict,
        storage: Storage::Float,
        bones: None,
        root: 0,
    };
    assert!(
        fix(
            &mut [1, 0, 0, 0],
            &mut [-1.0, 0.0, 0.0, 0.0],
            &ctx,
            &mut Scratch::default()
        )
        .is_err()
    );
}

#[test]
fn sets_out_of_order_are_laid_out_heaviest_first() {
    let p = policy(SumRule::Gltf);
    let (j, w, s) = run(
        &[1, 0, 0, 0, 2, 0, 0, 0],
        &[0.25, 0.0, 0.0, 0.0, 0.75, 0.0, 0.0, 0.0],
        Storage::Float,
        &p,
    );
    assert_eq!(j, [2, 1, 0, 0, 0, 0, 0, 0]);
    assert_eq!(w, [0.75, 0.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    assert_eq!(s, [Step::SetOrder]);
}

#[test]
fn an_empty_vertex_is_bound_to_the_root_with_a_full_weight() {
    let p = policy(SumRule::Gltf);
    let (j, w, s) = run(&[5, 0, 0, 0], &[0.0; 4], Storage::Unorm(65535), &p);
    assert_eq!((j, w), (vec![3, 0, 0, 0], vec![65535.0, 0.0, 0.0, 0.0]));
    assert_eq!(s, [Step::Padding, Step::ZeroSumRoot]);
}

#[test]
fn integer_weights_sum_exactly_by_largest_remainder() {
    let p = policy(SumRule::Gltf);
    let (_, w, s) = run(
        &[1, 2, 3, 0],
        &[85.0, 85.0, 84.0, 0.0],
        Storage::Unorm(255),
        &p,
    );
    assert_eq!(w.iter().sum::<f64>(), 255.0);
    assert_eq!(w, [86.0, 85.0, 84.0, 0.0]);
    assert_eq!(s, [Step::Normalize]);
}

#[test]
fn the_dash_profile_rescales_only_a_weight_above_one() {
    let p = policy(SumRule::Dash);
    let (_, w, s) = run(&[1, 2, 0, 0], &[0.25, 0.25, 0.0, 0.0], Storage::Float, &p);
    assert_eq!((w, s), (vec![0.25, 0.25, 0.0, 0.0], vec![]));
    let (_, w, s) = run(&[1, 2, 0, 0], &[1.5, 0.5, 0.0, 0.0], Storage::Float, &p);
    assert_eq!((w, s), (vec![0.75, 0.25, 0.0, 0.0], vec![Step::AboveOne]));
}

#[test]
fn many_refusals_are_listed_in_a_bounded_message() {
    let one = |p: usize| dashvertex_fix::FixError::Refused {
        part: format!("mesh {p} primitive 0"),
        vertices: 3,
        vertex: 0,
        slot: None,
        pointer: None,
        message: "the vertex has no non-zero weight (the `root` zero-sum policy binds it)".into(),
    };
    let e = dashvertex_fix::FixError::Several((0..2000).map(one).collect());
    let text = e.to_string();
    assert!(text.starts_with("2000 refusals"), "{text}");
    assert!(text.ends_with("… and 1992 more"), "{text}");
    assert!(text.len() < 2000, "{} bytes", text.len());
    assert_eq!(e.each().len(), 2000);
}
