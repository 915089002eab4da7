//! Decoding a manifest's JSON with a bound on its bone count, checked while the entries
//! are read: a manifest with more bones than allowed is refused after `max + 1` entries,
//! so the memory it can take is the bound's, not the file's.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::{Entry, Manifest, ManifestError};

/// The top-level object: `version` and `bones`, nothing else (as the schema says).
struct Top<'a> {
    max: usize,
    over: &'a Cell<bool>,
}

impl<'de> Visitor<'de> for Top<'_> {
    type Value = Manifest;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a bone manifest object {\"version\": 1, \"bones\": [...]}")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Manifest, A::Error> {
        let (mut version, mut bones) = (None, None);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "version" if version.is_some() => {
                    return Err(de::Error::duplicate_field("version"));
                }
                "version" => version = Some(map.next_value::<u32>()?),
                "bones" if bones.is_some() => return Err(de::Error::duplicate_field("bones")),
                "bones" => {
                    bones = Some(map.next_value_seed(Bones {
                        max: self.max,
                        over: self.over,
                    })?);
                }
                other => return Err(de::Error::unknown_field(other, &["version", "bones"])),
            }
        }
        Ok(Manifest {
            version: version.ok_or_else(|| de::Error::missing_field("version"))?,
            bones: bones.ok_or_else(|| de::Error::missing_field("bones"))?,
        })
    }
}

/// The `bones` array, refused past `max` entries.
struct Bones<'a> {
    max: usize,
    over: &'a Cell<bool>,
}

impl<'de> DeserializeSeed<'de> for Bones<'_> {
    type Value = Vec<Entry>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<Entry>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Bones<'_> {
    type Value = Vec<Entry>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of bone entries")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Entry>, A::Error> {
        let mut out = Vec::new();
        while let Some(e) = seq.next_element::<Entry>()? {
            if out.len() >= self.max {
                self.over.set(true);
                return Err(de::Error::custom(format!(
                    "more than {} bone entries",
                    self.max
                )));
            }
            out.push(e);
        }
        Ok(out)
    }
}

/// Decodes `text` as a manifest of at most `max` bones (the other checks are the
/// caller's).
pub(crate) fn decode(text: &str, max: u64) -> Result<Manifest, ManifestError> {
    let over = Cell::new(false);
    let max_entries = usize::try_from(max).unwrap_or(usize::MAX);
    let mut d = serde_json::Deserializer::from_str(text);
    let top = Top {
        max: max_entries,
        over: &over,
    };
    let parsed = d
        .deserialize_struct("Manifest", &["version", "bones"], top)
        .and_then(|m| d.end().map(|()| m));
    match parsed {
        Ok(m) => Ok(m),
        Err(_) if over.get() => Err(ManifestError::TooManyBones { limit: max }),
        Err(e) => Err(ManifestError::Json(e)),
    }
}
