//! The reduce report (`schemas/reduce-report.schema.json`): the reducer's figures per part
//! and, for glTF, how far the reduction moves each skinned primitive. One set of types,
//! serialized the same for the CLI's `--report` file and Python's `reduce_file`.

use std::path::Path;

use schemars::JsonSchema;
use serde::Serialize;

use crate::loss::{RANGE_OF_MOTION, sampled, share_of_diagonal};

/// A reduce job's report.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "DashReduceReport")]
pub struct ReduceReport {
    /// The input file, as named.
    pub input: String,
    /// The output file, as named.
    pub output: String,
    /// Influences kept per vertex: as asked, or the smallest count within `max_error`.
    pub max_influences: usize,
    /// The reducer's figures per part (a DashVertex mesh, or each skinned glTF primitive).
    pub weights: Vec<PartWeights>,
    /// How far vertices move; `null` when it cannot be measured (no glTF in and out).
    pub displacement: Option<Displacement>,
    /// What the figures leave out, in words (`null` when nothing).
    pub note: Option<String>,
    /// What `--fit` and `--quantize auto` did (spec/reduction.md §6); absent without them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fit: Option<FitSection>,
}

/// The fit and the storage choice of a run (`--fit`, `--quantize auto`).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FitSection {
    /// One entry per skinned primitive.
    pub primitives: Vec<FitPrimitive>,
    /// With `--fit` and a loss report: how far the plain reduction (the K heaviest,
    /// renormalized) would move the vertices, measured as `displacement` is, to read the
    /// fitted figures against.
    pub displacement_plain: Option<Displacement>,
}

/// What the fit and the storage choice did to one primitive.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FitPrimitive {
    /// Mesh index.
    pub mesh: usize,
    /// Primitive index in the mesh.
    pub primitive: usize,
    /// The fit's figures (`null` without `--fit`).
    pub fit: Option<dashvertex_reduce::fit::FitReport>,
    /// The weight storage written: `f32`, `unorm16` or `unorm8`.
    pub quantize: String,
    /// With `--quantize auto`: each storage's largest displacement over the pose set.
    pub costs: Vec<StorageCost>,
    /// Poses of the pose set from the animations (the rest pose and the loss moments).
    pub poses_animation: usize,
    /// Range-of-motion poses of the pose set.
    pub poses_range_of_motion: usize,
    /// Poses the set holds without the work budget.
    pub poses_full: usize,
}

/// What one weight storage would cost.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct StorageCost {
    /// `f32`, `unorm16` or `unorm8`.
    pub quantize: String,
    /// The largest displacement of any vertex at any pose of the pose set, model units.
    pub max: f64,
    /// The vertex it is at.
    pub vertex: usize,
}

impl Displacement {
    /// The displacement section of `loss`.
    pub fn of(loss: &[dashvertex_skin::PrimitiveLoss]) -> Displacement {
        Displacement {
            primitives: loss.iter().map(primitive).collect(),
        }
    }
}

/// The reducer's figures for one part.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PartWeights {
    /// Influence sets written per vertex.
    pub sets: usize,
    /// What the reducer did.
    #[serde(flatten)]
    pub reduced: dashvertex_reduce::Report,
}

/// The displacement of every skinned primitive.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct Displacement {
    /// One entry per reduced skinned primitive.
    pub primitives: Vec<PrimitiveDisplacement>,
}

/// How far one primitive's vertices move, in model units, at the moments measured.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PrimitiveDisplacement {
    /// Mesh index.
    pub mesh: usize,
    /// Primitive index in the mesh.
    pub primitive: usize,
    /// Vertices compared.
    pub vertices: usize,
    /// The poses measured: the animations' moments, or, when no animation moves a
    /// joint, the range-of-motion poses (spec/reduction.md §4).
    pub pose_set: PoseSet,
    /// Moments measured (the rest pose, keyframes and moments between them, or the rest
    /// pose and the range-of-motion poses).
    pub moments: usize,
    /// Moments the sampling rule takes; more than `moments` when the work budget cut it.
    pub moments_full: usize,
    /// Of `moments`, the rest pose and the keyframe times (every range-of-motion pose
    /// counts as one).
    pub keyframe_moments: usize,
    /// The largest displacement.
    pub max: f64,
    /// The largest at the rest pose and keyframe times only.
    pub max_at_keyframes: f64,
    /// The 99th percentile (nearest rank) of the vertices' largest displacements.
    pub p99: f64,
    /// Their mean.
    pub mean: f64,
    /// The diagonal of the primitive's skinned rest-pose bounding box: its vertices
    /// skinned with their original influences at the rest pose, the space the
    /// displacement is measured in (vertices without any weight left out).
    pub diagonal: f64,
    /// `max` as a share of `diagonal`; `null` when the diagonal is 0.
    pub max_of_diagonal: Option<f64>,
    /// The vertices that move most, largest first.
    pub worst: Vec<WorstVertex>,
}

/// Which poses the displacement is measured over (spec/reduction.md §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum PoseSet {
    /// The rest pose and the animations' moments (the model's own, or `--poses`').
    Animations,
    /// No animation moves a joint: the rest pose and the range-of-motion poses, each
    /// used joint turned ±45° about its local X, Y and Z axes, one at a time.
    RangeOfMotion,
    /// The rest pose alone: no animation moves a joint and no joint carries weight.
    RestPose,
}

/// A vertex that moves most, and when.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct WorstVertex {
    /// The vertex.
    pub vertex: usize,
    /// How far it moves.
    pub displacement: f64,
    /// The animation (`null`: the rest pose, or a range-of-motion pose).
    pub animation: Option<usize>,
    /// The animation's name, if it has one.
    pub name: Option<String>,
    /// Seconds into the animation.
    pub time: f64,
    /// The range-of-motion pose (`null`: an animation's moment or the rest pose).
    pub pose: Option<RangeOfMotionPose>,
}

/// One of the range-of-motion poses (spec/reduction.md §4).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct RangeOfMotionPose {
    /// Its place in the set, from 0: six per used joint (+, − about X, then Y, then Z),
    /// the joints by ascending node index.
    pub index: usize,
    /// The joint turned (its node index).
    pub joint: usize,
    /// The joint node's name, if it has one.
    pub name: Option<String>,
    /// The joint's local axis: `X`, `Y` or `Z`.
    pub axis: String,
    /// The angle, in degrees (+45 or −45).
    pub degrees: f64,
}

impl ReduceReport {
    /// The report of a run from `input` to `output` that kept `k` influences: the
    /// reducer's `reports` per part and, when measured, the `loss` per primitive.
    pub fn new(
        (input, output): (&Path, &Path),
        k: usize,
        reports: &[(dashvertex_reduce::Report, usize)],
        loss: Option<&[dashvertex_skin::PrimitiveLoss]>,
    ) -> Self {
        let weights = reports
            .iter()
            .map(|(r, sets)| PartWeights {
                sets: *sets,
                reduced: r.clone(),
            })
            .collect();
        let displacement = loss.map(|l| Displacement {
            primitives: l.iter().map(primitive).collect(),
        });
        let note = match loss {
            None => Some(
                "displacement needs glTF input and output (a skin, its joints and animations); weights only"
                    .to_owned(),
            ),
            Some([]) => Some(
                "no reduced primitive has a skin: displacement cannot be measured; weights only"
                    .to_owned(),
            ),
            Some(l) if l.iter().all(|p| p.pose_set == dashvertex_skin::PoseSet::RestPose) => Some(
                "no animation moves a joint and no joint carries weight: displacement at the rest pose only"
                    .to_owned(),
            ),
            Some(l)
                if l.iter()
                    .any(|p| p.pose_set == dashvertex_skin::PoseSet::RangeOfMotion) =>
            {
                let what = format!("displacement over the {RANGE_OF_MOTION}");
                Some(match sampled(l) {
                    Some(cut) => format!("{what}; {cut}"),
                    None => what,
                })
            }
            Some(l) => sampled(l),
        };
        ReduceReport {
            input: input.display().to_string(),
            output: output.display().to_string(),
            max_influences: k,
            weights,
            displacement,
            note,
            fit: None,
        }
    }
}

fn primitive(p: &dashvertex_skin::PrimitiveLoss) -> PrimitiveDisplacement {
    PrimitiveDisplacement {
        mesh: p.mesh,
        primitive: p.primitive,
        vertices: p.vertices,
        pose_set: match p.pose_set {
            dashvertex_skin::PoseSet::Animations => PoseSet::Animations,
            dashvertex_skin::PoseSet::RangeOfMotion => PoseSet::RangeOfMotion,
            dashvertex_skin::PoseSet::RestPose => PoseSet::RestPose,
        },
        moments: p.moments,
        moments_full: p.moments_full,
        keyframe_moments: p.keyframe_moments,
        max: p.max,
        max_at_keyframes: p.max_at_keyframes,
        p99: p.p99,
        mean: p.mean,
        diagonal: p.diagonal,
        max_of_diagonal: share_of_diagonal(p),
        worst: p
            .worst
            .iter()
            .map(|w| WorstVertex {
                vertex: w.vertex,
                displacement: w.displacement,
                animation: w.at.animation,
                name: w.at.name.clone(),
                time: w.at.time,
                pose: w.at.pose.as_ref().map(|m| RangeOfMotionPose {
                    index: m.index,
                    joint: m.joint,
                    name: m.name.clone(),
                    axis: m.axis.name().to_owned(),
                    degrees: m.degrees,
                }),
            })
            .collect(),
    }
}

/// The JSON Schema of [`ReduceReport`] (`schemas/reduce-report.schema.json`).
pub fn schema() -> schemars::Schema {
    let mut s = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<ReduceReport>();
    s.insert(
        "$id".into(),
        serde_json::Value::String("https://dash.invalid/schemas/reduce-report.schema.json".into()),
    );
    s
}
