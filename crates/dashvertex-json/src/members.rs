//! Looking up a member of a parsed JSON object without hashing its name.
//!
//! `serde_json`'s objects keep their order in an `IndexMap` hashed with SipHash, so each
//! `get` hashes the key: for the small objects of a glTF document (an accessor, a
//! primitive, a node: a handful of members each) comparing the names one by one is
//! several times cheaper, and the checks of a document look members up thousands of
//! times. Larger objects (a document's `extensions`, `extras` payloads) still use the
//! hash. Both find the same member: a parsed object holds each name once.

use serde_json::{Map, Value};

/// Objects with at most this many members are searched in order.
const IN_ORDER_MAX: usize = 16;

/// The member `key` of `map`.
pub fn member<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    if map.len() <= IN_ORDER_MAX {
        map.iter().find_map(|(k, v)| (k == key).then_some(v))
    } else {
        map.get(key)
    }
}

/// [`member`] as a method of JSON values and objects.
pub trait Members {
    /// The member `key` when this is an object that has one (`None` for any other
    /// value), as `serde_json`'s `get` with a string key.
    fn member(&self, key: &str) -> Option<&Value>;
}

impl Members for Value {
    fn member(&self, key: &str) -> Option<&Value> {
        member(self.as_object()?, key)
    }
}

impl Members for Map<String, Value> {
    fn member(&self, key: &str) -> Option<&Value> {
        member(self, key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_what_get_finds_in_small_and_large_objects() {
        let small = serde_json::json!({"bufferView": 1, "count": 3, "type": "VEC3"});
        let mut big = Map::new();
        for i in 0..40 {
            big.insert(format!("k{i}"), Value::from(i));
        }
        let big = Value::Object(big);
        for v in [&small, &big] {
            for key in ["bufferView", "count", "type", "k0", "k39", "missing", ""] {
                assert_eq!(v.member(key), v.get(key), "{key}");
            }
        }
        assert_eq!(Value::from(3).member("count"), None);
        assert_eq!(serde_json::json!([1, 2]).member("0"), None);
    }
}
