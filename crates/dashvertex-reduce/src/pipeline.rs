//! A whole reduction as one library call: the manifest brought up to date with every
//! input's bones, each input reduced with indices from it, and for glTF the file written
//! back ([`reduce_gltf`]). The `dashvertex reduce` command is this plus file handling, the
//! manifest lock and the check of the output.
//!
//! ```
//! use dashvertex_reduce::pipeline::{Options, reduce_all};
//! use dashvertex_reduce::{Config, Normalize, input::Input, manifest::{BoneRef, Manifest}};
//! use dashvertex_core::{InfluenceSet, Mesh, Vertex};
//! let bones = vec![
//!     BoneRef { name: "root".into(), parent: None },
//!     BoneRef { name: "arm".into(), parent: Some("root".into()) },
//! ];
//! let v = Vertex { position: [0.0; 3], skin: InfluenceSet::from_pairs(&[(1, 0.6), (0, 0.2)]).unwrap() };
//! let input = Input::from_mesh(&Mesh::skinned(vec![v]), bones)?;
//! let mut manifest = Manifest::default();
//! let cfg = Config::default().with_normalize(Normalize::Unit);
//! let run = reduce_all(&[&input], &mut manifest, &cfg, &Options::default())?;
//! assert_eq!(run.changes.added.len(), 2);
//! assert_eq!(run.reduced[0].influences[0].weights, [0.75, 0.25, 0.0, 0.0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use dashvertex_gltf::export::{BufferFiles, Written};
use dashvertex_gltf::{Container, Gltf};

use crate::gltf::{GltfReduceError, PrimitiveInput};
use crate::input::Input;
use crate::manifest::{Changes, Manifest, ManifestError, VERSION};
use crate::reduce::{Config, ReduceError, Reduced};

/// How a run treats the manifest and the inputs' size.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Fail instead of changing the manifest.
    pub locked: bool,
    /// Largest bone count an input may have (`None`: no limit).
    pub max_bones: Option<u64>,
    /// The manifest is a file that indexes the bones, so input without bone names (no
    /// skeleton) is refused rather than keeping its own numbers.
    pub require_names: bool,
    /// Number the bones of an empty manifest in the order the first input lists them (a
    /// glTF skin's joint order, a skeleton's bone order) instead of the canonical order a
    /// new manifest file uses ([`crate::manifest::canonical_order`]); later inputs' new
    /// bones follow. For runs without a manifest file, so a file keeps its own order.
    pub keep_order: bool,
    /// glTF output keeps the per-bone weight attributes it was reduced from (by default
    /// they are removed, see [`crate::gltf::write_with`]).
    pub keep_source_attributes: bool,
}

/// What a run did.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// One reduction per input, in order.
    pub reduced: Vec<Reduced>,
    /// What the manifest gained (empty without a manifest).
    pub changes: Changes,
    /// True when every input bone has a name (indices come from the manifest); false
    /// for input without a skeleton, which keeps the file's own bone numbers.
    pub named: bool,
}

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PipelineError {
    /// An input has more bones than allowed.
    #[error("input {input}: {bones} bones exceed the limit of {limit}")]
    TooManyBones {
        /// Which input.
        input: usize,
        /// Its bone count.
        bones: u64,
        /// The limit.
        limit: u64,
    },
    /// A manifest was given but an input has no bone names to index.
    #[error("the input has no bone names (no skeleton), so a manifest cannot index it")]
    Unnamed,
    /// The manifest would change and the run is locked.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// The input's influences name a bone it does not have.
    #[error(transparent)]
    Input(#[from] crate::input::InputError),
    /// A reduction failed.
    #[error(transparent)]
    Reduce(#[from] ReduceError),
    /// The glTF file cannot be read or written.
    #[error(transparent)]
    Gltf(#[from] GltfReduceError),
    /// The fit cannot run with these settings.
    #[error(transparent)]
    Fit(#[from] crate::fit::FitError),
    /// The pose set of a skin cannot be evaluated.
    #[error(transparent)]
    Skin(dashvertex_skin::SkinError),
    /// No storage keeps a primitive within the error budget (`--quantize auto`).
    #[error(
        "mesh {mesh} primitive {primitive}: no weight storage keeps every vertex within {max_error} model units of its full skinning (the closest moves one by {best}); allow more, or keep more influences"
    )]
    OverBudget {
        /// The mesh.
        mesh: usize,
        /// The primitive.
        primitive: usize,
        /// The budget.
        max_error: f64,
        /// The smallest largest displacement any storage reached.
        best: f64,
    },
}

impl From<crate::fit::precision::PrecisionError> for PipelineError {
    fn from(e: crate::fit::precision::PrecisionError) -> Self {
        match e {
            crate::fit::precision::PrecisionError::Reduce(e) => PipelineError::Reduce(e),
            crate::fit::precision::PrecisionError::Fit(e) => PipelineError::Fit(e),
        }
    }
}

/// Reduces every input, with bone indices from `manifest` (brought up to date with the
/// inputs' bones first: bones are added, never renumbered; with `locked`, any change is an
/// error before anything is reduced). An empty manifest numbers named bones as a fresh
/// one would; unnamed bones (`#N`, input without a skeleton) keep the file's index `N`.
pub fn reduce_all(
    inputs: &[&Input<'_>],
    manifest: &mut Manifest,
    config: &Config,
    opts: &Options,
) -> Result<Run, PipelineError> {
    for (i, input) in inputs.iter().enumerate() {
        let bones = input.bones.len() as u64;
        if let Some(limit) = opts.max_bones.filter(|&l| bones > l) {
            return Err(PipelineError::TooManyBones {
                input: i,
                bones,
                limit,
            });
        }
    }
    let named = inputs
        .iter()
        .all(|i| !i.bones.iter().any(|b| b.name.starts_with('#')));
    if opts.require_names && !named {
        return Err(PipelineError::Unnamed);
    }
    manifest.version = VERSION;
    // Without a manifest file, the first input's own order numbers an empty manifest.
    let seeded = if opts.keep_order && named && manifest.is_empty() {
        seed_in_order(manifest, inputs)?
    } else {
        Vec::new()
    };
    // One update for every input: the manifest is indexed once, however many there are.
    let skeletons: Vec<&[crate::manifest::BoneRef]> =
        inputs.iter().map(|i| i.bones.as_slice()).collect();
    let mut changes = manifest.update_all(&skeletons, false)?;
    if !seeded.is_empty() {
        let mut added = seeded;
        added.append(&mut changes.added);
        changes.added = added;
    }
    if opts.locked && !changes.is_empty() {
        let mut why = changes.describe();
        why.extend(weighted_at(inputs, &changes));
        return Err(ManifestError::Locked(why).into());
    }
    let mut reduced = Vec::with_capacity(inputs.len());
    let lookup = manifest.lookup();
    for input in inputs {
        let (map, root) = if named {
            (
                crate::index_map_in(input, &lookup)?,
                crate::root_index_in(input, &lookup),
            )
        } else {
            (input.unnamed_indices().unwrap_or_default(), None)
        };
        reduced.push(crate::reduce(input, &map, root, config)?);
    }
    Ok(Run {
        reduced,
        changes,
        named,
    })
}

/// Numbers every input's bones in the order they are listed, first input first, into an
/// empty `manifest`; returns the bones added with their indices.
fn seed_in_order(
    manifest: &mut Manifest,
    inputs: &[&Input<'_>],
) -> Result<Vec<(String, u32)>, ManifestError> {
    let mut seen = std::collections::HashSet::new();
    let mut added = Vec::new();
    for input in inputs {
        for b in &input.bones {
            if !seen.insert(b.name.as_str()) {
                continue;
            }
            let index = u32::try_from(manifest.bones.len()).map_err(|_| ManifestError::Full)?;
            manifest.bones.push(crate::manifest::Entry {
                index,
                name: b.name.clone(),
                parent: b.parent.clone(),
                removed: false,
                aliases: Vec::new(),
            });
            added.push((b.name.clone(), index));
        }
    }
    Ok(added)
}

/// True when `bones`, in their order, form a skeleton DashVertex can hold as it is: the
/// first bone is the only one without a parent and every parent comes before its
/// children (spec/dashvertex.md §7).
pub fn parents_first(bones: &[crate::manifest::BoneRef]) -> bool {
    let mut seen = std::collections::HashSet::new();
    for (i, b) in bones.iter().enumerate() {
        let ok = match &b.parent {
            None => i == 0,
            Some(p) => seen.contains(p.as_str()),
        };
        if !ok {
            return false;
        }
        seen.insert(b.name.as_str());
    }
    true
}

/// Where the bones a locked run would add or bring back first carry weight, one line
/// each (`first weight on "tail": vertex 7, set 0 slot 1 …`): the vertices a user
/// must reweight, or the bones to add to the manifest. One pass over the inputs'
/// influences, stopping once every such bone is found.
fn weighted_at(inputs: &[&Input<'_>], changes: &Changes) -> Vec<String> {
    let wanted: std::collections::HashSet<&str> = changes
        .added
        .iter()
        .chain(&changes.revived)
        .map(|(n, _)| n.as_str())
        .collect();
    let mut found: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut cands = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        let flagged: Vec<bool> = input
            .bones
            .iter()
            .map(|b| wanted.contains(b.name.as_str()))
            .collect();
        if !flagged.contains(&true) {
            continue;
        }
        for v in 0..input.len() {
            if found.len() == wanted.len() {
                return out;
            }
            input.candidates(v, &mut cands);
            for c in &cands {
                let Some(b) = usize::try_from(c.bone)
                    .ok()
                    .filter(|&b| flagged.get(b).copied().unwrap_or(false))
                    .and_then(|b| input.bones.get(b))
                else {
                    continue;
                };
                if c.weight != 0.0 && found.insert(b.name.as_str()) {
                    let part = if inputs.len() > 1 {
                        format!(" (input {i})")
                    } else {
                        String::new()
                    };
                    out.push(format!(
                        "first weight on {:?}: {}{part}",
                        b.name,
                        input.describe(v, c)
                    ));
                }
            }
        }
    }
    out
}

/// A reduced glTF file: its bytes, and what the run did (the reductions' reports; their
/// influences are already in the file).
#[derive(Clone, Debug)]
pub struct GltfOutput {
    /// The written document and the buffer files beside it.
    pub written: Written,
    /// Per primitive: the report and the number of sets written.
    pub reports: Vec<(crate::Report, usize)>,
    /// What the manifest gained.
    pub changes: Changes,
}

/// Reduces every skinned primitive of `gltf` and writes the file back as `container`
/// (pruned, see [`crate::gltf::write`]). `prims` are the file's inputs
/// ([`crate::gltf::inputs`]); their influences are read in place and nothing of the
/// input is copied.
pub fn reduce_gltf(
    gltf: &Gltf,
    prims: &[PrimitiveInput<'_>],
    manifest: &mut Manifest,
    config: &Config,
    opts: &Options,
    container: Container,
    files: &BufferFiles,
) -> Result<GltfOutput, PipelineError> {
    let inputs: Vec<&Input<'_>> = prims.iter().map(|p| &p.input).collect();
    let run = reduce_all(&inputs, manifest, config, opts)?;
    let reports = run
        .reduced
        .iter()
        .map(|r| (r.report.clone(), r.sets))
        .collect();
    let pairs: Vec<(&PrimitiveInput<'_>, Reduced)> = prims.iter().zip(run.reduced).collect();
    let written = crate::gltf::write_with(
        gltf,
        manifest,
        pairs,
        config.quantize,
        container,
        files,
        opts.keep_source_attributes,
    )?;
    Ok(GltfOutput {
        written,
        reports,
        changes: run.changes,
    })
}
