//! The two number types of the JSON form: a finite binary32 float and a bone index.
//!
//! Both accept exactly what their JSON Schema accepts (`spec/dashvertex.md` §3.2):
//! [`F32`] any JSON number whose magnitude is at most `f32::MAX`, converted through the
//! nearest binary64; `BoneIndex` any JSON number with an integral value in
//! `0..=4294967295` (so `1.0` and `1e2` are indices, `1.5` and `-1` are not).

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, Deserialize, Deserializer, Visitor};

/// The smallest magnitude that no longer rounds to a finite binary32: `f32::MAX` plus half
/// an ulp (2^103). Readers accept numbers strictly below it in magnitude; the schema says
/// the same with `exclusiveMinimum` / `exclusiveMaximum`.
pub(crate) const F32_LIMIT: f64 = 3.402_823_567_797_336_6e38;

/// A finite binary32 number.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct F32(pub f32);

/// A bone index (an unsigned 32-bit integer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct BoneIndex(pub u32);

struct F32Visitor;

impl F32Visitor {
    #[allow(clippy::cast_possible_truncation)]
    fn from_f64<E: de::Error>(v: f64) -> Result<F32, E> {
        if v.is_finite() && v.abs() < F32_LIMIT {
            // Rounds to the nearest binary32, finite because |v| < F32_LIMIT.
            Ok(F32(v as f32))
        } else {
            Err(E::custom(format_args!(
                "number {v:e} is outside the binary32 range (it would round to infinity)"
            )))
        }
    }
}

impl Visitor<'_> for F32Visitor {
    type Value = F32;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a number")
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<F32, E> {
        Self::from_f64(v)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<F32, E> {
        Self::from_f64(v as f64)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<F32, E> {
        Self::from_f64(v as f64)
    }
}

impl<'de> Deserialize<'de> for F32 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_f64(F32Visitor)
    }
}

impl JsonSchema for F32 {
    fn schema_name() -> Cow<'static, str> {
        "Float32".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A finite IEEE-754 binary32 value. JSON cannot carry NaN or infinities; numbers beyond the binary32 range are invalid.",
            "type": "number",
            "exclusiveMinimum": -F32_LIMIT,
            "exclusiveMaximum": F32_LIMIT
        })
    }
}

struct IndexVisitor;

impl IndexVisitor {
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    fn from_f64<E: de::Error>(v: f64) -> Result<BoneIndex, E> {
        if v.fract() != 0.0 || !v.is_finite() {
            Err(E::custom(format_args!("bone index {v} is not an integer")))
        } else if v < 0.0 {
            Err(E::custom(format_args!("bone index {v} is negative")))
        } else if v > f64::from(u32::MAX) {
            Err(E::custom(format_args!(
                "bone index {v} does not fit in 32 bits"
            )))
        } else {
            // Exact: v is an integer in 0 ..= u32::MAX (checked above).
            Ok(BoneIndex(v as u32))
        }
    }
}

impl Visitor<'_> for IndexVisitor {
    type Value = BoneIndex;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a bone index (an integer from 0 to 4294967295)")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<BoneIndex, E> {
        u32::try_from(v)
            .map(BoneIndex)
            .map_err(|_| E::custom(format_args!("bone index {v} does not fit in 32 bits")))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<BoneIndex, E> {
        match u64::try_from(v) {
            Ok(u) => self.visit_u64(u),
            Err(_) => Err(E::custom(format_args!("bone index {v} is negative"))),
        }
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<BoneIndex, E> {
        Self::from_f64(v)
    }
}

impl<'de> Deserialize<'de> for BoneIndex {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_u64(IndexVisitor)
    }
}

impl JsonSchema for BoneIndex {
    fn schema_name() -> Cow<'static, str> {
        "BoneIndex".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A bone index: an integer from 0 to 4294967295 (an integral value such as 2.0 counts).",
            "type": "integer",
            "minimum": 0,
            "maximum": u32::MAX
        })
    }
}

/// Reads a decimal the way the specification says every reader does: to the nearest
/// binary64, then to the nearest binary32.
#[allow(clippy::cast_possible_truncation)]
pub(crate) fn two_step(text: &str) -> Option<f32> {
    // Rounding to the nearest binary32 is the second step (beyond its range: infinity).
    text.parse::<f64>().ok().map(|d| d as f32)
}

/// Writes a finite `f32` as a decimal that reads back to the same bits through the
/// two-step conversion of [`two_step`] (`spec/dashvertex.md` §2).
///
/// The text is Rust's shortest round-trip representation, except for the rare values whose
/// shortest decimal sits so close to a binary32 rounding midpoint that the binary64 step
/// moves it onto the midpoint (for example `7.038531e-26`); those are written correctly
/// rounded to the fewest significant digits (at most 9) that survive both steps. Plain
/// notation is used for magnitudes in `[1e-5, 1e9)` and zero, exponent notation otherwise;
/// `-0.0` is written `-0`. Returns `None` for NaN and infinities.
pub(crate) fn format_f32(v: f32, out: &mut String) -> Option<()> {
    use std::fmt::Write;
    if !v.is_finite() {
        return None;
    }
    if v == 0.0 && v.is_sign_negative() {
        // `-0` reads back as the integer 0 in many JSON readers (Python's among them),
        // losing the sign; `-0.0` keeps it in every reader.
        out.push_str("-0.0");
        return Some(());
    }
    let a = v.abs();
    let plain = a == 0.0 || (1e-5..1e9).contains(&a);
    let start = out.len();
    // Writing into a String cannot fail.
    let _ = if plain {
        write!(out, "{v}")
    } else {
        write!(out, "{v:e}")
    };
    if out
        .get(start..)
        .and_then(two_step)
        .is_some_and(|back| back.to_bits() == v.to_bits())
    {
        return Some(());
    }
    for digits in 1..=9usize {
        out.truncate(start);
        let _ = write!(out, "{v:.prec$e}", prec = digits - 1);
        if out
            .get(start..)
            .and_then(two_step)
            .is_some_and(|back| back.to_bits() == v.to_bits())
        {
            return Some(());
        }
    }
    Some(())
}

#[cfg(test)]
#[allow(clippy::cast_possible_truncation)]
mod tests {
    use super::*;

    fn f(v: f32) -> String {
        let mut s = String::new();
        format_f32(v, &mut s).unwrap();
        s
    }

    #[test]
    fn formatting_is_shortest_and_exact() {
        assert_eq!(f(0.0), "0");
        assert_eq!(f(-0.0), "-0.0");
        assert_eq!(f(1.0), "1");
        assert_eq!(f(0.1), "0.1");
        assert_eq!(f(f32::MAX), "3.4028235e38");
        assert_eq!(f(f32::from_bits(1)), "1e-45");
        // 0x15ae43fd: its shortest decimal 7.038531e-26 becomes a binary64 midpoint.
        assert_eq!(f(f32::from_bits(0x15ae_43fd)), "7.0385307e-26");
        for v in [
            0.1f32,
            -0.0,
            1e-45,
            f32::MAX,
            f32::MIN_POSITIVE,
            123456.79,
            3e9,
            f32::from_bits(0x15ae_43fd),
        ] {
            let back: f64 = f(v).parse().unwrap();
            assert_eq!((back as f32).to_bits(), v.to_bits(), "{v}");
        }
        let mut s = String::new();
        assert!(format_f32(f32::NAN, &mut s).is_none());
    }

    /// Every finite binary32 survives format → two-step read. Takes minutes in release
    /// mode: `cargo test -p dashvertex-json --release -- --ignored every_finite_f32`.
    #[test]
    #[ignore]
    fn every_finite_f32_roundtrips_through_binary64() {
        let mut s = String::new();
        let mut fixed = 0u64;
        for bits in 0..=u32::MAX {
            let v = f32::from_bits(bits);
            if !v.is_finite() {
                continue;
            }
            s.clear();
            format_f32(v, &mut s).unwrap();
            assert_eq!(two_step(&s).map(f32::to_bits), Some(bits), "{bits:#x} {s}");
            if s.parse::<f32>().map(f32::to_bits) == Ok(bits)
                && format!("{v}") != s
                && format!("{v:e}") != s
            {
                fixed += 1;
            }
        }
        println!("values written longer than their shortest form: {fixed}");
    }

    #[test]
    fn index_rules() {
        let ok = |t: &str| serde_json::from_str::<BoneIndex>(t).map(|b| b.0).ok();
        assert_eq!(ok("3"), Some(3));
        assert_eq!(ok("3.0"), Some(3));
        assert_eq!(ok("1e2"), Some(100));
        assert_eq!(ok("-0"), Some(0));
        assert_eq!(ok("4294967295"), Some(u32::MAX));
        assert_eq!(ok("4294967296"), None);
        assert_eq!(ok("1.5"), None);
        assert_eq!(ok("-1"), None);
        assert_eq!(ok("\"1\""), None);
    }

    #[test]
    fn limit_is_max_plus_half_ulp() {
        assert_eq!(F32_LIMIT, f64::from(f32::MAX) + 2f64.powi(103));
        assert!((F32_LIMIT as f32).is_infinite());
        let below = f64::from_bits(F32_LIMIT.to_bits() - 1);
        assert_eq!(below as f32, f32::MAX);
    }

    #[test]
    fn float_rules() {
        let ok = |t: &str| serde_json::from_str::<F32>(t).map(|b| b.0).ok();
        assert_eq!(ok("1e39"), None);
        assert_eq!(ok("-1e39"), None);
        assert_eq!(ok("3.4028235e38"), Some(f32::MAX));
        assert_eq!(ok("-0").map(f32::to_bits), Some((-0.0f32).to_bits()));
        assert_eq!(ok("1e400"), None);
        assert_eq!(ok("7"), Some(7.0));
    }
}
