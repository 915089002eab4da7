//! JSON text → [`JsonFile`].
//!
//! Decoding is a single serde pass straight into the model. When it fails, the same pass
//! runs again with path tracking so the error can name its JSON Pointer; errors are rare,
//! so valid input pays nothing for locations.

mod failure;
mod members;

use members::MemberNames;
#[cfg(test)]
use members::probe;

use std::fmt;

use dashvertex_core::{Bone, Document, InfluenceSet, Limits, Mesh, Skeleton, Vertex};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use crate::error::{ErrorKind, JsonError};
use crate::locate::Locator;
use crate::number::{BoneIndex, F32};
use crate::pointer::push_token;
use crate::wire::{DOCUMENT_TYPE, JsonBone, JsonSet, JsonVertex, SkinArray};
use failure::{Detail, Fail, limit_error, locate_error, located, ruled};

/// Which of the three accepted shapes a JSON text has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// A single vertex object.
    Vertex,
    /// An array of vertex objects.
    Array,
    /// A DMX document object (`"type": "DashModelExchange"`).
    Document,
}

impl std::str::FromStr for Form {
    type Err = String;

    /// A shape by its name: `vertex`, `array` or `document`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "vertex" => Ok(Form::Vertex),
            "array" => Ok(Form::Array),
            "document" => Ok(Form::Document),
            other => Err(format!(
                "{other:?} is not a JSON shape; use vertex, array or document"
            )),
        }
    }
}

/// A member of a DMX document, in the order the text had them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DocKey {
    /// `type`.
    Type,
    /// `vertex`.
    Vertex,
    /// `bone`.
    Bone,
    /// The `n`th entry of [`JsonFile::foreign`].
    Foreign(usize),
}

/// A decoded DashVertex JSON text.
#[derive(Clone, Debug)]
pub struct JsonFile {
    /// The shape the text had (writers keep it when they can).
    pub form: Form,
    /// The modelled content.
    pub document: Document,
    /// Document members dash does not model, with their exact source text.
    pub foreign: Vec<(String, Box<RawValue>)>,
    /// Member order of a document.
    pub order: Vec<DocKey>,
}

impl JsonFile {
    /// A new DMX document holding `document`, with the empty `material` and `face` arrays
    /// DMX requires.
    pub fn new_document(document: Document) -> Self {
        let empty = || RawValue::from_string("[]".to_owned()).ok();
        let foreign: Vec<(String, Box<RawValue>)> = ["material", "face"]
            .into_iter()
            .filter_map(|k| empty().map(|v| (k.to_owned(), v)))
            .collect();
        JsonFile {
            form: Form::Document,
            document,
            order: vec![
                DocKey::Type,
                DocKey::Foreign(0),
                DocKey::Vertex,
                DocKey::Foreign(1),
                DocKey::Bone,
            ],
            foreign,
        }
    }

    /// Foreign members whose value is not an empty array: content dash would lose if it
    /// wrote this document in a format other than JSON.
    pub fn non_empty_foreign(&self) -> impl Iterator<Item = &str> {
        self.foreign
            .iter()
            .filter(|(_, v)| {
                let t = v.get().trim();
                !(t.starts_with('[') && t.get(1..).is_some_and(|r| r.trim() == "]"))
            })
            .map(|(k, _)| k.as_str())
    }
}

/// Decodes JSON bytes (which must be UTF-8).
pub fn decode_bytes(bytes: &[u8], limits: &Limits) -> Result<JsonFile, JsonError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => decode(text, limits),
        Err(e) => {
            let valid = bytes.get(..e.valid_up_to()).unwrap_or_default();
            let text = String::from_utf8_lossy(valid);
            let (line, column) = Locator::new(&text).line_col_at(text.len());
            Err(JsonError {
                kind: ErrorKind::Syntax,
                pointer: String::new(),
                line,
                column,
                message: format!("invalid UTF-8 at byte {}", e.valid_up_to()),
                rule: Some("J1".to_owned()),
            })
        }
    }
}

/// Decodes a DashVertex JSON text: a vertex, an array of vertices or a DMX document.
pub fn decode(text: &str, limits: &Limits) -> Result<JsonFile, JsonError> {
    if let Err(e) = limits.check_input(text.len() as u64) {
        return Err(JsonError {
            kind: ErrorKind::Limit,
            pointer: String::new(),
            line: 1,
            column: 1,
            message: e.to_string(),
            rule: None,
        });
    }
    if text.starts_with('\u{feff}') {
        return Err(JsonError {
            kind: ErrorKind::Syntax,
            pointer: String::new(),
            line: 1,
            column: 1,
            message: "the text starts with a UTF-8 byte order mark (bytes EF BB BF); \
                      DashVertex JSON has none: remove it"
                .to_owned(),
            rule: Some("J11".to_owned()),
        });
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let fast = FileSeed { limits }
        .deserialize(&mut de)
        .and_then(|f| de.end().map(|()| f));
    match fast {
        Ok(file) => Ok(file),
        Err(_) => Err(locate_error(text, limits)),
    }
}

// ---------------------------------------------------------------------------------------
// Keys

const VERTEX_FIELDS: &[&str] = &["x", "y", "z", "skinIndex", "skinWeight", "skinSets"];
const SET_FIELDS: &[&str] = &["skinIndex", "skinWeight"];

/// Every key the decoder distinguishes.
enum Key {
    X,
    Y,
    Z,
    SkinIndex,
    SkinWeight,
    SkinSets,
    Type,
    Vertex,
    Bone,
    Other(String),
}

impl Key {
    fn name(&self) -> &str {
        match self {
            Key::X => "x",
            Key::Y => "y",
            Key::Z => "z",
            Key::SkinIndex => "skinIndex",
            Key::SkinWeight => "skinWeight",
            Key::SkinSets => "skinSets",
            Key::Type => "type",
            Key::Vertex => "vertex",
            Key::Bone => "bone",
            Key::Other(s) => s,
        }
    }
}

impl<'de> de::Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Key, E> {
                Ok(match s {
                    "x" => Key::X,
                    "y" => Key::Y,
                    "z" => Key::Z,
                    "skinIndex" => Key::SkinIndex,
                    "skinWeight" => Key::SkinWeight,
                    "skinSets" => Key::SkinSets,
                    "type" => Key::Type,
                    "vertex" => Key::Vertex,
                    "bone" => Key::Bone,
                    other => Key::Other(other.to_owned()),
                })
            }
        }
        d.deserialize_identifier(V)
    }
}

fn unknown_field(name: &str, expected: &[&str]) -> String {
    format!(
        "unknown field `{name}`; expected one of {}",
        expected.join(", ")
    )
}

// ---------------------------------------------------------------------------------------
// Skin arrays

/// Reads a `skinIndex` or `skinWeight` array; `expect` is the length of its partner
/// when that was read first.
struct SkinSeed<T> {
    name: &'static str,
    partner: &'static str,
    expect: Option<u8>,
    _t: std::marker::PhantomData<T>,
}

impl<T> SkinSeed<T> {
    fn new(name: &'static str, partner: &'static str, expect: Option<u8>) -> Self {
        SkinSeed {
            name,
            partner,
            expect,
            _t: std::marker::PhantomData,
        }
    }
}

impl<'de, T> DeserializeSeed<'de> for SkinSeed<T>
where
    T: de::Deserialize<'de> + Copy + Default,
{
    type Value = SkinArray<T>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, T> Visitor<'de> for SkinSeed<T>
where
    T: de::Deserialize<'de> + Copy + Default,
{
    type Value = SkinArray<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "an array of at most 4 values for `{}`", self.name)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = SkinArray::<T>::default();
        let mut len = 0u8;
        for slot in out.values.iter_mut() {
            if let Some(e) = self.expect.filter(|&e| e == len) {
                // The partner array is shorter: anything more is a length mismatch.
                if seq
                    .next_element_seed(Fail(Detail::ruled(
                        "J4",
                        format_args!(
                            "`{}` is longer than `{}` (length {}); they must have the same length",
                            self.name, self.partner, e
                        ),
                    )))?
                    .is_some()
                {
                    return Err(de::Error::custom("unreachable"));
                }
                return Ok(SkinArray {
                    len,
                    values: out.values,
                });
            }
            match seq.next_element::<T>()? {
                Some(v) => {
                    *slot = v;
                    len += 1;
                }
                None => break,
            }
        }
        if len == 4
            && self.expect.is_none_or(|e| e == 4)
            && seq
                .next_element_seed(Fail(Detail::ruled(
                    "J4",
                    format_args!(
                        "`{}` has more than 4 entries; a set holds 4 influences (put more in `skinSets`)",
                        self.name
                    ),
                )))?
                .is_some()
        {
            return Err(de::Error::custom("unreachable"));
        }
        if let Some(e) = self.expect.filter(|&e| e != len) {
            return Err(ruled(
                "J4",
                format_args!(
                    "`{}` has length {len} but `{}` has length {e}; they must have the same length",
                    self.name, self.partner
                ),
            ));
        }
        out.len = len;
        Ok(out)
    }
}

// ---------------------------------------------------------------------------------------
// Vertices

/// Collects the members of one vertex object.
#[derive(Default)]
struct VertexFields {
    x: Option<F32>,
    y: Option<F32>,
    z: Option<F32>,
    skin_index: Option<SkinArray<BoneIndex>>,
    skin_weight: Option<SkinArray<F32>>,
    skin_sets: Option<Vec<JsonSet>>,
}

impl VertexFields {
    /// Reads the value of a vertex member. Returns `false` for keys that are not vertex
    /// members (the caller decides what they mean).
    fn accept<'de, A: MapAccess<'de>>(
        &mut self,
        key: &Key,
        map: &mut A,
        limits: &Limits,
    ) -> Result<bool, A::Error> {
        fn dup<'de, A: MapAccess<'de>>(map: &mut A, name: &str) -> Result<(), A::Error> {
            map.next_value_seed(Fail(Detail::plain(format!("duplicate field `{name}`"))))
        }
        match key {
            Key::X | Key::Y | Key::Z => {
                let slot = match key {
                    Key::X => &mut self.x,
                    Key::Y => &mut self.y,
                    _ => &mut self.z,
                };
                if slot.is_some() {
                    dup(map, key.name())?;
                }
                *slot = Some(map.next_value()?);
            }
            Key::SkinIndex => {
                if self.skin_index.is_some() {
                    dup(map, "skinIndex")?;
                }
                let expect = self.skin_weight.map(|w| w.len);
                self.skin_index =
                    Some(map.next_value_seed(SkinSeed::new("skinIndex", "skinWeight", expect))?);
            }
            Key::SkinWeight => {
                if self.skin_weight.is_some() {
                    dup(map, "skinWeight")?;
                }
                let expect = self.skin_index.map(|w| w.len);
                self.skin_weight =
                    Some(map.next_value_seed(SkinSeed::new("skinWeight", "skinIndex", expect))?);
            }
            Key::SkinSets => {
                if self.skin_sets.is_some() {
                    dup(map, "skinSets")?;
                }
                self.skin_sets = Some(map.next_value_seed(SetsSeed { limits })?);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn finish<E: de::Error>(self) -> Result<JsonVertex, E> {
        let x = self.x.ok_or_else(|| E::missing_field("x"))?;
        let y = self.y.ok_or_else(|| E::missing_field("y"))?;
        let z = self.z.ok_or_else(|| E::missing_field("z"))?;
        match (&self.skin_index, &self.skin_weight) {
            (Some(_), None) => {
                return Err(ruled(
                    "J3",
                    "`skinIndex` is present but `skinWeight` is missing; give both or neither",
                ));
            }
            (None, Some(_)) => {
                return Err(ruled(
                    "J3",
                    "`skinWeight` is present but `skinIndex` is missing; give both or neither",
                ));
            }
            (None, None) if self.skin_sets.is_some() => {
                return Err(ruled(
                    "J7",
                    "`skinSets` requires `skinIndex` and `skinWeight` (set 0)",
                ));
            }
            _ => {}
        }
        Ok(JsonVertex {
            x,
            y,
            z,
            skin_index: self.skin_index,
            skin_weight: self.skin_weight,
            skin_sets: self.skin_sets,
        })
    }
}

struct SetsSeed<'l> {
    limits: &'l Limits,
}

impl<'de> DeserializeSeed<'de> for SetsSeed<'_> {
    type Value = Vec<JsonSet>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for SetsSeed<'_> {
    type Value = Vec<JsonSet>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of influence sets")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut sets = Vec::new();
        loop {
            if let Err(e) = self.limits.check_sets(sets.len() as u64 + 2) {
                if seq.next_element::<IgnoredAny>()?.is_some() {
                    return Err(limit_error(e));
                }
                return Ok(sets);
            }
            match seq.next_element::<JsonSet>()? {
                Some(s) => sets.push(s),
                None => return Ok(sets),
            }
        }
    }
}

impl<'de> de::Deserialize<'de> for JsonSet {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = JsonSet;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an influence set object {skinIndex, skinWeight}")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<JsonSet, A::Error> {
                let mut fields = VertexFields::default();
                let limits = Limits::default();
                while let Some(key) = map.next_key::<Key>()? {
                    match key {
                        Key::SkinIndex | Key::SkinWeight => {
                            fields.accept(&key, &mut map, &limits)?;
                        }
                        other => map.next_value_seed(Fail(Detail::plain(unknown_field(
                            other.name(),
                            SET_FIELDS,
                        ))))?,
                    }
                }
                match (fields.skin_index, fields.skin_weight) {
                    (Some(skin_index), Some(skin_weight)) => Ok(JsonSet {
                        skin_index,
                        skin_weight,
                    }),
                    (None, _) => Err(de::Error::missing_field("skinIndex")),
                    (_, None) => Err(de::Error::missing_field("skinWeight")),
                }
            }
        }
        d.deserialize_map(V)
    }
}

/// Reads one vertex object.
struct VertexSeed<'l> {
    limits: &'l Limits,
}

impl<'de> DeserializeSeed<'de> for VertexSeed<'_> {
    type Value = JsonVertex;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<JsonVertex, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for VertexSeed<'_> {
    type Value = JsonVertex;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a vertex object {x, y, z, skinIndex, skinWeight}")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<JsonVertex, A::Error> {
        let mut fields = VertexFields::default();
        while let Some(key) = map.next_key::<Key>()? {
            if !fields.accept(&key, &mut map, self.limits)? {
                map.next_value_seed(Fail(Detail::plain(unknown_field(
                    key.name(),
                    VERTEX_FIELDS,
                ))))?;
            }
        }
        fields.finish()
    }
}

/// Builds a [`Mesh`] from decoded vertices.
struct MeshBuilder {
    skinned: bool,
    vertices: Vec<Vertex>,
    /// (vertex, sets 1..) for vertices with `skinSets`.
    extra: Vec<(usize, Vec<InfluenceSet>)>,
    set_count: usize,
}

fn to_set(index: &SkinArray<BoneIndex>, weight: &SkinArray<F32>) -> InfluenceSet {
    let mut s = InfluenceSet::ZERO;
    for (dst, src) in s.joints.iter_mut().zip(&index.values) {
        *dst = src.0;
    }
    for (dst, src) in s.weights.iter_mut().zip(&weight.values) {
        *dst = src.0;
    }
    s
}

impl MeshBuilder {
    fn new() -> Self {
        MeshBuilder {
            skinned: false,
            vertices: Vec::new(),
            extra: Vec::new(),
            set_count: 1,
        }
    }

    fn push(&mut self, v: JsonVertex) {
        let skin = match (&v.skin_index, &v.skin_weight) {
            (Some(i), Some(w)) => {
                self.skinned = true;
                to_set(i, w)
            }
            _ => InfluenceSet::ZERO,
        };
        if let Some(sets) = v.skin_sets.filter(|s| !s.is_empty()) {
            self.set_count = self.set_count.max(sets.len() + 1);
            self.extra.push((
                self.vertices.len(),
                sets.iter()
                    .map(|s| to_set(&s.skin_index, &s.skin_weight))
                    .collect(),
            ));
        }
        self.vertices.push(Vertex {
            position: [v.x.0, v.y.0, v.z.0],
            skin,
        });
    }

    fn finish(self) -> Mesh {
        let n = self.vertices.len();
        let mut sets = vec![vec![InfluenceSet::ZERO; n]; self.set_count - 1];
        for (v, extra) in self.extra {
            for (set, value) in sets.iter_mut().zip(extra) {
                if let Some(slot) = set.get_mut(v) {
                    *slot = value;
                }
            }
        }
        let (skinned, vertices) = (self.skinned, self.vertices);
        Mesh::from_parts(skinned, vertices, sets).unwrap_or_default()
    }
}

/// Reads an array of vertices into a [`MeshBuilder`].
struct VerticesSeed<'l> {
    limits: &'l Limits,
}

impl<'de> DeserializeSeed<'de> for VerticesSeed<'_> {
    type Value = MeshBuilder;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<MeshBuilder, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for VerticesSeed<'_> {
    type Value = MeshBuilder;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of vertex objects")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<MeshBuilder, A::Error> {
        let mut b = MeshBuilder::new();
        loop {
            if let Err(e) = self.limits.check_vertices(b.vertices.len() as u64 + 1) {
                if seq.next_element::<IgnoredAny>()?.is_some() {
                    return Err(limit_error(e));
                }
                return Ok(b);
            }
            match seq.next_element_seed(VertexSeed {
                limits: self.limits,
            })? {
                Some(v) => b.push(v),
                None => return Ok(b),
            }
        }
    }
}

/// Reads the `bone` array.
struct BonesSeed<'l> {
    limits: &'l Limits,
}

impl<'de> DeserializeSeed<'de> for BonesSeed<'_> {
    type Value = Skeleton;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Skeleton, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for BonesSeed<'_> {
    type Value = Skeleton;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of bone objects")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Skeleton, A::Error> {
        let mut bones = Vec::new();
        loop {
            if let Err(e) = self.limits.check_bones(bones.len() as u64 + 1) {
                if seq.next_element::<IgnoredAny>()?.is_some() {
                    return Err(limit_error(e));
                }
                return Ok(Skeleton { bones });
            }
            match seq.next_element::<JsonBone>()? {
                Some(b) => bones.push(bone_from_json(b)),
                None => return Ok(Skeleton { bones }),
            }
        }
    }
}

fn bone_from_json(b: JsonBone) -> Bone {
    let mut bone = Bone::new(b.name, b.parent_index.map(|p| p.0));
    if let Some(p) = b.position {
        bone.position = [p.x.0, p.y.0, p.z.0];
    }
    if let Some(r) = b.rotation {
        bone.rotation = [r.x.0, r.y.0, r.z.0, r.w.0];
    }
    if let Some(s) = b.scale {
        bone.scale = [s.x.0, s.y.0, s.z.0];
    }
    bone
}

// ---------------------------------------------------------------------------------------
// The whole text

struct FileSeed<'l> {
    limits: &'l Limits,
}

impl<'de> DeserializeSeed<'de> for FileSeed<'_> {
    type Value = JsonFile;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<JsonFile, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for FileSeed<'_> {
    type Value = JsonFile;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a vertex object, an array of vertex objects, or a DMX document")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<JsonFile, A::Error> {
        let b = VerticesSeed {
            limits: self.limits,
        }
        .visit_seq(seq)?;
        Ok(JsonFile {
            form: Form::Array,
            document: Document {
                mesh: b.finish(),
                skeleton: None,
            },
            foreign: Vec::new(),
            order: Vec::new(),
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<JsonFile, A::Error> {
        let mut fields = VertexFields::default();
        let mut vertex_keys: Vec<&'static str> = Vec::new();
        let mut has_type = false;
        let mut vertices: Option<MeshBuilder> = None;
        let mut skeleton: Option<Skeleton> = None;
        let mut foreign: Vec<(String, Box<RawValue>)> = Vec::new();
        let mut names = MemberNames::default();
        let mut order = Vec::new();
        while let Some(key) = map.next_key::<Key>()? {
            match &key {
                Key::Type => {
                    if has_type {
                        map.next_value_seed(Fail(Detail::plain("duplicate field `type`")))?;
                    }
                    let t: String = map.next_value()?;
                    if t != DOCUMENT_TYPE {
                        return Err(located(
                            "/type",
                            format_args!("document type is {t:?}; expected {DOCUMENT_TYPE:?}"),
                        ));
                    }
                    has_type = true;
                    order.push(DocKey::Type);
                }
                Key::Vertex => {
                    if vertices.is_some() {
                        map.next_value_seed(Fail(Detail::plain("duplicate field `vertex`")))?;
                    }
                    vertices = Some(map.next_value_seed(VerticesSeed {
                        limits: self.limits,
                    })?);
                    order.push(DocKey::Vertex);
                }
                Key::Bone => {
                    if skeleton.is_some() {
                        map.next_value_seed(Fail(Detail::plain("duplicate field `bone`")))?;
                    }
                    skeleton = Some(map.next_value_seed(BonesSeed {
                        limits: self.limits,
                    })?);
                    order.push(DocKey::Bone);
                }
                Key::Other(name) => {
                    if !names.insert(name) {
                        map.next_value_seed(Fail(Detail::plain(format!(
                            "duplicate field `{name}`"
                        ))))?;
                    }
                    let raw: Box<RawValue> = map.next_value()?;
                    order.push(DocKey::Foreign(foreign.len()));
                    foreign.push((name.clone(), raw));
                }
                vertex_key => {
                    let name = match vertex_key {
                        Key::X => "x",
                        Key::Y => "y",
                        Key::Z => "z",
                        Key::SkinIndex => "skinIndex",
                        Key::SkinWeight => "skinWeight",
                        _ => "skinSets",
                    };
                    if has_type {
                        map.next_value_seed(Fail(Detail::plain(format!(
                            "vertex field `{name}` at document level; vertices belong in `vertex`"
                        ))))?;
                    }
                    fields.accept(vertex_key, &mut map, self.limits)?;
                    vertex_keys.push(name);
                }
            }
        }
        members_agree::<A::Error>(has_type, &vertex_keys, &order, &foreign)?;
        if has_type {
            let mesh = vertices
                .ok_or_else(|| de::Error::missing_field("vertex"))?
                .finish();
            Ok(JsonFile {
                form: Form::Document,
                document: Document { mesh, skeleton },
                foreign,
                order,
            })
        } else {
            let v = fields.finish()?;
            let mut b = MeshBuilder::new();
            b.push(v);
            Ok(JsonFile {
                form: Form::Vertex,
                document: Document {
                    mesh: b.finish(),
                    skeleton: None,
                },
                foreign: Vec::new(),
                order: Vec::new(),
            })
        }
    }
}

/// Refuses a top-level object whose members mix the two shapes: vertex fields beside
/// `"type"` (a document's vertices belong in `vertex`), or document members without the
/// `"type"` that makes it a document.
fn members_agree<E: de::Error>(
    has_type: bool,
    vertex_keys: &[&'static str],
    order: &[DocKey],
    foreign: &[(String, Box<RawValue>)],
) -> Result<(), E> {
    if has_type {
        if let Some(name) = vertex_keys.first() {
            return Err(located(
                &format!("/{name}"),
                format_args!(
                    "vertex field `{name}` at document level; vertices belong in `vertex`"
                ),
            ));
        }
    } else {
        if let Some(k) = order.iter().find(|k| **k != DocKey::Type) {
            let name = match k {
                DocKey::Vertex => "vertex",
                DocKey::Bone => "bone",
                DocKey::Foreign(i) => foreign.get(*i).map_or("?", |(n, _)| n.as_str()),
                DocKey::Type => "type",
            };
            let mut ptr = String::new();
            push_token(&mut ptr, name);
            let msg = if vertex_keys.is_empty() {
                format!(
                    "object has `{name}` but no `\"type\": \"{DOCUMENT_TYPE}\"`; a DMX document needs both"
                )
            } else {
                unknown_field(name, VERTEX_FIELDS)
            };
            return Err(located(&ptr, msg));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
