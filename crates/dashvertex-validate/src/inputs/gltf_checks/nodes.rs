//! Node transforms: a `rotation` must be a unit quaternion (`GLTF_NODE_ROTATION`); a
//! node with a `matrix` must not also have `translation`, `rotation` or `scale`
//! (`GLTF_NODE_MATRIX_TRS`: two transforms, and readers disagree on which wins); and a
//! `matrix` must be one a translation, rotation and scale make (`GLTF_NODE_MATRIX`:
//! animation and readers that decompose it cannot represent a shear or projection).

use serde_json::Value;

use super::array;
use crate::codes::Code;
use crate::inputs::gltf::Doc;
use crate::sink::Sink;
use dashvertex_json::Members;

/// How far a rotation's length may be from 1 (the official validator's tolerance for
/// unit vectors).
pub(crate) const UNIT_TOLERANCE: f64 = 0.00674;

/// Runs the two node checks over every node.
pub(crate) fn check_all(root: &Value, doc: &Doc, sink: &mut Sink) {
    for (n, node) in array(root, "nodes").iter().enumerate() {
        if let Some(q) = node.member("rotation").and_then(Value::as_array) {
            let parts: Vec<f64> = q.iter().filter_map(Value::as_f64).collect();
            if parts.len() == 4 {
                let len = parts.iter().map(|c| c * c).sum::<f64>().sqrt();
                if (len - 1.0).abs() > UNIT_TOLERANCE {
                    let ptr = format!("/nodes/{n}/rotation");
                    doc.push(sink, Code::GLTF_NODE_ROTATION, &ptr, || {
                        format!("node {n}: rotation has length {len}, not 1")
                    });
                }
            }
        }
        if let Some(m) = node.member("matrix").and_then(Value::as_array) {
            let e: Vec<f64> = m.iter().filter_map(Value::as_f64).collect();
            if let Some(why) = <&[f64; 16]>::try_from(e.as_slice()).ok().and_then(non_trs) {
                let ptr = format!("/nodes/{n}/matrix");
                doc.push(sink, Code::GLTF_NODE_MATRIX, &ptr, || {
                    format!("node {n}: the matrix is not a translation, rotation and scale: {why}")
                });
            }
        }
        if node.member("matrix").is_some() {
            let also: Vec<&str> = ["translation", "rotation", "scale"]
                .into_iter()
                .filter(|k| node.get(*k).is_some())
                .collect();
            if !also.is_empty() {
                let ptr = format!("/nodes/{n}/matrix");
                doc.push(sink, Code::GLTF_NODE_MATRIX_TRS, &ptr, || {
                    format!("node {n} has a matrix and {}", also.join(", "))
                });
            }
        }
    }
}

/// How far a matrix may be from a TRS one: in its fourth row, and in the cosine of the
/// angle between two of its columns.
const TRS_TOLERANCE: f64 = 1e-5;

/// Why the column-major matrix `e` is no translation × rotation × scale, if it is not:
/// such a matrix has the fourth row (0, 0, 0, 1) and an upper 3×3 block whose columns
/// (rotated axes, each scaled) are orthogonal. A zero column (scale 0) is allowed.
fn non_trs(e: &[f64; 16]) -> Option<String> {
    let row = [e[3], e[7], e[11], e[15]];
    if row
        .iter()
        .zip([0.0, 0.0, 0.0, 1.0])
        .any(|(x, want)| (x - want).abs() > TRS_TOLERANCE)
    {
        return Some(format!(
            "its fourth row is ({} {} {} {}), not (0 0 0 1)",
            row[0], row[1], row[2], row[3]
        ));
    }
    let cols = [[e[0], e[1], e[2]], [e[4], e[5], e[6]], [e[8], e[9], e[10]]];
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    for (i, j, a, b) in [
        (0, 1, cols[0], cols[1]),
        (0, 2, cols[0], cols[2]),
        (1, 2, cols[1], cols[2]),
    ] {
        let scale = (dot(a, a) * dot(b, b)).sqrt();
        if dot(a, b).abs() > TRS_TOLERANCE * scale {
            return Some(format!("columns {i} and {j} are not orthogonal (a shear)"));
        }
    }
    None
}
