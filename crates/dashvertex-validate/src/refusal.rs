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

/// Codes about parts of a file the jobs that rewrite influences neither read nor change,
/// which they carry into the output as they are: the skin's `skeleton` member, node
/// transforms, animations, and vertex attributes other than the influences (carried
/// byte for byte). A job that evaluates skinning ([`Work::Skin`]) reads the transforms
/// and animations, so those still refuse it ([`SKINNING`]).
pub const OUTSIDE_INFLUENCES: &[Code] = &[
    Code::GLTF_SKIN_SKELETON,
    Code::GLTF_IBM_STRIDE,
    Code::GLTF_NODE_MATRIX,
    Code::GLTF_NODE_MATRIX_TRS,
    Code::GLTF_NODE_ROTATION,
    Code::GLTF_ANIMATION_SAMPLER,
    Code::GLTF_ANIMATION_TARGET,
    Code::GLTF_ANIMATION_INPUT,
    Code::GLTF_ANIMATION_ROTATION,
    Code::GLTF_VALUE_NOT_IN_LIST,
    Code::GLTF_TEXCOORD_MISSING,
    Code::GLTF_COLOR_RANGE,
    Code::GLTF_ATTRIBUTE_NON_UNIT,
    Code::GLTF_TANGENT_SIGN,
    Code::GLTF_ATTRIBUTE_FORMAT,
];

/// Of [`OUTSIDE_INFLUENCES`], the codes about what skinning evaluates: node transforms
/// and animations.
pub const SKINNING: &[Code] = &[
    Code::GLTF_NODE_MATRIX,
    Code::GLTF_NODE_MATRIX_TRS,
    Code::GLTF_NODE_ROTATION,
    Code::GLTF_ANIMATION_SAMPLER,
    Code::GLTF_ANIMATION_TARGET,
    Code::GLTF_ANIMATION_INPUT,
    Code::GLTF_ANIMATION_ROTATION,
    Code::GLTF_VALUE_NOT_IN_LIST,
];

/// What a job does with a glTF file, which decides the errors that refuse it
/// ([`refusal_for`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Work {
    /// Shows what the file holds (`dashvertex inspect`): nothing refuses it; what it
    /// cannot read it says, and the file's errors are listed beside.
    Show,
    /// Reads and rewrites the influences and carries everything else unchanged (reduce,
    /// fix, remap, split, convert between glTF files): the errors of
    /// [`OUTSIDE_INFLUENCES`] do not refuse it.
    Rewrite,
    /// Also evaluates skinning at the rest pose and over the animations (a loss report,
    /// `--max-error`, `split --reduce`, the rest pose a DashVertex output holds): only
    /// the non-skinning codes of [`OUTSIDE_INFLUENCES`] do not refuse it.
    #[default]
    Skin,
}

impl Work {
    /// Whether `code` refuses this work (an error it does not read through).
    pub fn refused_by(self, code: Code) -> bool {
        if code.severity() != Severity::Error || READ_THROUGH.contains(&code) {
            return false;
        }
        match self {
            Work::Show => false,
            Work::Rewrite => !OUTSIDE_INFLUENCES.contains(&code),
            Work::Skin => !OUTSIDE_INFLUENCES.contains(&code) || SKINNING.contains(&code),
        }
    }
}

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
    refusal_for(gltf, limits, Work::Skin)
}

/// [`refusal`] for a job that does `work`: the errors it reads through are those
/// [`Work::refused_by`] says do not refuse it.
pub fn refusal_for(gltf: &Gltf, limits: &Limits, work: Work) -> Option<Refusal> {
    verdict(gltf, limits, work).refusal
}

/// What the input check of a job that does `work` finds: why it will not read `gltf`,
/// if it will not, and otherwise the errors it reads through and carries into its
/// output unchanged ([`OUTSIDE_INFLUENCES`]), by code, so that its output check can let
/// as many of each through and no more.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Verdict {
    /// Why the job will not read the file.
    pub refusal: Option<Refusal>,
    /// The errors the job carries, by code (none that it rewrites or repairs,
    /// [`READ_THROUGH`]).
    pub carried: std::collections::BTreeMap<Code, u64>,
}

/// The [`Verdict`] of a job that does `work` on `gltf`. Also read through: the declared
/// bounds of a `JOINTS_n` or `WEIGHTS_n` accessor (the jobs write those accessors anew).
pub fn verdict(gltf: &Gltf, limits: &Limits, work: Work) -> Verdict {
    if work == Work::Show {
        return Verdict::default();
    }
    let refused = |code: &Code| work.refused_by(*code);
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
        // Only the refusing errors are located; the carried ones are counted.
        levels: Code::ALL
            .iter()
            .filter(|c| !refused(c))
            .map(|&c| {
                let carried = c.severity() == Severity::Error && !READ_THROUGH.contains(&c);
                (c, if carried { Level::Count } else { Level::Allow })
            })
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
    let carried = counts
        .iter()
        .filter(|(c, n)| {
            **n > 0 && c.severity() == Severity::Error && !refused(c) && !READ_THROUGH.contains(c)
        })
        .map(|(c, n)| (*c, *n))
        .collect();
    let refusal = found
        .into_iter()
        .find(|d| d.severity == Severity::Error && refused(&d.code) && !exempt(d))
        .map(|first| Refusal { first, errors });
    Verdict { refusal, carried }
}

/// The errors of `gltf`'s document checks (every rule but the per-vertex influence
/// rules, as [`refusal`] runs them): how many there are, and the first `max`, located.
/// For a job that reads what it can ([`Work::Show`]) and lists what is wrong beside.
pub fn document_errors(gltf: &Gltf, limits: &Limits, max: usize) -> (u64, Vec<Diagnostic>) {
    let opts = Options {
        unread_accessors: unread_accessors(gltf),
        limits: *limits,
        profile: Some(crate::Profile::Gltf),
        max_diagnostics: max,
        levels: Code::ALL
            .iter()
            .filter(|c| c.severity() != Severity::Error)
            .map(|&c| (c, Level::Allow))
            .collect(),
        ..Options::default()
    };
    let (counts, found) = crate::check_document(gltf, &opts);
    let errors = counts
        .iter()
        .filter(|(c, _)| c.severity() == Severity::Error)
        .map(|(_, n)| n)
        .sum();
    (errors, found)
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
