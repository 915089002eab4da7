//! The formats and how a file's format is told.

use std::path::Path;

/// A file format dash reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Format {
    /// DashVertex JSON: a vertex, an array of vertices, or a DMX document.
    Json,
    /// The DMX binary container.
    Dmx,
    /// Bare 48-byte vertex records.
    Raw,
    /// glTF 2.0 JSON (`.gltf`).
    Gltf,
    /// The glTF 2.0 binary container (`.glb`).
    Glb,
    /// FBX, binary or ASCII (`.fbx`): read only (`dashvertex-fbx`), never written.
    Fbx,
}

/// What [`Format::detect`] found.
///
/// For the two text formats the first bytes cannot tell DashVertex JSON from glTF JSON;
/// [`Detected::read_text`] settles it once the whole text is at hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Detected {
    /// The format to read the file as; `None` when neither bytes nor name tell.
    pub format: Option<Format>,
    /// The format the name implies, when the bytes' signature contradicts it (to report).
    pub contradicted: Option<Format>,
    /// Whether the name decided (rather than a guess from the bytes).
    pub by_name: bool,
}

impl Detected {
    /// The format to read a whole text as, and the name's format when the text
    /// contradicts it (to report): a JSON text whose content is decisive
    /// ([`Format::text_kind`]) is read as what it holds; otherwise the name decides, and a
    /// text without a telling name is glTF when it has `asset` ([`Format::of_json`]).
    /// Formats other than JSON and glTF pass through.
    pub fn read_text(&self, text: &[u8]) -> (Option<Format>, Option<Format>) {
        match self.format {
            Some(f @ (Format::Json | Format::Gltf)) => match Format::text_kind(text) {
                Some(held) => (Some(held), (held != f && self.by_name).then_some(f)),
                None if self.by_name => (Some(f), None),
                None => (Some(Format::of_json(text)), None),
            },
            other => (other, None),
        }
    }
}

impl Format {
    /// Every format, in the order their names are listed to users.
    pub const ALL: [Format; 6] = [
        Format::Json,
        Format::Dmx,
        Format::Raw,
        Format::Gltf,
        Format::Glb,
        Format::Fbx,
    ];

    /// Lower-case name, as on the command line and in reports (`json`, `glb`).
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Dmx => "dmx",
            Format::Raw => "raw",
            Format::Gltf => "gltf",
            Format::Glb => "glb",
            Format::Fbx => "fbx",
        }
    }

    /// The format named `name` (ASCII case ignored).
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL
            .into_iter()
            .find(|f| f.as_str().eq_ignore_ascii_case(name))
    }

    /// What the format is called in a sentence (`a DMX container`).
    pub fn describe(self) -> &'static str {
        match self {
            Format::Json => "DashVertex JSON",
            Format::Dmx => "a DMX container",
            Format::Raw => "raw records",
            Format::Gltf => "glTF JSON",
            Format::Glb => "a GLB container",
            Format::Fbx => "FBX",
        }
    }

    /// glTF or GLB.
    pub fn is_gltf(self) -> bool {
        matches!(self, Format::Gltf | Format::Glb)
    }

    /// Text formats (read whole; told apart by their content).
    fn is_text(self) -> bool {
        matches!(self, Format::Json | Format::Gltf)
    }

    /// The format a file name's extension implies (ASCII case ignored).
    pub fn from_extension(path: &Path) -> Option<Format> {
        Format::from_name(path.extension()?.to_str()?)
    }

    /// The format the first bytes prove, when they carry a signature: the GLB, DMX or
    /// binary FBX magic, ASCII FBX's header, or JSON text (reported as [`Format::Json`]: telling glTF JSON needs the
    /// whole text, [`Format::of_json`]). Raw records have none.
    pub fn signature(head: &[u8]) -> Option<Format> {
        if dashvertex_gltf::glb::is_glb(head) {
            Some(Format::Glb)
        } else if head.starts_with(b"DMX\0") {
            Some(Format::Dmx)
        } else if dashvertex_fbx::is_fbx(head) {
            Some(Format::Fbx)
        } else {
            match head.iter().find(|b| !b.is_ascii_whitespace()) {
                Some(b'{' | b'[') => Some(Format::Json),
                _ => None,
            }
        }
    }

    /// A guess from the first bytes and the length, for a file whose name says nothing:
    /// a signature, else raw records when the length fits them.
    pub fn sniff(head: &[u8], len: u64) -> Option<Format> {
        Format::signature(head).or_else(|| match dashvertex_binary::detect(head, len) {
            Ok(dashvertex_binary::FileKind::Container) => Some(Format::Dmx),
            Ok(dashvertex_binary::FileKind::Raw) => Some(Format::Raw),
            Err(_) => None,
        })
    }

    /// The format of a file named `name` whose first bytes are `head` (of `len` in all):
    /// the bytes' signature when it contradicts the name, else the name's format, else a
    /// guess from the bytes. JSON text under a `.gltf` name, and the reverse, is not a
    /// contradiction: only the whole text tells them apart ([`Format::of_json`]).
    pub fn detect(name: &Path, head: &[u8], len: u64) -> Detected {
        let named = Format::from_extension(name);
        match (named, Format::signature(head)) {
            (Some(n), Some(s)) if n.is_text() != s.is_text() || (!n.is_text() && n != s) => {
                Detected {
                    format: Some(s),
                    contradicted: Some(n),
                    by_name: false,
                }
            }
            (Some(n), _) => Detected {
                format: Some(n),
                contradicted: None,
                by_name: true,
            },
            (None, _) => Detected {
                format: Format::sniff(head, len),
                contradicted: None,
                by_name: false,
            },
        }
    }

    /// glTF or DashVertex, for a JSON text: glTF when its outermost value is an object
    /// with an `asset` member (which DashVertex never has), DashVertex JSON otherwise.
    pub fn of_json(text: &[u8]) -> Format {
        match Format::text_kind(text) {
            Some(Format::Gltf) => Format::Gltf,
            _ => Format::Json,
        }
    }

    /// What a JSON text is, when its content says so: glTF for an object with an `asset`
    /// member; DashVertex JSON for an array of objects, or an object with `x`, `skinIndex` or
    /// `"type": "DashModelExchange"`; `None` for text that is not JSON or says neither (the
    /// name then decides). Used to read a text named as the other kind as what it holds.
    pub fn text_kind(text: &[u8]) -> Option<Format> {
        #[derive(serde::Deserialize)]
        struct Probe {
            asset: Option<serde::de::IgnoredAny>,
            x: Option<serde::de::IgnoredAny>,
            #[serde(rename = "skinIndex")]
            skin_index: Option<serde::de::IgnoredAny>,
            #[serde(rename = "type")]
            kind: Option<serde_json::Value>,
        }
        let mut bytes = text.iter().filter(|b| !b.is_ascii_whitespace());
        match bytes.next() {
            // An array of objects is DashVertex (a glTF root is an object); an empty array
            // or one of other values says nothing.
            Some(b'[') => return (bytes.next() == Some(&b'{')).then_some(Format::Json),
            Some(b'{') => {}
            _ => return None,
        }
        let p: Probe = serde_json::from_slice(text).ok()?;
        if p.asset.is_some() {
            Some(Format::Gltf)
        } else if p.x.is_some()
            || p.skin_index.is_some()
            || p.kind.as_ref().and_then(|k| k.as_str()) == Some("DashModelExchange")
        {
            Some(Format::Json)
        } else {
            None
        }
    }

    /// glTF (either container) whatever the name: the GLB magic, or glTF JSON.
    pub fn is_gltf_bytes(bytes: &[u8]) -> bool {
        dashvertex_gltf::glb::is_glb(bytes) || Format::of_json(bytes) == Format::Gltf
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detect(name: &str, head: &[u8]) -> Detected {
        Format::detect(Path::new(name), head, head.len() as u64)
    }

    #[test]
    fn bytes_win_over_a_contradicting_name() {
        let d = detect("mesh.json", b"DMX\0\x02\x00");
        assert_eq!(d.format, Some(Format::Dmx));
        assert_eq!(d.contradicted, Some(Format::Json));
        let d = detect("model.gltf", b"glTF\x02\0\0\0");
        assert_eq!(
            (d.format, d.contradicted),
            (Some(Format::Glb), Some(Format::Gltf))
        );
        let d = detect("a.dmx", b"  {\"x\": 0}");
        assert_eq!(
            (d.format, d.contradicted),
            (Some(Format::Json), Some(Format::Dmx))
        );
    }

    #[test]
    fn the_name_decides_what_bytes_cannot_tell() {
        // JSON under .gltf stays glTF (the text decides later); raw records have no magic.
        assert_eq!(detect("a.gltf", b"{}").format, Some(Format::Gltf));
        assert!(detect("a.gltf", b"{}").by_name);
        assert_eq!(detect("a.raw", &[0u8; 48]).format, Some(Format::Raw));
        assert_eq!(detect("a.JSON", b"[]").format, Some(Format::Json));
    }

    #[test]
    fn without_a_name_the_bytes_are_guessed() {
        assert_eq!(detect("-", b"[{}]").format, Some(Format::Json));
        assert_eq!(detect("-", &[0u8; 96]).format, Some(Format::Raw));
        assert_eq!(detect("-", b"garbage").format, None);
        assert_eq!(
            detect("-", b"Kaydara FBX Binary  \0\x1a\0").format,
            Some(Format::Fbx)
        );
        assert_eq!(
            detect("-", b"; FBX 7.4.0 project file").format,
            Some(Format::Fbx)
        );
        // FBX bytes under another name are FBX, said as a contradiction.
        let d = detect("char.glb", b"Kaydara FBX Binary  \0");
        assert_eq!(
            (d.format, d.contradicted),
            (Some(Format::Fbx), Some(Format::Glb))
        );
    }

    #[test]
    fn gltf_json_has_an_asset_member() {
        assert_eq!(
            Format::of_json(br#"{"asset": {"version": "2.0"}}"#),
            Format::Gltf
        );
        assert_eq!(
            Format::of_json(br#"{"x": 0, "y": 0, "z": 0}"#),
            Format::Json
        );
        assert_eq!(Format::of_json(br#"[{"asset": 1}]"#), Format::Json);
        assert!(Format::is_gltf_bytes(b"glTF\x02\0\0\0"));
    }

    #[test]
    fn fbx_is_read_but_never_written() {
        // spec: FB6
        let doc = dashvertex_core::Document::default();
        let loaded = crate::Loaded::Binary(dashvertex_binary::BinaryFile::new(doc));
        let e = crate::save(&loaded, Format::Fbx, &crate::SaveOptions::default()).unwrap_err();
        assert!(matches!(e, crate::SaveError::FbxOutput));
        assert!(e.to_string().contains("dash does not write FBX"), "{e}");
    }

    #[test]
    fn names_round_trip() {
        for f in Format::ALL {
            assert_eq!(Format::from_name(f.as_str()), Some(f));
            assert_eq!(Format::from_name(&f.as_str().to_uppercase()), Some(f));
        }
    }
}
