//! The fix job's filesystem shell: the input read by path, the job planned
//! ([`super::plan`]), an unchanged glTF copied from the input file, the images the output
//! names followed, and the output with its buffer files and the report checked and
//! written together, or none.

use std::path::Path;

use dashvertex_fix::Report;

use super::{FixJob, FixOutput, Fixed, plan};
use crate::error::AppError;
use crate::input::{Opened, container, read_source_for};
use crate::output::{
    buffer_files, external_buffers, make_folders, nothing_written, refuse_aliases_before,
    refuse_written_aliases, stage_output, unchanged_gltf,
};
use crate::words::Opt;

/// Runs a fix job: the output is written only when the validator accepts it, with the
/// report file (if any) together.
///
/// ```no_run
/// # fn main() -> Result<(), dashvertex_app::AppError> {
/// use dashvertex_app::{Collect, Context, Neutral, fix};
/// let log = Collect::default();
/// let ctx = Context { limits: Default::default(), resource_dirs: &[], wait: true, words: &Neutral, log: &log };
/// let asked = fix::Asked {
///     gltf_sums: true,
///     bad_weights: dashvertex_fix::BadWeights::Zero,
///     out_of_range: dashvertex_fix::OutOfRange::Drop,
///     zero_sum: Some(dashvertex_fix::ZeroSum::Nearest),
///     skinned_flag: dashvertex_fix::SkinnedFlag::Error,
///     ibm_tolerance: 1e-4,
/// };
/// let input = "rig.json".as_ref();
/// let done = fix::run(&fix::FixJob {
///     input,
///     output: "rig.fixed.json".as_ref(),
///     to: None,
///     policy: fix::policy(&asked, input, None, &ctx)?,
///     zero_sum_given: true,
///     target: None,
///     bones: None,
///     embed: false,
///     resources: Default::default(),
///     report: None,
///     dry_run: false,
///     listed: None,
///     ctx: &ctx,
/// })?;
/// println!("{}", fix::summary(&done.report));
/// # Ok(()) }
/// ```
pub fn run(a: &FixJob) -> Result<Fixed, AppError> {
    let ctx = a.ctx;
    // No output may overwrite the input or another output (spec/security.md W3).
    let (output_name, report_name) = (ctx.opt(Opt::Output), ctx.opt(Opt::Report));
    let mut outputs: Vec<dashvertex_fs::Named> = Vec::new();
    if !a.dry_run {
        outputs.push((output_name.as_str(), a.output));
    }
    outputs.extend(a.report.map(|r| (report_name.as_str(), r)));
    let inputs: Vec<dashvertex_fs::Named> = vec![("the input", a.input)];
    refuse_aliases_before(a.output, a.to, a.embed, &outputs, &inputs, ctx.words)?;
    // Fix repairs influence data; errors elsewhere are carried into the output.
    let opened = read_source_for(a.input, ctx, dashvertex_validate::Work::Rewrite)?;
    let mut read_buffers = match &opened {
        Opened::Gltf(g) => external_buffers(g, a.input),
        Opened::Bytes(_) => Vec::new(),
    };
    let input_bytes = match &opened {
        Opened::Gltf(g) => g.input_bytes(),
        Opened::Bytes(_) => 0,
    };
    let mut planned = plan(a, (&opened).into())?;
    let output = std::mem::replace(&mut planned.output, FixOutput::Unchanged);
    let (mut written, present) = match (output, opened) {
        (FixOutput::Bytes(main), _) | (FixOutput::Unchanged, Opened::Bytes(main)) => (
            dashvertex_gltf::export::Written {
                main,
                ..Default::default()
            },
            Vec::new(),
        ),
        (FixOutput::Gltf(w), _) => (w, Vec::new()),
        (FixOutput::Unchanged, Opened::Gltf(g)) => {
            let files = buffer_files(a.output, a.embed);
            let to = container(Some(planned.format)).unwrap_or(dashvertex_gltf::Container::Glb);
            let u = unchanged_gltf(*g, a.input, a.output, to, &files)?;
            (u.written, u.present)
        }
    };
    // The images a glTF output names follow it (spec/security.md [R4]).
    if let Some(to) = container(Some(planned.format)) {
        let follow = crate::resources::Follow {
            input: a.input,
            output: a.output,
            container: to,
            mode: a.resources,
            embed: a.embed,
            read: input_bytes,
            ctx,
        };
        read_buffers.extend(crate::resources::follow(&follow, &mut written)?);
    }
    let files = std::mem::take(&mut written.files);
    let seen: Vec<(String, Vec<u8>)> = files.iter().chain(&present).cloned().collect();
    let main = planned.checked(std::mem::take(&mut written.main), &seen)?;
    let report = planned.report;
    if a.dry_run {
        if let Some(path) = a.report {
            write_json(path, &report)?;
        }
        return Ok(Fixed {
            report,
            written: false,
        });
    }
    refuse_written_aliases(
        a.output,
        &files,
        &outputs,
        &inputs,
        &read_buffers,
        ctx.words,
    )?;
    // The output, its buffer files and the report file are replaced together or not at
    // all.
    let _folders = make_folders(a.output, &files)?;
    let mut batch = dashvertex_fs::Batch::new();
    stage_output(&mut batch, a.output, &main, None, &files)?;
    if let Some(path) = a.report {
        let out = match json_output(path, &report) {
            Err(AppError::Io(m)) => return Err(AppError::Io(format!("{m}; nothing was written"))),
            other => other?,
        };
        batch.add_output(out);
    }
    batch.commit().map_err(nothing_written)?;
    Ok(Fixed {
        report,
        written: true,
    })
}

/// The JSON report written to `path` (`-`: standard output) as it is serialized, so that
/// a report of millions of changes is never held as one string; committed by the caller.
fn json_output(path: &Path, report: &Report) -> Result<dashvertex_fs::Output, AppError> {
    use std::io::Write as _;
    let mut out = dashvertex_fs::Output::create(path)?;
    serde_json::to_writer_pretty(&mut out, report)
        .map_err(std::io::Error::from)
        .and_then(|()| out.write_all(b"\n"))
        .map_err(|e| dashvertex_fs::FsError::io(path, e))?;
    Ok(out)
}

/// Writes the JSON report to `path` (`-`: standard output).
pub fn write_json(path: &Path, report: &Report) -> Result<(), AppError> {
    Ok(json_output(path, report)?.commit()?)
}
