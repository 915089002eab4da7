//! Validation in the page: the same JSON report `dash-validate --format json` prints
//! (`schemas/validation-report.schema.json`), from the validator library itself.

use std::collections::BTreeMap;

use dashvertex_validate::{Code, Format, Level, Options, Profile, Report};
use serde::Deserialize;

use crate::failure::Failure;

/// Validation options, as a JSON object with the command's flags as members (all
/// optional): `profile` (`"dash"` or `"gltf"`), `bones`, `denyWarnings`, `maxDiagnostics`,
/// `format` (`"json"`, `"dmx"`, `"raw"`, `"gltf"` or `"glb"`, like `--input-format`), and `allow`, `warn`,
/// `deny` (arrays of codes).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ValidateOptions {
    /// `--profile`.
    pub profile: Option<String>,
    /// `--bones`.
    pub bones: Option<u64>,
    /// `--deny warnings`.
    #[serde(default)]
    pub deny_warnings: bool,
    /// `--max-diagnostics`.
    pub max_diagnostics: Option<usize>,
    /// `--input-format`.
    pub format: Option<String>,
    /// `--allow CODE`.
    #[serde(default)]
    pub allow: Vec<String>,
    /// `--warn CODE`.
    #[serde(default)]
    pub warn: Vec<String>,
    /// `--deny CODE`.
    #[serde(default)]
    pub deny: Vec<String>,
}

impl ValidateOptions {
    /// Options from JSON text (`None` or empty: the defaults).
    pub fn from_json(text: Option<&str>) -> Result<Self, Failure> {
        match text.map(str::trim) {
            None | Some("" | "null" | "undefined") => Ok(ValidateOptions::default()),
            Some(t) => serde_json::from_str(t).map_err(|e| Failure::options(e.to_string())),
        }
    }

    /// The validator's options.
    pub fn to_options(&self) -> Result<Options, Failure> {
        let profile = match self.profile.as_deref() {
            None => None,
            Some("dash") => Some(Profile::Dash),
            Some("gltf") => Some(Profile::Gltf),
            Some(other) => {
                return Err(Failure::options(format!(
                    "unknown profile {other:?} (expected dash or gltf)"
                )));
            }
        };
        let mut levels = BTreeMap::new();
        for (codes, level) in [
            (&self.allow, Level::Allow),
            (&self.warn, Level::Warn),
            (&self.deny, Level::Deny),
        ] {
            for c in codes {
                let code = Code::parse(c)
                    .ok_or_else(|| Failure::options(format!("unknown code {c:?}")))?;
                levels.insert(code, level);
            }
        }
        let defaults = Options::default();
        let format = self
            .format
            .as_deref()
            .map(|f| {
                Format::from_name(f)
                    .ok_or_else(|| Failure::options(format!("unknown format {f:?}")))
            })
            .transpose()?;
        Ok(Options::new()
            .with_profile(profile)
            .with_bones(self.bones)
            .with_deny_warnings(self.deny_warnings)
            .with_max_diagnostics(self.max_diagnostics.unwrap_or(defaults.max_diagnostics))
            .with_levels(levels)
            .with_format(format))
    }
}

/// The JSON report of `bytes` named `name`: the text `dash-validate --format json NAME`
/// prints for the same bytes and options (without the final newline).
pub fn report_json(name: &str, bytes: &[u8], opts: &ValidateOptions) -> Result<String, Failure> {
    let file = dashvertex_validate::validate_bytes(name, bytes, &opts.to_options()?);
    serde_json::to_string_pretty(&Report::new(vec![file]))
        .map_err(|e| Failure::new("INTERNAL", e.to_string()))
}
