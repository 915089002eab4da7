//! [`Config`] built one setting at a time, and the settings' names read from text.

use super::{Config, Empty, Normalize, Quantize};

impl Config {
    /// Keeps at most `k` influences per vertex (1 to [`super::MAX_INFLUENCES`]).
    pub fn with_max_influences(mut self, k: usize) -> Config {
        self.max_influences = k;
        self
    }

    /// How the kept weights are scaled.
    pub fn with_normalize(mut self, normalize: Normalize) -> Config {
        self.normalize = normalize;
        self
    }

    /// The weights' precision. An integer precision (`unorm8`, `unorm16`) also sets
    /// [`Normalize::Unit`], which it needs: its weights sum to exactly 255 or 65535.
    pub fn with_quantize(mut self, quantize: Quantize) -> Config {
        self.quantize = quantize;
        if quantize.max().is_some() {
            self.normalize = Normalize::Unit;
        }
        self
    }

    /// Drops influences lighter than `w`, except a vertex's heaviest.
    pub fn with_min_weight(mut self, w: f32) -> Config {
        self.min_weight = w;
        self
    }

    /// What happens to a vertex without influence.
    pub fn with_empty(mut self, empty: Empty) -> Config {
        self.empty = empty;
        self
    }
}

/// A setting's name that names none of its values.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown {kind} {name:?} (expected {expected})")]
pub struct UnknownSetting {
    kind: &'static str,
    name: String,
    expected: &'static str,
}

fn unknown(kind: &'static str, name: &str, expected: &'static str) -> UnknownSetting {
    UnknownSetting {
        kind,
        name: name.chars().take(64).collect(),
        expected,
    }
}

impl std::str::FromStr for Normalize {
    type Err = UnknownSetting;

    /// `none` or `unit`.
    fn from_str(s: &str) -> Result<Normalize, UnknownSetting> {
        match s {
            "none" => Ok(Normalize::None),
            "unit" => Ok(Normalize::Unit),
            _ => Err(unknown("normalization", s, "none or unit")),
        }
    }
}

impl std::str::FromStr for Quantize {
    type Err = UnknownSetting;

    /// `f32`, `unorm16` or `unorm8`.
    fn from_str(s: &str) -> Result<Quantize, UnknownSetting> {
        match s {
            "f32" => Ok(Quantize::F32),
            "unorm16" => Ok(Quantize::Unorm16),
            "unorm8" => Ok(Quantize::Unorm8),
            _ => Err(unknown("precision", s, "f32, unorm16 or unorm8")),
        }
    }
}

impl std::str::FromStr for Empty {
    type Err = UnknownSetting;

    /// `error`, `zero` or `root`.
    fn from_str(s: &str) -> Result<Empty, UnknownSetting> {
        match s {
            "error" => Ok(Empty::Error),
            "zero" => Ok(Empty::Zero),
            "root" => Ok(Empty::Root),
            _ => Err(unknown("empty-vertex policy", s, "error, zero or root")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_and_integer_precision_normalizes() {
        assert_eq!("unorm8".parse::<Quantize>(), Ok(Quantize::Unorm8));
        assert_eq!("unit".parse::<Normalize>(), Ok(Normalize::Unit));
        assert_eq!("root".parse::<Empty>(), Ok(Empty::Root));
        assert!("unorm4".parse::<Quantize>().is_err());
        let cfg = Config::default().with_quantize(Quantize::Unorm16);
        assert_eq!(cfg.normalize, Normalize::Unit);
        assert_eq!(
            Config::default().with_quantize(Quantize::F32).normalize,
            Normalize::None
        );
    }
}
