//! The flags of `dash-validate` and `dashvertex validate` (one definition for both), with
//! the examples that close their long help.

use std::path::PathBuf;

use dashvertex_formats::Format;

/// The examples closing `dash-validate --help`.
pub const EXAMPLES: &str = "\
Examples:
  dash-validate rig.glb assets/
  dash-validate --profile gltf --target threejs --format json rig.glb
  dash-validate --deny warnings --manifest rig.manifest.json --locked assets/";

/// The examples closing `dashvertex validate --help`.
pub const EXAMPLES_SUB: &str = "\
Examples:
  dashvertex validate rig.glb assets/
  dashvertex validate --profile gltf --target threejs --format json rig.glb
  dashvertex validate --deny warnings --manifest rig.manifest.json --locked assets/";

/// The flags of `dash-validate`, which `dashvertex validate` takes too.
#[derive(clap::Args, Clone, Debug)]
pub struct ValidateArgs {
    /// Files or folders to check; `-` reads standard input
    ///
    /// Folders are searched recursively for .json, .dmx, .raw, .gltf and .glb files.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Read inputs as json, dmx, raw, gltf or glb (default: detected)
    #[arg(long, value_name = "FORMAT", value_parser = crate::formats::any_format(),
          hide_possible_values = true, help_heading = "Input")]
    pub input_format: Option<Format>,
    /// Walk hidden and .gitignored paths too
    ///
    /// Folders are searched recursively; by default hidden files and folders and paths
    /// `.gitignore` excludes are skipped, and counted.
    #[arg(long, help_heading = "Input")]
    pub all_files: bool,
    /// Skip named .json files that are not vertex data
    ///
    /// A named `.json` file that holds neither DashVertex nor glTF (a bone manifest, a
    /// weights document, `package.json`) is listed as skipped, as files found in a
    /// folder always are. For hooks and globs that name every staged `.json`.
    #[arg(long, help_heading = "Input")]
    pub skip_other_json: bool,
    /// Weight-sum rule: dash (sums may differ from 1) or gltf
    ///
    /// `gltf` is the official rule: every vertex's weights sum to 1 within the glTF
    /// tolerance. Default: `gltf` for glTF/GLB files, `dash` for the others.
    #[arg(
        long,
        value_enum,
        value_name = "RULE",
        hide_possible_values = true,
        help_heading = "Checks"
    )]
    pub profile: Option<ProfileArg>,
    /// Bone count to range-check indices against
    ///
    /// Overrides the file's skeleton.
    #[arg(
        long,
        conflicts_with = "manifest",
        value_name = "N",
        help_heading = "Checks"
    )]
    pub bones: Option<u64>,
    /// Range-check bone indices against this bone manifest
    ///
    /// Its indices override the file's skeleton, and bones the manifest retired must
    /// carry no weight.
    #[arg(long, value_name = "FILE", help_heading = "Manifest")]
    pub manifest: Option<PathBuf>,
    /// Also check for an engine's glTF importer (names in --help)
    ///
    /// Weight in influence sets it does not read, a second set it refuses, more joints
    /// than it renders, indices wider than it stores.
    #[arg(long, value_name = "ENGINE", value_parser = crate::formats::target(),
          hide_possible_values = true, help_heading = "Checks",
          long_help = crate::formats::target_help("Also check what an engine's glTF importer would get wrong: weight in influence sets it does not read, a second set it refuses, more joints than it renders, indices wider than it stores."))]
    pub target: Option<&'static dashvertex_core::Target>,
    /// With --manifest: a joint order that differs is an error
    ///
    /// A glTF skin whose joint order is not the manifest's, or that has bones the
    /// manifest lacks, is an error (JOINT_ORDER); without --locked it is a warning, and
    /// bones the manifest lacks are allowed after its indices.
    #[arg(long, requires = "manifest", help_heading = "Manifest")]
    pub locked: bool,
    /// Report format: human, json or sarif
    ///
    /// `human`: compiler-style; `json`: the machine-readable report (it has a published
    /// JSON Schema); `sarif`: SARIF 2.1.0, for code-scanning views.
    #[arg(
        long,
        value_enum,
        value_name = "FORMAT",
        default_value = "human",
        hide_possible_values = true,
        help_heading = "Output format"
    )]
    pub format: OutputFormat,
    /// Diagnostics listed per file (all are counted)
    #[arg(
        long,
        default_value_t = 200,
        value_name = "N",
        help_heading = "Output format"
    )]
    pub max_diagnostics: usize,
    /// Make warnings, or one CODE, errors (repeatable)
    ///
    /// `--deny warnings` makes every warning an error; `--deny CODE` makes that code an
    /// error. `dash-validate --format json` names each diagnostic's code, and the
    /// validation rules of dash's specification list them all.
    #[arg(long, value_name = "warnings|CODE", help_heading = "Checks")]
    pub deny: Vec<String>,
    /// Report CODE as a warning, whatever its default (repeatable)
    #[arg(long, value_name = "CODE", help_heading = "Checks")]
    pub warn: Vec<String>,
    /// Do not report CODE at all (repeatable)
    ///
    /// It is neither shown nor counted.
    #[arg(long, value_name = "CODE", help_heading = "Checks")]
    pub allow: Vec<String>,
}

/// `--profile`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum ProfileArg {
    /// Weight sums may differ from 1 (DashVertex).
    Dash,
    /// Weight sums must be 1 within the glTF tolerance.
    Gltf,
}

/// `--format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// Compiler-style text.
    Human,
    /// The JSON report.
    Json,
    /// SARIF 2.1.0.
    Sarif,
}
