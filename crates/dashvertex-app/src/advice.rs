//! What to do about a diagnostic, in the words of the front end that shows it. The
//! validator's catalogue (`dashvertex_validate::Code::help`) says it in dash's terms
//! ("fix it with the zero-sum policy nearest"); a front end names its own commands, calls
//! and options instead: the command line `dashvertex fix FILE -o OUT --zero-sum nearest`,
//! Python `dashvertex.fix_file(path, output, zero_sum="nearest")`.

use dashvertex_validate::{Code, Diagnostic, FileReport, ZERO_SUM_HELP};

use crate::words::{Job, Opt, Wording};

/// The advice for `code` in `words`' names, for the codes whose advice names a job or an
/// option (the others' catalogue help names none, and stays).
pub fn advice(code: Code, words: &dyn Wording) -> Option<String> {
    let opt = |o: Opt| words.option(o);
    let set = |o: Opt, v: &str| words.set(o, v);
    let call = |j: Job, args: &[(Opt, &str)]| words.call(j, args);
    Some(match code {
        Code::FORMAT_UNKNOWN => format!(
            "name the format with {}, or check the file",
            opt(Opt::InputFormat)
        ),
        Code::LIMIT_EXCEEDED => format!(
            "raise the limit ({}, {}, {}, {}) if the file is trusted",
            opt(Opt::MaxVertices),
            opt(Opt::MaxBones),
            opt(Opt::MaxSets),
            opt(Opt::MaxInputBytes)
        ),
        Code::UNREFERENCED_BYTES => format!(
            "dash will not rewrite this file without {}",
            opt(Opt::DropUnreferenced)
        ),
        Code::WEIGHT_SUM => format!(
            "renormalize: `{}` (or `{}` when reducing)",
            call(Job::Fix, &[]),
            set(Opt::Normalize, "unit")
        ),
        Code::WEIGHTS_ALL_ZERO => format!(
            "bind it to a bone (`{}` or `{}`), or mark the mesh unskinned",
            call(Job::Fix, &[(Opt::ZeroSum, "nearest")]),
            set(Opt::ZeroSum, "root")
        ),
        Code::TARGET_SETS_IGNORED => format!(
            "reduce to what the engine reads: `{}` or `{}`",
            call(Job::Reduce, &[(Opt::Target, "ENGINE")]),
            call(Job::Fix, &[(Opt::Target, "ENGINE")])
        ),
        Code::TARGET_SETS_REJECTED => format!(
            "fold the influences into the sets it reads: `{}`",
            call(Job::Fix, &[(Opt::Target, "ENGINE")])
        ),
        Code::TARGET_JOINTS => format!(
            "cut the mesh into parts of at most that many joints with `{}` (one mesh, node and skin per part); no rewrite of the weights helps",
            call(Job::Split, &[(Opt::Target, "ENGINE")])
        ),
        Code::BONE_NOT_IN_MANIFEST => format!(
            "add the bone with `{}`, or weight that vertex on a bone the manifest has",
            call(Job::ManifestUpdate, &[(Opt::From, "FILE")])
        ),
        Code::NEUTRAL_BONE => format!(
            "weight those vertices to a real bone in Blender (Weight Paint) and export again, or keep the joint on purpose with `{}`",
            set(Opt::Allow, "NEUTRAL_BONE")
        ),
        Code::JOINT_ORDER => format!(
            "rewrite the joint order with `{}`",
            call(Job::Remap, &[(Opt::Manifest, "M")])
        ),
        Code::VERTEX_INDEX => format!(
            "readers use the position; `{}` rewrites the index",
            call(Job::Convert, &[])
        ),
        Code::GLTF_IBM_STRIDE => {
            format!("pack the matrices tightly (`{}` does)", call(Job::Fix, &[]))
        }
        Code::FBX_INFLUENCES => format!("`{}` keeps the ones that matter", call(Job::Reduce, &[])),
        Code::FBX_WEIGHT_SUM => format!(
            "normalize the weights before export (Blender: Normalize All), or let `{}` or `{}` normalize them",
            words.job(Job::Convert),
            words.job(Job::Reduce)
        ),
        Code::BONE_RANGE_UNCHECKED => format!(
            "pass {} or {}",
            set(Opt::Bones, "N"),
            set(Opt::Manifest, "FILE")
        ),
        _ => return None,
    })
}

/// The advice for a vertex whose weights are all zero (`WEIGHT_SUM` with
/// [`ZERO_SUM_HELP`]), in `words`' names.
fn zero_sum(words: &dyn Wording) -> String {
    format!(
        "bind the vertex to a bone: `{}` copies the nearest weighted vertex's influences, `{}` binds it to the root bone",
        words.call(Job::Fix, &[(Opt::ZeroSum, "nearest")]),
        words.set(Opt::ZeroSum, "root")
    )
}

/// Words `d`'s help for the front end: a help that is the catalogue's own (or the
/// all-zero weights' one) becomes [`advice`] in `words`' names; a help a check wrote for
/// this finding alone stays.
pub fn word(d: &mut Diagnostic, words: &dyn Wording) {
    let help = d.help.as_deref();
    let worded = if help == Some(ZERO_SUM_HELP) {
        Some(zero_sum(words))
    } else if help.is_some() && help == d.code.help() {
        advice(d.code, words)
    } else {
        None
    };
    if let Some(h) = worded {
        d.help = Some(h);
    }
}

/// [`word`] on every diagnostic of `report`.
pub fn word_report(report: &mut FileReport, words: &dyn Wording) {
    for d in &mut report.diagnostics {
        word(d, words);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::{CommandLine, Neutral};

    /// Python's wording, as the package spells it (a copy for the test: the package's
    /// own lives in dashvertex-py).
    struct Calls;
    impl Wording for Calls {
        fn set(&self, opt: Opt, value: &str) -> String {
            format!("{}=\"{value}\"", opt.keyword())
        }
        fn call(&self, job: Job, args: &[(Opt, &str)]) -> String {
            let args: Vec<String> = args.iter().map(|&(o, v)| self.set(o, v)).collect();
            format!(
                "dashvertex.{}_file(path, output, {})",
                job.keyword(),
                args.join(", ")
            )
        }
    }

    #[test]
    fn the_catalogue_names_no_command_or_flag_and_front_ends_word_it() {
        for &c in Code::ALL {
            let help = c.help().unwrap_or_default();
            assert!(
                !help.contains("--") && !help.contains("dashvertex ") && !help.contains('`'),
                "{c}: {help}"
            );
            // Every advice a front end words names what the catalogue's help does not.
            if let Some(a) = advice(c, &CommandLine) {
                assert!(a.contains("--") || a.contains("dashvertex "), "{c}: {a}");
                assert!(c.help().is_some(), "{c}: advice without a catalogue help");
            }
        }
        assert_eq!(
            advice(Code::WEIGHTS_ALL_ZERO, &CommandLine).unwrap(),
            "bind it to a bone (`dashvertex fix FILE -o OUT --zero-sum nearest` or `--zero-sum root`), or mark the mesh unskinned"
        );
        assert_eq!(
            advice(Code::WEIGHTS_ALL_ZERO, &Calls).unwrap(),
            "bind it to a bone (`dashvertex.fix_file(path, output, zero_sum=\"nearest\")` or `zero_sum=\"root\"`), or mark the mesh unskinned"
        );
        assert!(!advice(Code::WEIGHT_SUM, &Neutral).unwrap().contains("--"));
    }

    #[test]
    fn only_the_catalogues_own_help_is_reworded() {
        let at = dashvertex_validate::Location::default();
        let mut d = Diagnostic::new(Code::WEIGHT_SUM, "vertex 0: off", at.clone());
        word(&mut d, &CommandLine);
        assert_eq!(
            d.help.as_deref(),
            Some("renormalize: `dashvertex fix FILE -o OUT` (or `--normalize unit` when reducing)")
        );
        let mut zero = Diagnostic::new(Code::WEIGHT_SUM, "vertex 0: zero", at.clone())
            .with_help(ZERO_SUM_HELP);
        word(&mut zero, &CommandLine);
        assert!(zero.help.as_deref().unwrap().contains("--zero-sum nearest"));
        let mut own =
            Diagnostic::new(Code::WEIGHT_SUM, "vertex 0", at).with_help("a help of its own");
        word(&mut own, &CommandLine);
        assert_eq!(own.help.as_deref(), Some("a help of its own"));
    }
}
