//! A primitive's influence sets read in place and their joint values renumbered: one
//! pass per set, in chunks on the thread pool, that checks every joint value names a
//! joint and encodes the new values straight into the bytes of the new `JOINTS_n`
//! accessor. The weights are read only to tell padding (joint 0 with weight 0, which
//! stays 0) from weighted slots. The usual storage (tightly or evenly strided VEC4 of
//! UNSIGNED_BYTE or UNSIGNED_SHORT joints; FLOAT, UNSIGNED_BYTE or UNSIGNED_SHORT
//! weights; no sparse data) is decoded from the bytes with the types fixed per run;
//! anything else vertex by vertex through [`AccessorData::get4`], with the same values.

use dashvertex_core::par::prelude::*;

use dashvertex_core::Limits;
use dashvertex_gltf::Gltf;
use dashvertex_gltf::accessor::{self, AccessorData};
use dashvertex_gltf::document::component;
use dashvertex_gltf::export::{EncodedJoints, ExportError};
use dashvertex_gltf::skinning;

use super::RemapError;

/// Vertices per parallel chunk.
const CHUNK: usize = 16 * 1024;

/// A primitive's influence sets, read in place, with their renumbered joints when asked.
pub(super) struct Renumbered<'g> {
    sets: Vec<(AccessorData<'g>, AccessorData<'g>)>,
    count: usize,
    /// The new `JOINTS_n` bytes ([`Renumbered::read`] with `encode`).
    encoded: Option<EncodedJoints>,
}

/// Set `s` of one vertex as stored: its four joint values, and which of its four weights
/// are zero (the stored value 0; a FLOAT `-0.0` too).
type Stored = ([u32; 4], [bool; 4]);

/// The first joint value that names no joint: `(vertex, component, value)`.
type Fault = (usize, usize, u32);

impl<'g> Renumbered<'g> {
    /// Reads primitive `p`'s sets and checks that every joint value not padding names one
    /// of `map`'s joints (the first fault by set, then vertex, is the error); with
    /// `encode`, also encodes `map[j]` for each such value `j` (padding stays 0), as
    /// UNSIGNED_SHORT when a value exceeds 255 and UNSIGNED_BYTE otherwise.
    pub(super) fn read(
        gltf: &'g Gltf,
        p: &skinning::PrimitiveSets,
        map: &[u32],
        encode: bool,
    ) -> Result<Self, RemapError> {
        let mut sets = Vec::with_capacity(p.sets.len());
        let bad = |name: String, why: String| RemapError::Data {
            pointer: p.attribute_pointer(&name),
            why,
        };
        if let Some(m) = p.malformed.first() {
            return Err(bad(
                m.clone(),
                "a malformed influence attribute name".into(),
            ));
        }
        for s in &p.sets {
            let (jn, wn) = (format!("JOINTS_{}", s.n), format!("WEIGHTS_{}", s.n));
            let (Some(j), Some(w)) = (s.joints, s.weights) else {
                return Err(bad(jn, "the set has JOINTS or WEIGHTS but not both".into()));
            };
            let read = |a: u64, name: &str| {
                accessor::read(gltf, a, &Limits::UNLIMITED)
                    .map_err(|e| bad(name.to_owned(), e.to_string()))
            };
            let (jd, wd) = (read(j, &jn)?, read(w, &wn)?);
            if jd.components != 4 || !matches!(jd.component_type, component::U8 | component::U16) {
                return Err(bad(
                    jn,
                    "joints must be VEC4 UNSIGNED_BYTE or UNSIGNED_SHORT".into(),
                ));
            }
            if wd.components != 4
                || !matches!(
                    wd.component_type,
                    component::F32 | component::U8 | component::U16
                )
            {
                return Err(bad(
                    wn,
                    "weights must be VEC4 FLOAT, UNSIGNED_BYTE or UNSIGNED_SHORT".into(),
                ));
            }
            if wd.count != jd.count {
                return Err(bad(wn, "a different element count than its JOINTS".into()));
            }
            sets.push((jd, wd));
        }
        let count = sets.first().map_or(0, |(j, _)| j.count);
        if let Some(k) = sets.iter().position(|(j, _)| j.count != count) {
            return Err(bad(
                format!("JOINTS_{k}"),
                "a different element count than JOINTS_0".into(),
            ));
        }
        // Every joint value must name a joint: an out-of-range one has no new number.
        let wide = map.iter().any(|&j| j > 255);
        let mut encoded = EncodedJoints {
            sets: Vec::new(),
            wide,
        };
        let mut max = 0u32;
        for (k, (jd, wd)) in sets.iter().enumerate() {
            let size = if wide { 8 } else { 4 };
            let mut out = vec![0u8; if encode { count * size } else { 0 }];
            let set_max = renumber_set(jd, wd, map, &mut out, wide).map_err(|(v, c, j)| {
                bad(
                    format!("JOINTS_{k}"),
                    format!(
                        "vertex {v} component {c}: joint {j} is beyond the skin's {} joints",
                        map.len()
                    ),
                )
            })?;
            max = max.max(set_max);
            encoded.sets.push(out);
        }
        if max > u32::from(u16::MAX) {
            return Err(RemapError::Export(ExportError::Shape(format!(
                "joint index {max} does not fit UNSIGNED_SHORT"
            ))));
        }
        // The width is the values' own, as every other writer of joints chooses it.
        if wide && max <= 255 {
            encoded.wide = false;
            for bytes in &mut encoded.sets {
                *bytes = bytes.iter().step_by(2).copied().collect();
            }
        }
        Ok(Renumbered {
            sets,
            count,
            encoded: encode.then_some(encoded),
        })
    }

    /// The first `(set, vertex, joint)` with non-zero weight on a joint `flagged` marks
    /// (joints as the file numbers them).
    pub(super) fn first_weighted(&self, flagged: &[bool]) -> Option<(usize, usize, usize)> {
        if !flagged.contains(&true) {
            return None;
        }
        (0..self.count).find_map(|v| {
            self.sets.iter().enumerate().find_map(|(k, (jd, wd))| {
                let (js, zero) = stored(jd, wd, v);
                js.iter().zip(&zero).find_map(|(&j, &z)| {
                    let j = j as usize;
                    (!z && flagged.get(j).copied().unwrap_or(false)).then_some((k, v, j))
                })
            })
        })
    }

    /// Number of vertices.
    pub(super) fn vertices(&self) -> usize {
        self.count
    }

    /// The renumbered joints, when [`Renumbered::read`] encoded them.
    pub(super) fn take_encoded(&mut self) -> Option<EncodedJoints> {
        self.encoded.take()
    }
}

/// Renumbers one set into `out` (empty: only checked; else four values per vertex,
/// UNSIGNED_SHORT when `wide`), in chunks on the thread pool; the largest value written,
/// or the first fault by vertex.
fn renumber_set(
    jd: &AccessorData<'_>,
    wd: &AccessorData<'_>,
    map: &[u32],
    out: &mut [u8],
    wide: bool,
) -> Result<u32, Fault> {
    let count = jd.count;
    let size = if wide { 8 } else { 4 };
    let chunks = count.div_ceil(CHUNK);
    let results: Vec<Result<u32, Fault>> = if out.is_empty() {
        (0..chunks)
            .into_par_iter()
            .map(|c| renumber_chunk(jd, wd, map, c * CHUNK, &mut [], wide))
            .collect()
    } else {
        out.par_chunks_mut(CHUNK * size)
            .enumerate()
            .map(|(c, o)| renumber_chunk(jd, wd, map, c * CHUNK, o, wide))
            .collect()
    };
    results.into_iter().try_fold(0, |m, r| r.map(|x| m.max(x)))
}

/// Renumbers vertices `start..` of one set (up to [`CHUNK`] of them, fewer at the end)
/// into `out` (empty: only checked).
fn renumber_chunk(
    jd: &AccessorData<'_>,
    wd: &AccessorData<'_>,
    map: &[u32],
    start: usize,
    out: &mut [u8],
    wide: bool,
) -> Result<u32, Fault> {
    let n = CHUNK.min(jd.count.saturating_sub(start));
    let jsize = if jd.component_type == component::U16 {
        2
    } else {
        1
    };
    let wsize = match wd.component_type {
        component::F32 => 4,
        component::U16 => 2,
        _ => 1,
    };
    let runs = jd
        .vec4_run(start, n, jsize)
        .zip(wd.vec4_run(start, n, wsize));
    let Some(((jb, js), (wb, ws))) = runs else {
        return renumber(start, n, map, out, wide, |k| stored(jd, wd, start + k));
    };
    // Element `k` of a run: `len` bytes at `k × stride`.
    fn element<const N: usize>(bytes: &[u8], stride: usize, k: usize) -> Option<[u8; N]> {
        let at = k.checked_mul(stride)?;
        <[u8; N]>::try_from(bytes.get(at..at.checked_add(N)?)?).ok()
    }
    let joints = |k: usize| -> Option<[u32; 4]> {
        if jsize == 1 {
            element::<4>(jb, js, k).map(|b| b.map(u32::from))
        } else {
            element::<8>(jb, js, k).map(|b| accessor::u16x4_le(b).map(u32::from))
        }
    };
    // Per weight storage, a reader with its types fixed, so the loop is compiled for it;
    // an element it cannot give (none, for a run `vec4_run` gave) is read as stored.
    let slow = |k: usize| stored(jd, wd, start + k);
    match wsize {
        4 => renumber(start, n, map, out, wide, |k| {
            let zero = element::<16>(wb, ws, k).map(|b| accessor::f32x4_le(b).map(|x| x == 0.0));
            joints(k).zip(zero).unwrap_or_else(|| slow(k))
        }),
        2 => renumber(start, n, map, out, wide, |k| {
            let zero = element::<8>(wb, ws, k).map(|b| accessor::u16x4_le(b).map(|x| x == 0));
            joints(k).zip(zero).unwrap_or_else(|| slow(k))
        }),
        _ => renumber(start, n, map, out, wide, |k| {
            let zero = element::<4>(wb, ws, k).map(|b| b.map(|x| x == 0));
            joints(k).zip(zero).unwrap_or_else(|| slow(k))
        }),
    }
}

/// The loop of [`renumber_chunk`] over `n` vertices, vertex `start + k` read by `at(k)`.
#[inline(always)]
fn renumber(
    start: usize,
    n: usize,
    map: &[u32],
    out: &mut [u8],
    wide: bool,
    at: impl Fn(usize) -> Stored,
) -> Result<u32, Fault> {
    let mut max = 0u32;
    for k in 0..n {
        let (js, zero) = at(k);
        let mut new = [0u32; 4];
        for (c, ((x, &j), &z)) in new.iter_mut().zip(&js).zip(&zero).enumerate() {
            // Canonical padding stays canonical padding.
            if j != 0 || !z {
                *x = *map.get(j as usize).ok_or((start + k, c, j))?;
            }
        }
        max = new.iter().fold(max, |m, &x| m.max(x));
        if wide {
            if let Some(o) = out.get_mut(8 * k..8 * k + 8) {
                for (o, x) in o.chunks_exact_mut(2).zip(new) {
                    o.copy_from_slice(&u16::try_from(x).unwrap_or(u16::MAX).to_le_bytes());
                }
            }
        } else if let Some(o) = out.get_mut(4 * k..4 * k + 4) {
            for (o, x) in o.iter_mut().zip(new) {
                *o = u8::try_from(x).unwrap_or(u8::MAX);
            }
        }
    }
    Ok(max)
}

/// Set `(jd, wd)` of vertex `v` as stored (see [`Stored`]), through the in-place readers
/// where the storage allows, else through [`AccessorData::get4`], which gives the same
/// values.
#[inline]
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "joint values are UNSIGNED_BYTE or UNSIGNED_SHORT (`read` checks): whole \
              numbers in 0..=65535"
)]
fn stored(jd: &AccessorData<'_>, wd: &AccessorData<'_>, v: usize) -> Stored {
    let joints = jd.stored_u32x4(v);
    let zero = match wd.component_type {
        component::F32 => wd.f32x4(v).map(|w| w.map(|x| x == 0.0)),
        _ => wd.stored_u32x4(v).map(|w| w.map(|x| x == 0)),
    };
    match (joints, zero) {
        (Some(j), Some(z)) => (j, z),
        _ => {
            let (js, ws) = (jd.get4(v), wd.get4(v));
            // Joint values are whole numbers in 0..=65535: exact.
            (js.map(|j| j as u32), ws.map(|w| w == 0.0))
        }
    }
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation
)]
mod tests {
    use super::*;
    use dashvertex_gltf::MemoryFiles;
    use serde_json::json;

    const N: usize = 40_000;

    /// A document of `N` vertices whose influence data is stored every way the fast path
    /// reads (u8 and strided u16 joints; f32 with `-0.0`, u8 and strided u16 weights) and
    /// a sparse joints accessor the fallback reads.
    fn doc() -> (serde_json::Value, Vec<u8>) {
        let mut seed = 0x2545_f491_u32;
        let mut next = move |m: u32| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed % m
        };
        let mut bin = Vec::new();
        let mut views = Vec::new();
        let mut view = |bin: &mut Vec<u8>, bytes: Vec<u8>, stride: Option<usize>| {
            while !bin.len().is_multiple_of(4) {
                bin.push(0);
            }
            let mut v = json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": bytes.len()});
            if let Some(s) = stride {
                v["byteStride"] = json!(s);
            }
            bin.extend(bytes);
            views.push(v);
            views.len() - 1
        };
        let joints: Vec<[u8; 4]> = (0..N)
            .map(|_| std::array::from_fn(|_| if next(3) == 0 { 0 } else { next(20) as u8 }))
            .collect();
        let zero: Vec<[bool; 4]> = (0..N)
            .map(|_| std::array::from_fn(|_| next(3) == 0))
            .collect();
        let j8 = view(&mut bin, joints.iter().flatten().copied().collect(), None);
        let j16 = view(
            &mut bin,
            joints
                .iter()
                .flat_map(|j| {
                    let mut e: Vec<u8> =
                        j.iter().flat_map(|&x| u16::from(x).to_le_bytes()).collect();
                    e.extend([0xAA; 4]);
                    e
                })
                .collect(),
            Some(12),
        );
        let wf = view(
            &mut bin,
            zero.iter()
                .enumerate()
                .flat_map(|(v, z)| {
                    z.map(|z| match (z, v % 2) {
                        (true, 0) => 0.0f32,
                        (true, _) => -0.0,
                        (false, _) => 0.25,
                    })
                })
                .flat_map(f32::to_le_bytes)
                .collect(),
            None,
        );
        let w8 = view(
            &mut bin,
            zero.iter()
                .flat_map(|z| z.map(|z| if z { 0 } else { 64 }))
                .collect(),
            None,
        );
        let w16 = view(
            &mut bin,
            zero.iter()
                .flat_map(|z| {
                    let mut e: Vec<u8> = z
                        .iter()
                        .flat_map(|&z| (if z { 0u16 } else { 256 }).to_le_bytes())
                        .collect();
                    e.extend([0x55; 4]);
                    e
                })
                .collect(),
            Some(12),
        );
        let si = view(&mut bin, vec![7, 0, 0, 0], None);
        let sv = view(&mut bin, vec![0, 19, 0, 3], None);
        let acc = |view: usize, ctype: u32, normalized: bool| {
            json!({"bufferView": view, "componentType": ctype, "normalized": normalized,
                   "count": N, "type": "VEC4"})
        };
        let mut sparse = acc(j8, 5121, false);
        sparse["sparse"] = json!({"count": 1,
            "indices": {"bufferView": si, "componentType": 5125},
            "values": {"bufferView": sv}});
        let doc = json!({
            "asset": {"version": "2.0"},
            "buffers": [{"uri": "data.bin", "byteLength": bin.len()}],
            "bufferViews": views,
            "accessors": [acc(j8, 5121, false), acc(j16, 5123, false), acc(wf, 5126, false),
                          acc(w8, 5121, true), acc(w16, 5123, true), sparse],
        });
        (doc, bin)
    }

    /// `map` applied vertex by vertex through [`stored`], as the encoding must give it.
    fn reference(
        jd: &AccessorData<'_>,
        wd: &AccessorData<'_>,
        map: &[u32],
    ) -> Result<Vec<u32>, Fault> {
        let mut out = Vec::new();
        for v in 0..jd.count {
            let (js, zero) = stored(jd, wd, v);
            for c in 0..4 {
                out.push(if js[c] == 0 && zero[c] {
                    0
                } else {
                    *map.get(js[c] as usize).ok_or((v, c, js[c]))?
                });
            }
        }
        Ok(out)
    }

    #[test]
    fn every_storage_renumbers_as_the_vertex_by_vertex_reading() {
        let (doc, bin) = doc();
        let text = serde_json::to_vec(&doc).unwrap();
        let files = MemoryFiles {
            files: vec![("data.bin", bin.as_slice())],
        };
        let g = dashvertex_gltf::load(&text, &files, &Limits::default()).unwrap();
        let read = |i: u64| accessor::read(&g, i, &Limits::UNLIMITED).unwrap();
        let narrow: Vec<u32> = (0..20).rev().collect();
        let wide: Vec<u32> = (0..20).map(|j| 1000 + 7 * j).collect();
        let short: Vec<u32> = (0..12).collect();
        for j in [0, 1, 5] {
            for w in [2, 3, 4] {
                let (jd, wd) = (read(j), read(w));
                for map in [&narrow, &wide, &short] {
                    let want = reference(&jd, &wd, map);
                    let is_wide = map.iter().any(|&x| x > 255);
                    let mut out = vec![0u8; N * if is_wide { 8 } else { 4 }];
                    let got = renumber_set(&jd, &wd, map, &mut out, is_wide);
                    let checked = renumber_set(&jd, &wd, map, &mut [], is_wide);
                    let want = match want {
                        Ok(want) => want,
                        Err(fault) => {
                            assert_eq!(got.unwrap_err(), fault, "{j} {w}");
                            assert_eq!(checked.unwrap_err(), fault, "{j} {w}");
                            continue;
                        }
                    };
                    let values: Vec<u32> = if is_wide {
                        out.chunks_exact(2)
                            .map(|b| u32::from(u16::from_le_bytes([b[0], b[1]])))
                            .collect()
                    } else {
                        out.iter().map(|&b| u32::from(b)).collect()
                    };
                    assert_eq!(values, want, "joints {j} weights {w}");
                    let max = want.iter().copied().max().unwrap();
                    assert_eq!(got.unwrap(), max);
                    assert_eq!(checked.unwrap(), max);
                }
            }
        }
    }
}
