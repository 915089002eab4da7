//! Data dash cannot decode: glTF extensions that hold a mesh's data in a compressed
//! stream, and the extensions a file may require that dash understands.
//!
//! A primitive compressed with `KHR_draco_mesh_compression` may name accessors without a
//! buffer view: their elements are in the Draco stream, not zeros, and an accessor read
//! that gave zeros would make every command silently wrong (positions at the origin,
//! every vertex bound to joint 0 with weight 0). Such reads fail instead
//! ([`crate::AccessorError::Compressed`]), naming the extension and where it is; the
//! validator reports the extension once (`GLTF_EXTENSION_UNSUPPORTED`).
//!
//! Buffer views compressed with `EXT_meshopt_compression` or `KHR_meshopt_compression`
//! are decoded when the document loads ([`crate::meshopt`], [`DECODED_EXTENSIONS`]); a
//! view that does not decode leaves its fallback buffer unavailable, saying why
//! ([`crate::BufferError::Compressed`], `GLTF_BUFFER`), never read as zeros.

use std::collections::HashMap;

use serde_json::Value;

/// Draco mesh compression: a primitive's attributes and indices in one stream.
pub const DRACO: &str = "KHR_draco_mesh_compression";

/// meshoptimizer compression: a buffer view's bytes in a stream of another buffer.
pub const MESHOPT: &str = "EXT_meshopt_compression";

/// The same codec under its Khronos name.
pub const KHR_MESHOPT: &str = "KHR_meshopt_compression";

/// Extensions a file may list in `extensionsRequired` that dash reads correctly, beyond
/// [`crate::export::PRUNE_SAFE_EXTENSIONS`] (which refer to no data by themselves): they
/// change how nodes are shown or instanced, never where vertex, index, skin or animation
/// data lies or what it means, and a rewrite carries them (split copies them to its
/// parts, spec/split.md \[SP11\]). See [`understood`].
pub const UNDERSTOOD_BEYOND_PRUNE_SAFE: &[&str] = &[
    "KHR_materials_diffuse_transmission",
    "KHR_node_visibility",
    "KHR_node_selectability",
    "KHR_node_hoverability",
    "EXT_mesh_gpu_instancing",
];

/// Whether a file may require `extension` and be read by dash: the material, texture,
/// light and quantization extensions of [`crate::export::PRUNE_SAFE_EXTENSIONS`]
/// (`KHR_mesh_quantization` widens the accessor formats, which every reader here
/// decodes) and [`UNDERSTOOD_BEYOND_PRUNE_SAFE`]. Any other required extension, but those
/// dash decodes ([`DECODED_EXTENSIONS`]), is refused by name, so no command reads data
/// it does not understand (`GLTF_EXTENSION_UNSUPPORTED`).
pub fn understood(extension: &str) -> bool {
    crate::export::PRUNE_SAFE_EXTENSIONS.contains(&extension)
        || UNDERSTOOD_BEYOND_PRUNE_SAFE.contains(&extension)
}

/// Extensions whose data dash decodes when a document loads: the views they compress
/// become plain views of the loaded document (the names leave its `extensionsUsed` and
/// `extensionsRequired`), so a rewrite writes plain data.
pub const DECODED_EXTENSIONS: &[&str] = &[MESHOPT, KHR_MESHOPT];

/// What a required extension dash does not understand asks of the user, in a sentence.
pub fn what_to_do(extension: &str) -> String {
    match extension {
        DRACO => "dash cannot decode Draco-compressed meshes yet: decompress the file first (import it into Blender and export it with Draco compression off, or write it again without KHR_draco_mesh_compression), then run dash on that".to_owned(),
        MESHOPT | KHR_MESHOPT => format!("dash decodes {extension}, but this stream does not decode: write the file again (gltfpack without -c/-cc, or glTF-Transform without meshopt), then run dash on that"),
        _ => format!("dash does not know what {extension} changes in the data it reads or writes: write the file without it, or ask for its support"),
    }
}

/// Takes a primitive's `KHR_draco_mesh_compression` stream out of `primitive` (its JSON
/// object), with its `extensions` object when nothing else is left in it; true when
/// there was one. A rewrite that replaces a compressed primitive's attributes does this:
/// the stream holds the old data, and a viewer that decodes it would draw that instead
/// of the plain accessors the rewrite wrote.
pub fn strip_draco(primitive: &mut Value) -> bool {
    let Some(o) = primitive.as_object_mut() else {
        return false;
    };
    let Some(ext) = o.get_mut("extensions").and_then(Value::as_object_mut) else {
        return false;
    };
    let had = ext.remove(DRACO).is_some();
    if ext.is_empty() {
        o.remove("extensions");
    }
    had
}

/// Takes `KHR_draco_mesh_compression` out of `extensionsUsed` and `extensionsRequired`
/// (and a list left empty) when no primitive of `document` has a Draco stream any more.
pub fn forget_draco_if_unused(document: &mut Value) {
    let used = list(document.get("meshes"))
        .iter()
        .flat_map(|m| list(m.get("primitives")))
        .any(|p| p.get("extensions").and_then(|e| e.get(DRACO)).is_some());
    if used {
        return;
    }
    let Some(o) = document.as_object_mut() else {
        return;
    };
    for key in ["extensionsUsed", "extensionsRequired"] {
        if let Some(names) = o.get_mut(key).and_then(Value::as_array_mut) {
            names.retain(|n| n.as_str() != Some(DRACO));
            if names.is_empty() {
                o.remove(key);
            }
        }
    }
}

/// The elements of an array member (none when it is absent or not an array).
fn list(v: Option<&Value>) -> &[Value] {
    v.and_then(Value::as_array).map_or(&[][..], Vec::as_slice)
}

/// Where a compressed stream holds an accessor's or a buffer view's data.
#[derive(Clone, Debug, Default)]
pub(crate) struct Compressed {
    /// Accessor → (extension, JSON Pointer of the extension object that holds its data).
    accessors: HashMap<u64, (&'static str, String)>,
    /// Buffer view → (extension, JSON Pointer of the extension object).
    views: HashMap<u64, (&'static str, String)>,
}

impl Compressed {
    /// Finds, in one pass over the meshes and buffer views, the accessors without a
    /// buffer view that a Draco primitive names, and the buffer views with a meshopt
    /// stream.
    pub(crate) fn of(value: &Value) -> Compressed {
        let mut out = Compressed::default();
        let accessors = list(value.get("accessors"));
        let viewless = |i: &Value| {
            i.as_u64().filter(|&i| {
                usize::try_from(i)
                    .ok()
                    .and_then(|i| accessors.get(i))
                    .is_some_and(|a| a.get("bufferView").is_none())
            })
        };
        for (m, mesh) in list(value.get("meshes")).iter().enumerate() {
            for (p, prim) in list(mesh.get("primitives")).iter().enumerate() {
                if prim.get("extensions").and_then(|e| e.get(DRACO)).is_none() {
                    continue;
                }
                let at = format!("/meshes/{m}/primitives/{p}/extensions/{DRACO}");
                let named = prim
                    .get("attributes")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flat_map(|a| a.values())
                    .chain(prim.get("indices"));
                for i in named.filter_map(viewless) {
                    out.accessors.entry(i).or_insert((DRACO, at.clone()));
                }
            }
        }
        for (v, view) in list(value.get("bufferViews")).iter().enumerate() {
            let Some(ext) = view.get("extensions") else {
                continue;
            };
            for name in [MESHOPT, KHR_MESHOPT] {
                if ext.get(name).is_some() {
                    out.views.insert(
                        v as u64,
                        (name, format!("/bufferViews/{v}/extensions/{name}")),
                    );
                }
            }
        }
        out
    }

    /// The extension and pointer holding accessor `i`'s data, when it has no buffer view
    /// and a Draco primitive names it.
    pub(crate) fn accessor(&self, i: u64) -> Option<(&'static str, &str)> {
        self.accessors.get(&i).map(|(e, p)| (*e, p.as_str()))
    }

    /// The extension and pointer of buffer view `v`'s compressed stream, if it has one.
    pub(crate) fn view(&self, v: u64) -> Option<(&'static str, &str)> {
        self.views.get(&v).map(|(e, p)| (*e, p.as_str()))
    }
}
