//! How a written glTF's images reach their files: the mode a job is asked for
//! (`--resources`, `resources=`); [`crate::resources`] carries it out.

/// How a written glTF's images (by relative or data URI) reach their bytes
/// (`--resources`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Resources {
    /// The mode that makes the output open where it is: [`Resources::Embed`] for a
    /// `.glb`, a `.gltf` whose buffers are embedded or one on standard output;
    /// [`Resources::Copy`] for a `.gltf` written to another folder; nothing changes for a
    /// `.gltf` in the input's folder.
    #[default]
    Auto,
    /// Copy the files beside the output, keeping their relative layout.
    Copy,
    /// Embed them: buffer views of a `.glb`'s binary chunk (data URIs decoded too), data
    /// URIs in a `.gltf`.
    Embed,
    /// Rewrite the URIs to reach the originals from the output's folder.
    Reference,
}

impl Resources {
    /// The mode's name, as the options spell it.
    pub fn keyword(self) -> &'static str {
        match self {
            Resources::Auto => "auto",
            Resources::Copy => "copy",
            Resources::Embed => "embed",
            Resources::Reference => "reference",
        }
    }
}

impl std::str::FromStr for Resources {
    type Err = String;

    /// A mode by its keyword (`auto`, `copy`, `embed`, `reference`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        [
            Resources::Auto,
            Resources::Copy,
            Resources::Embed,
            Resources::Reference,
        ]
        .into_iter()
        .find(|m| m.keyword() == s)
        .ok_or_else(|| format!("{s:?} is not a resources mode; use auto, copy, embed or reference"))
    }
}
