//! `GLTF_ACCESSOR_BOUNDS`: an accessor's declared `min` / `max` must be the least and
//! greatest value of each component (readers size bounding volumes and quantization from
//! them). One diagnostic per component that differs, at `/accessors/i/min/c` (or `max`),
//! saying how many elements lie outside the declared bound when some do.
//!
//! Each accessor with bounds is read once. Accessors without a buffer view (zeros, plus
//! sparse values) and normalized integer accessors are not checked.

use dashvertex_gltf::Gltf;
use dashvertex_gltf::accessor::{self, AccessorData};
use dashvertex_gltf::document::component;
use serde_json::Value;

use super::array;
use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use crate::inputs::gltf::Doc;
use crate::options::Options;
use crate::sink::Sink;
use dashvertex_json::Members;

/// The declared bound as the accessor's component type holds it (binary32 for FLOAT).
fn as_stored(ctype: u32, v: f64) -> f64 {
    #[allow(clippy::cast_possible_truncation)]
    if ctype == component::F32 {
        f64::from(v as f32)
    } else {
        v
    }
}

/// Least and greatest value of each component, and how many elements lie below `min` and
/// above `max` (declared, per component).
struct Found {
    least: Vec<f64>,
    greatest: Vec<f64>,
    below: Vec<u64>,
    above: Vec<u64>,
}

/// Runs the check of the module comment over every accessor with `min` or `max`.
pub(crate) fn check_all(gltf: &Gltf, doc: &Doc, opts: &Options, sink: &mut Sink) {
    for (i, a) in array(&gltf.value, "accessors").iter().enumerate() {
        let declared = |key: &str| -> Option<Vec<f64>> {
            a.member(key)?
                .as_array()?
                .iter()
                .map(Value::as_f64)
                .collect::<Option<Vec<f64>>>()
        };
        let (min, max) = (declared("min"), declared("max"));
        if (min.is_none() && max.is_none())
            || opts.carried(i as u64)
            || a.member("bufferView").is_none()
            || a.member("normalized").and_then(Value::as_bool) == Some(true)
        {
            continue;
        }
        let Ok(data) = accessor::read(gltf, i as u64, &opts.limits) else {
            continue;
        };
        let n = data.components;
        if min.as_ref().is_some_and(|m| m.len() != n) || max.as_ref().is_some_and(|m| m.len() != n)
        {
            continue; // the array length is the schema's finding
        }
        if data.count == 0 {
            continue;
        }
        let ctype = data.component_type;
        let lo: Vec<f64> = min.iter().flatten().map(|&v| as_stored(ctype, v)).collect();
        let hi: Vec<f64> = max.iter().flatten().map(|&v| as_stored(ctype, v)).collect();
        let found = Found::scan(&data, &lo, &hi);
        report(doc, sink, i, (&lo, &hi), &found);
    }
}

impl Found {
    /// The least and greatest value of each component of `data`, and how many elements
    /// lie below `lo` and above `hi` (per component; a bound absent is no bound). NaN
    /// values are skipped: non-finite values are their own finding.
    fn scan(data: &AccessorData<'_>, lo: &[f64], hi: &[f64]) -> Found {
        let n = data.components;
        let mut found = Found {
            least: vec![f64::INFINITY; n],
            greatest: vec![f64::NEG_INFINITY; n],
            below: vec![0; n],
            above: vec![0; n],
        };
        let mut take = |c: usize, v: f64| {
            if v.is_nan() {
                return; // non-finite values are their own finding
            }
            if let Some(l) = found.least.get_mut(c) {
                *l = l.min(v);
            }
            if let Some(g) = found.greatest.get_mut(c) {
                *g = g.max(v);
            }
            if lo.get(c).is_some_and(|&l| v < l)
                && let Some(b) = found.below.get_mut(c)
            {
                *b += 1;
            }
            if hi.get(c).is_some_and(|&h| v > h)
                && let Some(b) = found.above.get_mut(c)
            {
                *b += 1;
            }
        };
        if n <= 4 {
            // Fixed lanes, the bounds absent as ±infinity (nothing lies outside them).
            let lane = |v: &[f64], d: f64| -> [f64; 4] {
                std::array::from_fn(|c| v.get(c).copied().unwrap_or(d))
            };
            let (l4, h4) = (lane(lo, f64::NEG_INFINITY), lane(hi, f64::INFINITY));
            let (mut least, mut greatest) = ([f64::INFINITY; 4], [f64::NEG_INFINITY; 4]);
            let (mut below, mut above) = ([0u64; 4], [0u64; 4]);
            data.for_each4(0, |_, e| {
                let lanes = least.iter_mut().zip(greatest.iter_mut());
                let counts = below.iter_mut().zip(above.iter_mut());
                let bounds = l4.iter().zip(h4.iter());
                for (((&v, (l, g)), (b, a)), (&lo, &hi)) in
                    e.iter().zip(lanes).zip(counts).zip(bounds)
                {
                    // NaN compares false everywhere: non-finite values are their own finding
                    if v < *l {
                        *l = v;
                    }
                    if v > *g {
                        *g = v;
                    }
                    *b += u64::from(v < lo);
                    *a += u64::from(v > hi);
                }
                true
            });
            let first = |x: &[f64; 4]| x.iter().take(n).copied().collect::<Vec<f64>>();
            let first_u = |x: &[u64; 4]| x.iter().take(n).copied().collect::<Vec<u64>>();
            found.least = first(&least);
            found.greatest = first(&greatest);
            found.below = first_u(&below);
            found.above = first_u(&above);
        } else {
            for e in 0..data.count {
                for c in 0..n {
                    take(c, data.get(e, c));
                }
            }
        }
        found
    }
}

/// Reports each component of accessor `i` whose declared bound (`lo` for `min`, `hi` for
/// `max`) differs from the `found` value, with how many elements lie outside it.
fn report(doc: &Doc, sink: &mut Sink, i: usize, (lo, hi): (&[f64], &[f64]), found: &Found) {
    for (key, bound, actual, outside, codes) in [
        (
            "min",
            lo,
            &found.least,
            &found.below,
            ["ACCESSOR_MIN_MISMATCH", "ACCESSOR_ELEMENT_OUT_OF_MIN_BOUND"],
        ),
        (
            "max",
            hi,
            &found.greatest,
            &found.above,
            ["ACCESSOR_MAX_MISMATCH", "ACCESSOR_ELEMENT_OUT_OF_MAX_BOUND"],
        ),
    ] {
        for (c, (&d, &have)) in bound.iter().zip(actual.iter()).enumerate() {
            if d == have || !have.is_finite() {
                continue;
            }
            let out = outside.get(c).copied().unwrap_or(0);
            let pointer = format!("/accessors/{i}/{key}/{c}");
            let code = Code::GLTF_ACCESSOR_BOUNDS;
            sink.push(code, || {
                let message = if out > 0 {
                    format!(
                        "accessor {i}: declared {key} {d} of component {c}, actual {have}; {out} element(s) lie outside it"
                    )
                } else {
                    format!("accessor {i}: declared {key} {d} of component {c}, actual {have}")
                };
                let mut diag = Diagnostic::new(code, message, doc.at(&pointer));
                diag.khronos = codes.iter().take(if out > 0 { 2 } else { 1 }).copied().collect();
                diag
            });
        }
    }
}
