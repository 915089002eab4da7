//! Outputs that would overwrite an input: refused before anything is read.
//!
//! Two paths name the same file when, following symlinks, they reach one file (same
//! device and inode: this also catches hard links and every spelling, `./m.json`,
//! `a/../m.json`); for a file that does not exist yet, when they lead to the same name in
//! the same canonical folder. Special files (`/dev/null`, a FIFO) are never an alias:
//! writing to them replaces nothing. Standard output (`-` as an output) and standard input
//! (`-` as an input) are the file they are redirected to: `-o - >> in.glb` appends to the
//! input, and is refused like `-o in.glb`.

use std::path::{Path, PathBuf};

use crate::error::FsError;
use crate::output::follow_links;

/// What a path finally names, for comparing two paths.
#[derive(Debug, PartialEq, Eq)]
enum Identity {
    /// An existing regular file.
    Inode(u64, u64),
    /// A file not there yet: its canonical folder and name.
    Path(PathBuf),
}

/// Which standard stream `-` stands for.
#[derive(Clone, Copy)]
enum Stream {
    In,
    Out,
}

/// The regular file a standard stream is redirected to, if it is one.
fn stream_identity(stream: Stream) -> Option<Identity> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        use std::os::unix::fs::MetadataExt;
        // A duplicate of the descriptor, looked at and closed: the stream is untouched.
        let fd = match stream {
            Stream::In => std::io::stdin().as_fd().try_clone_to_owned(),
            Stream::Out => std::io::stdout().as_fd().try_clone_to_owned(),
        }
        .ok()?;
        let meta = std::fs::File::from(fd).metadata().ok()?;
        meta.is_file()
            .then(|| Identity::Inode(meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = stream;
        None
    }
}

fn identity(path: &Path, stream: Stream) -> Option<Identity> {
    if path.as_os_str() == "-" {
        return stream_identity(stream);
    }
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt;
                Some(Identity::Inode(meta.dev(), meta.ino()))
            }
            #[cfg(not(unix))]
            {
                std::fs::canonicalize(path).ok().map(Identity::Path)
            }
        }
        Ok(_) => None,
        Err(_) => {
            let real = follow_links(path).ok()?;
            let name = real.file_name()?;
            let dir = match real.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            let dir = std::fs::canonicalize(dir).ok()?;
            Some(Identity::Path(dir.join(name)))
        }
    }
}

/// A file a command reads or writes, and how the user named it (`-o`, `--manifest`, "the
/// input"), for the message.
pub type Named<'a> = (&'a str, &'a Path);

/// Fails with [`FsError::Alias`] when an output names the same file as an input, or as
/// another output (the first such pair, in the order given).
pub fn refuse_aliases(outputs: &[Named<'_>], inputs: &[Named<'_>]) -> Result<(), FsError> {
    let outs: Vec<Option<Identity>> = outputs
        .iter()
        .map(|(_, p)| identity(p, Stream::Out))
        .collect();
    let ins: Vec<Option<Identity>> = inputs
        .iter()
        .map(|(_, p)| identity(p, Stream::In))
        .collect();
    let named = |p: &Path, stream: &str| {
        if p.as_os_str() == "-" {
            PathBuf::from(format!("- (standard {stream}, redirected to that file)"))
        } else {
            p.to_path_buf()
        }
    };
    let alias = |(role, path): &Named<'_>, (other_role, other): &Named<'_>| FsError::Alias {
        output: named(path, "output"),
        role: (*role).to_owned(),
        other: named(other, "input"),
        other_role: (*other_role).to_owned(),
    };
    for (i, (out, id)) in outputs.iter().zip(&outs).enumerate() {
        let Some(id) = id else { continue };
        for (input, other) in inputs.iter().zip(&ins) {
            if other.as_ref() == Some(id) {
                return Err(alias(out, input));
            }
        }
        for (later, other) in outputs.iter().zip(&outs).skip(i + 1) {
            // Two outputs to standard output share one stream, not one file.
            let both_stdout = out.1.as_os_str() == "-" && later.1.as_os_str() == "-";
            if other.as_ref() == Some(id) && !both_stdout {
                return Err(alias(out, later));
            }
        }
    }
    Ok(())
}

#[cfg(all(test, unix))]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_of_one_file_is_an_alias() {
        let d = std::env::temp_dir().join(format!("dash-fs-alias-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("sub")).unwrap();
        std::fs::write(d.join("m.json"), b"{}").unwrap();
        std::fs::hard_link(d.join("m.json"), d.join("hard.json")).unwrap();
        std::os::unix::fs::symlink("../m.json", d.join("sub/link.json")).unwrap();
        std::os::unix::fs::symlink("../new.json", d.join("sub/dangling.json")).unwrap();
        let m = d.join("m.json");
        for spelling in ["hard.json", "sub/link.json", "sub/../m.json", "./m.json"] {
            let out = d.join(spelling);
            let e = refuse_aliases(&[("-o", &out)], &[("--manifest", &m)]).unwrap_err();
            assert!(e.to_string().contains("--manifest"), "{spelling}: {e}");
        }
        // Not there yet: the same name in the same folder.
        let new = d.join("new.json");
        let dangling = d.join("sub/dangling.json");
        assert!(refuse_aliases(&[("-o", &new), ("--report", &dangling)], &[]).is_err());
        // Different files, standard output and devices are fine.
        let other = d.join("other.json");
        refuse_aliases(&[("-o", &other)], &[("the input", &m)]).unwrap();
        refuse_aliases(&[("-o", Path::new("-"))], &[("the input", Path::new("-"))]).unwrap();
        refuse_aliases(
            &[
                ("-o", Path::new("/dev/null")),
                ("--report", Path::new("/dev/null")),
            ],
            &[],
        )
        .unwrap();
        std::fs::remove_dir_all(&d).unwrap();
    }
}
