//! Reduction with the file's own bone indices, and the dropped weight in its report.

use dashvertex_core::{Bone, Document, InfluenceSet, Mesh, Skeleton, Vertex};
use dashvertex_formats::{Format, Loaded};
use dashvertex_wasm::model::{Decoded, decode};
use dashvertex_wasm::reduction::{ReduceOptions, reduce};

/// One vertex with six influences (bones 5..0, weights 6/21..1/21) over six bones.
fn six() -> Decoded {
    let w = |k: u32| f32::from(u16::try_from(6 - k).unwrap()) / 21.0;
    let first = InfluenceSet::from_pairs(&[(5, w(0)), (4, w(1)), (3, w(2)), (2, w(3))]).unwrap();
    let second = InfluenceSet::from_pairs(&[(1, w(4)), (0, w(5))]).unwrap();
    let mesh = Mesh::from_parts(
        true,
        vec![Vertex {
            position: [0.0, 1.0, 0.0],
            skin: first,
        }],
        vec![vec![second]],
    )
    .unwrap();
    let bones = (0..6u32)
        .map(|i| Bone::new(format!("b{i}"), i.checked_sub(1)))
        .collect();
    let doc = Document {
        mesh,
        skeleton: Some(Skeleton { bones }),
    };
    Decoded::new(
        Loaded::Binary(dashvertex_binary::BinaryFile::new(doc)),
        Format::Dmx,
    )
}

#[test]
fn the_heaviest_four_are_kept_with_the_files_indices_and_the_loss_is_reported() {
    let opts =
        ReduceOptions::from_json(Some(r#"{"maxInfluences": 4, "normalize": "unit"}"#)).unwrap();
    let r = reduce(&six(), &opts).unwrap();
    assert_eq!(r.decoded.set_count(), 1);
    assert_eq!(r.decoded.joints(0).unwrap().get(0), Some(5));
    let joints: Vec<u32> = (0..4)
        .map(|i| r.decoded.joints(0).unwrap().get(i).unwrap())
        .collect();
    assert_eq!(joints, [5, 4, 3, 2]);
    let sum: f32 = r.decoded.weights(0).unwrap().iter().sum();
    assert!((sum - 1.0).abs() < 1e-6);
    assert_eq!(r.decoded.skeleton().names.len(), 6);
    assert_eq!(r.report.reduced.dropped, 2);
    assert_eq!(r.report.sets, 1);
    let lost = &r.report.dropped_weight;
    assert_eq!(lost.vertices, 1);
    assert!((lost.total - 3.0 / 21.0).abs() < 1e-6, "{lost:?}");
    let worst = lost.worst.as_ref().unwrap();
    assert_eq!(worst.vertex, 0);
    assert!((worst.share - 3.0 / 21.0).abs() < 1e-6);
    let largest = r.report.reduced.largest_dropped.as_ref().unwrap();
    assert_eq!(largest.bone, 1);
}

#[test]
fn a_reduced_file_encodes_and_reads_back() {
    let r = reduce(&six(), &ReduceOptions::default()).unwrap();
    let bytes = dashvertex_wasm::encode::encode(&r.decoded, "dmx").unwrap();
    let back = decode("r.dmx", &bytes, None).unwrap();
    assert!(back.document().bit_eq(r.decoded.document()));
}

#[test]
fn nothing_is_dropped_from_a_four_influence_rig() {
    let rig = decode("rig.json", &crate::example("rig.json"), None).unwrap();
    let opts = ReduceOptions::from_json(Some(r#"{"normalize": "unit"}"#)).unwrap();
    let r = reduce(&rig, &opts).unwrap();
    assert_eq!(r.report.reduced.dropped, 0);
    assert_eq!(r.report.dropped_weight.vertices, 0);
    assert_eq!(r.decoded.weights(0), rig.weights(0));
    // Equal weights are ordered by bone index (spec/reduction.md §2): vertex 4's [2, 1]
    // becomes [1, 2].
    let joints = r.decoded.joints(0).unwrap();
    assert_eq!((joints.get(16), joints.get(17)), (Some(1), Some(2)));
}

#[test]
fn bad_options_and_refusals_are_failures() {
    for bad in [r#"{"normalize": "sum"}"#, r#"{"k": 2}"#] {
        let e = ReduceOptions::from_json(Some(bad)).and_then(|o| o.to_config().map(|_| o));
        assert_eq!(e.unwrap_err().code, "OPTIONS_INVALID", "{bad}");
    }
    let zero = ReduceOptions::from_json(Some(r#"{"maxInfluences": 0}"#)).unwrap();
    assert_eq!(reduce(&six(), &zero).unwrap_err().code, "REDUCE_FAILED");
}

/// The loader takes the reduce job's defaults, as `dashvertex reduce x.json -o y.json`
/// does: integer weights ask for unit sums without `normalize` being given, and a refused
/// setting names the option as JavaScript spells it.
#[test]
fn the_defaults_and_words_are_the_reduce_jobs() {
    let opts = ReduceOptions::from_json(Some(r#"{"quantize": "unorm8"}"#)).unwrap();
    let cfg = opts.to_config().unwrap();
    assert_eq!(cfg.normalize, dashvertex_reduce::Normalize::Unit);
    assert!(reduce(&six(), &opts).is_ok());
    let zero = ReduceOptions::from_json(Some(r#"{"maxInfluences": 0}"#)).unwrap();
    let e = reduce(&six(), &zero).unwrap_err();
    assert!(e.message.contains("maxInfluences"), "{}", e.message);
    assert!(!e.message.contains("--"), "{}", e.message);
    let bad = ReduceOptions::from_json(Some(r#"{"minWeight": -1}"#)).unwrap();
    let e = reduce(&six(), &bad).unwrap_err();
    assert!(e.message.contains("minWeight"), "{}", e.message);
}
