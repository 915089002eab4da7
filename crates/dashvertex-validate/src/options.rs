//! Validation options.

use dashvertex_core::Limits;

use crate::influences::Profile;
use dashvertex_formats::Format;

/// Called with the number of bytes of the current file checked so far.
pub type ProgressFn = std::sync::Arc<dyn Fn(u64) + Send + Sync>;

/// How to validate: [`Options::new`] (the defaults) and the `with_` methods, or the public
/// fields set one by one.
///
/// ```
/// use dashvertex_validate::{Code, Level, Options, Profile};
/// let opts = Options::new()
///     .with_profile(Profile::Gltf)
///     .with_bones(2)
///     .with_level(Code::WEIGHT_SUM, Level::Warn);
/// assert_eq!(opts.max_diagnostics, Options::default().max_diagnostics);
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct Options {
    /// Weight-sum profile; `None` picks `gltf` for glTF files and `dash` otherwise.
    pub profile: Option<Profile>,
    /// Number of bones to range-check indices against (overrides the file's skeleton).
    pub bones: Option<u64>,
    /// Bone indices a bone manifest marks removed ([`Options::with_removed_bones`]).
    pub(crate) removed_bones: Vec<u32>,
    /// Diagnostics kept per file (all are counted).
    pub max_diagnostics: usize,
    /// Treat warnings as errors.
    pub deny_warnings: bool,
    /// Per-code levels ([`Options::with_level`]): an allowed code is not
    /// reported at all; the others report at the level given, whatever `deny_warnings`.
    pub levels: std::collections::BTreeMap<crate::Code, Level>,
    /// Resource limits for reading the input (`spec/dashvertex.md` §12); input beyond
    /// them is reported as `LIMIT_EXCEEDED`, not as invalid data.
    pub limits: Limits,
    /// An engine whose glTF import to check the file against
    /// ([`dashvertex_core::TARGETS`]): weight in sets it does not read, more joints than it renders,
    /// indices too wide, a second set it refuses.
    pub target: Option<&'static dashvertex_core::Target>,
    /// Force an input format instead of detecting it.
    pub format: Option<Format>,
    /// Progress callback for long files.
    pub progress: Option<ProgressFn>,
    /// Folders, besides each glTF file's own, that its external resources may resolve
    /// into; see `spec/security.md`.
    pub resource_dirs: Vec<std::path::PathBuf>,
    /// The bone manifest glTF skins' joint order is checked against (`JOINT_ORDER`).
    pub joint_order: Option<JointOrder>,
    /// Accessors carried from a job's input ([`Options::with_carried_accessors`]).
    pub(crate) carried_accessors: u64,
    /// glTF accessors whose element walks are skipped as for the carried ones, by index
    /// (`true`: skipped): those a job's sparse load left unread because it carries them
    /// unchanged. Set by [`crate::verdict`] and [`crate::document_errors`] from the
    /// document; empty (the default) skips none.
    pub(crate) unread_accessors: Vec<bool>,
}

impl Options {
    /// The defaults: profile by format, no bone count, 200 diagnostics kept per file,
    /// every code at its own severity, [`Limits::default`], the format detected.
    pub fn new() -> Options {
        Options::default()
    }

    /// The weight-sum profile (`None`: `gltf` for glTF files, `dash` otherwise).
    pub fn with_profile(mut self, profile: impl Into<Option<Profile>>) -> Options {
        self.profile = profile.into();
        self
    }

    /// The number of bones indices are checked against (overrides the file's skeleton).
    pub fn with_bones(mut self, bones: impl Into<Option<u64>>) -> Options {
        self.bones = bones.into();
        self
    }

    /// Bone indices a bone manifest marks removed (tombstones): weight on one of them is
    /// `BONE_REMOVED`. Applies to DashVertex input; for glTF, whose joints come from the
    /// skin, the joints whose names the [`JointOrder`]'s manifest retired are. Sorted
    /// here.
    pub fn with_removed_bones(mut self, mut removed: Vec<u32>) -> Options {
        removed.sort_unstable();
        removed.dedup();
        self.removed_bones = removed;
        self
    }

    /// The bone indices [`Options::with_removed_bones`] set, sorted.
    pub fn removed_bones(&self) -> &[u32] {
        &self.removed_bones
    }

    /// Diagnostics kept per file (all are counted).
    pub fn with_max_diagnostics(mut self, max: usize) -> Options {
        self.max_diagnostics = max;
        self
    }

    /// Whether warnings count as errors.
    pub fn with_deny_warnings(mut self, deny: bool) -> Options {
        self.deny_warnings = deny;
        self
    }

    /// Reports `code` at `level` (allowed: not reported at all).
    pub fn with_level(mut self, code: crate::Code, level: Level) -> Options {
        self.levels.insert(code, level);
        self
    }

    /// Every per-code level at once, replacing those set before.
    pub fn with_levels(
        mut self,
        levels: std::collections::BTreeMap<crate::Code, Level>,
    ) -> Options {
        self.levels = levels;
        self
    }

    /// The resource limits for reading the input.
    pub fn with_limits(mut self, limits: Limits) -> Options {
        self.limits = limits;
        self
    }

    /// The engine whose glTF import the file is checked against.
    pub fn with_target(
        mut self,
        target: impl Into<Option<&'static dashvertex_core::Target>>,
    ) -> Options {
        self.target = target.into();
        self
    }

    /// The input format, instead of detecting it.
    pub fn with_format(mut self, format: impl Into<Option<Format>>) -> Options {
        self.format = format.into();
        self
    }

    /// A progress callback for long files.
    pub fn with_progress(mut self, progress: impl Into<Option<ProgressFn>>) -> Options {
        self.progress = progress.into();
        self
    }

    /// Folders, besides each glTF file's own, its external resources may resolve into.
    pub fn with_resource_dirs(mut self, dirs: Vec<std::path::PathBuf>) -> Options {
        self.resource_dirs = dirs;
        self
    }

    /// The manifest order glTF skins' joints are checked against (`JOINT_ORDER`).
    pub fn with_joint_order(mut self, order: impl Into<Option<JointOrder>>) -> Options {
        self.joint_order = order.into();
        self
    }

    /// glTF accessors `0..n` are carried byte for byte, with their description, from
    /// the file a job read (its output checked before it is written): the checks that
    /// walk every element of an accessor (declared bounds, non-finite positions, index
    /// ranges, color ranges) skip them, so a job's check of its output reads only the
    /// data it changed. Every other check still covers them. 0 (the default) checks
    /// every accessor.
    pub fn with_carried_accessors(mut self, n: u64) -> Options {
        self.carried_accessors = n;
        self
    }

    /// The number [`Options::with_carried_accessors`] set.
    pub fn carried_accessors(&self) -> u64 {
        self.carried_accessors
    }
}

impl Options {
    /// Whether the elements of accessor `index` are carried from the job's input
    /// ([`Options::with_carried_accessors`], or left unread by a sparse load) and not
    /// walked again.
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

impl std::str::FromStr for Level {
    type Err = crate::UnknownName;

    /// `allow`, `warn`, `deny` or `count`.
    fn from_str(s: &str) -> Result<Level, crate::UnknownName> {
        match s {
            "allow" => Ok(Level::Allow),
            "warn" => Ok(Level::Warn),
            "deny" => Ok(Level::Deny),
            "count" => Ok(Level::Count),
            _ => Err(crate::UnknownName::new("level", s)),
        }
    }
}

impl Profile {
    /// `dash` or `gltf`.
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Dash => "dash",
            Profile::Gltf => "gltf",
        }
    }
}

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Profile {
    type Err = crate::UnknownName;

    /// `dash` or `gltf`.
    fn from_str(s: &str) -> Result<Profile, crate::UnknownName> {
        match s {
            "dash" => Ok(Profile::Dash),
            "gltf" => Ok(Profile::Gltf),
            _ => Err(crate::UnknownName::new("profile", s)),
        }
    }
}
