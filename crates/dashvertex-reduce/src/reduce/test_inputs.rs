//! Inputs for the reducer's unit tests.

#![allow(clippy::cast_possible_truncation)]

use crate::input::{Candidates, Data, Input, Origin};
use crate::manifest::BoneRef;

/// An input listing `vertices[v]` as vertex `v`'s (bone, weight) pairs, with bones
/// `b0 .. b{bones - 1}`.
pub(super) fn input(vertices: &[&[(u32, f32)]], bones: u32) -> Input<'static> {
    let counts: Vec<u32> = vertices.iter().map(|v| v.len() as u32).collect();
    let mut c = Candidates::with_counts(&counts);
    for (v, list) in vertices.iter().enumerate() {
        for (k, &(b, w)) in list.iter().enumerate() {
            assert!(c.push(v, b, w, k as u32), "room for every pair");
        }
    }
    Input {
        bones: (0..bones)
            .map(|i| BoneRef {
                name: format!("b{i}"),
                parent: None,
            })
            .collect(),
        positions: vec![[0.0; 3]; vertices.len()],
        data: Data::Lists(c),
        origin: Origin::Sets,
    }
}

pub(super) fn identity(n: u32) -> Vec<u32> {
    (0..n).collect()
}

/// A vertex of three equal weights that sum below 1, and one of seven weights of 1.
pub(super) fn uneven() -> Input<'static> {
    input(
        &[
            &[(0, 0.3), (1, 0.3), (2, 0.3)],
            &[
                (0, 1.0),
                (1, 1.0),
                (2, 1.0),
                (3, 1.0),
                (4, 1.0),
                (5, 1.0),
                (6, 1.0),
            ],
        ],
        7,
    )
}
