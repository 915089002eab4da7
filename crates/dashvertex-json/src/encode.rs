//! [`JsonFile`] → canonical JSON text.
//!
//! The output is deterministic: one vertex or bone per line, members in a fixed order,
//! every set written with four slots, numbers in their shortest exact form
//! ([`format_f32`]). Document members dash does not model are written back with their
//! original text.

use dashvertex_core::{Bone, Document, InfluenceSet, Mesh};

use crate::decode::{DocKey, Form, JsonFile};
use crate::error::EncodeError;
use crate::number::format_f32;
use crate::wire::DOCUMENT_TYPE;

/// Writes `file` in its own form, widened when the content needs it: a single-vertex text
/// with other than one vertex becomes an array, and an array that carries a skeleton
/// becomes a document.
pub fn encode(file: &JsonFile) -> Result<String, EncodeError> {
    let mut form = file.form;
    if form == Form::Vertex && file.document.mesh.len() != 1 {
        form = Form::Array;
    }
    if form != Form::Document && (file.document.skeleton.is_some() || !file.foreign.is_empty()) {
        form = Form::Document;
    }
    let mut w = Writer {
        out: String::new(),
        // JSON cannot say "unskinned, with skin data": such data is written (and reads back
        // as a skinned mesh) rather than dropped (spec §6).
        skinned: file.document.mesh.is_skinned() || file.document.mesh.has_skin_bits(),
    };
    match form {
        Form::Vertex => {
            w.vertex(&file.document.mesh, 0, At("", None))?;
            w.out.push('\n');
        }
        Form::Array => {
            w.vertices(&file.document.mesh, "", "")?;
            w.out.push('\n');
        }
        Form::Document => {
            let order = if file.order.is_empty() {
                JsonFile::new_document(Document::default()).order
            } else {
                file.order.clone()
            };
            w.document(file, &order)?;
        }
    }
    Ok(w.out)
}

/// Writes `document` as a new DMX document (with empty `material` and `face`): the model
/// alone. A loaded file's members dash does not model are written back by [`encode`];
/// `dashvertex_formats::save` refuses to drop them in another format unless asked.
pub fn encode_document(document: &Document) -> Result<String, EncodeError> {
    encode(&JsonFile::new_document(document.clone()))
}

/// A vertex's JSON Pointer, built only when an error needs it.
#[derive(Clone, Copy)]
struct At<'a>(&'a str, Option<usize>);

impl std::fmt::Display for At<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.1 {
            Some(v) => write!(f, "{}/{v}", self.0),
            None => f.write_str(self.0),
        }
    }
}

struct Writer {
    out: String,
    skinned: bool,
}

impl Writer {
    fn num(&mut self, v: f32, pointer: impl FnOnce() -> String) -> Result<(), EncodeError> {
        format_f32(v, &mut self.out).ok_or_else(|| EncodeError::NonFinite {
            pointer: pointer(),
            value: v.to_string(),
        })
    }

    fn set(&mut self, s: &InfluenceSet, at: &dyn std::fmt::Display) -> Result<(), EncodeError> {
        self.out.push_str("\"skinIndex\": [");
        for (k, j) in s.joints.iter().enumerate() {
            if k > 0 {
                self.out.push_str(", ");
            }
            self.out.push_str(&j.to_string());
        }
        self.out.push_str("], \"skinWeight\": [");
        for (k, w) in s.weights.iter().enumerate() {
            if k > 0 {
                self.out.push_str(", ");
            }
            self.num(*w, || format!("{at}/skinWeight/{k}"))?;
        }
        self.out.push(']');
        Ok(())
    }

    fn vertex(&mut self, mesh: &Mesh, v: usize, at: At<'_>) -> Result<(), EncodeError> {
        let Some(vertex) = mesh.vertices().get(v) else {
            return Ok(());
        };
        self.out.push('{');
        for (name, value) in ["x", "y", "z"].iter().zip(vertex.position) {
            if *name != "x" {
                self.out.push_str(", ");
            }
            self.out.push('"');
            self.out.push_str(name);
            self.out.push_str("\": ");
            self.num(value, || format!("{at}/{name}"))?;
        }
        if self.skinned {
            self.out.push_str(", ");
            self.set(&vertex.skin, &at)?;
            if mesh.set_count() > 1 {
                self.out.push_str(", \"skinSets\": [");
                for (s, set) in mesh.sets_of(v).skip(1).enumerate() {
                    if s > 0 {
                        self.out.push_str(", ");
                    }
                    self.out.push('{');
                    self.set(set, &format_args!("{at}/skinSets/{s}"))?;
                    self.out.push('}');
                }
                self.out.push(']');
            }
        }
        self.out.push('}');
        Ok(())
    }

    fn vertices(&mut self, mesh: &Mesh, base: &str, indent: &str) -> Result<(), EncodeError> {
        if mesh.is_empty() {
            self.out.push_str("[]");
            return Ok(());
        }
        self.out.push_str("[\n");
        for v in 0..mesh.len() {
            self.out.push_str(indent);
            self.out.push_str("  ");
            self.vertex(mesh, v, At(base, Some(v)))?;
            if v + 1 < mesh.len() {
                self.out.push(',');
            }
            self.out.push('\n');
        }
        self.out.push_str(indent);
        self.out.push(']');
        Ok(())
    }

    fn vec(&mut self, names: &[&str], values: &[f32], at: &str) -> Result<(), EncodeError> {
        self.out.push('{');
        for (k, (name, v)) in names.iter().zip(values).enumerate() {
            if k > 0 {
                self.out.push_str(", ");
            }
            self.out.push('"');
            self.out.push_str(name);
            self.out.push_str("\": ");
            self.num(*v, || format!("{at}/{name}"))?;
        }
        self.out.push('}');
        Ok(())
    }

    fn bone(&mut self, b: &Bone, i: usize) -> Result<(), EncodeError> {
        let at = format!("/bone/{i}");
        self.out.push_str("{\"name\": ");
        self.out.push_str(&quote(&b.name));
        self.out.push_str(", \"parentIndex\": ");
        match b.parent {
            Some(p) => self.out.push_str(&p.to_string()),
            None => self.out.push_str("null"),
        }
        self.out.push_str(", \"position\": ");
        self.vec(&["x", "y", "z"], &b.position, &format!("{at}/position"))?;
        self.out.push_str(", \"rotation\": ");
        self.vec(
            &["x", "y", "z", "w"],
            &b.rotation,
            &format!("{at}/rotation"),
        )?;
        self.out.push_str(", \"scale\": ");
        self.vec(&["x", "y", "z"], &b.scale, &format!("{at}/scale"))?;
        self.out.push('}');
        Ok(())
    }

    fn document(&mut self, file: &JsonFile, order: &[DocKey]) -> Result<(), EncodeError> {
        let doc = &file.document;
        let mut members: Vec<DocKey> = order
            .iter()
            .copied()
            .filter(|k| match k {
                DocKey::Bone => doc.skeleton.is_some(),
                DocKey::Foreign(i) => *i < file.foreign.len(),
                _ => true,
            })
            .collect();
        for required in [DocKey::Type, DocKey::Vertex] {
            if !members.contains(&required) {
                members.insert(
                    if required == DocKey::Type {
                        0
                    } else {
                        members.len()
                    },
                    required,
                );
            }
        }
        if doc.skeleton.is_some() && !members.contains(&DocKey::Bone) {
            members.push(DocKey::Bone);
        }
        // Foreign members the order does not name follow, in their own order; which are
        // named is marked once (a search of the order per member was quadratic).
        let mut named = vec![false; file.foreign.len()];
        for k in &members {
            if let DocKey::Foreign(i) = k
                && let Some(slot) = named.get_mut(*i)
            {
                *slot = true;
            }
        }
        for (i, _) in named.iter().enumerate().filter(|(_, n)| !**n) {
            members.push(DocKey::Foreign(i));
        }
        self.out.push_str("{\n");
        for (n, key) in members.iter().enumerate() {
            self.out.push_str("  ");
            match key {
                DocKey::Type => {
                    self.out.push_str("\"type\": ");
                    self.out.push_str(&quote(DOCUMENT_TYPE));
                }
                DocKey::Vertex => {
                    self.out.push_str("\"vertex\": ");
                    self.vertices(&doc.mesh, "/vertex", "  ")?;
                }
                DocKey::Bone => {
                    self.out.push_str("\"bone\": ");
                    let bones = doc.skeleton.as_ref().map_or(&[][..], |s| &s.bones[..]);
                    if bones.is_empty() {
                        self.out.push_str("[]");
                    } else {
                        self.out.push_str("[\n");
                        for (i, b) in bones.iter().enumerate() {
                            self.out.push_str("    ");
                            self.bone(b, i)?;
                            if i + 1 < bones.len() {
                                self.out.push(',');
                            }
                            self.out.push('\n');
                        }
                        self.out.push_str("  ]");
                    }
                }
                DocKey::Foreign(i) => {
                    if let Some((k, v)) = file.foreign.get(*i) {
                        self.out.push_str(&quote(k));
                        self.out.push_str(": ");
                        self.out.push_str(v.get());
                    }
                }
            }
            if n + 1 < members.len() {
                self.out.push(',');
            }
            self.out.push('\n');
        }
        self.out.push_str("}\n");
        Ok(())
    }
}

fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned())
}
