//! Integer weights (unorm8, unorm16): largest-remainder rounding, so that each vertex's
//! integers sum to exactly 255 or 65535.

use super::to_f32;

/// Largest-remainder rounding of `w` to integers summing to exactly `max`; ties give the
/// extra unit to the influence that comes first (heavier, then lower bone index).
fn largest_remainder(w: &[f32], max: u32, out: &mut Vec<u32>, rems: &mut Vec<(f64, usize)>) {
    dashvertex_core::weights::largest_remainder(w, max, out, rems);
}

/// Quantizes `weights` to multiples of `1 / max`: their integers (summing to exactly
/// `max`) go to `ints`, and each weight becomes its integer divided by `max`.
pub(super) fn quantize(
    weights: &mut [f32],
    max: u32,
    ints: &mut Vec<u32>,
    rems: &mut Vec<(f64, usize)>,
) {
    largest_remainder(weights, max, ints, rems);
    for (x, q) in weights.iter_mut().zip(ints.iter()) {
        *x = to_f32(f64::from(*q) / f64::from(max));
    }
}

#[cfg(test)]
mod tests {
    use super::largest_remainder;
    use crate::reduce::test_inputs::{identity, uneven};
    use crate::reduce::{Config, Normalize, Quantize, reduce};

    fn rounded(w: &[f32], max: u32) -> Vec<u32> {
        let (mut out, mut rems) = (Vec::new(), Vec::new());
        largest_remainder(w, max, &mut out, &mut rems);
        out
    }

    #[test]
    fn the_largest_remainders_get_the_missing_units_and_ties_go_to_the_first() {
        assert_eq!(rounded(&[0.5, 0.25, 0.25], 255), [127, 64, 64]);
        assert_eq!(rounded(&[1.0, 1.0], 255), [128, 127]);
        assert_eq!(rounded(&[0.0, 0.0], 255), [0, 0]);
    }

    #[test]
    fn unorm_sums_are_exact() {
        let i = uneven();
        let unit_cfg = Config {
            normalize: Normalize::Unit,
            max_influences: 8,
            ..Config::default()
        };
        for (q, m) in [(Quantize::Unorm8, 255u32), (Quantize::Unorm16, 65535)] {
            let r = reduce(
                &i,
                &identity(7),
                None,
                &Config {
                    quantize: q,
                    ..unit_cfg
                },
            )
            .unwrap();
            for v in 0..2 {
                let total: u32 = r.integers.as_ref().unwrap()[v * r.sets..(v + 1) * r.sets]
                    .iter()
                    .flatten()
                    .sum();
                assert_eq!(total, m);
            }
        }
    }
}
