//! Telling FBX from its first bytes.

/// The magic of binary FBX: `Kaydara FBX Binary`, two spaces and a NUL.
pub const BINARY_MAGIC: &[u8] = b"Kaydara FBX Binary  \0";

/// True when `head` (the first bytes of a file; 64 are plenty) is FBX: the binary magic,
/// or ASCII FBX text, which opens (after an optional byte order mark and white space)
/// with its `; FBX` comment header or its `FBXHeaderExtension` node.
///
/// ```
/// assert!(dashvertex_fbx::is_fbx(b"Kaydara FBX Binary  \0\x1a\0\xe8\x1c\0\0"));
/// assert!(dashvertex_fbx::is_fbx(b"; FBX 7.4.0 project file\n"));
/// assert!(!dashvertex_fbx::is_fbx(b"glTF"));
/// ```
pub fn is_fbx(head: &[u8]) -> bool {
    if head.starts_with(BINARY_MAGIC) {
        return true;
    }
    let text = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let start = text
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(text.len());
    let text = text.get(start..).unwrap_or_default();
    text.starts_with(b"; FBX") || text.starts_with(b"FBXHeaderExtension")
}

/// True when `head` is binary FBX (rather than ASCII).
pub fn is_binary(head: &[u8]) -> bool {
    head.starts_with(BINARY_MAGIC)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_and_ascii_heads_are_told() {
        // spec: FB1
        assert!(is_fbx(BINARY_MAGIC));
        assert!(is_binary(BINARY_MAGIC));
        assert!(is_fbx(b"\xEF\xBB\xBF  \n; FBX 6.1.0 project file"));
        assert!(is_fbx(b"FBXHeaderExtension:  {"));
        assert!(!is_binary(b"; FBX 7.4.0"));
        // A truncated magic, JSON and DMX are not FBX.
        assert!(!is_fbx(b"Kaydara FBX Binary"));
        assert!(!is_fbx(b"{\"asset\": {}}"));
        assert!(!is_fbx(b"DMX\0"));
        assert!(!is_fbx(b""));
    }
}
