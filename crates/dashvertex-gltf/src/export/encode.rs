//! Influence sets encoded into accessor bytes: joints as UNSIGNED_BYTE or
//! UNSIGNED_SHORT, weights in the source's storage. Vertices are encoded in chunks on
//! the thread pool, each straight into its place in the one output buffer, so the bytes
//! (and the first error, by vertex) are the same at any thread count.

use dashvertex_core::par::prelude::*;

use super::{ExportError, InfluenceSource, JointsOf, WeightFormat};

/// Vertices per parallel chunk.
const CHUNK: usize = 16 * 1024;

/// The largest joint index of `sets` sets of `count` vertices.
pub(super) fn max_joint(sets: usize, count: usize, joints: &JointsOf<'_>) -> u32 {
    (0..sets)
        .flat_map(|s| (0..count.div_ceil(CHUNK)).map(move |c| (s, c)))
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|(s, c)| {
            let vertices = c * CHUNK..count.min((c + 1) * CHUNK);
            vertices
                .map(|v| joints(s, v).into_iter().max().unwrap_or(0))
                .max()
                .unwrap_or(0)
        })
        .max()
        .unwrap_or(0)
}

/// Writes element `v` into its bytes.
type Put<'a> = dyn Fn(usize, &mut [u8]) -> Result<(), ExportError> + Sync + 'a;

/// `count` elements of `size` bytes, element `v` written by `put(v, bytes)`; the first
/// error in element order.
fn rows(count: usize, size: usize, put: &Put<'_>) -> Result<Vec<u8>, ExportError> {
    let mut out = vec![0u8; count * size];
    if size == 0 {
        return Ok(out);
    }
    let errors: Vec<ExportError> = out
        .par_chunks_mut(CHUNK * size)
        .enumerate()
        .filter_map(|(c, chunk)| {
            chunk
                .chunks_exact_mut(size)
                .enumerate()
                .try_for_each(|(k, row)| put(c * CHUNK + k, row))
                .err()
        })
        .collect();
    match errors.into_iter().next() {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// Set `s`'s joints of `count` vertices, four per vertex: UNSIGNED_SHORT when `wide`,
/// else UNSIGNED_BYTE.
pub(super) fn joints(
    count: usize,
    joints_of: &JointsOf<'_>,
    s: usize,
    wide: bool,
) -> Result<Vec<u8>, ExportError> {
    let size = if wide { 8 } else { 4 };
    rows(count, size, &|v, row| {
        for (k, j) in joints_of(s, v).into_iter().enumerate() {
            // Only a source whose joints change between calls fails here.
            let too_big = |t: &str| ExportError::Shape(format!("joint index {j} does not fit {t}"));
            if wide {
                let j = u16::try_from(j).map_err(|_| too_big("UNSIGNED_SHORT"))?;
                if let Some(out) = row.get_mut(2 * k..2 * k + 2) {
                    out.copy_from_slice(&j.to_le_bytes());
                }
            } else if let Some(out) = row.get_mut(k) {
                *out = u8::try_from(j).map_err(|_| too_big("UNSIGNED_BYTE"))?;
            }
        }
        Ok(())
    })
}

/// Set `s`'s weights in the source's storage, four per vertex.
pub(super) fn weights(src: &dyn InfluenceSource, s: usize) -> Result<Vec<u8>, ExportError> {
    let format = src.format();
    let size = match format {
        WeightFormat::F32 => 16,
        WeightFormat::Unorm8 => 4,
        WeightFormat::Unorm16 => 8,
    };
    rows(src.vertices(), size, &|v, row| {
        match format {
            WeightFormat::F32 => {
                for (out, w) in row.chunks_exact_mut(4).zip(src.weights_f32(s, v)) {
                    out.copy_from_slice(&w.to_le_bytes());
                }
            }
            WeightFormat::Unorm8 => {
                for (out, x) in row.iter_mut().zip(src.weights_int(s, v)) {
                    *out = u8::try_from(x).map_err(|_| {
                        ExportError::Shape(format!("weight {x} does not fit UNSIGNED_BYTE"))
                    })?;
                }
            }
            WeightFormat::Unorm16 => {
                for (out, x) in row.chunks_exact_mut(2).zip(src.weights_int(s, v)) {
                    let x = u16::try_from(x).map_err(|_| {
                        ExportError::Shape(format!("weight {x} does not fit UNSIGNED_SHORT"))
                    })?;
                    out.copy_from_slice(&x.to_le_bytes());
                }
            }
        }
        Ok(())
    })
}
