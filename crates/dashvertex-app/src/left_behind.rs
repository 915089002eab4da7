//! What a conversion from glTF to DashVertex leaves behind, said in one line: DashVertex
//! holds one primitive's positions and influences and the skeleton, nothing else.

use dashvertex_gltf::Gltf;
use dashvertex_reduce::gltf::PrimitiveInput;

/// What converting primitive `p` of `g` to DashVertex keeps and leaves behind: the
/// other attributes, the indices, the animations, the other skinned primitives.
pub(crate) fn not_carried(g: &Gltf, p: &PrimitiveInput<'_>, parts: usize) -> String {
    let at = |ptr: &str| g.value.pointer(ptr);
    let base = format!("/meshes/{}/primitives/{}", p.mesh, p.primitive);
    let mut left: Vec<String> = Vec::new();
    if let Some(i) = at(&format!("{base}/indices")).and_then(serde_json::Value::as_u64) {
        let count = usize::try_from(i)
            .ok()
            .and_then(|i| g.root.accessors.get(i))
            .map_or(0, |a| a.count);
        left.push(format!("indices ({count})"));
    }
    if let Some(serde_json::Value::Object(attrs)) = at(&format!("{base}/attributes")) {
        for name in attrs.keys() {
            let kept = name == "POSITION"
                || (!p.from_attributes
                    && (name.starts_with("JOINTS_") || name.starts_with("WEIGHTS_")))
                || (p.from_attributes && name.starts_with('_'));
            if !kept {
                left.push(name.clone());
            }
        }
    }
    let count = |ptr: &str| {
        at(ptr)
            .and_then(serde_json::Value::as_array)
            .map_or(0, Vec::len)
    };
    for (what, ptr) in [
        ("morph target(s)", format!("{base}/targets")),
        ("animation(s)", "/animations".to_owned()),
        ("material(s)", "/materials".to_owned()),
    ] {
        let n = count(&ptr);
        if n > 0 {
            left.push(format!("{n} {what}"));
        }
    }
    if parts > 1 {
        left.push(format!("{} other skinned primitive(s)", parts - 1));
    }
    let bones = p.input.bones.len();
    let head = format!(
        "converted mesh {} primitive {}: {} vertices, {bones} bone(s)",
        p.mesh,
        p.primitive,
        p.input.len()
    );
    if left.is_empty() {
        head
    } else {
        format!("{head}; not carried by DashVertex: {}", left.join(", "))
    }
}
