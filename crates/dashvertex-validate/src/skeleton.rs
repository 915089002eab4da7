//! Skeleton rules (`spec/dashvertex.md` §7).

use std::collections::HashMap;

use dashvertex_core::Skeleton;

use crate::codes::Code;
use crate::diagnostic::{Diagnostic, Location};
use crate::sink::Sink;

/// Which field of a bone a finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoneField {
    /// The name.
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
            sink.push(Code::BONE_NAME_INVALID, || {
                Diagnostic::new(
                    Code::BONE_NAME_INVALID,
                    format!("bone {i}: name {:?} {p}", b.name),
                    at(i, BoneField::Name),
                )
            });
        } else if name_reported(i) {
        } else if let Some(first) = names.get(b.name.as_str()) {
            sink.push(Code::BONE_NAME_DUPLICATE, || {
                Diagnostic::new(
                    Code::BONE_NAME_DUPLICATE,
                    format!(
                        "bone {i}: name {:?} is already used by bone {first}",
                        b.name
                    ),
                    at(i, BoneField::Name),
                )
            });
        } else {
            names.insert(&b.name, i);
        }
        let t = b.position.iter().chain(&b.rotation).chain(&b.scale);
        if t.clone().any(|c| !c.is_finite()) {
            sink.push(Code::BONE_TRANSFORM_NON_FINITE, || {
                Diagnostic::new(
                    Code::BONE_TRANSFORM_NON_FINITE,
                    format!("bone {i}: transform has a NaN or infinite component"),
                    at(i, BoneField::Transform),
                )
            });
        }
        match (i, b.parent) {
            (0, Some(p)) => sink.push(Code::BONE_ROOT, || {
                Diagnostic::new(
                    Code::BONE_ROOT,
                    format!("bone 0 is the root but names bone {p} as its parent"),
                    at(0, BoneField::Parent),
                )
            }),
            (0, None) => {}
            (_, None) => sink.push(Code::BONE_ROOT, || {
                Diagnostic::new(
                    Code::BONE_ROOT,
                    format!("bone {i} has no parent; only bone 0 may be a root"),
                    at(i, BoneField::Parent),
                )
            }),
            (_, Some(p)) if p as usize >= n => sink.push(Code::BONE_PARENT_RANGE, || {
                Diagnostic::new(
                    Code::BONE_PARENT_RANGE,
                    format!("bone {i}: parent index {p} is out of range ({n} bones)"),
                    at(i, BoneField::Parent),
                )
            }),
            (_, Some(p)) if p as usize >= i => sink.push(Code::BONE_PARENT_ORDER, || {
                Diagnostic::new(
                    Code::BONE_PARENT_ORDER,
                    format!("bone {i}: parent {p} does not come before it"),
                    at(i, BoneField::Parent),
                )
            }),
            _ => {}
        }
    }
}
