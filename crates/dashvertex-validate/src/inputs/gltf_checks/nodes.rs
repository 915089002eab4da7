//! Node transforms: a `rotation` must be a unit quaternion (`GLTF_NODE_ROTATION`), and a
//! node with a `matrix` must not also have `translation`, `rotation` or `scale`
//! (`GLTF_NODE_MATRIX_TRS`: two transforms, and readers disagree on which wins).

use serde_json::Value;

use super::array;
use crate::codes::Code;
use crate::inputs::gltf::Doc;
use crate::sink::Sink;

/// How far a rotation's length may be from 1 (the official validator's tolerance for
/// unit vectors).
pub(crate) const UNIT_TOLERANCE: f64 = 0.00674;

/// Runs the two node checks over every node.
pub(crate) fn check_all(root: &Value, doc: &Doc, sink: &mut Sink) {
    for (n, node) in array(root, "nodes").iter().enumerate() {
        if let Some(q) = node.get("rotation").and_then(Value::as_array) {
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
        if node.get("matrix").is_some() {
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
