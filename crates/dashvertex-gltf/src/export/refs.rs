//! Every place the glTF JSON refers to an accessor, a buffer view or a buffer by index,
//! and the renumbering of those indices when objects are removed.

use serde_json::{Value, json};

use super::as_index;

/// Old index → new index, dropping the indices `gone` says.
pub(super) fn renumber(n: usize, gone: impl Fn(usize) -> bool) -> Vec<Option<u64>> {
    let mut next = 0u64;
    (0..n)
        .map(|i| {
            if gone(i) {
                None
            } else {
                next += 1;
                Some(next - 1)
            }
        })
        .collect()
}

/// Replaces the index `v` with its new number in `map` (unchanged when `map` has none).
pub(super) fn remap(v: &mut u64, map: &[Option<u64>]) {
    if let Some(Some(n)) = map.get(as_index(*v)) {
        *v = *n;
    }
}

/// The `extensionsUsed` names.
pub(super) fn extensions_used(value: &Value) -> Vec<String> {
    value
        .get("extensionsUsed")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|e| e.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// Visits an integer member, letting `f` change it.
pub(super) fn visit_index(v: Option<&mut Value>, f: &mut dyn FnMut(&mut u64)) {
    if let Some(v) = v
        && let Some(mut i) = v.as_u64()
    {
        f(&mut i);
        *v = json!(i);
    }
}

/// The elements of an array member (none when it is absent or not an array).
fn each(v: Option<&mut Value>) -> std::slice::IterMut<'_, Value> {
    match v.and_then(Value::as_array_mut) {
        Some(a) => a.iter_mut(),
        None => [].iter_mut(),
    }
}

/// Every place core glTF refers to an accessor: primitive attributes, indices and morph
/// targets, skins' inverse bind matrices, animation sampler inputs and outputs.
pub(super) fn for_each_accessor_ref(value: &mut Value, f: &mut dyn FnMut(&mut u64)) {
    let Some(root) = value.as_object_mut() else {
        return;
    };
    if let Some(meshes) = root.get_mut("meshes") {
        for m in each(Some(meshes)) {
            for p in each(m.get_mut("primitives")) {
                if let Some(attrs) = p.get_mut("attributes").and_then(Value::as_object_mut) {
                    for a in attrs.values_mut() {
                        visit_index(Some(a), f);
                    }
                }
                visit_index(p.get_mut("indices"), f);
                for t in each(p.get_mut("targets")) {
                    if let Some(t) = t.as_object_mut() {
                        for a in t.values_mut() {
                            visit_index(Some(a), f);
                        }
                    }
                }
            }
        }
    }
    if let Some(skins) = root.get_mut("skins") {
        for s in each(Some(skins)) {
            visit_index(s.get_mut("inverseBindMatrices"), f);
        }
    }
    if let Some(anims) = root.get_mut("animations") {
        for a in each(Some(anims)) {
            for s in each(a.get_mut("samplers")) {
                visit_index(s.get_mut("input"), f);
                visit_index(s.get_mut("output"), f);
            }
        }
    }
}

/// The buffer views an accessor refers to: its own and its sparse data's.
pub(super) fn for_each_view_ref_of_accessor(a: &mut Value, f: &mut dyn FnMut(&mut u64)) {
    visit_index(a.get_mut("bufferView"), f);
    if let Some(sp) = a.get_mut("sparse") {
        if let Some(i) = sp.get_mut("indices") {
            visit_index(i.get_mut("bufferView"), f);
        }
        if let Some(v) = sp.get_mut("values") {
            visit_index(v.get_mut("bufferView"), f);
        }
    }
}

/// Images stored in buffer views.
pub(super) fn for_each_image_view_ref(value: &mut Value, f: &mut dyn FnMut(&mut u64)) {
    if let Some(images) = value.get_mut("images").and_then(Value::as_array_mut) {
        for i in images {
            visit_index(i.get_mut("bufferView"), f);
        }
    }
}
