//! The 32-byte bone name field (`spec/dashvertex.md` §10.6, rule B6).

use crate::error::{BinaryError, ErrorKind};
use crate::format::NAME_SIZE;

/// Decodes a name field of bone `bone` whose record starts at `record`.
pub fn decode_name(field: &[u8; NAME_SIZE], bone: u32, record: u64) -> Result<String, BinaryError> {
    let Some(nul) = field.iter().position(|&b| b == 0) else {
        return Err(BinaryError::new(
            record + NAME_SIZE as u64 - 1,
            ErrorKind::NameNotTerminated { bone },
        ));
    };
    let (text, rest) = field.split_at(nul);
    let name = std::str::from_utf8(text).map_err(|e| {
        BinaryError::new(
            record + e.valid_up_to() as u64,
            ErrorKind::NameNotUtf8 { bone },
        )
    })?;
    if let Some(k) = rest.iter().position(|&b| b != 0) {
        return Err(BinaryError::new(
            record + (nul + k) as u64,
            ErrorKind::NameTrailingBytes { bone },
        ));
    }
    Ok(name.to_owned())
}

/// Encodes a name into the field, or says why it cannot be.
pub fn encode_name(name: &str) -> Result<[u8; NAME_SIZE], &'static str> {
    let bytes = name.as_bytes();
    if bytes.len() >= NAME_SIZE {
        return Err("longer than 31 bytes");
    }
    if bytes.contains(&0) {
        return Err("contains a NUL character");
    }
    let mut field = [0u8; NAME_SIZE];
    for (d, s) in field.iter_mut().zip(bytes) {
        *d = *s;
    }
    Ok(field)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_rules() {
        // spec: B6
        let mut f = [0u8; 32];
        f[..4].copy_from_slice(b"knee");
        assert_eq!(decode_name(&f, 0, 100).unwrap(), "knee");
        f[10] = 7;
        assert_eq!(decode_name(&f, 0, 100).unwrap_err().offset, 110);
        let full = [b'a'; 32];
        assert_eq!(decode_name(&full, 3, 0).unwrap_err().offset, 31);
        let mut bad = [0u8; 32];
        bad[0] = b'a';
        bad[1] = 0xFF;
        assert_eq!(
            decode_name(&bad, 1, 80).unwrap_err(),
            BinaryError::new(81, ErrorKind::NameNotUtf8 { bone: 1 })
        );
        assert!(encode_name(&"x".repeat(31)).is_ok());
        assert!(encode_name(&"x".repeat(32)).is_err());
        assert!(encode_name("a\0b").is_err());
    }
}
