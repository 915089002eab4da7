//! Materials' base-colour textures in the GLB, where that is simple: a file texture whose
//! image is embedded in the FBX as PNG or JPEG bytes becomes a glTF image (in the buffer),
//! sampler and texture, read through the mesh's first UV set. What is not converted is
//! counted by reason, for the conversion's notes.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Value, json};

use crate::buffer::Buffer;

/// `REPEAT` and `CLAMP_TO_EDGE`.
const REPEAT: u32 = 10497;
const CLAMP: u32 = 33071;

/// The glTF side of the textures, and what was left out.
#[derive(Default)]
pub(crate) struct Textures {
    pub(crate) images: Vec<Value>,
    pub(crate) samplers: Vec<Value>,
    pub(crate) textures: Vec<Value>,
    /// The glTF texture of each FBX texture converted, by its id.
    pub(crate) index: HashMap<u32, usize>,
    /// Textures not converted, counted by why.
    pub(crate) skipped: BTreeMap<&'static str, usize>,
}

/// The MIME type of image bytes glTF can carry, by their signature.
fn mime(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else {
        None
    }
}

/// The texture a material's base colour reads: the PBR map's, else the classic diffuse
/// map's (ufbx fills the first from the second for FBX's own materials).
pub(crate) fn base_color_texture(m: &ufbx::Material) -> Option<&ufbx::Texture> {
    m.pbr
        .base_color
        .texture
        .as_deref()
        .or(m.fbx.diffuse_color.texture.as_deref())
}

/// Every material's base-colour texture of `s`, converted where simple (each FBX texture
/// once, each embedded image once).
pub(crate) fn textures(s: &ufbx::Scene, buf: &mut Buffer) -> Textures {
    let mut out = Textures::default();
    let mut image_of: HashMap<(bool, u32), usize> = HashMap::new();
    for m in &s.materials {
        let Some(t) = base_color_texture(m) else {
            continue;
        };
        let id = t.element.typed_id;
        if out.index.contains_key(&id) {
            continue;
        }
        match convert(t, buf, &mut out, &mut image_of) {
            Ok(k) => {
                out.index.insert(id, k);
            }
            Err(why) => *out.skipped.entry(why).or_default() += 1,
        }
    }
    // Textures no material's base colour reads (normal, specular and other maps).
    let used = s
        .materials
        .iter()
        .filter_map(|m| base_color_texture(m).map(|t| t.element.typed_id))
        .collect::<std::collections::HashSet<_>>();
    let other = s
        .textures
        .iter()
        .filter(|t| !used.contains(&t.element.typed_id))
        .count();
    if other > 0 {
        *out.skipped
            .entry("not a base colour (glTF's other maps are not written)")
            .or_default() += other;
    }
    out
}

/// One texture as a glTF texture (its index), or why not.
fn convert(
    t: &ufbx::Texture,
    buf: &mut Buffer,
    out: &mut Textures,
    image_of: &mut HashMap<(bool, u32), usize>,
) -> Result<usize, &'static str> {
    if t.type_ != ufbx::TextureType::File {
        return Err("layered, procedural or shader textures");
    }
    if t.has_uv_transform {
        return Err("a UV transform (offset, scale or rotation)");
    }
    // The texture's own bytes, else its video's (keyed apart: several textures may share
    // one video, so one image).
    let (content, key): (&[u8], (bool, u32)) = match t.video.as_deref() {
        Some(v) if t.content.is_empty() => (&v.content[..], (true, v.element.typed_id)),
        _ => (&t.content[..], (false, t.element.typed_id)),
    };
    if content.is_empty() {
        return Err("an image file beside the FBX, not embedded in it");
    }
    let mime = mime(content).ok_or("an embedded image neither PNG nor JPEG")?;
    let image = match image_of.get(&key) {
        Some(&i) => i,
        None => {
            let view = buf.raw(content);
            out.images.push(json!({
                "name": t.element.name.to_string(),
                "bufferView": view,
                "mimeType": mime,
            }));
            image_of.insert(key, out.images.len() - 1);
            out.images.len() - 1
        }
    };
    let wrap = |w: ufbx::WrapMode| match w {
        ufbx::WrapMode::Clamp => CLAMP,
        _ => REPEAT,
    };
    out.samplers
        .push(json!({ "wrapS": wrap(t.wrap_u), "wrapT": wrap(t.wrap_v) }));
    out.textures.push(json!({
        "name": t.element.name.to_string(),
        "sampler": out.samplers.len() - 1,
        "source": image,
    }));
    Ok(out.textures.len() - 1)
}
