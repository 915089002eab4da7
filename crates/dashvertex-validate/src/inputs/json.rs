//! DashVertex JSON input: decoded once with dashvertex-json; diagnostics located by JSON
//! Pointer and line:column.

use dashvertex_core::InfluenceSet;
use dashvertex_json::pointer::{Locator, push_token};
use dashvertex_json::{ErrorKind, Form, JsonError};

use crate::codes::Code;
use crate::diagnostic::{Diagnostic, Location};
use crate::influences::{Checker, Encoding, Field, Locate, MeshStats, Profile, Scratch};
use crate::options::Options;
use crate::sink::Sink;
use crate::skeleton::{self, BoneField};

/// Locates pointers in one JSON text.
pub struct JsonLocate<'a> {
    locator: Locator<'a>,
    prefix: &'static str,
    form: Form,
}

impl<'a> JsonLocate<'a> {
    /// A locator for a text of the given form.
    pub fn new(text: &'a str, form: Form) -> Self {
        JsonLocate {
            locator: Locator::new(text),
            prefix: if form == Form::Document {
                "/vertex"
            } else {
                ""
            },
            form,
        }
    }

    /// A location for `pointer`; when the text has no such value (a padded slot), the
    /// nearest enclosing value gives the line and column.
    pub fn at(&self, pointer: String, vertex: Option<u64>) -> Location {
        let (line, column) = self.locator.line_col_nearest(&pointer);
        Location {
            vertex,
            pointer: Some(pointer),
            line: Some(line as u64),
            column: Some(column as u64),
            ..Location::default()
        }
    }

    fn vertex_pointer(&self, v: u64) -> String {
        if self.form == Form::Vertex {
            String::new()
        } else {
            format!("{}/{v}", self.prefix)
        }
    }
}

impl Locate for JsonLocate<'_> {
    fn slot(&self, v: u64, set: usize, slot: usize, field: Field) -> Location {
        let name = match field {
            Field::Bone => "skinIndex",
            Field::Weight => "skinWeight",
        };
        let base = self.vertex_pointer(v);
        let pointer = if set == 0 {
            format!("{base}/{name}/{slot}")
        } else {
            format!("{base}/skinSets/{}/{name}/{slot}", set - 1)
        };
        Location {
            set: u32::try_from(set).ok(),
            slot: u32::try_from(slot).ok(),
            ..self.at(pointer, Some(v))
        }
    }

    fn weights(&self, v: u64) -> Location {
        self.at(format!("{}/skinWeight", self.vertex_pointer(v)), Some(v))
    }

    fn position(&self, v: u64) -> Location {
        self.at(format!("{}/x", self.vertex_pointer(v)), Some(v))
    }
}

/// The diagnostic for a decoding error.
pub fn decode_error(e: &JsonError) -> Diagnostic {
    let code = match (e.kind, e.rule.as_deref()) {
        (ErrorKind::Syntax, _) => Code::JSON_SYNTAX,
        (ErrorKind::Limit, _) => Code::LIMIT_EXCEEDED,
        (_, Some("J4")) => Code::SKIN_ARRAY_LENGTH,
        (_, Some("J3" | "J7")) => Code::SKIN_ARRAY_UNPAIRED,
        _ => Code::JSON_STRUCTURE,
    };
    Diagnostic::new(
        code,
        e.message.clone(),
        Location {
            pointer: Some(e.pointer.clone()),
            line: Some(e.line as u64),
            column: Some(e.column as u64),
            ..Location::default()
        },
    )
}

/// Validates a DashVertex JSON text. Returns the profile used.
pub fn validate(bytes: &[u8], opts: &Options, sink: &mut Sink) -> Profile {
    let profile = opts.profile.unwrap_or(Profile::Dash);
    let file = match dashvertex_json::decode_bytes(bytes, &opts.limits) {
        Ok(f) => f,
        Err(e) => {
            let d = decode_error(&e);
            sink.push(d.code, || d);
            return profile;
        }
    };
    // decode_bytes succeeded, so the bytes are UTF-8.
    let text = std::str::from_utf8(bytes).unwrap_or_default();
    let loc = JsonLocate::new(text, file.form);
    let doc = &file.document;
    if let Some(sk) = &doc.skeleton {
        skeleton::check(
            sk,
            &|i, field| {
                let mut p = format!("/bone/{i}");
                push_token(
                    &mut p,
                    match field {
                        BoneField::Name => "name",
                        BoneField::Parent => "parentIndex",
                        _ => "position",
                    },
                );
                Location {
                    bone: Some(i as u64),
                    ..loc.at(p, None)
                }
            },
            &|_| false,
            sink,
        );
    }
    let mesh = &doc.mesh;
    let bones = opts
        .bones
        .or_else(|| doc.skeleton.as_ref().map(|s| s.len() as u64));
    if mesh.is_skinned() && bones.is_none() {
        sink.report(
            Code::BONE_RANGE_UNCHECKED,
            || loc.at(String::new(), None),
            || "bone indices were not range-checked: the file has no skeleton",
        );
    }
    if let Some(n) = doc.skeleton.as_ref().map(|s| s.len()) {
        crate::influences::target_joints(
            opts.target,
            n,
            &|| loc.at("/bone".into(), None),
            "the skeleton",
            sink,
        );
    }
    let checker = Checker {
        profile,
        bones,
        removed: opts.removed_bones.as_slice().into(),
        foreign: Default::default(),
        names: Default::default(),
        skinned: mesh.is_skinned(),
        encoding: Encoding::Float,
        target: opts.target,
    };
    let mut stats = MeshStats::default();
    let mut scratch = Scratch::default();
    let mut sets: Vec<InfluenceSet> = Vec::with_capacity(mesh.set_count());
    for v in 0..mesh.len() {
        sets.clear();
        sets.extend(mesh.sets_of(v).copied());
        if mesh.is_skinned() {
            checker.vertex(v as u64, &sets, None, &loc, sink, &mut stats, &mut scratch);
        }
    }
    if mesh.is_skinned() {
        checker.mesh(
            &stats,
            mesh.set_count(),
            None,
            // At the first vertex the finding is about: with a target, the first with
            // weight in sets it does not read; else the first with influence data.
            &|s| {
                let v = stats.beyond.first.or(stats.first_with_data).unwrap_or(0);
                match s.checked_sub(1) {
                    Some(extra) => loc.at(
                        format!("{}/skinSets/{extra}", loc.vertex_pointer(v)),
                        Some(v),
                    ),
                    None => loc.at(format!("{}/skinIndex", loc.vertex_pointer(v)), Some(v)),
                }
            },
            sink,
        );
    }
    profile
}
