//! Normals and tangents as the specification defines them: every FLOAT `NORMAL` and the
//! `xyz` of every FLOAT `TANGENT` of unit length (`GLTF_ATTRIBUTE_NON_UNIT`, the official
//! `ACCESSOR_VECTOR3_NON_UNIT`, with the tolerance the official validator uses for unit
//! vectors), and a tangent's `w`, its bitangent's handedness, exactly 1 or -1
//! (`GLTF_TANGENT_SIGN`, `ACCESSOR_INVALID_SIGN`). One diagnostic per attribute and rule,
//! at the attribute, naming the first element and how many there are; each accessor is
//! read once, whatever the number of primitives that use it. Non-finite values are
//! `GLTF_ACCESSOR_NON_FINITE`'s and skipped here; morph targets hold differences, not
//! vectors, and accessors without a buffer view hold zeros, not data: neither is checked.

use std::collections::HashSet;

use dashvertex_gltf::Gltf;
use dashvertex_gltf::accessor;
use dashvertex_gltf::document::component;

use super::nodes::UNIT_TOLERANCE;
use super::push_as;
use crate::codes::Code;
use crate::inputs::gltf::Doc;
use crate::options::Options;
use crate::sink::Sink;

/// The first element found wrong and how many are.
#[derive(Default)]
struct Wrong {
    first: Option<(usize, f64)>,
    count: u64,
}

impl Wrong {
    fn add(&mut self, element: usize, value: f64) {
        self.first.get_or_insert((element, value));
        self.count += 1;
    }
}

/// Runs the checks of the module comment over every primitive's NORMAL and TANGENT.
pub(crate) fn check_all(gltf: &Gltf, doc: &Doc, opts: &Options, sink: &mut Sink) {
    let mut seen = HashSet::new();
    for (m, mesh) in gltf.root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            for (name, width) in [("NORMAL", 3), ("TANGENT", 4)] {
                let Some(index) = prim.attributes.get(name).and_then(|v| v.as_u64()) else {
                    continue;
                };
                let Some(a) = usize::try_from(index)
                    .ok()
                    .and_then(|i| gltf.root.accessors.get(i))
                else {
                    continue;
                };
                let vec = if width == 3 { "VEC3" } else { "VEC4" };
                // Formats are the attribute checks' findings; an accessor without a buffer
                // view is zeros, which the official validator does not hold to these
                // rules (nor does dash: there is no data to be wrong).
                if a.component_type != component::F32
                    || a.normalized
                    || a.kind != vec
                    || a.buffer_view.is_none()
                    || opts.carried(index)
                    || !seen.insert(index)
                {
                    continue;
                }
                let Ok(data) = accessor::read(gltf, index, &opts.limits) else {
                    continue;
                };
                let (mut length, mut sign) = (Wrong::default(), Wrong::default());
                data.for_each4(0, |e, v| {
                    let [x, y, z, w] = v;
                    if v.iter().take(width).any(|c| !c.is_finite()) {
                        return true;
                    }
                    let len = (x * x + y * y + z * z).sqrt();
                    if (len - 1.0).abs() > UNIT_TOLERANCE {
                        length.add(e, len);
                    }
                    if width == 4 && w != 1.0 && w != -1.0 {
                        sign.add(e, w);
                    }
                    true
                });
                let ptr = format!("/meshes/{m}/primitives/{p}/attributes/{name}");
                let more = |n: u64| {
                    if n > 1 {
                        format!(" ({n} elements in all)")
                    } else {
                        String::new()
                    }
                };
                if let Some((e, len)) = length.first {
                    push_as(
                        doc,
                        sink,
                        Code::GLTF_ATTRIBUTE_NON_UNIT,
                        "ACCESSOR_VECTOR3_NON_UNIT",
                        &ptr,
                        || {
                            format!(
                                "{name} (accessor {index}) element {e} has length {len}, not 1{}",
                                more(length.count)
                            )
                        },
                    );
                }
                if let Some((e, w)) = sign.first {
                    push_as(
                        doc,
                        sink,
                        Code::GLTF_TANGENT_SIGN,
                        "ACCESSOR_INVALID_SIGN",
                        &ptr,
                        || {
                            format!(
                                "TANGENT (accessor {index}) element {e} has w = {w}; w is the bitangent's handedness, 1 or -1{}",
                                more(sign.count)
                            )
                        },
                    );
                }
            }
        }
    }
}
