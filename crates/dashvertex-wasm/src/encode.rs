//! Writing a decoded (or reduced) file back as DMX, raw records or JSON, through
//! `dashvertex-formats`' lossless writer: what the target cannot hold is refused.

use dashvertex_formats::SaveOptions;

use crate::failure::Failure;
use crate::model::{Decoded, parse_format};

/// The bytes of `decoded` written as `format` (`"dmx"`, `"json"` or `"raw"`).
pub fn encode(decoded: &Decoded, format: &str) -> Result<Vec<u8>, Failure> {
    let format = parse_format(format)?;
    dashvertex_formats::save(decoded.loaded(), format, &SaveOptions::default())
        .map_err(|e| Failure::new(Failure::ENCODE, e.to_string()))
}
