//! Checks of the glTF document beyond the influence data: references, required members,
//! buffer URIs, node transforms. Each reads the JSON value once, linearly, and touches no
//! accessor data (the influence checks in [`super::gltf`] read that).

pub(crate) mod buffers;
pub(crate) mod nodes;
pub(crate) mod references;
pub(crate) mod required;

use serde_json::Value;

/// The elements of the top-level array `key` (none when absent or not an array).
pub(crate) fn array<'a>(root: &'a Value, key: &str) -> &'a [Value] {
    root.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The elements of member `key` of `v` when it is an array (none otherwise).
pub(crate) fn members<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    array(v, key)
}
