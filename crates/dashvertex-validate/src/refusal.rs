//! Which findings refuse a glTF input to the jobs that read it (`dashvertex reduce`, `fix`,
//! `remap`, `convert`, the page's reduce and fix; spec/validation.md §6.3): the errors of
//! [`check_document`](crate::check_document) except what the jobs rewrite or repair.

use std::collections::HashSet;

use dashvertex_core::Limits;
use dashvertex_gltf::Gltf;

use crate::codes::{Code, Severity};
use crate::diagnostic::Diagnostic;
use crate::options::{Level, Options};

/// Codes the jobs read through because they rewrite or repair what they find: a byte
/// order mark before the JSON (every writer leaves it out), the joints' and weights'
/// formats and alignment (reduce and remap write new ones; fix repairs them), an inverse
/// bind matrix's fourth row (fix snaps it).
pub const READ_THROUGH: &[Code] = &[
    Code::GLTF_JSON,
    Code::GLTF_JOINTS_FORMAT,
    Code::GLTF_WEIGHTS_FORMAT,
    Code::GLTF_ACCESSOR_ALIGNMENT,
    Code::GLTF_IBM_ROW,
];

/// Why a job will not read a glTF file.
#[derive(Clone, Debug, PartialEq)]
pub struct Refusal {
    /// The first finding that refuses it, located in the file.
    pub first: Diagnostic,
    /// How many such findings there are in all.
    pub errors: u64,
}

impl Refusal {
    /// The official validator's codes for [`Refusal::first`]: its own, else those its
    /// rule maps to.
    pub fn khronos(&self) -> Vec<&'static str> {
        if self.first.khronos.is_empty() {
            self.first.code.khronos().collect()
        } else {
            self.first.khronos.clone()
        }
    }
}

/// The refusal of `gltf` by the jobs that read it, or `None` when they may read it. Also
/// read through: the declared bounds of a `JOINTS_n` or `WEIGHTS_n` accessor (the jobs
/// write those accessors anew; a weight edited by a script leaves stale bounds behind).
/// Only as many findings are located as it takes to find the first that refuses (at most
/// 8 bounds findings per influence accessor come before it); the rest are counted.
pub fn refusal(gltf: &Gltf, limits: &Limits) -> Option<Refusal> {
    let refused = |code: &Code| code.severity() == Severity::Error && !READ_THROUGH.contains(code);
    let influence: HashSet<u64> = gltf
        .root
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .flat_map(|p| &p.attributes)
        .filter(|(name, _)| name.starts_with("JOINTS_") || name.starts_with("WEIGHTS_"))
        .filter_map(|(_, a)| a.as_u64())
        .collect();
    let exempt = |d: &Diagnostic| {
        d.code == Code::GLTF_ACCESSOR_BOUNDS
            && d.location
                .pointer
                .as_deref()
                .and_then(|p| p.strip_prefix("/accessors/"))
                .and_then(|p| p.split('/').next())
                .and_then(|i| i.parse::<u64>().ok())
                .is_some_and(|i| influence.contains(&i))
    };
    let opts = Options {
        unread_accessors: unread_accessors(gltf),
        limits: *limits,
        profile: Some(crate::Profile::Gltf),
        max_diagnostics: 1 + 8 * influence.len(),
        levels: Code::ALL
            .iter()
            .filter(|c| !refused(c))
            .map(|&c| (c, Level::Allow))
            .collect(),
        ..Options::default()
    };
    let (counts, found) = crate::check_document(gltf, &opts);
    let exempted = found.iter().filter(|d| exempt(d)).count() as u64;
    let errors = counts
        .iter()
        .filter(|(c, _)| refused(c))
        .map(|(_, n)| n)
        .sum::<u64>()
        .saturating_sub(exempted);
    let first = found
        .into_iter()
        .find(|d| d.severity == Severity::Error && refused(&d.code) && !exempt(d))?;
    Some(Refusal { first, errors })
}

/// Per accessor, whether its data lies in a range a sparse load left unread: the job
/// carries it unchanged without reading it, so its elements are not walked
/// (spec/security.md §5).
fn unread_accessors(gltf: &Gltf) -> Vec<bool> {
    if gltf.unread(0).is_empty() {
        return Vec::new();
    }
    gltf.root
        .accessors
        .iter()
        .map(|a| {
            a.buffer_view
                .and_then(|v| usize::try_from(v).ok())
                .and_then(|v| gltf.root.buffer_views.get(v))
                .is_some_and(|bv| {
                    usize::try_from(bv.buffer).is_ok_and(|b| {
                        gltf.is_unread(
                            b,
                            bv.byte_offset,
                            bv.byte_offset.saturating_add(bv.byte_length),
                        )
                    })
                })
        })
        .collect()
}
