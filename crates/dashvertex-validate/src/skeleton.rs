//! Skeleton rules (`spec/dashvertex.md` §7).

use std::collections::HashMap;

use dashvertex_core::Skeleton;

use crate::codes::Code;
use crate::diagnostic::Location;
use crate::sink::Sink;

/// Which field of a bone a finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoneField {
    /// The name: the `name` member in JSON, the 32-byte name field of a SKEL record.
    Name,
    /// The parent index.
    Parent,
    /// Position, rotation or scale.
    Transform,
}

/// Checks names, parents and the root; `at` locates a bone field. Bones for which
/// `name_reported(i)` is true already had their name reported (undecodable in binary)
/// and are skipped by the name rules.
pub fn check(
    skeleton: &Skeleton,
    at: &dyn Fn(usize, BoneField) -> Location,
    name_reported: &dyn Fn(usize) -> bool,
    sink: &mut Sink,
) {
    let n = skeleton.bones.len();
    let mut names: HashMap<&str, usize> = HashMap::new();
    for (i, b) in skeleton.bones.iter().enumerate() {
        let problem = if name_reported(i) {
            None
        } else if b.name.is_empty() {
            Some("is empty".to_owned())
        } else if b.name.len() > 31 {
            Some(format!(
                "is {} bytes of UTF-8; at most 31 fit the binary record",
                b.name.len()
            ))
        } else if b.name.contains('\0') {
            Some("contains a NUL character".to_owned())
        } else {
            None
        };
        if let Some(p) = problem {
            sink.report(
                Code::BONE_NAME_INVALID,
                || at(i, BoneField::Name),
                || format!("bone {i}: name {:?} {p}", b.name),
            );
        } else if name_reported(i) {
        } else if let Some(first) = names.get(b.name.as_str()) {
            sink.report(
                Code::BONE_NAME_DUPLICATE,
                || at(i, BoneField::Name),
                || {
                    format!(
                        "bone {i}: name {:?} is already used by bone {first}",
                        b.name
                    )
                },
            );
        } else {
            names.insert(&b.name, i);
        }
        let t = b.position.iter().chain(&b.rotation).chain(&b.scale);
        if t.clone().any(|c| !c.is_finite()) {
            sink.report(
                Code::BONE_TRANSFORM_NON_FINITE,
                || at(i, BoneField::Transform),
                || format!("bone {i}: transform has a NaN or infinite component"),
            );
        }
        match (i, b.parent) {
            (0, Some(p)) => sink.report(
                Code::BONE_ROOT,
                || at(0, BoneField::Parent),
                || format!("bone 0 is the root but names bone {p} as its parent"),
            ),
            (0, None) => {}
            (_, None) => sink.report(
                Code::BONE_ROOT,
                || at(i, BoneField::Parent),
                || format!("bone {i} has no parent; only bone 0 may be a root"),
            ),
            (_, Some(p)) if p as usize >= n => sink.report(
                Code::BONE_PARENT_RANGE,
                || at(i, BoneField::Parent),
                || format!("bone {i}: parent index {p} is out of range ({n} bones)"),
            ),
            (_, Some(p)) if p as usize >= i => sink.report(
                Code::BONE_PARENT_ORDER,
                || at(i, BoneField::Parent),
                || format!("bone {i}: parent {p} does not come before it"),
            ),
            _ => {}
        }
    }
}
