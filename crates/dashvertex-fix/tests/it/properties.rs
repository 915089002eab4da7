//! Properties over generated DashVertex documents full of faults: the fixed document
//! passes the validator under the profile it was fixed for, encodes and decodes to the
//! same document, and a second fix changes nothing.

use dashvertex_core::{Bone, Document, InfluenceSet, Limits, Mesh, Skeleton, Vertex};
use dashvertex_fix::{OutOfRange, Policy, SumRule, ZeroSum, fix_document};
use dashvertex_formats::{Format, Loaded, SaveOptions, load, save};
use dashvertex_json::JsonFile;
use dashvertex_validate::{Options, Profile, validate_bytes};
use proptest::prelude::*;

fn weight() -> impl Strategy<Value = f32> {
    prop_oneof![
        3 => Just(0.0f32),
        1 => Just(-0.0f32),
        4 => (0u32..=16).prop_map(|k| k as f32 / 16.0),
        3 => 0.0f32..1.0,
        1 => Just(1.5f32),
        1 => Just(-0.5f32),
        1 => Just(f32::NAN),
        1 => Just(f32::INFINITY),
        1 => Just(f32::from_bits(3)),
    ]
}

fn set(bones: u32) -> impl Strategy<Value = InfluenceSet> {
    (
        proptest::array::uniform4(0..bones + 2),
        proptest::array::uniform4(weight()),
    )
        .prop_map(|(joints, weights)| InfluenceSet { joints, weights })
}

fn document() -> impl Strategy<Value = Document> {
    (1usize..16, 1usize..4, 1u32..7).prop_flat_map(|(n, sets, bones)| {
        (
            proptest::collection::vec((proptest::array::uniform3(-2.0f32..2.0), set(bones)), n),
            proptest::collection::vec(proptest::collection::vec(set(bones), n), sets - 1),
        )
            .prop_map(move |(vs, extra)| {
                let vertices = vs
                    .into_iter()
                    .map(|(position, skin)| Vertex { position, skin })
                    .collect();
                let skeleton = Skeleton {
                    bones: (0..bones)
                        .map(|b| Bone::new(format!("b{b}"), b.checked_sub(1)))
                        .collect(),
                };
                Document {
                    mesh: Mesh::from_parts(true, vertices, extra).unwrap(),
                    skeleton: Some(skeleton),
                }
            })
    })
}

fn policy() -> impl Strategy<Value = Policy> {
    (
        prop_oneof![Just(SumRule::Dash), Just(SumRule::Gltf)],
        prop_oneof![Just(ZeroSum::Root), Just(ZeroSum::Nearest)],
    )
        .prop_map(|(sum, zero_sum)| Policy {
            out_of_range: OutOfRange::Drop,
            zero_sum,
            ..Policy::for_rule(sum)
        })
}

fn encode(doc: &Document) -> Vec<u8> {
    save(
        &Loaded::Json(JsonFile::new_document(doc.clone())),
        Format::Json,
        &SaveOptions::default(),
    )
    .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn fixed_documents_are_valid_and_fixing_again_changes_nothing(doc in document(), p in policy()) {
        let mut fixed = doc.clone();
        let part = match fix_document(&mut fixed, None, &p) {
            Ok(part) => part,
            // Only `nearest` refuses here: a part where no vertex keeps a weight.
            Err(e) => {
                prop_assert_eq!(p.zero_sum, ZeroSum::Nearest, "{}", e);
                return Ok(());
            }
        };
        let bytes = encode(&fixed);
        let profile = match p.sum {
            SumRule::Dash => Profile::Dash,
            SumRule::Gltf => Profile::Gltf,
        };
        let opts = Options::new().with_profile(profile);
        let report = validate_bytes("fixed.json", &bytes, &opts);
        let found: Vec<String> = report
            .diagnostics
            .iter()
            .filter(|d| d.severity == dashvertex_validate::Severity::Error)
            .map(|d| format!("{}: {}", d.code.as_str(), d.message))
            .collect();
        prop_assert!(found.is_empty(), "{found:?}\nreport: {}", part.report.changes.len());
        // A second fix of the decoded output changes nothing.
        let Loaded::Json(back) = load(&bytes, Format::Json, &Limits::default()).unwrap() else {
            unreachable!()
        };
        let mut again = back.document.clone();
        let second = fix_document(&mut again, None, &p).unwrap();
        prop_assert!(second.report.changes.is_empty(), "{:?}", second.report.changes);
        prop_assert_eq!(second.report.sets_dropped, 0);
        prop_assert!(again.bit_eq(&back.document));
        // Vertices the report does not list are untouched, bit for bit.
        let listed: std::collections::BTreeSet<u64> =
            part.report.changes.iter().map(|c| c.vertex).collect();
        for v in 0..doc.mesh.len() {
            if !listed.contains(&(v as u64)) {
                let a: Vec<_> = doc.mesh.sets_of(v).take(fixed.mesh.set_count()).collect();
                let b: Vec<_> = fixed.mesh.sets_of(v).collect();
                prop_assert!(a.iter().zip(&b).all(|(x, y)| x.bit_eq(y)), "vertex {v}");
            }
        }
    }
}
