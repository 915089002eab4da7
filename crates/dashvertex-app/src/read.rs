//! The filesystem side of a job's input: a file read by path (`-` for standard input),
//! its glTF resources resolved inside its folder, then opened as every front end opens
//! bytes ([`crate::input::open`]).

use std::path::Path;

use crate::error::{AppError, input_cause};
use crate::formats::Format;
use crate::input::{Context, Opened, Source, check_gltf_for, open, source_of_bytes};

/// Loads a reducer input. glTF is told by its name or, from standard input or under
/// another name, by its bytes; glTF from standard input has no folder, so it reads no
/// external file (spec/security.md §1).
pub fn load(path: &Path, ctx: &Context) -> Result<Source, AppError> {
    load_for(path, ctx, dashvertex_validate::Work::Skin)
}

/// [`load`] for a job that does `work` with a glTF input ([`read_source_for`]).
pub fn load_for(
    path: &Path,
    ctx: &Context,
    work: dashvertex_validate::Work,
) -> Result<Source, AppError> {
    match read_source_for(path, ctx, work)? {
        Opened::Gltf(g) => Ok(Source::Gltf(g)),
        Opened::Bytes(bytes) => source_of_bytes(path, &bytes, None, ctx),
    }
}

/// Loads a reducer input as [`load`] does, except that a GLB file is read without the
/// buffer views only carried accessors use ([`read_source_for_rewrite`]).
pub fn load_for_rewrite(
    path: &Path,
    ctx: &Context,
    rewrite: dashvertex_gltf::sparse::Rewrite,
    work: dashvertex_validate::Work,
) -> Result<Source, AppError> {
    match read_source_for_rewrite(path, ctx, rewrite, work)? {
        Opened::Gltf(g) => Ok(Source::Gltf(g)),
        Opened::Bytes(bytes) => source_of_bytes(path, &bytes, None, ctx),
    }
}

/// Reads an input as [`read_source`] does, except that a GLB file is read without the
/// buffer views only accessors `rewrite` carries use (NORMAL, TANGENT, TEXCOORD_n,
/// COLOR_n, indices, morph targets, and for a remap POSITION:
/// [`dashvertex_gltf::sparse`]): for a job that writes a GLB and
/// copies those into it unchanged ([`dashvertex_gltf::export::Written::holes`]), with
/// what that means for its checks (spec/security.md \[V2\]).
pub fn read_source_for_rewrite(
    path: &Path,
    ctx: &Context,
    rewrite: dashvertex_gltf::sparse::Rewrite,
    work: dashvertex_validate::Work,
) -> Result<Opened, AppError> {
    must_exist(path)?;
    if let Some(src) = dashvertex_fs::SpliceSource::open(path, ctx.limits.max_input_bytes)? {
        let mut magic = [0u8; 4];
        // A small file is read whole: a sparse read opens and parses more than it saves.
        if src.len() >= dashvertex_gltf::sparse::MIN_FILE
            && src.read_at(&mut magic, 0).is_ok()
            && &magic == b"glTF"
        {
            let mut gltf = dashvertex_gltf::sparse::load_source_for_rewrite(
                src,
                ctx.resource_dirs,
                &ctx.limits,
                rewrite,
            )
            .map_err(|e| input_cause(path, e))?;
            check_gltf_for(path, &mut gltf, ctx, work)?;
            let unread: u64 = gltf.unread(0).iter().map(|r| r.end - r.start).sum();
            if unread > 0 {
                ctx.detail(format_args!(
                    "{unread} of the input's {} bytes ({}) are copied into the output \
                     without being read",
                    gltf.input_len(),
                    rewrite.carried_names()
                ));
            }
            return Ok(Opened::Gltf(Box::new(gltf)));
        }
    }
    read_source_for(path, ctx, work)
}

/// Fails with an I/O error (exit 2) when `path` names no file or a folder: a missing
/// input is a problem with the command line, not invalid data.
pub fn must_exist(path: &Path) -> Result<(), AppError> {
    if path == Path::new("-") {
        return Ok(());
    }
    match std::fs::metadata(path) {
        Err(e) => Err(AppError::Io(format!("{}: {e}", path.display()))),
        Ok(m) if m.is_dir() => Err(AppError::Io(format!(
            "{}: is a folder; name a file",
            path.display()
        ))),
        Ok(_) => Ok(()),
    }
}

/// Reads `path` as [`Opened`] says.
pub fn read_source(path: &Path, ctx: &Context) -> Result<Opened, AppError> {
    read_source_for(path, ctx, dashvertex_validate::Work::Skin)
}

/// [`read_source`] for a job that does `work` with a glTF file: the errors that do not
/// touch that work do not refuse it ([`dashvertex_validate::refusal_for`]); a job that
/// only shows the file ([`dashvertex_validate::Work::Show`]) is refused nothing it can
/// read.
pub fn read_source_for(
    path: &Path,
    ctx: &Context,
    work: dashvertex_validate::Work,
) -> Result<Opened, AppError> {
    must_exist(path)?;
    let bytes = dashvertex_fs::read_input(path, ctx.limits.max_input_bytes)?;
    // From standard input there is no folder, so no external file is read
    // (spec/security.md §1); else only inside the file's folder and `resource_dirs`, and
    // only for glTF (the folders are not looked at for any other input).
    if path == Path::new("-") || !crate::input::is_gltf_input(path, &bytes) {
        open(path, bytes, &dashvertex_gltf::NoFiles, ctx, work)
    } else {
        let resolver = dashvertex_gltf::FsResolver::for_file(
            path,
            ctx.resource_dirs,
            ctx.limits.max_input_bytes,
        )?;
        open(path, bytes, &resolver, ctx, work)
    }
}

/// True when `path` names a file whose first bytes are FBX (false for standard input and
/// for anything that cannot be read: the reader then says why).
pub fn is_fbx_file(path: &Path) -> bool {
    use std::io::Read;
    // Only a regular file is peeked: opening a FIFO waits for a writer, and a device may
    // never end; the read that follows refuses those by name (spec/security.md [R2]).
    if path == Path::new("-") || !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut head = Vec::with_capacity(64);
    std::fs::File::open(path)
        .and_then(|f| f.take(64).read_to_end(&mut head))
        .is_ok()
        && Format::signature(&head) == Some(Format::Fbx)
}
