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

/// How far, at most, a matrix rebuilt from its translation, rotation and scale may be
/// from the matrix (the largest column sum of absolute differences): the official
/// validator's test, so that a matrix written with a few digits (cosines between its
/// columns of 1e-5 and more) is accepted as it accepts it.
const TRS_TOLERANCE: f64 = 0.00005;

/// Why the column-major matrix `e` is no translation × rotation × scale, if it is not,
/// decided as the official validator decides it: the fourth row is exactly (0, 0, 0, 1),
/// the matrix is not singular, and the matrix rebuilt from its decomposition (scales the
/// column lengths, the first negated when the determinant is negative; the rotation the
/// quaternion read from the columns divided by them, not normalized; the translation the
/// last column) differs from it by less than [`TRS_TOLERANCE`]. A shear or a projection
/// fails; a rotation whose columns are rounded to a few digits does not.
fn non_trs(e: &[f64; 16]) -> Option<String> {
    let row = [e[3], e[7], e[11], e[15]];
    if row != [0.0, 0.0, 0.0, 1.0] {
        return Some(format!(
            "its fourth row is ({} {} {} {}), not (0 0 0 1)",
            row[0], row[1], row[2], row[3]
        ));
    }
    let det = e[0] * (e[5] * e[10] - e[6] * e[9]) - e[4] * (e[1] * e[10] - e[2] * e[9])
        + e[8] * (e[1] * e[6] - e[2] * e[5]);
    if det == 0.0 {
        return Some("it is singular (a zero scale)".to_owned());
    }
    let cols = [[e[0], e[1], e[2]], [e[4], e[5], e[6]], [e[8], e[9], e[10]]];
    let len = |c: &[f64; 3]| c.iter().map(|x| x * x).sum::<f64>().sqrt();
    let mut scale = cols.map(|c| len(&c));
    if det < 0.0 {
        scale[0] = -scale[0];
    }
    // The rotation part, r[column][row], each column divided by its scale.
    let mut r = cols;
    for (col, s) in r.iter_mut().zip(scale) {
        for x in col.iter_mut() {
            *x /= s;
        }
    }
    let q = quaternion_of(&r);
    let rebuilt = compose(q, scale);
    let error = rebuilt
        .iter()
        .zip(&cols)
        .map(|(a, b)| a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum::<f64>())
        .fold(0.0f64, f64::max);
    if error.is_nan() || error >= TRS_TOLERANCE {
        return Some(format!(
            "rebuilt from its translation, rotation and scale it differs by {error:.3e} (a shear, or a projection), more than {TRS_TOLERANCE}"
        ));
    }
    None
}

/// The quaternion (x, y, z, w) of the rotation matrix `r` (r[column][row]), by the
/// usual case on the trace, without normalizing it.
fn quaternion_of(r: &[[f64; 3]; 3]) -> [f64; 4] {
    let at = |row: usize, col: usize| r.get(col).and_then(|c| c.get(row)).copied().unwrap_or(0.0);
    let trace = at(0, 0) + at(1, 1) + at(2, 2);
    let mut q = [0.0f64; 4];
    if trace > 0.0 {
        let s = (trace + 1.0).sqrt();
        q[3] = s * 0.5;
        let s = 0.5 / s;
        q[0] = (at(2, 1) - at(1, 2)) * s;
        q[1] = (at(0, 2) - at(2, 0)) * s;
        q[2] = (at(1, 0) - at(0, 1)) * s;
    } else {
        let i = if at(0, 0) < at(1, 1) {
            if at(1, 1) < at(2, 2) { 2 } else { 1 }
        } else if at(0, 0) < at(2, 2) {
            2
        } else {
            0
        };
        let j = (i + 1) % 3;
        let k = (i + 2) % 3;
        let s = (at(i, i) - at(j, j) - at(k, k) + 1.0).sqrt();
        let half = 0.5 / s;
        q[3] = (at(k, j) - at(j, k)) * half;
        for (slot, value) in [
            (i, s * 0.5),
            (j, (at(j, i) + at(i, j)) * half),
            (k, (at(k, i) + at(i, k)) * half),
        ] {
            if let Some(x) = q.get_mut(slot) {
                *x = value;
            }
        }
    }
    q
}

/// The upper 3×3 block (m[column][row]) of rotation `q` times scale `s`, with the
/// quaternion used as it is (a rotation read from columns that are not orthogonal is
/// not unit, and so does not give them back).
fn compose(q: [f64; 4], s: [f64; 3]) -> [[f64; 3]; 3] {
    let [x, y, z, w] = q;
    let (x2, y2, z2) = (x + x, y + y, z + z);
    let (xx, xy, xz) = (x * x2, x * y2, x * z2);
    let (yy, yz, zz) = (y * y2, y * z2, z * z2);
    let (wx, wy, wz) = (w * x2, w * y2, w * z2);
    [
        [(1.0 - (yy + zz)) * s[0], (xy + wz) * s[0], (xz - wy) * s[0]],
        [(xy - wz) * s[1], (1.0 - (xx + zz)) * s[1], (yz + wx) * s[1]],
        [(xz + wy) * s[2], (yz - wx) * s[2], (1.0 - (xx + yy)) * s[2]],
    ]
}
