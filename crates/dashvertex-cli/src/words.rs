//! How the command line speaks for the library's jobs: options named by their flags,
//! messages printed on standard error as they come, and job errors as exit codes.

use dashvertex_app::{Level, Log};

use crate::common;

/// Options named as `dashvertex` spells its flags: the app's command-line wording.
pub use dashvertex_app::CommandLine as Flags;

/// A job's messages on standard error, at the process's verbosity.
#[derive(Clone, Copy, Debug, Default)]
pub struct Printer;

impl Log for Printer {
    fn log(&self, level: Level, message: &dyn std::fmt::Display) {
        match level {
            Level::Warning => common::warning(message),
            Level::Note => common::note(message),
            Level::Info => common::info(message),
            Level::Detail => common::detail(message),
        }
    }
}

/// The job context of a run: its limits and resource folders, flags for names, and
/// [`Printer`] for messages.
pub fn context<'a>(
    limits: dashvertex_core::Limits,
    resource_dirs: &'a [std::path::PathBuf],
    wait: bool,
) -> dashvertex_app::Context<'a> {
    dashvertex_app::Context {
        limits,
        resource_dirs,
        wait,
        words: &Flags,
        log: &Printer,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dashvertex_app::{Job, Opt, Wording};

    #[test]
    fn flags_spell_options_as_the_cli_does() {
        assert_eq!(Flags.option(Opt::MaxInfluences), "--max-influences");
        assert_eq!(Flags.option(Opt::Output), "-o");
        assert_eq!(Flags.job(Job::ManifestInit), "dashvertex manifest init");
    }
}
