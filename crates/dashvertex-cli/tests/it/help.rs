//! Help like cargo's and ripgrep's, for every command of both binaries: `-h` is one line
//! per flag and fits 100 columns when the terminal has 100, `--help` ends with examples,
//! neither names a repository path an installed user does not have, and a flag whose
//! possible values the help does not list by itself names them in its own text.

use std::process::Command;

use clap::CommandFactory;
use dashvertex_testkit::repo;

const DASH: &str = env!("CARGO_BIN_EXE_dashvertex");
const VALIDATE: &str = env!("CARGO_BIN_EXE_dash-validate");

/// Every command line to ask for help: `dash-validate`, `dashvertex` and each of its
/// subcommands (nested ones included), from the parser's own definition.
fn commands() -> Vec<(&'static str, Vec<String>)> {
    let mut out = vec![(VALIDATE, Vec::new()), (DASH, Vec::new())];
    let mut stack: Vec<(Vec<String>, clap::Command)> =
        vec![(Vec::new(), dashvertex_cli::dash::Cli::command())];
    while let Some((path, cmd)) = stack.pop() {
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            let mut p = path.clone();
            p.push(sub.get_name().to_owned());
            out.push((DASH, p.clone()));
            stack.push((p, sub.clone()));
        }
    }
    out
}

fn help(exe: &str, path: &[String], flag: &str) -> String {
    let out = Command::new(exe)
        .current_dir(repo())
        .args(path)
        .arg(flag)
        .env("COLUMNS", "100")
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .output()
        .unwrap();
    assert!(out.status.success(), "{exe} {path:?} {flag}");
    String::from_utf8(out.stdout).unwrap()
}

fn name(exe: &str, path: &[String]) -> String {
    let bin = if exe == VALIDATE {
        "dash-validate"
    } else {
        "dashvertex"
    };
    std::iter::once(bin.to_owned())
        .chain(path.iter().cloned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Paths that exist only in a checkout of the repository.
fn repository_path(text: &str) -> Option<&'static str> {
    ["crates/", "spec/", "schemas/", "fixtures/", "tools/"]
        .into_iter()
        .find(|p| text.contains(p))
}

#[test]
fn short_help_is_one_line_per_flag_within_100_columns() {
    let mut checked = 0;
    for (exe, path) in commands() {
        let who = name(exe, &path);
        let text = help(exe, &path, "-h");
        for line in text.lines() {
            let width = line.chars().count();
            assert!(width <= 100, "{who} -h: {width} columns:\n{line}");
            // A flag's help that wrapped continues on a line indented past the flags.
            let indent = line.len() - line.trim_start().len();
            assert!(
                indent < 8 || line.trim_start().starts_with('-'),
                "{who} -h: a flag's help takes more than one line:\n{text}"
            );
        }
        if let Some(p) = repository_path(&text) {
            panic!("{who} -h names a repository path ({p}):\n{text}");
        }
        checked += 1;
    }
    assert!(
        checked >= 15,
        "only {checked} commands: is the walk broken?"
    );
}

#[test]
fn long_help_ends_with_examples_and_names_no_repository_path() {
    for (exe, path) in commands() {
        let who = name(exe, &path);
        let text = help(exe, &path, "--help");
        if let Some(p) = repository_path(&text) {
            panic!("{who} --help names a repository path ({p}):\n{text}");
        }
        let examples = text
            .rfind("\nExamples:\n")
            .unwrap_or_else(|| panic!("{who} --help has no examples at its end:\n{text}"));
        let bin = who.split(' ').next().unwrap_or_default();
        let lines: Vec<&str> = text[examples..].lines().skip(2).collect();
        assert!(
            !lines.is_empty() && lines.iter().all(|l| l.contains(bin)),
            "{who}: every example runs {bin}:\n{text}"
        );
        for line in text.lines() {
            assert!(line.chars().count() <= 100, "{who} --help:\n{line}");
        }
    }
}

#[test]
fn flags_are_grouped_under_headings_and_hidden_values_are_named() {
    let mut stack = vec![
        dashvertex_cli::dash::Cli::command(),
        dashvertex_cli::validate::command(),
    ];
    let mut headed = 0;
    while let Some(mut cmd) = stack.pop() {
        cmd.build();
        for arg in cmd.get_arguments() {
            if arg.get_help_heading().is_some() {
                headed += 1;
            }
            let values: Vec<String> = arg
                .get_possible_values()
                .iter()
                .map(|v| v.get_name().to_owned())
                .collect();
            if values.is_empty() || !arg.is_hide_possible_values_set() {
                continue;
            }
            let short = arg.get_help().map(ToString::to_string).unwrap_or_default();
            let long = arg
                .get_long_help()
                .map(ToString::to_string)
                .unwrap_or_default();
            for v in &values {
                assert!(
                    short.contains(v.as_str()) || long.contains(v.as_str()),
                    "{} --{}: value {v:?} is named nowhere in its help",
                    cmd.get_name(),
                    arg.get_id()
                );
            }
        }
        stack.extend(cmd.get_subcommands().cloned());
    }
    assert!(headed > 50, "only {headed} flags under a heading");
}
