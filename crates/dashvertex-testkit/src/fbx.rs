//! Hostile FBX for the process-level tests: the repository's binary and ASCII FBX with the
//! counts of their arrays made to lie (a binary array's element count or compressed length
//! set past its bytes, an ASCII array's `*N` made huge), so that a reader sizing anything by
//! a declared number would allocate beyond the file (spec/security.md \[L1\], spec/fbx.md).

use proptest::prelude::*;

use crate::hostile::HostileFile;
use crate::repo;

/// The FBX seeds: Blender's binary export and a hand-written ASCII file.
pub const FBX_SEEDS: &[&str] = &["fixtures/fbx/clean.fbx", "spec/vectors/fbx/ascii-clean.fbx"];

/// Offsets of the array headers of binary FBX `bytes`: a type byte (`f d i l b`) followed
/// by element count, encoding (0 or 1) and byte length, the length within the file.
fn binary_arrays(bytes: &[u8]) -> Vec<usize> {
    let u32_at = |p: usize| {
        bytes
            .get(p..p + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    (0..bytes.len())
        .filter(|&p| {
            b"fdilb".contains(&bytes[p])
                && matches!(u32_at(p + 5), Some(0 | 1))
                && u32_at(p + 9).is_some_and(|n| n > 0 && (n as usize) < bytes.len() - p)
                && u32_at(p + 1).is_some_and(|n| n > 0)
        })
        .collect()
}

/// An FBX seed with one array's declared count (or compressed length) replaced by `value`.
pub fn lying_counts() -> impl Strategy<Value = HostileFile> {
    (
        proptest::sample::select(FBX_SEEDS),
        any::<usize>(),
        prop_oneof![
            Just(u32::MAX),
            Just(0x7FFF_FFFF),
            Just(1u32 << 28),
            Just(0),
            any::<u32>()
        ],
        any::<bool>(),
    )
        .prop_map(|(seed, pick, value, length)| {
            let mut bytes = std::fs::read(repo().join(seed)).unwrap_or_default();
            if bytes.starts_with(b"Kaydara") {
                let arrays = binary_arrays(&bytes);
                if let Some(&p) = arrays.get(pick % arrays.len().max(1)) {
                    // The element count, or the byte length of the (compressed) data.
                    let at = if length { p + 9 } else { p + 1 };
                    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
                }
            } else {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                let stars: Vec<usize> = text.match_indices(": *").map(|(i, _)| i + 3).collect();
                if let Some(&p) = stars.get(pick % stars.len().max(1)) {
                    let end = text[p..].find(' ').map_or(text.len(), |e| p + e);
                    bytes = format!("{}{value}{}", &text[..p], &text[end..]).into_bytes();
                }
            }
            HostileFile {
                seed: Some(seed),
                name: seed.rsplit('/').next().unwrap_or(seed).to_owned(),
                bytes,
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_binary_seed_has_arrays_to_lie_about() {
        let bytes = std::fs::read(repo().join(FBX_SEEDS[0])).unwrap();
        assert!(binary_arrays(&bytes).len() > 10);
    }
}
