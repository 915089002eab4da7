//! 4×4 matrices and quaternions in f64, column-major as glTF stores them.

/// A 4×4 matrix, column-major: element (row r, column c) is `m[c * 4 + r]`.
pub type Mat4 = [f64; 16];

/// The identity matrix.
pub const IDENTITY: Mat4 = [
    1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
];

/// `a × b` (apply `b` first).
pub fn mul(a: &Mat4, b: &Mat4) -> Mat4 {
    let mut out = [0.0; 16];
    for c in 0..4 {
        for r in 0..4 {
            let mut s = 0.0;
            for k in 0..4 {
                s += at(a, r, k) * at(b, k, c);
            }
            if let Some(o) = out.get_mut(c * 4 + r) {
                *o = s;
            }
        }
    }
    out
}

fn at(m: &Mat4, r: usize, c: usize) -> f64 {
    m.get(c * 4 + r).copied().unwrap_or(0.0)
}

/// The matrix of translation `t`, rotation `q` (x, y, z, w; normalised here) and scale
/// `s`: `T × R × S`, as glTF composes a node's TRS.
pub fn from_trs(t: [f64; 3], q: [f64; 4], s: [f64; 3]) -> Mat4 {
    let [x, y, z, w] = normalize(q);
    let (xx, yy, zz) = (x * x, y * y, z * z);
    let (xy, xz, yz) = (x * y, x * z, y * z);
    let (wx, wy, wz) = (w * x, w * y, w * z);
    [
        (1.0 - 2.0 * (yy + zz)) * s[0],
        2.0 * (xy + wz) * s[0],
        2.0 * (xz - wy) * s[0],
        0.0,
        2.0 * (xy - wz) * s[1],
        (1.0 - 2.0 * (xx + zz)) * s[1],
        2.0 * (yz + wx) * s[1],
        0.0,
        2.0 * (xz + wy) * s[2],
        2.0 * (yz - wx) * s[2],
        (1.0 - 2.0 * (xx + yy)) * s[2],
        0.0,
        t[0],
        t[1],
        t[2],
        1.0,
    ]
}

/// The translation, rotation and scale of a node matrix (glTF requires them to be
/// decomposable: no shear, no projection); a negative determinant puts the mirror in x.
pub fn decompose(m: &Mat4) -> ([f64; 3], [f64; 4], [f64; 3]) {
    let t = [m[12], m[13], m[14]];
    let len = |a: f64, b: f64, c: f64| (a * a + b * b + c * c).sqrt();
    let (mut sx, sy, sz) = (
        len(m[0], m[1], m[2]),
        len(m[4], m[5], m[6]),
        len(m[8], m[9], m[10]),
    );
    let det = m[0] * (m[5] * m[10] - m[9] * m[6]) - m[4] * (m[1] * m[10] - m[9] * m[2])
        + m[8] * (m[1] * m[6] - m[5] * m[2]);
    if det < 0.0 {
        sx = -sx;
    }
    let div = |x: f64, s: f64| if s == 0.0 { 0.0 } else { x / s };
    // The rotation matrix, r[row][column].
    let r = [
        [div(m[0], sx), div(m[4], sy), div(m[8], sz)],
        [div(m[1], sx), div(m[5], sy), div(m[9], sz)],
        [div(m[2], sx), div(m[6], sy), div(m[10], sz)],
    ];
    let trace = r[0][0] + r[1][1] + r[2][2];
    let q = if trace > 0.0 {
        let s = (trace + 1.0).sqrt() * 2.0;
        [
            (r[2][1] - r[1][2]) / s,
            (r[0][2] - r[2][0]) / s,
            (r[1][0] - r[0][1]) / s,
            0.25 * s,
        ]
    } else if r[0][0] > r[1][1] && r[0][0] > r[2][2] {
        let s = (1.0 + r[0][0] - r[1][1] - r[2][2]).sqrt() * 2.0;
        [
            0.25 * s,
            (r[0][1] + r[1][0]) / s,
            (r[0][2] + r[2][0]) / s,
            (r[2][1] - r[1][2]) / s,
        ]
    } else if r[1][1] > r[2][2] {
        let s = (1.0 + r[1][1] - r[0][0] - r[2][2]).sqrt() * 2.0;
        [
            (r[0][1] + r[1][0]) / s,
            0.25 * s,
            (r[1][2] + r[2][1]) / s,
            (r[0][2] - r[2][0]) / s,
        ]
    } else {
        let s = (1.0 + r[2][2] - r[0][0] - r[1][1]).sqrt() * 2.0;
        [
            (r[0][2] + r[2][0]) / s,
            (r[1][2] + r[2][1]) / s,
            0.25 * s,
            (r[1][0] - r[0][1]) / s,
        ]
    };
    (t, normalize(q), [sx, sy, sz])
}

/// Why [`inverse_affine`] gives no inverse of `m`, in words for a message: a zero scale
/// (here or in an ancestor) makes the 3×3 part singular; a very large or very small one
/// makes its determinant overflow or underflow in double precision; a NaN or infinite
/// element has no inverse at all.
pub fn why_not_invertible(m: &Mat4) -> String {
    if m.iter().any(|x| !x.is_finite()) {
        return "the matrix has a NaN or infinite element".into();
    }
    let a = [[m[0], m[4], m[8]], [m[1], m[5], m[9]], [m[2], m[6], m[10]]];
    let det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1])
        - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
        + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
    let largest = m.iter().take(11).fold(0.0f64, |a, x| a.max(x.abs()));
    if det == 0.0 && largest > 0.0 && largest < 1e-100 {
        format!(
            "its scale is too small to invert (the determinant underflows; largest element {largest:e})"
        )
    } else if det == 0.0 {
        "its scale, or an ancestor's, is zero (the matrix is singular)".into()
    } else if !det.is_finite() {
        format!(
            "its scale, or an ancestor's, is too large to invert (the determinant overflows; largest element {largest:e})"
        )
    } else {
        format!("its inverse is not finite (determinant {det:e})")
    }
}

/// The inverse of an affine matrix (last row 0, 0, 0, 1, as node and bind matrices are),
/// `None` when its 3×3 part is singular or the result is not finite
/// ([`why_not_invertible`] says which).
pub fn inverse_affine(m: &Mat4) -> Option<Mat4> {
    // a[row][column] of the 3×3 part.
    let a = [[m[0], m[4], m[8]], [m[1], m[5], m[9]], [m[2], m[6], m[10]]];
    let det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1])
        - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
        + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
    if det == 0.0 || !det.is_finite() {
        return None;
    }
    // The adjugate over the determinant, b[row][column].
    let b = [
        [
            (a[1][1] * a[2][2] - a[1][2] * a[2][1]) / det,
            (a[0][2] * a[2][1] - a[0][1] * a[2][2]) / det,
            (a[0][1] * a[1][2] - a[0][2] * a[1][1]) / det,
        ],
        [
            (a[1][2] * a[2][0] - a[1][0] * a[2][2]) / det,
            (a[0][0] * a[2][2] - a[0][2] * a[2][0]) / det,
            (a[0][2] * a[1][0] - a[0][0] * a[1][2]) / det,
        ],
        [
            (a[1][0] * a[2][1] - a[1][1] * a[2][0]) / det,
            (a[0][1] * a[2][0] - a[0][0] * a[2][1]) / det,
            (a[0][0] * a[1][1] - a[0][1] * a[1][0]) / det,
        ],
    ];
    let t = [m[12], m[13], m[14]];
    let bt = |r: usize| -> f64 {
        let row = b.get(r).copied().unwrap_or([0.0; 3]);
        -(row[0] * t[0] + row[1] * t[1] + row[2] * t[2])
    };
    let out = [
        b[0][0],
        b[1][0],
        b[2][0],
        0.0,
        b[0][1],
        b[1][1],
        b[2][1],
        0.0,
        b[0][2],
        b[1][2],
        b[2][2],
        0.0,
        bt(0),
        bt(1),
        bt(2),
        1.0,
    ];
    out.iter().all(|x| x.is_finite()).then_some(out)
}

/// `m` applied to the point `p` (w = 1).
pub fn transform_point(m: &Mat4, p: [f64; 3]) -> [f64; 3] {
    let row = |r: usize| at(m, r, 0) * p[0] + at(m, r, 1) * p[1] + at(m, r, 2) * p[2] + at(m, r, 3);
    [row(0), row(1), row(2)]
}

/// `q` scaled to unit length (the identity for a zero quaternion).
pub fn normalize(q: [f64; 4]) -> [f64; 4] {
    let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    if n > 0.0 && n.is_finite() {
        q.map(|c| c / n)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}

/// Spherical linear interpolation from `a` to `b` at `t` in [0, 1], along the shorter arc,
/// as the glTF specification's LINEAR rotation sampling defines it.
pub fn slerp(a: [f64; 4], b: [f64; 4], t: f64) -> [f64; 4] {
    let (a, mut b) = (normalize(a), normalize(b));
    let mut d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if d < 0.0 {
        d = -d;
        b = b.map(|c| -c);
    }
    if d > 0.999_999_9 {
        // Nearly parallel: linear interpolation is exact to rounding, and well defined.
        return normalize(combine(a, b, 1.0 - t, t));
    }
    let angle = d.acos();
    let sin = angle.sin();
    let (wa, wb) = (((1.0 - t) * angle).sin() / sin, (t * angle).sin() / sin);
    normalize(combine(a, b, wa, wb))
}

/// `wa × a + wb × b`, component by component.
fn combine(a: [f64; 4], b: [f64; 4], wa: f64, wb: f64) -> [f64; 4] {
    let mut out = a;
    for ((o, x), y) in out.iter_mut().zip(a).zip(b) {
        *o = wa * x + wb * y;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f64], b: &[f64]) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12)
    }

    #[test]
    fn a_matrix_without_inverse_says_why() {
        let t = [0.0; 3];
        let q = [0.0, 0.0, 0.0, 1.0];
        for (scale, says) in [
            ([0.0, 1.0, 1.0], "is zero"),
            ([1e110, 1e110, 1e110], "too large"),
            ([1e-120, 1e-120, 1e-120], "too small"),
            ([f64::NAN, 1.0, 1.0], "NaN"),
        ] {
            let m = from_trs(t, q, scale);
            assert!(inverse_affine(&m).is_none(), "{scale:?}");
            let why = why_not_invertible(&m);
            assert!(why.contains(says), "{scale:?}: {why}");
        }
    }

    #[test]
    fn trs_composes_translation_rotation_and_scale() {
        // 90° about Z: x → y.
        let h = std::f64::consts::FRAC_1_SQRT_2;
        let m = from_trs([1.0, 2.0, 3.0], [0.0, 0.0, h, h], [2.0, 2.0, 2.0]);
        assert!(close(
            &transform_point(&m, [1.0, 0.0, 0.0]),
            &[1.0, 4.0, 3.0]
        ));
        assert!(close(&mul(&IDENTITY, &m), &m));
    }

    #[test]
    fn a_matrix_decomposes_into_the_trs_that_built_it() {
        let q = normalize([0.1, -0.7, 0.3, 0.6]);
        let m = from_trs([1.0, -2.0, 3.0], q, [2.0, 0.5, 1.5]);
        let (t, r, s) = decompose(&m);
        assert!(close(&from_trs(t, r, s), &m));
        assert!(close(&s, &[2.0, 0.5, 1.5]));
    }

    #[test]
    fn an_affine_inverse_undoes_its_matrix() {
        let q = normalize([0.3, 0.1, -0.4, 0.8]);
        let m = from_trs([4.0, -1.0, 0.5], q, [1.5, 0.25, 3.0]);
        let inv = inverse_affine(&m).expect("invertible");
        assert!(close(&mul(&m, &inv), &IDENTITY));
        assert!(close(&mul(&inv, &m), &IDENTITY));
        assert_eq!(
            inverse_affine(&from_trs([0.0; 3], q, [1.0, 0.0, 1.0])),
            None
        );
    }

    #[test]
    fn slerp_halfway_is_half_the_angle_and_takes_the_short_arc() {
        let h = std::f64::consts::FRAC_1_SQRT_2;
        let q = slerp([0.0, 0.0, 0.0, 1.0], [0.0, 0.0, h, h], 0.5);
        let a = std::f64::consts::FRAC_PI_8;
        assert!(close(&q, &[0.0, 0.0, a.sin(), a.cos()]));
        // -q is the same rotation: the short arc is taken.
        let q2 = slerp([0.0, 0.0, 0.0, 1.0], [0.0, 0.0, -h, -h], 0.5);
        assert!(close(&q2, &q));
    }
}
