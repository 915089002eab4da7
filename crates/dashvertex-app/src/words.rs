//! How a job speaks to its user: options named as the front end names them, and the
//! messages a job gives on its way (notes, warnings, progress), handed to the front end.

use std::fmt::Display;

/// An option of a job. Messages that tell the user what to change name it through the
/// job's [`Wording`], so the CLI says `--max-influences` and Python says `max_influences`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Opt {
    /// The output file.
    Output,
    /// The output's format, when its name cannot tell.
    To,
    /// Embed a `.gltf` output's buffers.
    Embed,
    /// Influences kept per vertex.
    MaxInfluences,
    /// Influence sets a vertex may have.
    MaxSets,
    /// Bones a skeleton or manifest may have.
    MaxBones,
    /// The bone manifest file.
    Manifest,
    /// Refuse a manifest change.
    Locked,
    /// The reduce or fix report file.
    Report,
    /// The largest displacement allowed.
    MaxError,
    /// Fit the kept weights to the full skinning over a pose set.
    Fit,
    /// How much the fit's range-of-motion poses count against the animations.
    FitMotionWeight,
    /// Another glTF whose animations supply the poses.
    Poses,
    /// The glTF mesh a DashVertex output holds.
    Mesh,
    /// The primitive of that mesh.
    Primitive,
    /// The JSON shape of a DashVertex output.
    Form,
    /// Drop bytes outside every section of a DMX file.
    DropUnreferenced,
    /// Replace an existing manifest.
    Force,
    /// The file a manifest is updated from.
    From,
    /// Normalize weights.
    Normalize,
    /// Store weights as integers.
    Quantize,
    /// Drop influences below this weight.
    MinWeight,
    /// What a vertex without influence becomes.
    Empty,
    /// The engine an output is written for.
    Target,
    /// How far an inverse bind matrix's fourth row may be off to be snapped.
    IbmTolerance,
    /// Joints a part of a split primitive may use.
    MaxJoints,
    /// Let a split take influences off elements that need too many joints.
    Reduce,
    /// Parts a split may write.
    MaxParts,
    /// Let a split copy node extensions it does not know to the parts' nodes.
    AllowUnknownExtensions,
    /// How a written glTF's images reach their files.
    Resources,
    /// The most bytes an input (with its resources) may have.
    MaxInputBytes,
    /// The input's format, when neither its name nor its bytes tell.
    InputFormat,
    /// The most vertices a file may hold.
    MaxVertices,
    /// What fix does with a vertex whose weights are all zero.
    ZeroSum,
    /// A warning code allowed on purpose.
    Allow,
    /// The number of bones, for checking bone indices without a skeleton.
    Bones,
}

impl Opt {
    /// The option's neutral name: `snake_case`, as Python's keywords and the reports spell
    /// it.
    pub fn keyword(self) -> &'static str {
        match self {
            Opt::Output => "output",
            Opt::To => "to",
            Opt::Embed => "embed",
            Opt::MaxInfluences => "max_influences",
            Opt::MaxSets => "max_sets",
            Opt::MaxBones => "max_bones",
            Opt::Manifest => "manifest",
            Opt::Locked => "locked",
            Opt::Report => "report",
            Opt::MaxError => "max_error",
            Opt::Fit => "fit",
            Opt::FitMotionWeight => "fit_motion_weight",
            Opt::Poses => "poses",
            Opt::Mesh => "mesh",
            Opt::Primitive => "primitive",
            Opt::Form => "form",
            Opt::DropUnreferenced => "drop_unreferenced",
            Opt::Force => "force",
            Opt::From => "from",
            Opt::Normalize => "normalize",
            Opt::Quantize => "quantize",
            Opt::MinWeight => "min_weight",
            Opt::Empty => "empty",
            Opt::Target => "target",
            Opt::IbmTolerance => "ibm_tolerance",
            Opt::MaxJoints => "max_joints",
            Opt::Reduce => "reduce",
            Opt::MaxParts => "max_parts",
            Opt::AllowUnknownExtensions => "allow_unknown_extensions",
            Opt::Resources => "resources",
            Opt::MaxInputBytes => "max_input_bytes",
            Opt::InputFormat => "input_format",
            Opt::MaxVertices => "max_vertices",
            Opt::ZeroSum => "zero_sum",
            Opt::Allow => "allow",
            Opt::Bones => "bones",
        }
    }
}

/// A job that dash runs, named as the front end names it (`dashvertex reduce`,
/// `dashvertex.reduce_file`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Job {
    /// Reduce influences.
    Reduce,
    /// Repair influence data.
    Fix,
    /// Convert between formats.
    Convert,
    /// Rewrite a glTF's joint order to a manifest's.
    Remap,
    /// Validate a file.
    Validate,
    /// Make a manifest from a file's skeleton.
    ManifestInit,
    /// Update a manifest.
    ManifestUpdate,
    /// Cut skinned primitives to a joint budget.
    Split,
}

impl Job {
    /// The job's neutral name.
    pub fn keyword(self) -> &'static str {
        match self {
            Job::Reduce => "reduce",
            Job::Fix => "fix",
            Job::Convert => "convert",
            Job::Remap => "remap",
            Job::Validate => "validate",
            Job::ManifestInit => "manifest init",
            Job::ManifestUpdate => "manifest update",
            Job::Split => "split",
        }
    }
}

/// How a front end names options and jobs in messages. The defaults are the neutral
/// names ([`Opt::keyword`], [`Job::keyword`]).
pub trait Wording: Sync {
    /// How the user sets `opt`.
    fn option(&self, opt: Opt) -> String {
        opt.keyword().to_owned()
    }

    /// How the user runs `job`.
    fn job(&self, job: Job) -> String {
        job.keyword().to_owned()
    }

    /// How the user sets `opt` to `value`.
    fn set(&self, opt: Opt, value: &str) -> String {
        format!("{} {value}", self.option(opt))
    }

    /// How the user runs `job` on a file, with the options `args` set: the command line
    /// or the call, for advice.
    fn call(&self, job: Job, args: &[(Opt, &str)]) -> String {
        let mut out = self.job(job);
        for &(opt, value) in args {
            out.push(' ');
            out.push_str(&self.set(opt, value));
        }
        out
    }
}

/// The neutral [`Wording`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Neutral;

impl Wording for Neutral {}

/// Options, jobs and calls as the `dashvertex` and `dash-validate` command lines spell them
/// (`--max-bones`, `dashvertex fix FILE -o OUT`): the CLI's wording, and the inspector's,
/// whose report is `dash-validate`'s.
#[derive(Clone, Copy, Debug, Default)]
pub struct CommandLine;

impl Wording for CommandLine {
    fn option(&self, opt: Opt) -> String {
        match opt {
            Opt::Output => "-o".to_owned(),
            other => format!("--{}", other.keyword().replace('_', "-")),
        }
    }

    fn job(&self, job: Job) -> String {
        format!("dashvertex {}", job.keyword())
    }

    fn call(&self, job: Job, args: &[(Opt, &str)]) -> String {
        let mut out = match job {
            Job::Validate => format!("{} FILE", self.job(job)),
            Job::Convert => format!("{} FILE OUT", self.job(job)),
            Job::ManifestInit | Job::ManifestUpdate => format!("{} M", self.job(job)),
            other => format!("{} FILE -o OUT", self.job(other)),
        };
        for &(opt, value) in args {
            out.push(' ');
            out.push_str(&self.set(opt, value));
        }
        out
    }
}

/// How much a message matters to the user.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Something the user should act on; the job went on.
    Warning,
    /// Something the user may not expect (a name that contradicts the content, a part
    /// left behind).
    Note,
    /// What the job did.
    Info,
    /// More of what it did, for a verbose run.
    Detail,
}

/// Where a job's messages go: the CLI prints them as they come, Python collects them.
pub trait Log: Sync {
    /// Takes one message.
    fn log(&self, level: Level, message: &dyn Display);
}

/// A [`Log`] that keeps every message, in order.
#[derive(Debug, Default)]
pub struct Collect {
    messages: std::sync::Mutex<Vec<(Level, String)>>,
}

impl Collect {
    /// The messages so far, in the order they came.
    pub fn take(&self) -> Vec<(Level, String)> {
        match self.messages.lock() {
            Ok(mut m) => std::mem::take(&mut *m),
            Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
        }
    }
}

impl Log for Collect {
    fn log(&self, level: Level, message: &dyn Display) {
        let text = message.to_string();
        match self.messages.lock() {
            Ok(mut m) => m.push((level, text)),
            Err(poisoned) => poisoned.into_inner().push((level, text)),
        }
    }
}

/// The warning a manifest earns when it just numbered Blender's automatic neutral bone
/// ([`dashvertex_manifest::BLENDER_NEUTRAL_BONE`]), which would otherwise slip in
/// unnoticed.
pub fn warn_neutral_bone(added: &[(String, u32)], words: &dyn Wording, log: &dyn Log) {
    for (name, index) in added
        .iter()
        .filter(|(n, _)| n == dashvertex_manifest::BLENDER_NEUTRAL_BONE)
    {
        log.log(
            Level::Warning,
            &format_args!(
                "the manifest now numbers bone {name:?} (index {index}): the joint Blender's glTF exporter adds to hold the vertices no bone weights, not a bone of the rig; weight those vertices to a real bone in Blender (Weight Paint) and export again, then retire it with `{} M --from FILE`, or keep it if those vertices are meant to follow no bone",
                words.job(Job::ManifestUpdate)
            ),
        );
    }
}

/// The warning an input earns when it shares fewer than half its bones with the non-empty
/// manifest that numbers it ([`dashvertex_manifest::Overlap::is_foreign`]): most likely
/// another rig's manifest, whose indices the input's bones would be appended after.
pub fn warn_other_rig(
    manifest: &std::path::Path,
    overlap: dashvertex_manifest::Overlap,
    log: &dyn Log,
) {
    if overlap.is_foreign() {
        let name = manifest.file_name().map_or_else(
            || manifest.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        log.log(
            Level::Warning,
            &format_args!(
                "the input shares {} of its {} bones with {name}'s {}; one manifest per skeleton keeps indices meaningful",
                overlap.shared, overlap.input, overlap.manifest
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neutral_names_are_keywords() {
        assert_eq!(Neutral.option(Opt::MaxInfluences), "max_influences");
        assert_eq!(Neutral.job(Job::ManifestUpdate), "manifest update");
    }

    #[test]
    fn collect_keeps_order() {
        let c = Collect::default();
        c.log(Level::Note, &"a");
        c.log(Level::Info, &"b");
        assert_eq!(
            c.take(),
            vec![(Level::Note, "a".to_owned()), (Level::Info, "b".to_owned())]
        );
        assert!(c.take().is_empty());
    }

    #[test]
    fn another_rigs_manifest_is_named_with_the_counts() {
        let c = Collect::default();
        let path = std::path::Path::new("/tmp/rig.manifest.json");
        let few = dashvertex_manifest::Overlap {
            input: 24,
            shared: 3,
            manifest: 19,
        };
        warn_other_rig(path, few, &c);
        let half = dashvertex_manifest::Overlap {
            input: 24,
            shared: 12,
            manifest: 19,
        };
        warn_other_rig(path, half, &c);
        assert_eq!(
            c.take(),
            vec![(
                Level::Warning,
                "the input shares 3 of its 24 bones with rig.manifest.json's 19; one manifest per skeleton keeps indices meaningful".to_owned()
            )]
        );
    }
}
