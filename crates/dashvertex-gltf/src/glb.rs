//! The GLB container: a 12-byte header, a JSON chunk and an optional BIN chunk.

use crate::error::LoadError;

/// `glTF`.
pub(crate) const MAGIC: [u8; 4] = *b"glTF";
/// Chunk type of the JSON chunk.
pub(crate) const JSON: u32 = 0x4E4F_534A;
/// Chunk type of the BIN chunk.
pub(crate) const BIN: u32 = 0x004E_4942;

/// The chunks of a GLB file.
#[derive(Debug)]
pub(crate) struct Chunks<'a> {
    /// The JSON text bytes.
    pub json: &'a [u8],
    /// Offset of the JSON text in the file.
    pub json_offset: u64,
    /// The BIN chunk, if any.
    pub bin: Option<&'a [u8]>,
    /// Offset of the BIN data in the file.
    pub bin_offset: u64,
    /// Bytes after the length the header declares (padding some writers leave; the
    /// chunks are read within the declared length).
    pub extra: u64,
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    b.get(at..at + 4)
        .and_then(|s| s.try_into().ok())
        .map(u32::from_le_bytes)
}

fn err(offset: u64, message: impl Into<String>) -> LoadError {
    LoadError::Glb {
        offset,
        message: message.into(),
    }
}

/// True when the bytes start with the GLB magic.
pub fn is_glb(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

/// Splits a GLB file into its chunks.
pub(crate) fn split(bytes: &[u8]) -> Result<Chunks<'_>, LoadError> {
    if bytes.len() < 12 {
        return Err(err(
            bytes.len() as u64,
            "file shorter than the 12-byte GLB header",
        ));
    }
    if !is_glb(bytes) {
        return Err(err(0, "magic is not \"glTF\""));
    }
    let version = u32_at(bytes, 4).unwrap_or(0);
    if version != 2 {
        return Err(err(4, format!("unsupported GLB version {version}")));
    }
    let length = u64::from(u32_at(bytes, 8).unwrap_or(0));
    if length > bytes.len() as u64 {
        return Err(err(
            8,
            format!(
                "header length {length} exceeds the file's {} bytes",
                bytes.len()
            ),
        ));
    }
    // A declared length that leaves room for no chunk is an error; bytes after a declared
    // length that holds the chunks are extra data (a warning of the validator).
    if length < 20 && length < bytes.len() as u64 {
        return Err(err(
            8,
            format!(
                "header length {length} is less than the file's {} bytes",
                bytes.len()
            ),
        ));
    }
    // The checks above leave 20 <= length <= bytes.len(), or length == bytes.len().
    let end = usize::try_from(length)
        .unwrap_or(bytes.len())
        .min(bytes.len());
    let extra = bytes.len().saturating_sub(end) as u64;
    let mut pos = 12usize;
    let mut json = None;
    let mut bin = None;
    let mut index = 0;
    while pos < end {
        let (Some(len), Some(kind)) = (u32_at(bytes, pos), u32_at(bytes, pos + 4)) else {
            return Err(err(pos as u64, "truncated chunk header"));
        };
        if len == 0 {
            return Err(err(
                pos as u64,
                "a chunk of length 0; every GLB chunk holds data",
            ));
        }
        let data_start = pos + 8;
        let data_end = data_start
            .checked_add(len as usize)
            .filter(|&e| e <= end)
            .ok_or_else(|| {
                err(
                    pos as u64,
                    format!("chunk of {len} bytes runs past the end"),
                )
            })?;
        if len % 4 != 0 {
            return Err(err(
                pos as u64,
                format!("chunk length {len} is not a multiple of 4"),
            ));
        }
        let data = bytes.get(data_start..data_end).unwrap_or_default();
        match (index, kind) {
            (0, JSON) => json = Some((data, data_start as u64)),
            (0, _) => return Err(err(pos as u64 + 4, "the first chunk is not JSON")),
            (1, BIN) => bin = Some((data, data_start as u64)),
            (_, JSON) => return Err(err(pos as u64 + 4, "a second JSON chunk")),
            (_, BIN) => {
                return Err(err(
                    pos as u64 + 4,
                    "a BIN chunk that is not the second chunk (duplicate or out of order)",
                ));
            }
            _ => {} // Unknown chunks are ignored, as the specification asks.
        }
        index += 1;
        pos = data_end + (4 - data_end % 4) % 4;
    }
    let Some((json, json_offset)) = json else {
        return Err(err(12, "no JSON chunk"));
    };
    Ok(Chunks {
        json,
        json_offset,
        bin: bin.map(|b| b.0),
        bin_offset: bin.map_or(0, |b| b.1),
        extra,
    })
}

/// A GLB's lengths, checked: the file must stay under 4 GiB, as the format requires (its
/// header lengths are 32-bit). Chunks are padded to 4 bytes, JSON with spaces and BIN with
/// zeros.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    /// The whole file.
    pub total: u32,
    /// The JSON chunk, padded.
    pub json: u32,
    /// The BIN chunk, padded, when there is one.
    pub bin: Option<u32>,
}

/// The file would be 4 GiB or more.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a GLB file must be smaller than 4 GiB (its lengths are 32-bit)")]
pub struct TooLarge;

/// Bytes of padding after `n` bytes to reach a multiple of 4.
pub fn pad(n: usize) -> usize {
    (4 - n % 4) % 4
}

impl Frame {
    /// The lengths of a GLB holding `json_len` bytes of JSON and, when given, a binary
    /// chunk of `bin_len` bytes (before padding).
    pub fn new(json_len: usize, bin_len: Option<usize>) -> Result<Self, TooLarge> {
        let json = json_len.checked_add(pad(json_len)).ok_or(TooLarge)?;
        let bin = bin_len
            .map(|b| b.checked_add(pad(b)).ok_or(TooLarge))
            .transpose()?;
        let total = json
            .checked_add(20)
            .and_then(|t| t.checked_add(bin.map_or(Some(0), |b| b.checked_add(8))?))
            .ok_or(TooLarge)?;
        let as_u32 = |n: usize| u32::try_from(n).map_err(|_| TooLarge);
        Ok(Frame {
            total: as_u32(total)?,
            json: as_u32(json)?,
            bin: bin.map(as_u32).transpose()?,
        })
    }

    /// Appends the header, the padded JSON chunk and, when there is one, the BIN chunk's
    /// header: the caller appends the binary data, then [`Frame::finish`] pads it.
    pub fn start(&self, out: &mut Vec<u8>, json: &[u8]) {
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&self.total.to_le_bytes());
        out.extend_from_slice(&self.json.to_le_bytes());
        out.extend_from_slice(&JSON.to_le_bytes());
        out.extend_from_slice(json);
        out.resize(out.len() + pad(json.len()), b' ');
        if let Some(b) = self.bin {
            out.extend_from_slice(&b.to_le_bytes());
            out.extend_from_slice(&BIN.to_le_bytes());
        }
    }

    /// Pads the file to its total length with zeros (the end of the BIN chunk).
    pub fn finish(&self, out: &mut Vec<u8>) {
        out.resize(self.total as usize, 0);
    }
}

/// Builds a GLB file from a JSON text and binary data (each chunk padded to 4 bytes,
/// JSON with spaces and BIN with zeros); refused when it would be 4 GiB or more.
pub fn build(json: &[u8], bin: Option<&[u8]>) -> Result<Vec<u8>, TooLarge> {
    let frame = Frame::new(json.len(), bin.map(<[u8]>::len))?;
    let mut out = Vec::with_capacity(frame.total as usize);
    frame.start(&mut out, json);
    if let Some(b) = bin {
        out.extend_from_slice(b);
    }
    frame.finish(&mut out);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_padded_and_checked() {
        let out = build(b"{}", Some(&[1, 2, 3])).unwrap_or_default();
        // 12 header + 8 + 4 (JSON "{}" and two spaces) + 8 + 4 (three bytes and a zero).
        assert_eq!(out.len(), 36);
        assert_eq!(out.get(8..12), Some(&36u32.to_le_bytes()[..]));
        assert_eq!(out.get(20..24), Some(&b"{}  "[..]));
        assert_eq!(out.get(32..36), Some(&[1, 2, 3, 0][..]));
        let f = Frame::new(5, None).unwrap_or(Frame {
            total: 0,
            json: 0,
            bin: None,
        });
        assert_eq!((f.total, f.json, f.bin), (28, 8, None));
        assert_eq!(Frame::new(u32::MAX as usize, None), Err(TooLarge));
        assert_eq!(Frame::new(16, Some(u32::MAX as usize - 40)), Err(TooLarge));
        assert!(Frame::new(16, Some(u32::MAX as usize - 60)).is_ok());
        assert_eq!(Frame::new(usize::MAX, Some(usize::MAX)), Err(TooLarge));
    }
}
