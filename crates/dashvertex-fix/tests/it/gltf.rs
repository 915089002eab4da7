//! Properties over generated GLB files with faults (weights off, duplicate joints, joints
//! out of range, NaN weights), fixed in memory: the output passes the validator, and
//! fixing it again changes nothing.

use dashvertex_core::Limits;
use dashvertex_fix::{OutOfRange, Policy, SumRule, ZeroSum, fix_gltf};
use dashvertex_gltf::{Container, NoFiles, load};
use dashvertex_testkit::gltf::SkinnedGlb;
use dashvertex_validate::{Options, Severity, validate_bytes};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn fixed_glbs_are_valid_and_fixing_again_changes_nothing(
        seed in 1u64..1_000_000,
        sets in 1usize..4,
        joints in 2usize..40,
        fault_every in 1usize..6,
        nearest in any::<bool>(),
    ) {
        let glb = SkinnedGlb { vertices: 60, primitives: 2, sets, joints, fault_every, seed }.build();
        let gltf = load(&glb, &NoFiles, &Limits::default()).unwrap();
        let policy = Policy {
            out_of_range: OutOfRange::Drop,
            zero_sum: if nearest { ZeroSum::Nearest } else { ZeroSum::Root },
            ..Policy::for_rule(SumRule::Gltf)
        };
        let fixed = fix_gltf(&gltf, &policy, &Limits::default()).unwrap();
        let Some(editor) = fixed.editor else {
            // Nothing to fix: the input must then be valid already.
            let r = validate_bytes("in.glb", &glb, &Options::default());
            prop_assert_eq!(r.counts.errors, 0);
            return Ok(());
        };
        let out = editor.finish(Container::Glb).unwrap();
        let report = validate_bytes("out.glb", &out, &Options::default());
        let errors: Vec<String> = report
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(|d| format!("{}: {}", d.code.as_str(), d.message))
            .collect();
        prop_assert!(errors.is_empty(), "{errors:?}");
        let again = load(&out, &NoFiles, &Limits::default()).unwrap();
        let second = fix_gltf(&again, &policy, &Limits::default()).unwrap();
        prop_assert!(second.editor.is_none(), "{:?}", second.parts);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// A repair asked to list only the first changes counts the same changes and steps,
    /// and lists a prefix of the full list.
    #[test]
    fn listing_only_some_changes_counts_them_all(
        seed in 1u64..1_000_000,
        sets in 1usize..4,
        fault_every in 1usize..4,
        listed in 0usize..5,
    ) {
        let glb = SkinnedGlb { vertices: 60, primitives: 2, sets, joints: 12, fault_every, seed }.build();
        let gltf = load(&glb, &NoFiles, &Limits::default()).unwrap();
        let policy = Policy {
            out_of_range: OutOfRange::Drop,
            zero_sum: ZeroSum::Nearest,
            ..Policy::for_rule(SumRule::Gltf)
        };
        let all = fix_gltf(&gltf, &policy, &Limits::default()).unwrap();
        let some = dashvertex_fix::fix_gltf_listing(&gltf, &policy, &Limits::default(), Some(listed)).unwrap();
        prop_assert_eq!(all.parts.len(), some.parts.len());
        for (a, s) in all.parts.iter().zip(&some.parts) {
            prop_assert_eq!(a.report.changed_vertices(), s.report.changed_vertices());
            prop_assert_eq!(&a.report.steps, &s.report.steps);
            prop_assert_eq!(a.report.sets_dropped, s.report.sets_dropped);
            prop_assert_eq!(s.report.changes.len(), listed.min(a.report.changes.len()));
            // NaN weights are in the slots before: compared as text.
            prop_assert_eq!(
                format!("{:?}", &a.report.changes[..s.report.changes.len()]),
                format!("{:?}", &s.report.changes[..])
            );
        }
        prop_assert_eq!(all.editor.is_some(), some.editor.is_some());
        if let (Some(a), Some(s)) = (all.editor, some.editor) {
            prop_assert_eq!(a.finish(Container::Glb).unwrap(), s.finish(Container::Glb).unwrap());
        }
    }
}
