//! Validation options.

use dashvertex_core::Limits;

use crate::influences::Profile;
use dashvertex_formats::Format;

/// Called with the number of bytes of the current file checked so far.
pub type ProgressFn = std::sync::Arc<dyn Fn(u64) + Send + Sync>;

/// How to validate.
#[derive(Clone)]
pub struct Options {
    /// Weight-sum profile; `None` picks `gltf` for glTF files and `dash` otherwise.
    pub profile: Option<Profile>,
    /// Number of bones to range-check indices against (overrides the file's skeleton).
    pub bones: Option<u64>,
    /// Bone indices a bone manifest marks removed (tombstones), sorted: weight on one of
    /// them is `BONE_REMOVED`. Applies to DashVertex input; for glTF, whose joints come
    /// from the skin, the joints whose names `joint_order`'s manifest retired are.
    pub removed_bones: Vec<u32>,
    /// Diagnostics kept per file (all are counted).
    pub max_diagnostics: usize,
    /// Treat warnings as errors.
    pub deny_warnings: bool,
    /// Per-code levels (`--allow`, `--warn`, `--deny CODE`): an allowed code is not
    /// reported at all; the others report at the level given, whatever `deny_warnings`.
    pub levels: std::collections::BTreeMap<crate::Code, Level>,
    /// Resource limits for reading the input (`spec/dashvertex.md` §12); input beyond
    /// them is reported as `LIMIT_EXCEEDED`, not as invalid data.
    pub limits: Limits,
    /// An engine whose glTF import to check the file against (`--target`,
    /// `spec/targets.md`): weight in sets it does not read, more joints than it renders,
    /// indices too wide, a second set it refuses.
    pub target: Option<&'static dashvertex_core::Target>,
    /// Force an input format instead of detecting it.
    pub format: Option<Format>,
    /// Progress callback for long files.
    pub progress: Option<ProgressFn>,
    /// Folders, besides each glTF file's own, that its external resources may resolve
    /// into (`--resource-dir`); see `spec/security.md`.
    pub resource_dirs: Vec<std::path::PathBuf>,
    /// The bone manifest glTF skins' joint order is checked against (`JOINT_ORDER`).
    pub joint_order: Option<JointOrder>,
    /// glTF accessors `0..carried_accessors` are carried byte for byte, with their
    /// description, from the file a job read (the output of `dashvertex reduce` before it
    /// is written): the checks that walk every element of an accessor (declared bounds,
    /// non-finite positions, index ranges, color ranges) skip them, so a job's check of
    /// its output reads only the data it changed. Every other check still covers them.
    /// 0 (the default) checks every accessor.
    pub carried_accessors: u64,
    /// glTF accessors whose element walks are skipped as for
    /// [`Options::carried_accessors`], by index (`true`: skipped): those a job's sparse
    /// load left unread because it carries them unchanged
    /// ([`dashvertex_gltf::sparse`]). Empty (the default) skips none.
    pub unread_accessors: Vec<bool>,
}

impl Options {
    /// Whether the elements of accessor `index` are carried from the job's input
    /// ([`Options::carried_accessors`]) and not walked again.
    pub fn carried(&self, index: u64) -> bool {
        index < self.carried_accessors
            || usize::try_from(index)
                .ok()
                .and_then(|i| self.unread_accessors.get(i))
                == Some(&true)
    }
}

/// The joint order a glTF skin must follow: joint `i` is the bone the manifest numbers
/// `i` (`dash-validate --manifest M`, `dashvertex remap`), bones matched by name or alias. The
/// manifest is indexed once, here, for every file validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JointOrder {
    lookup: dashvertex_manifest::Lookup<dashvertex_manifest::Manifest>,
    /// `--locked`: bones the manifest does not have are out of order too (without it
    /// they may follow the manifest's indices, where `dashvertex remap` appends them), and
    /// weight on one of them is `BONE_NOT_IN_MANIFEST`.
    pub locked: bool,
}

impl JointOrder {
    /// The order `manifest` gives, locked or not.
    pub fn new(manifest: dashvertex_manifest::Manifest, locked: bool) -> Self {
        JointOrder {
            lookup: dashvertex_manifest::Lookup::new(manifest),
            locked,
        }
    }

    /// The manifest.
    pub fn manifest(&self) -> &dashvertex_manifest::Manifest {
        self.lookup.manifest()
    }

    /// The manifest's names and aliases, indexed.
    pub fn lookup(&self) -> &dashvertex_manifest::Lookup<dashvertex_manifest::Manifest> {
        &self.lookup
    }
}

impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("profile", &self.profile)
            .field("bones", &self.bones)
            .field("removed_bones", &self.removed_bones)
            .field("max_diagnostics", &self.max_diagnostics)
            .field("deny_warnings", &self.deny_warnings)
            .field("levels", &self.levels)
            .field("limits", &self.limits)
            .field("format", &self.format)
            .field("target", &self.target.map(|t| t.name))
            .field("resource_dirs", &self.resource_dirs)
            .field("joint_order", &self.joint_order)
            .finish_non_exhaustive()
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            profile: None,
            bones: None,
            removed_bones: Vec::new(),
            max_diagnostics: 200,
            deny_warnings: false,
            levels: std::collections::BTreeMap::new(),
            limits: Limits::default(),
            format: None,
            target: None,
            progress: None,
            resource_dirs: Vec::new(),
            joint_order: None,
            carried_accessors: 0,
            unread_accessors: Vec::new(),
        }
    }
}

/// What a user made of a diagnostic code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Level {
    /// Not reported, not counted.
    Allow,
    /// Reported as a warning.
    Warn,
    /// Reported as an error.
    Deny,
    /// Counted with its usual severity but never kept as a diagnostic: for a caller that
    /// needs how many there are, not where (a job's input check, [`crate::verdict`]).
    Count,
}

impl Options {
    /// The severity `code` is reported with, or `None` when it is allowed (not reported).
    pub fn severity_of(&self, code: crate::Code) -> Option<crate::Severity> {
        use crate::Severity;
        match self.levels.get(&code) {
            Some(Level::Allow) => None,
            Some(Level::Warn) => Some(Severity::Warning),
            Some(Level::Deny) => Some(Severity::Error),
            Some(Level::Count) => Some(code.severity()),
            None if self.deny_warnings && code.severity() == Severity::Warning => {
                Some(Severity::Error)
            }
            None => Some(code.severity()),
        }
    }
}
