//! Vertex attributes repaired exactly (spec/fix.md [F9]), on the vectors of
//! `spec/vectors/gltf/` that break the unit-length and range rules: the repaired values
//! are the ones the rule gives, every other value keeps its bits, each change is listed,
//! the output has no error but the ones left on purpose (and the official validator
//! agrees), and fixing it again changes nothing.

use dashvertex_core::Limits;
use dashvertex_fix::{AttributeChange, Note, Policy, SumRule, fix_gltf};
use dashvertex_gltf::{Container, Gltf, NoFiles, accessor, load};
use dashvertex_testkit::{Scratch, repo};
use dashvertex_validate::{Options, Severity, validate_bytes};

/// What one vector must become.
struct Case {
    file: &'static str,
    /// Attribute name → its values after the fix.
    values: &'static [(&'static str, &'static [f32])],
    /// The changes listed: (attribute, change, elements, first).
    notes: &'static [(&'static str, AttributeChange, u64, u64)],
    /// The error codes the output keeps (left on purpose).
    kept: &'static [&'static str],
}

/// 1 / √3 rounded once to binary32.
const THIRD: f32 = 0.577_350_26;

const CASES: &[Case] = &[
    Case {
        file: "normal-non-unit.gltf",
        values: &[("NORMAL", &[0., 0., 1., 0., 1., 0., THIRD, THIRD, THIRD])],
        notes: &[("NORMAL", AttributeChange::Renormalized, 1, 2)],
        kept: &[],
    },
    Case {
        file: "tangent-near-unit.gltf",
        values: &[
            (
                "TANGENT",
                &[1., 0., 0., 1., 0., 1., 0., -1., 1., 0., 0., 1.],
            ),
            ("NORMAL", &[0., 0., 1., 0., 0., 1., 0., 0., 1.]),
        ],
        notes: &[
            ("TANGENT", AttributeChange::Renormalized, 1, 0),
            ("TANGENT", AttributeChange::SignSnapped, 2, 0),
        ],
        kept: &[],
    },
    Case {
        file: "normal-zero-length.gltf",
        values: &[("NORMAL", &[0., 0., 1., 0., 0., 0., 0., 1., 0.])],
        notes: &[
            ("NORMAL", AttributeChange::Renormalized, 1, 2),
            ("NORMAL", AttributeChange::ZeroLengthLeft, 1, 1),
        ],
        kept: &["GLTF_ATTRIBUTE_NON_UNIT"],
    },
    Case {
        file: "color-out-of-range.gltf",
        values: &[("COLOR_0", &[1., 0., 0., 0., 0., 0., 0., 0., 0.])],
        notes: &[("COLOR_0", AttributeChange::Clamped, 1, 0)],
        kept: &[],
    },
    Case {
        file: "color-shared-bounds.gltf",
        values: &[
            (
                "COLOR_0",
                &[0., 0.5, 1., 1., 0., 0., 0., 1., 1., 1., 1., 1.],
            ),
            (
                "COLOR_1",
                &[0., 0.5, 1., 1., 0., 0., 0., 1., 1., 1., 1., 1.],
            ),
        ],
        notes: &[("COLOR_0", AttributeChange::Clamped, 2, 0)],
        kept: &[],
    },
];

fn policy() -> Policy {
    Policy::for_rule(SumRule::Gltf)
}

/// Attribute `name` of the first primitive, as binary32 values.
#[allow(
    clippy::cast_possible_truncation,
    reason = "FLOAT components are binary32 values"
)]
fn attribute(gltf: &Gltf, name: &str) -> (u64, Vec<f32>) {
    let index = gltf.root.meshes[0].primitives[0].attributes[name]
        .as_u64()
        .unwrap();
    let data = accessor::read(gltf, index, &Limits::default()).unwrap();
    let mut v = Vec::new();
    for i in 0..data.count {
        for c in 0..data.components {
            v.push(data.get(i, c) as f32);
        }
    }
    (index, v)
}

fn error_codes(name: &str, bytes: &[u8]) -> Vec<String> {
    validate_bytes(name, bytes, &Options::default())
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.code.as_str().to_owned())
        .collect()
}

#[test]
fn unit_length_and_range_faults_are_repaired_exactly_and_listed() {
    // spec: F9
    let dir = Scratch::new("fix-attributes");
    let mut outputs = Vec::new();
    for case in CASES {
        let path = repo().join("spec/vectors/gltf").join(case.file);
        let bytes = std::fs::read(&path).unwrap();
        let input = load(&bytes, &NoFiles, &Limits::default()).unwrap();
        let fixed = fix_gltf(&input, &policy(), &Limits::default()).unwrap();
        let listed: Vec<(String, AttributeChange, u64, u64)> = fixed
            .structure
            .iter()
            .filter_map(|n| match n {
                Note::Attribute {
                    attribute,
                    change,
                    elements,
                    first,
                    ..
                } => Some((attribute.clone(), *change, *elements, *first)),
                _ => None,
            })
            .collect();
        let want: Vec<(String, AttributeChange, u64, u64)> = case
            .notes
            .iter()
            .map(|(a, c, n, f)| (format!("/meshes/0/primitives/0/attributes/{a}"), *c, *n, *f))
            .collect();
        assert_eq!(listed, want, "{}", case.file);
        let out = fixed
            .editor
            .expect("something changed")
            .finish(Container::Glb)
            .unwrap();
        assert_eq!(
            error_codes("out.glb", &out),
            case.kept,
            "{}: the output's errors",
            case.file
        );
        let written = load(&out, &NoFiles, &Limits::default()).unwrap();
        let mut indices = Vec::new();
        for (name, values) in case.values {
            let (index, got) = attribute(&written, name);
            indices.push(index);
            // Bit for bit: a value the rule keeps is the input's, a repaired one the rule's.
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&got), bits(values), "{} {name}", case.file);
        }
        // Attributes that shared an accessor share its copy.
        if case.values.len() == 2 && case.file.starts_with("color") {
            assert_eq!(indices[0], indices[1], "{}", case.file);
            let a = &written.value["accessors"][usize::try_from(indices[0]).unwrap()];
            assert_eq!(a["min"], serde_json::json!([0.0, 0.0, 0.0, 1.0]));
            assert_eq!(a["max"], serde_json::json!([1.0, 1.0, 1.0, 1.0]));
        }
        // A second fix changes nothing.
        let again = fix_gltf(&written, &policy(), &Limits::default()).unwrap();
        assert!(
            again.editor.is_none(),
            "{}: a second fix changed",
            case.file
        );
        let file = dir.path().join(case.file.replace(".gltf", ".glb"));
        std::fs::write(&file, &out).unwrap();
        if case.kept.is_empty() {
            outputs.push(file);
        }
    }
    if let Some(reports) = dashvertex_testkit::oracle::oracle(&outputs) {
        for r in &reports {
            assert_eq!(
                dashvertex_testkit::oracle::messages(r, 0),
                Vec::<(String, String)>::new(),
                "{}: the official validator finds errors",
                r["file"]
            );
        }
    }
}

#[test]
fn a_sign_far_from_one_is_listed_and_left() {
    // spec: F9 (w = 0 names no handedness: the file is left as it was)
    let path = repo().join("spec/vectors/gltf/tangent-sign.gltf");
    let bytes = std::fs::read(path).unwrap();
    let input = load(&bytes, &NoFiles, &Limits::default()).unwrap();
    let fixed = fix_gltf(&input, &policy(), &Limits::default()).unwrap();
    assert!(fixed.editor.is_none());
    assert!(matches!(
        fixed.structure.as_slice(),
        [Note::Attribute {
            change: AttributeChange::SignLeft,
            elements: 1,
            first: 1,
            ..
        }]
    ));
}
