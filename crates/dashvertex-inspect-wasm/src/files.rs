//! The files a user drops together: which one is the document, and the others as the
//! buffers it names, held in memory.

use dashvertex_core::Limits;
use dashvertex_gltf::{Gltf, LoadError, MemoryFiles};
use dashvertex_validate::{Options, Report};

/// Dropped files: `(name, bytes)`, in the order given.
#[derive(Clone, Debug, Default)]
pub struct Dropped {
    /// The files.
    pub files: Vec<(String, Vec<u8>)>,
}

/// A name's extension, lower case.
fn extension(name: &str) -> String {
    name.rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default()
}

impl Dropped {
    /// The document among the files: the first `.gltf` or `.glb`, else the first file.
    pub fn main(&self) -> Option<usize> {
        self.files
            .iter()
            .position(|(n, _)| matches!(extension(n).as_str(), "gltf" | "glb"))
            .or(if self.files.is_empty() { None } else { Some(0) })
    }

    /// The other files, by name, for the document's `uri`s.
    fn resources(&self, main: usize) -> MemoryFiles<'_> {
        MemoryFiles {
            files: self
                .files
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != main)
                .map(|(_, (n, b))| (n.as_str(), b.as_slice()))
                .collect(),
        }
    }

    /// The report `dash-validate --format json NAME` prints for the document named `NAME`
    /// with the other files beside it (without the final newline).
    pub fn report_json(&self, opts: &Options) -> Option<String> {
        let main = self.main()?;
        let (name, bytes) = self.files.get(main)?;
        let mut file = dashvertex_validate::validate_with(name, bytes, &self.resources(main), opts);
        // Worded as dash-validate words it: the page's report is that command's.
        dashvertex_app::advice::word_report(&mut file, &dashvertex_app::CommandLine);
        serde_json::to_string_pretty(&Report::new(vec![file])).ok()
    }

    /// The document loaded with its buffers.
    pub fn load(&self) -> Option<Result<Gltf, LoadError>> {
        let main = self.main()?;
        let (_, bytes) = self.files.get(main)?;
        Some(dashvertex_gltf::load(
            bytes,
            &self.resources(main),
            &Limits::default(),
        ))
    }
}
