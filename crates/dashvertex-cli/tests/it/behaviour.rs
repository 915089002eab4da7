//! How both commands behave as programs: exit codes, colour and the variables that steer
//! it (on a pseudo-terminal too), quiet and verbose output, completions, man pages, and
//! `dashvertex validate` being `dash-validate`. Help texts are transcripts in `tests/cases/`.

use std::process::{Command, Output, Stdio};

use dashvertex_testkit::{Scratch, repo};

const DASH: &str = env!("CARGO_BIN_EXE_dashvertex");
const VALIDATE: &str = env!("CARGO_BIN_EXE_dash-validate");

/// Runs `exe` in the repository with a clean colour environment plus `env`.
fn run_env(exe: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(exe);
    c.current_dir(repo()).args(args).stdin(Stdio::null());
    for v in ["NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "CI", "TERM"] {
        c.env_remove(v);
    }
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

fn run(exe: &str, args: &[&str]) -> Output {
    run_env(exe, args, &[])
}

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).unwrap()
}

const INVALID: &str = "spec/vectors/validate/weight-negative.json";
const WARNED: &str = "spec/vectors/validate/padding-bone.json";
const VALID: &str = "examples/rig.json";

#[test]
fn limit_flags_sit_under_their_own_heading_in_long_help_only() {
    for (exe, sub) in [
        (DASH, Some("reduce")),
        (DASH, Some("inspect")),
        (VALIDATE, None),
    ] {
        let args = |flag| sub.into_iter().chain([flag]).collect::<Vec<_>>();
        let short = text(&run(exe, &args("-h")).stdout);
        assert!(!short.contains("--max-vertices"), "{short}");
        let long = text(&run(exe, &args("--help")).stdout);
        let heading = long.find("\nLimits:\n").expect("a Limits heading");
        for flag in [
            "--max-input-bytes",
            "--max-vertices",
            "--max-bones",
            "--max-sets",
        ] {
            assert!(long.find(flag).unwrap() > heading, "{flag} under Limits");
        }
    }
}

#[test]
fn usage_errors_exit_2_help_and_version_exit_0() {
    for (exe, args) in [
        (DASH, &["--bogus"][..]),
        (DASH, &["reduce"]),
        (DASH, &["reduce", VALID, "-o", "-", "--max-influences", "0"]),
        (DASH, &["validate"]),
        (DASH, &["completions", "tcsh"]),
        (DASH, &["--color", "sometimes", "inspect", VALID]),
        (VALIDATE, &[]),
        (VALIDATE, &["--format", "xml", VALID]),
        (VALIDATE, &["--deny", "NO_SUCH_CODE", VALID]),
        (VALIDATE, &["-q", "-v", VALID]),
        (VALIDATE, &["--input-format", "obj", VALID]),
    ] {
        let o = run(exe, args);
        assert_eq!(
            o.status.code(),
            Some(2),
            "{exe} {args:?}: {}",
            text(&o.stderr)
        );
        assert!(o.stdout.is_empty(), "{args:?}");
    }
    for exe in [DASH, VALIDATE] {
        for flag in ["--help", "-h", "--version", "-V"] {
            assert_eq!(run(exe, &[flag]).status.code(), Some(0), "{exe} {flag}");
        }
        let v = text(&run(exe, &["--version"]).stdout);
        assert!(
            v.ends_with(&format!(" {}\n", env!("CARGO_PKG_VERSION"))),
            "{v}"
        );
    }
}

/// Whether text holds an ANSI escape.
fn coloured(b: &[u8]) -> bool {
    b.contains(&0x1b)
}

#[test]
fn colour_follows_the_flag_then_no_color_then_clicolor_force() {
    // Not a terminal: plain unless forced.
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], bool);
    let cases: &[Case] = &[
        (&[], &[], false),
        (&[], &[("CLICOLOR_FORCE", "1")], true),
        (&[], &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")], false),
        (&["--color", "always"], &[("NO_COLOR", "1")], true),
        (&["--color=always"], &[], true),
        (&["--color", "never"], &[("CLICOLOR_FORCE", "1")], false),
        (&["--color", "auto"], &[("CLICOLOR_FORCE", "1")], true),
        (&["--color", "always", "--color", "never"], &[], false),
    ];
    for (flags, env, want) in cases {
        // The validator's report on standard output.
        let args: Vec<&str> = flags.iter().copied().chain([WARNED]).collect();
        let o = run_env(VALIDATE, &args, env);
        assert_eq!(coloured(&o.stdout), *want, "dash-validate {args:?} {env:?}");
        let args: Vec<&str> = ["validate"]
            .iter()
            .chain(flags.iter())
            .copied()
            .chain([WARNED])
            .collect();
        let o = run_env(DASH, &args, env);
        assert_eq!(coloured(&o.stdout), *want, "dash {args:?} {env:?}");
        // dash's own error line, and clap's usage error, on standard error.
        let args: Vec<&str> = flags
            .iter()
            .copied()
            .chain(["inspect", "no-such-file.dmx"])
            .collect();
        let o = run_env(DASH, &args, env);
        assert_eq!(o.status.code(), Some(2));
        assert_eq!(
            coloured(&o.stderr),
            *want,
            "dash {args:?} {env:?}: {}",
            text(&o.stderr)
        );
        let args: Vec<&str> = flags.iter().copied().chain(["--bogus"]).collect();
        let o = run_env(DASH, &args, env);
        assert_eq!(coloured(&o.stderr), *want, "clap error {args:?} {env:?}");
    }
}

/// Runs the command on a pseudo-terminal (util-linux `script`), returning what the
/// terminal showed, or `None` when `script` is missing.
fn on_terminal(exe: &str, args: &[&str], env: &[(&str, &str)]) -> Option<Vec<u8>> {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("SKIPPED: util-linux `script` is not installed (no pseudo-terminal test)");
        return None;
    }
    let line = std::iter::once(exe)
        .chain(args.iter().copied())
        .map(|a| format!("'{a}'"))
        .collect::<Vec<_>>()
        .join(" ");
    let mut c = Command::new("script");
    c.current_dir(repo()).args(["-qec", &line, "/dev/null"]);
    for v in ["NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "CI"] {
        c.env_remove(v);
    }
    c.env("TERM", "xterm-256color");
    for (k, v) in env {
        c.env(k, v);
    }
    Some(c.output().unwrap().stdout)
}

#[test]
fn on_a_terminal_colour_is_on_unless_no_color_or_a_dumb_terminal() {
    for (env, want) in [
        (&[][..], true),
        (&[("NO_COLOR", "1")][..], false),
        (&[("TERM", "dumb")][..], false),
        (&[("TERM", "dumb"), ("CLICOLOR_FORCE", "1")][..], true),
    ] {
        let Some(shown) = on_terminal(VALIDATE, &[WARNED], env) else {
            return;
        };
        assert_eq!(
            coloured(&shown),
            want,
            "{env:?}: {}",
            String::from_utf8_lossy(&shown)
        );
        let shown = on_terminal(DASH, &["inspect", "no-such-file.dmx"], env).unwrap();
        assert_eq!(coloured(&shown), want, "dash error {env:?}");
    }
    let shown = on_terminal(VALIDATE, &["--color", "never", WARNED], &[]).unwrap();
    assert!(!coloured(&shown));
}

#[test]
fn quiet_shows_only_what_is_wrong_and_verbose_says_more() {
    let o = run(VALIDATE, &["-q", VALID, WARNED]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(text(&o.stdout), "", "valid files print nothing with -q");
    let o = run(VALIDATE, &["-q", VALID, INVALID]);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o.stdout);
    assert!(
        out.contains("WEIGHT_NEGATIVE") && !out.contains(VALID),
        "{out}"
    );
    assert!(!out.contains("checked 2 file(s)"), "no summary with -q");
    let o = run(VALIDATE, &["-v", VALID]);
    let err = text(&o.stderr);
    assert!(
        err.contains("examples/rig.json: ") && err.contains(" read as json in "),
        "{err}"
    );
    // A directory's skipped files are listed, unless quiet.
    let o = run(VALIDATE, &["examples/"]);
    assert!(text(&o.stderr).contains("skipped "));
    let o = run(VALIDATE, &["-q", "examples/"]);
    assert_eq!(text(&o.stderr), "");
}

#[test]
fn reduce_speaks_of_the_manifest_only_when_it_writes_one_or_with_verbose() {
    let s = Scratch::new("verbosity");
    let out = s.path().join("arm.json");
    let out = out.to_str().unwrap();
    let input = "examples/arm.weights.json";
    let o = run(DASH, &["reduce", input, "-o", out]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(
        !err.contains("manifest:") && !err.contains("bone numbering"),
        "{err}"
    );
    assert!(!err.is_empty(), "a summary line by default");
    let o = run(DASH, &["reduce", input, "-o", out, "-q"]);
    assert_eq!(text(&o.stderr), "");
    let o = run(DASH, &["-v", "reduce", input, "-o", out]);
    assert!(
        text(&o.stderr).contains("bone numbering: add bone"),
        "{}",
        text(&o.stderr)
    );
    let m = s.path().join("arm.manifest.json");
    let o = run(
        DASH,
        &[
            "reduce",
            input,
            "-o",
            out,
            "--manifest",
            m.to_str().unwrap(),
        ],
    );
    assert!(
        text(&o.stderr).contains("manifest: add bone"),
        "{}",
        text(&o.stderr)
    );
    // Unchanged manifest: nothing to say about it.
    let o = run(
        DASH,
        &[
            "reduce",
            input,
            "-o",
            out,
            "--manifest",
            m.to_str().unwrap(),
        ],
    );
    assert!(
        !text(&o.stderr).contains("manifest:"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn dash_validate_the_subcommand_is_the_command() {
    for args in [
        &["fixtures/blender/"][..],
        &[
            "--format",
            "json",
            "--profile",
            "gltf",
            "examples/rig.dmx",
            INVALID,
        ],
        &[
            "--deny",
            "warnings",
            "--allow",
            "BONE_RANGE_UNCHECKED",
            WARNED,
        ],
        &["--format", "sarif", INVALID],
        &["-q", "--max-vertices", "1", VALID],
    ] {
        let a = run(VALIDATE, args);
        let sub: Vec<&str> = std::iter::once("validate")
            .chain(args.iter().copied())
            .collect();
        let b = run(DASH, &sub);
        assert_eq!(a.status.code(), b.status.code(), "{args:?}");
        assert_eq!(text(&a.stdout), text(&b.stdout), "{args:?}");
        assert_eq!(text(&a.stderr), text(&b.stderr), "{args:?}");
    }
}

#[test]
fn completions_for_every_shell() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        for (exe, args, name) in [
            (DASH, vec!["completions", shell], "dash"),
            (
                DASH,
                vec!["completions", shell, "--validate"],
                "dash-validate",
            ),
            (VALIDATE, vec!["--completions", shell], "dash-validate"),
        ] {
            let o = run(exe, &args);
            assert_eq!(o.status.code(), Some(0), "{args:?}");
            let script = text(&o.stdout);
            assert!(script.contains(name), "{shell} {args:?}");
            if name == "dash" {
                for sub in ["reduce", "validate", "manifest", "convert", "inspect"] {
                    assert!(script.contains(sub), "{shell}: {sub}");
                }
            } else {
                assert!(script.contains("input-format"), "{shell} {args:?}");
            }
        }
    }
    // The bash script parses (when bash is here, which it is wherever these tests run).
    let s = Scratch::new("completions");
    let f = s.path().join("dash.bash");
    std::fs::write(&f, run(DASH, &["completions", "bash"]).stdout).unwrap();
    let o = Command::new("bash").arg("-n").arg(&f).output().unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        run(VALIDATE, &["--completions", "bash"]).stdout,
        run(DASH, &["completions", "bash", "--validate"]).stdout
    );
}

#[test]
fn man_pages_for_every_command() {
    let s = Scratch::new("man");
    let dir = s.path().join("man1");
    let o = run(DASH, &["man", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    for want in [
        "dashvertex.1",
        "dashvertex-convert.1",
        "dashvertex-reduce.1",
        "dash-validate.1",
        "dashvertex-inspect.1",
        "dashvertex-manifest.1",
        "dashvertex-manifest-init.1",
        "dashvertex-manifest-update.1",
        "dashvertex-manifest-show.1",
        "dashvertex-completions.1",
        "dashvertex-man.1",
    ] {
        assert!(names.iter().any(|n| n == want), "{want} in {names:?}");
    }
    let page = std::fs::read_to_string(dir.join("dashvertex-reduce.1")).unwrap();
    assert!(
        page.starts_with(".ie \\n(.g .ds Aq") || page.contains(".TH dashvertex-reduce 1"),
        "{page}"
    );
    assert!(page.contains("max\\-influences"), "flags documented");
    // dash-validate.1 from `dashvertex man` is the page `dash-validate --man` prints.
    let printed = run(VALIDATE, &["--man"]).stdout;
    assert_eq!(std::fs::read(dir.join("dash-validate.1")).unwrap(), printed);
    // man(1) renders it, when man is installed.
    if Command::new("man").arg("--version").output().is_ok() {
        let o = Command::new("man")
            .arg("-l")
            .arg(dir.join("dashvertex-reduce.1"))
            .env("MANPAGER", "cat")
            .env("PAGER", "cat")
            .output()
            .unwrap();
        assert!(o.status.success() && text(&o.stdout).contains("reduce"));
    }
}

#[test]
fn help_ends_quietly_on_a_closed_pipe() {
    for (exe, args) in [
        (DASH, &["--help"][..]),
        (VALIDATE, &["--help"]),
        (DASH, &["completions", "zsh"]),
    ] {
        let mut child = Command::new(exe)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let o = child.wait_with_output().unwrap();
        assert!(o.status.code().is_some(), "{args:?}: killed by a signal");
        assert!(
            !text(&o.stderr).contains("panicked"),
            "{args:?}: {}",
            text(&o.stderr)
        );
    }
}

#[test]
fn the_ci_action_script_globs_fails_on_errors_and_writes_sarif() {
    let s = Scratch::new("action");
    let sarif = s.path().join("dash.sarif");
    let action = |paths: &str, args: &str, sarif_to: &str| {
        let out_file = s.path().join("github_output");
        let o = Command::new("bash")
            .arg(repo().join("tools/action/run.sh"))
            .current_dir(repo())
            .env("DASH_VALIDATE", VALIDATE)
            .env("INPUT_PATHS", paths)
            .env("INPUT_ARGS", args)
            .env("INPUT_SARIF", sarif_to)
            .env("GITHUB_OUTPUT", &out_file)
            .output()
            .unwrap();
        let outputs = std::fs::read_to_string(&out_file).unwrap_or_default();
        let _ = std::fs::remove_file(&out_file);
        (o, outputs)
    };
    // Globs (`**` too), a folder and a plain file, over lines and spaces; one invalid file.
    let (o, outputs) = action(
        "examples/*.dmx\nspec/vectors/validate/**/weight-neg*.json fixtures/blender/",
        "--profile gltf",
        sarif.to_str().unwrap(),
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(
        out.contains("examples/rig.dmx: valid") && out.contains("WEIGHT_NEGATIVE"),
        "{out}"
    );
    let log: serde_json::Value = serde_json::from_slice(&std::fs::read(&sarif).unwrap()).unwrap();
    assert_eq!(log["version"], "2.1.0");
    assert!(outputs.contains("sarif="), "{outputs}");
    // Flags pass through: --deny warnings fails a file with a warning.
    let (o, _) = action(WARNED, "", "");
    assert_eq!(o.status.code(), Some(0));
    let (o, _) = action(WARNED, "--deny warnings", "");
    assert_eq!(o.status.code(), Some(1));
    // Manifests and weights documents among the globbed .json are skipped, not invalid.
    let (o, _) = action("examples/*.json", "", "");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
    assert!(
        text(&o.stderr).contains("skipped examples/arm.manifest.json"),
        "{}",
        text(&o.stderr)
    );
    // A pattern that matches nothing warns; nothing at all to check is an error.
    let (o, _) = action("examples/*.dmx nothing/**/*.glb", "", "");
    assert_eq!(o.status.code(), Some(0));
    assert!(
        text(&o.stdout).contains("::warning::dash-validate: 'nothing/**/*.glb' matches no file")
    );
    let (o, _) = action("nothing/*.glb", "", "");
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stdout).contains("::error::"));
}

#[test]
fn the_pre_commit_hooks_name_scripts_that_run_the_validator() {
    let hooks = std::fs::read_to_string(repo().join(".pre-commit-hooks.yaml")).unwrap();
    assert!(hooks.contains("- id: dash-validate\n") && hooks.contains("language: script"));
    assert!(hooks.contains("entry: tools/pre-commit/dash-validate --skip-other-json"));
    let action = std::fs::read_to_string(repo().join("action.yml")).unwrap();
    for script in ["tools/action/install.sh", "tools/action/run.sh"] {
        assert!(
            action.contains(script) && repo().join(script).is_file(),
            "{script}"
        );
    }
    // The hook's entry, as pre-commit calls it: staged files as arguments.
    let run = |files: &[&str]| {
        Command::new(repo().join("tools/pre-commit/dash-validate"))
            .arg("--skip-other-json")
            .args(files)
            .current_dir(repo())
            .env("DASH_VALIDATE", VALIDATE)
            .output()
            .unwrap()
    };
    let o = run(&[
        VALID,
        "examples/rig.dmx",
        "examples/arm.manifest.json",
        "tools/oracle/package.json",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}{}",
        text(&o.stdout),
        text(&o.stderr)
    );
    let o = run(&[VALID, INVALID]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn a_manifest_shows_from_standard_input() {
    use std::io::Write;
    let file = run(DASH, &["manifest", "show", "examples/arm.manifest.json"]);
    let mut child = Command::new(DASH)
        .args(["manifest", "show", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let bytes = std::fs::read(repo().join("examples/arm.manifest.json")).unwrap();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        text(&o.stdout),
        text(&file.stdout).replacen("examples/arm.manifest.json", "<stdin>", 1)
    );
}
