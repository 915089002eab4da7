//! Shell completions and man pages, generated from the same definitions as the parser.

use std::path::Path;
use std::process::ExitCode;

use crate::common;
use crate::error::CliError;

/// Prints `cmd`'s completion script for `shell` on standard output.
pub fn print_completions(cmd: &mut clap::Command, shell: clap_complete::Shell) -> ExitCode {
    let name = cmd.get_name().to_owned();
    let mut out = Vec::new();
    clap_complete::generate(shell, cmd, name, &mut out);
    emit(&out)
}

/// Prints `cmd`'s man page (roff) on standard output.
pub fn print_man(cmd: clap::Command) -> ExitCode {
    match render(cmd) {
        Ok(page) => emit(&page),
        Err(e) => {
            common::error(&e);
            ExitCode::from(2)
        }
    }
}

fn emit(bytes: &[u8]) -> ExitCode {
    match dashvertex_fs::write_file(Path::new("-"), bytes) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            common::error(&e);
            ExitCode::from(2)
        }
    }
}

fn render(cmd: clap::Command) -> Result<Vec<u8>, CliError> {
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd)
        .render(&mut out)
        .map_err(|e| CliError::Io(format!("rendering a man page: {e}")))?;
    Ok(out)
}

/// The man pages of both commands: `dashvertex.1`, `dashvertex-SUB.1` for each
/// subcommand (and `dashvertex-manifest-SUB.1` below `manifest`), and `dash-validate.1`;
/// `main` and `validate` are the two commands' clap definitions.
pub fn man_pages(
    mut main: clap::Command,
    mut validate: clap::Command,
) -> Result<Vec<(String, Vec<u8>)>, CliError> {
    let mut pages = Vec::new();
    main.build();
    collect(&main, "dashvertex", &mut pages)?;
    validate.build();
    pages.push(("dash-validate.1".to_owned(), render(validate)?));
    Ok(pages)
}

fn collect(
    cmd: &clap::Command,
    name: &str,
    pages: &mut Vec<(String, Vec<u8>)>,
) -> Result<(), CliError> {
    let page = cmd
        .clone()
        .name(name.to_owned())
        .display_name(name.to_owned());
    pages.push((format!("{name}.1"), render(page)?));
    // `dashvertex validate` is `dash-validate`, whose page is written on its own.
    for sub in cmd.get_subcommands().filter(|s| {
        !matches!(
            (name, s.get_name()),
            (_, "help") | ("dashvertex", "validate")
        )
    }) {
        collect(sub, &format!("{name}-{}", sub.get_name()), pages)?;
    }
    Ok(())
}

/// `dashvertex man DIR`: writes every page into `dir` (each atomically), creating the folder.
pub fn write_man_pages(
    dir: &Path,
    main: clap::Command,
    validate: clap::Command,
) -> Result<(), CliError> {
    std::fs::create_dir_all(dir).map_err(|e| CliError::Io(format!("{}: {e}", dir.display())))?;
    let pages = man_pages(main, validate)?;
    for (name, page) in &pages {
        dashvertex_fs::write_file(&dir.join(name), page)?;
    }
    common::info(format_args!("{}: {} man pages", dir.display(), pages.len()));
    Ok(())
}
