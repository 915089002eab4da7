//! Reading inputs and writing outputs atomically.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Reads a file, or standard input for `-`, refusing more than `max` bytes.
pub fn read_input(path: &Path, max: u64) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    if path == Path::new("-") {
        std::io::stdin()
            .take(max.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| format!("standard input: {e}"))?;
    } else {
        let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
        if meta.len() > max {
            return Err(format!(
                "{}: {} bytes exceeds the input limit of {max} bytes",
                path.display(),
                meta.len()
            ));
        }
        std::fs::File::open(path)
            .and_then(|f| f.take(max.saturating_add(1)).read_to_end(&mut bytes))
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if bytes.len() as u64 > max {
        return Err(format!(
            "{}: input exceeds the limit of {max} bytes",
            path.display()
        ));
    }
    Ok(bytes)
}

/// Writes `bytes` to `path` atomically: a temporary file in the same directory, flushed
/// and synced, then renamed over the destination. On any error the destination is left
/// as it was. `-` writes to standard output.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if path == Path::new("-") {
        let mut out = std::io::stdout().lock();
        return out
            .write_all(bytes)
            .and_then(|()| out.flush())
            .map_err(|e| format!("standard output: {e}"));
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".to_owned());
    let tmp = dir.join(format!(".{name}.dash-tmp-{}", std::process::id()));
    let result = (|| -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("{}: {e}", path.display()));
    }
    Ok(())
}
