//! The filters applied after the attribute codec (Appendix B): octahedral, quaternion,
//! exponential, color. They work in place on the decoded bytes, in `f32` with saturating
//! float-to-integer casts (a NaN from a zero scale becomes 0), so no input can panic.

/// A post-decode filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Filter {
    /// `NONE`.
    None,
    /// `OCTAHEDRAL`: unit vectors, 4 (8-bit) or 8 (16-bit) bytes.
    Octahedral,
    /// `QUATERNION`: unit quaternions, 8 bytes.
    Quaternion,
    /// `EXPONENTIAL`: `f32` values from 8-bit exponent and 24-bit mantissa.
    Exponential,
    /// `COLOR` (`KHR_meshopt_compression` only): YCoCg colors, 4 or 8 bytes.
    Color,
}

impl Filter {
    /// The filter a `filter` member names.
    pub fn from_name(name: &str) -> Option<Filter> {
        Some(match name {
            "NONE" => Filter::None,
            "OCTAHEDRAL" => Filter::Octahedral,
            "QUATERNION" => Filter::Quaternion,
            "EXPONENTIAL" => Filter::Exponential,
            "COLOR" => Filter::Color,
            _ => return None,
        })
    }

    /// Whether the filter allows elements of `stride` bytes.
    pub fn allows(self, stride: usize) -> bool {
        match self {
            Filter::None => true,
            Filter::Octahedral | Filter::Color => stride == 4 || stride == 8,
            Filter::Quaternion => stride == 8,
            Filter::Exponential => stride.is_multiple_of(4),
        }
    }

    /// Applies the filter to `data`, elements of `stride` bytes (which it allows).
    pub fn apply(self, data: &mut [u8], stride: usize) {
        match (self, stride) {
            (Filter::None, _) => {}
            (Filter::Octahedral, 4) => data.chunks_exact_mut(4).for_each(oct8),
            (Filter::Octahedral, _) => data.chunks_exact_mut(8).for_each(oct16),
            (Filter::Quaternion, _) => data.chunks_exact_mut(8).for_each(quat),
            (Filter::Exponential, _) => data.chunks_exact_mut(4).for_each(exp),
            (Filter::Color, 4) => data.chunks_exact_mut(4).for_each(color8),
            (Filter::Color, _) => data.chunks_exact_mut(8).for_each(color16),
        }
    }
}

/// `round(v)` (half away from zero) as a saturating integer (NaN → 0).
#[allow(clippy::cast_possible_truncation)] // saturating by definition of `as` on floats
fn round_i32(v: f32) -> i32 {
    (v + if v >= 0.0 { 0.5 } else { -0.5 }) as i32
}

/// The octahedral decode of `(x, y, one)` to a unit vector at `max` scale.
fn oct(x: f32, y: f32, one: f32, max: f32) -> [i32; 3] {
    let z = one - x.abs() - y.abs();
    let t = z.min(0.0);
    let x = x + if x >= 0.0 { t } else { -t };
    let y = y + if y >= 0.0 { t } else { -t };
    let len = (x * x + y * y + z * z).sqrt();
    let s = max / len;
    [round_i32(x * s), round_i32(y * s), round_i32(z * s)]
}

#[allow(clippy::cast_possible_truncation)] // the results lie in -127..=127 or saturate
fn oct8(e: &mut [u8]) {
    let v = |i: usize| f32::from(e.get(i).map_or(0, |&b| b.cast_signed()));
    let r = oct(v(0), v(1), v(2), 127.0);
    for (d, x) in e.iter_mut().zip(r) {
        *d = (x.clamp(-128, 127) as i8).cast_unsigned();
    }
}

fn i16_at(e: &[u8], i: usize) -> i16 {
    i16::from_le_bytes([
        e.get(2 * i).copied().unwrap_or(0),
        e.get(2 * i + 1).copied().unwrap_or(0),
    ])
}

#[allow(clippy::cast_possible_truncation)] // clamped to the i16 range first
fn put_i16(e: &mut [u8], i: usize, v: i32) {
    let b = (v.clamp(-32768, 32767) as i16).to_le_bytes();
    if let Some(d) = e.get_mut(2 * i..2 * i + 2) {
        d.copy_from_slice(&b);
    }
}

fn oct16(e: &mut [u8]) {
    let v = |i: usize| f32::from(i16_at(e, i));
    let r = oct(v(0), v(1), v(2), 32767.0);
    for (i, x) in r.into_iter().enumerate() {
        put_i16(e, i, x);
    }
}

fn quat(e: &mut [u8]) {
    let w3 = i16_at(e, 3);
    let one = f32::from(w3 | 3);
    let s = std::f32::consts::FRAC_1_SQRT_2 / one;
    let x = f32::from(i16_at(e, 0)) * s;
    let y = f32::from(i16_at(e, 1)) * s;
    let z = f32::from(i16_at(e, 2)) * s;
    let w = (1.0 - x * x - y * y - z * z).max(0.0).sqrt();
    let qc = usize::from((w3 & 3).cast_unsigned());
    put_i16(e, (qc + 1) & 3, round_i32(x * 32767.0));
    put_i16(e, (qc + 2) & 3, round_i32(y * 32767.0));
    put_i16(e, (qc + 3) & 3, round_i32(z * 32767.0));
    put_i16(e, qc & 3, round_i32(w * 32767.0));
}

fn exp(e: &mut [u8]) {
    let v = i32::from_le_bytes([
        e.first().copied().unwrap_or(0),
        e.get(1).copied().unwrap_or(0),
        e.get(2).copied().unwrap_or(0),
        e.get(3).copied().unwrap_or(0),
    ]);
    let m = (v << 8) >> 8;
    let ex = v >> 24;
    // 2^e built from its bits, as the reference decoder does: exact for e in -126..=127,
    // 0 below, infinity above.
    let bits = u32::try_from((ex + 127).clamp(0, 255)).unwrap_or(0) << 23;
    #[allow(clippy::cast_precision_loss)] // m has at most 24 significant bits: exact
    let f = f32::from_bits(bits) * (m as f32);
    e.copy_from_slice(&f.to_le_bytes());
}

/// YCoCg with a `bits`-bit alpha scale: `(r, g, b, a)` scaled to `max`.
fn ycocg(y: i32, co: i32, cg: i32, a_in: u32, max: f32) -> [i32; 4] {
    // the scale from alpha's highest set bit: 2^(msb + 1) − 1 (0 for a zero alpha)
    let high = u32::BITS - a_in.leading_zeros();
    let scale = if high == 0 {
        0
    } else {
        (1u32 << high.min(31)) - 1
    };
    let r = y + co - cg;
    let g = y + cg;
    let b = y - co - cg;
    let a = a_in & (scale >> 1);
    let a = (a << 1) | (a & 1);
    #[allow(clippy::cast_precision_loss)] // at most 16 significant bits: exact
    let ss = max / scale as f32;
    #[allow(clippy::cast_precision_loss)] // at most 18 significant bits: exact
    let f = |v: i32| round_i32(v as f32 * ss);
    #[allow(clippy::cast_precision_loss)]
    let fa = round_i32(a as f32 * ss);
    [f(r), f(g), f(b), fa]
}

#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // clamped to 0..=255
fn color8(e: &mut [u8]) {
    let b = |i: usize| e.get(i).copied().unwrap_or(0);
    let out = ycocg(
        i32::from(b(0)),
        i32::from(b(1).cast_signed()),
        i32::from(b(2).cast_signed()),
        u32::from(b(3)),
        255.0,
    );
    for (d, v) in e.iter_mut().zip(out) {
        *d = v.clamp(0, 255) as u8;
    }
}

#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // clamped to 0..=65535
fn color16(e: &mut [u8]) {
    let u = |i: usize| i16_at(e, i).cast_unsigned();
    let out = ycocg(
        i32::from(u(0)),
        i32::from(i16_at(e, 1)),
        i32::from(i16_at(e, 2)),
        u32::from(u(3)),
        65535.0,
    );
    for (i, v) in out.into_iter().enumerate() {
        let b = (v.clamp(0, 65535) as u16).to_le_bytes();
        if let Some(d) = e.get_mut(2 * i..2 * i + 2) {
            d.copy_from_slice(&b);
        }
    }
}
