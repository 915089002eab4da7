//! The formats' command-line names (the flags' parsers); reading and writing them is
//! `dashvertex_app::formats`, worded with the flags.

pub use dashvertex_formats::{Format, SaveOptions};

/// A flag's parser over `names` (listed in the help, as possible values).
fn parser(names: &'static [&'static str]) -> impl clap::builder::TypedValueParser<Value = Format> {
    // The names are checked before the map: each is a format's name.
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(names.iter().copied())
        .map(|s: String| Format::from_name(&s).unwrap_or(Format::Json))
}

/// `--target ENGINE`: one of the engine targets of spec/targets.md.
pub fn target() -> impl clap::builder::TypedValueParser<Value = &'static dashvertex_core::Target> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(dashvertex_core::target::names())
        .try_map(|s: String| dashvertex_core::Target::named(&s).ok_or("no such target"))
}

/// The long help of a `--target` flag: `text`, then every engine target's name and the
/// importer it stands for, from the targets' own table (so the list cannot drift).
pub fn target_help(text: &str) -> String {
    let engines: Vec<String> = dashvertex_core::target::TARGETS
        .iter()
        .map(|t| format!("  {:<10} {}", t.name, t.engine))
        .collect();
    format!("{text}\n\nENGINE is one of:\n{}", engines.join("\n"))
}

/// `--from`/`--to` of `convert`, `inspect` and `reduce`, and `--input-format` of the
/// validator: any format.
pub fn any_format() -> impl clap::builder::TypedValueParser<Value = Format> {
    parser(&["json", "dmx", "raw", "gltf", "glb"])
}
