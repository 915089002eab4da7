//! Keyword values to library settings, each refusal naming the Python keyword: shared by
//! every binding that takes them (`validate`, `reduce`, and the file functions to come).

use dashvertex_reduce::{Empty, Normalize, Quantize};
use dashvertex_validate::Profile;

use crate::errors::{Failure, Result};

/// The value named `given` among `names`, or an `OptionError` listing them.
pub fn choice<T: Copy>(keyword: &str, given: &str, names: &[(&str, T)]) -> Result<T> {
    match names.iter().find(|(n, _)| *n == given) {
        Some((_, v)) => Ok(*v),
        None => {
            let all: Vec<String> = names.iter().map(|(n, _)| format!("{n:?}")).collect();
            Err(Failure::option(format!(
                "{keyword}={given:?} is not one of {}",
                all.join(", ")
            )))
        }
    }
}

/// `profile=`: "dash" or "gltf".
pub fn profile(given: Option<&str>) -> Result<Option<Profile>> {
    given
        .map(|g| {
            choice(
                "profile",
                g,
                &[("dash", Profile::Dash), ("gltf", Profile::Gltf)],
            )
        })
        .transpose()
}

/// `target=`: an engine name of spec/targets.md.
pub fn target(given: Option<&str>) -> Result<Option<&'static dashvertex_core::Target>> {
    given
        .map(|g| {
            dashvertex_core::Target::named(g).ok_or_else(|| {
                let all: Vec<String> = dashvertex_core::target::names()
                    .map(|n| format!("{n:?}"))
                    .collect();
                Failure::option(format!("target={g:?} is not one of {}", all.join(", ")))
            })
        })
        .transpose()
}

/// `normalize=`: "unit" or "none".
pub fn normalize(given: &str) -> Result<Normalize> {
    choice(
        "normalize",
        given,
        &[("unit", Normalize::Unit), ("none", Normalize::None)],
    )
}

/// `quantize=`: None (float32), "f32", "unorm16" or "unorm8".
pub fn quantize(given: Option<&str>) -> Result<Quantize> {
    given.map_or(Ok(Quantize::F32), |g| {
        choice(
            "quantize",
            g,
            &[
                ("f32", Quantize::F32),
                ("unorm16", Quantize::Unorm16),
                ("unorm8", Quantize::Unorm8),
            ],
        )
    })
}

/// `empty=`: "error", "zero" or "root".
pub fn empty(given: &str) -> Result<Empty> {
    choice(
        "empty",
        given,
        &[
            ("error", Empty::Error),
            ("zero", Empty::Zero),
            ("root", Empty::Root),
        ],
    )
}
