//! `dashvertex manifest init/update/diff/show`: the flags, the library's manifest jobs
//! (`dashvertex_app::manifest_file`), and what they print.

use std::path::{Path, PathBuf};

use dashvertex_app::Context;
use dashvertex_app::manifest_file::{self, UpdateJob};

use crate::error::CliError;

/// `dashvertex manifest` subcommands.
#[derive(clap::Subcommand)]
pub enum ManifestCommand {
    /// Number a skeleton's bones (parents first, siblings by name) into a new manifest.
    #[command(after_long_help = "\
Examples:
  dashvertex manifest init rig.glb -o rig.manifest.json
  dashvertex manifest init rig.json -o rig.manifest.json --force")]
    Init {
        /// A file with a skeleton (DashVertex, per-bone weights, glTF).
        from: PathBuf,
        /// The manifest to write.
        #[arg(short, long, value_name = "FILE")]
        output: PathBuf,
        /// Replace an existing manifest.
        #[arg(long)]
        force: bool,
    },
    /// Add new bones, retire missing ones, apply renames; never renumber (unless
    /// --compact).
    #[command(after_long_help = "\
Examples:
  dashvertex manifest update rig.manifest.json --from rig-v2.glb
  dashvertex manifest update rig.manifest.json --rename arm=upper_arm
  dashvertex manifest update rig.manifest.json --from rig-v2.glb --locked")]
    Update {
        /// The manifest.
        manifest: PathBuf,
        /// A file with the current skeleton.
        #[arg(long, value_name = "FILE")]
        from: Option<PathBuf>,
        /// Rename a bone, keeping its index: `--rename old=new` (repeatable).
        #[arg(long, value_name = "OLD=NEW", value_parser = parse_rename)]
        rename: Vec<(String, String)>,
        /// The skeleton is partial: add bones but retire none.
        #[arg(long)]
        partial: bool,
        /// Drop retired bones and renumber; prints the old -> new table.
        #[arg(long)]
        compact: bool,
        /// Fail (exit 1) if anything would change.
        #[arg(long)]
        locked: bool,
    },
    /// Print a manifest as a table.
    #[command(after_long_help = "\
Examples:
  dashvertex manifest show rig.manifest.json
  cat rig.manifest.json | dashvertex manifest show -")]
    Show {
        /// The manifest, or `-` for standard input.
        manifest: PathBuf,
    },
    /// Show how B's bone numbering differs from A's.
    ///
    /// Bones added, retired, brought back, renamed (by B's aliases) and moved. A and B
    /// are manifests, or files with a skeleton (numbered as `manifest init` would).
    #[command(after_long_help = "\
Examples:
  dashvertex manifest diff rig.manifest.json rig-v2.glb
  dashvertex manifest diff rig.glb rig-v2.glb --check")]
    Diff {
        /// The first manifest or file.
        a: PathBuf,
        /// The second.
        b: PathBuf,
        /// Exit 1 when they differ (for CI).
        #[arg(long)]
        check: bool,
    },
}

fn parse_rename(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((a, b)) if !a.is_empty() && !b.is_empty() => Ok((a.to_owned(), b.to_owned())),
        _ => Err(format!("expected OLD=NEW, got {s:?}")),
    }
}

impl ManifestCommand {
    /// Runs the subcommand.
    pub fn run(&self, ctx: &Context) -> Result<(), CliError> {
        match self {
            ManifestCommand::Init {
                from,
                output,
                force,
            } => {
                manifest_file::init(from, output, *force, ctx)?;
                Ok(())
            }
            ManifestCommand::Update {
                manifest,
                from,
                rename,
                partial,
                compact,
                locked,
            } => {
                let done = manifest_file::update(
                    &UpdateJob {
                        manifest,
                        from: from.as_deref(),
                        renames: rename,
                        partial: *partial,
                        compact: *compact,
                        locked: *locked,
                    },
                    ctx,
                )?;
                let mut text = String::new();
                for line in done.changes.describe() {
                    text.push_str(&line);
                    text.push('\n');
                }
                if !done.moved.is_empty() {
                    text.push_str("compacted; old -> new indices:\n");
                    for (n, a, b) in &done.moved {
                        text.push_str(&format!("  {a:>5} -> {b:<5} {n}\n"));
                    }
                }
                if !done.written {
                    text.push_str("no change\n");
                }
                Ok(dashvertex_fs::write_file(Path::new("-"), text.as_bytes())?)
            }
            ManifestCommand::Diff { a, b, check } => {
                let lines: Vec<String> = manifest_file::diff(a, b, ctx)?
                    .iter()
                    .map(ToString::to_string)
                    .collect();
                let mut text = lines.join("\n");
                text.push_str(if lines.is_empty() {
                    "no difference\n"
                } else {
                    "\n"
                });
                dashvertex_fs::write_file(Path::new("-"), text.as_bytes())?;
                if *check && !lines.is_empty() {
                    return Err(CliError::Output(format!(
                        "the bone numbering differs ({} change(s))",
                        lines.len()
                    )));
                }
                Ok(())
            }
            ManifestCommand::Show { manifest } => {
                let text = manifest_file::show(manifest, ctx)?;
                Ok(dashvertex_fs::write_file(Path::new("-"), text.as_bytes())?)
            }
        }
    }
}
