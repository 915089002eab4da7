//! Repeated object keys, which serde_json would silently let the last one win: the
//! validator reports them (spec §3.4) with the pointer of the repeat.

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::pointer::push_token;

/// Returns the JSON Pointer of the first object member whose key repeats an earlier key
/// of the same object, if any (and `None` for text that is not JSON). The values of a
/// top-level object's members other than the ones dash models (`type`, `vertex`, `bone`
/// and the vertex members) are not searched: a document keeps them verbatim, repeated keys
/// included (spec §3.4), and a lone vertex rejects them anyway.
pub fn find_duplicate_key(text: &str) -> Option<String> {
    struct Walk<'p> {
        path: &'p mut String,
        found: &'p mut Option<String>,
    }
    impl<'de> DeserializeSeed<'de> for Walk<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(self)
        }
    }
    impl<'de> Visitor<'de> for Walk<'_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("JSON")
        }
        fn visit_bool<E>(self, _: bool) -> Result<(), E> {
            Ok(())
        }
        fn visit_i64<E>(self, _: i64) -> Result<(), E> {
            Ok(())
        }
        fn visit_u64<E>(self, _: u64) -> Result<(), E> {
            Ok(())
        }
        fn visit_f64<E>(self, _: f64) -> Result<(), E> {
            Ok(())
        }
        fn visit_str<E>(self, _: &str) -> Result<(), E> {
            Ok(())
        }
        fn visit_unit<E>(self) -> Result<(), E> {
            Ok(())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            let mut i = 0usize;
            loop {
                let len = self.path.len();
                push_token(self.path, &i.to_string());
                let more = seq
                    .next_element_seed(Walk {
                        path: self.path,
                        found: self.found,
                    })?
                    .is_some();
                self.path.truncate(len);
                if !more {
                    return Ok(());
                }
                i += 1;
            }
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let mut seen = std::collections::HashSet::new();
            while let Some(k) = map.next_key::<String>()? {
                let len = self.path.len();
                push_token(self.path, &k);
                let verbatim = len == 0 && !MODELED.contains(&k.as_str());
                if !seen.insert(k) && self.found.is_none() {
                    *self.found = Some(self.path.clone());
                }
                if verbatim {
                    map.next_value::<IgnoredAny>()?;
                } else {
                    map.next_value_seed(Walk {
                        path: self.path,
                        found: self.found,
                    })?;
                }
                self.path.truncate(len);
            }
            Ok(())
        }
    }
    const MODELED: [&str; 9] = [
        "type",
        "vertex",
        "bone",
        "x",
        "y",
        "z",
        "skinIndex",
        "skinWeight",
        "skinSets",
    ];
    let mut path = String::new();
    let mut found = None;
    let mut de = serde_json::Deserializer::from_str(text);
    Walk {
        path: &mut path,
        found: &mut found,
    }
    .deserialize(&mut de)
    .ok()?;
    found
}
