//! Validation options.

use dashvertex_core::Limits;

use crate::influences::Profile;

/// What kind of file an input is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum InputFormat {
    /// DashVertex JSON.
    Json,
    /// DMX binary container.
    Dmx,
    /// Raw 48-byte vertex records.
    Raw,
    /// glTF 2.0 JSON (`.gltf`).
    Gltf,
    /// glTF 2.0 binary container (`.glb`).
    Glb,
}

impl InputFormat {
    /// The format a file name implies.
    pub fn from_path(path: &std::path::Path) -> Option<InputFormat> {
        match path
            .extension()?
            .to_string_lossy()
            .to_ascii_lowercase()
            .as_str()
        {
            "json" => Some(InputFormat::Json),
            "dmx" => Some(InputFormat::Dmx),
            "raw" => Some(InputFormat::Raw),
            "gltf" => Some(InputFormat::Gltf),
            "glb" => Some(InputFormat::Glb),
            _ => None,
        }
    }

    /// Guesses the format from the first bytes and the length.
    pub fn sniff(head: &[u8], len: u64) -> Option<InputFormat> {
        if dashvertex_gltf::glb::is_glb(head) {
            return Some(InputFormat::Glb);
        }
        match head.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'{' | b'[') => Some(InputFormat::Json),
            _ => match dashvertex_binary::detect(head, len) {
                Ok(dashvertex_binary::FileKind::Container) => Some(InputFormat::Dmx),
                Ok(dashvertex_binary::FileKind::Raw) => Some(InputFormat::Raw),
                Err(_) => None,
            },
        }
    }

    /// The format the first bytes prove, when they carry a signature: the GLB or DMX
    /// magic, or JSON text. Raw records have none (they are told by the name or by
    /// [`InputFormat::sniff`]).
    pub fn signature(head: &[u8]) -> Option<InputFormat> {
        if dashvertex_gltf::glb::is_glb(head) {
            Some(InputFormat::Glb)
        } else if head.starts_with(b"DMX\0") {
            Some(InputFormat::Dmx)
        } else {
            match head.iter().find(|b| !b.is_ascii_whitespace()) {
                Some(b'{' | b'[') => Some(InputFormat::Json),
                _ => None,
            }
        }
    }

    /// The format of a file named `name` whose first bytes are `head` (of `len`): the
    /// bytes' signature when it contradicts the name (with the name's format, to report),
    /// else the name's format, else what the bytes look like.
    pub fn decide(
        name: &std::path::Path,
        head: &[u8],
        len: u64,
    ) -> (Option<InputFormat>, Option<InputFormat>) {
        let by_name = InputFormat::from_path(name);
        let text = |f: InputFormat| matches!(f, InputFormat::Json | InputFormat::Gltf);
        match (by_name, InputFormat::signature(head)) {
            (Some(n), Some(c)) if text(n) != text(c) || (!text(n) && n != c) => (Some(c), Some(n)),
            (Some(n), _) => (Some(n), None),
            (None, _) => (InputFormat::sniff(head, len), None),
        }
    }

    /// Every format, in the order their names are listed to users.
    pub const ALL: [InputFormat; 5] = [
        InputFormat::Json,
        InputFormat::Dmx,
        InputFormat::Raw,
        InputFormat::Gltf,
        InputFormat::Glb,
    ];

    /// The format whose [`InputFormat::as_str`] is `name` (ASCII case ignored).
    pub fn from_name(name: &str) -> Option<InputFormat> {
        InputFormat::ALL
            .into_iter()
            .find(|f| f.as_str().eq_ignore_ascii_case(name))
    }

    /// Lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            InputFormat::Json => "json",
            InputFormat::Dmx => "dmx",
            InputFormat::Raw => "raw",
            InputFormat::Gltf => "gltf",
            InputFormat::Glb => "glb",
        }
    }
}

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
    /// them is `BONE_REMOVED`. Applies to DashVertex input (glTF joints come from the skin).
    pub removed_bones: Vec<u32>,
    /// Diagnostics kept per file (all are counted).
    pub max_diagnostics: usize,
    /// Treat warnings as errors.
    pub deny_warnings: bool,
    /// Per-code levels (`--allow`, `--warn`, `--deny CODE`): an allowed code is not
    /// reported at all; the others report at the level given, whatever `deny_warnings`.
    pub levels: std::collections::BTreeMap<crate::Code, Level>,
    /// Decoder limits.
    pub limits: Limits,
    /// Force an input format instead of detecting it.
    pub format: Option<InputFormat>,
    /// Progress callback for long files.
    pub progress: Option<ProgressFn>,
    /// Folders, besides each glTF file's own, that its external resources may resolve
    /// into (`--resource-dir`); see `spec/security.md`.
    pub resource_dirs: Vec<std::path::PathBuf>,
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
            .field("resource_dirs", &self.resource_dirs)
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
            progress: None,
            resource_dirs: Vec::new(),
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
}

impl Options {
    /// The severity `code` is reported with, or `None` when it is allowed (not reported).
    pub fn severity_of(&self, code: crate::Code) -> Option<crate::Severity> {
        use crate::Severity;
        match self.levels.get(&code) {
            Some(Level::Allow) => None,
            Some(Level::Warn) => Some(Severity::Warning),
            Some(Level::Deny) => Some(Severity::Error),
            None if self.deny_warnings && code.severity() == Severity::Warning => {
                Some(Severity::Error)
            }
            None => Some(code.severity()),
        }
    }
}
