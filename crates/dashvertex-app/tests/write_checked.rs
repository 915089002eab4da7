//! `output::write_checked`: an output the validator refuses changes no file and leaves
//! no temporary file, whether it was checked beside the write (small) or before it
//! (large); one it accepts replaces every file of the batch.

use std::path::Path;

use dashvertex_app::output::{CHECK_BESIDE_WRITE_MAX, Check, write_checked};
use dashvertex_core::Limits;
use dashvertex_formats::Format;
use dashvertex_testkit::{Scratch, repo};

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn check<'a>(output: &'a Path, limits: &'a Limits) -> Check<'a> {
    Check::new(output, Format::Glb, &[], limits)
}

#[test]
fn a_refused_output_writes_nothing_small_or_large() {
    let dir = Scratch::new("write-checked-refused");
    let out = dir.path().join("out.glb");
    let report = dir.path().join("report.json");
    std::fs::write(&out, b"old").expect("old output");
    let limits = Limits::default();
    // Not a GLB: the check refuses it, at either size.
    for len in [64, CHECK_BESIDE_WRITE_MAX + 1] {
        let bytes = vec![b'x'; len];
        let r = write_checked(
            &check(&out, &limits),
            bytes,
            &Default::default(),
            &[],
            &[],
            &[(report.as_path(), b"{}".as_slice())],
            vec![0u8; 16],
        );
        let e = r.expect_err("refused");
        assert!(e.to_string().contains("nothing written"), "{len}: {e}");
        assert_eq!(std::fs::read(&out).expect("output"), b"old", "{len}");
        assert_eq!(names(dir.path()), ["out.glb"], "{len}: no other file stays");
    }
}

#[test]
fn an_accepted_output_replaces_every_file_of_the_batch() {
    let dir = Scratch::new("write-checked-accepted");
    let out = dir.path().join("out.glb");
    let (before, after) = (dir.path().join("m.json"), dir.path().join("r.json"));
    std::fs::write(&out, b"old").expect("old output");
    let glb = std::fs::read(repo().join("fixtures/corpus/gltf/khronos_samples/RiggedSimple.glb"))
        .expect("fixture");
    let limits = Limits::default();
    write_checked(
        &check(&out, &limits),
        glb.clone(),
        &Default::default(),
        &[],
        &[(before.as_path(), b"[]".as_slice())],
        &[(after.as_path(), b"{}".as_slice())],
        (),
    )
    .expect("written");
    assert_eq!(std::fs::read(&out).expect("output"), glb);
    assert_eq!(std::fs::read(&before).expect("before"), b"[]");
    assert_eq!(std::fs::read(&after).expect("after"), b"{}");
    assert_eq!(names(dir.path()), ["m.json", "out.glb", "r.json"]);
}

/// A FIFO is written directly, and opening one waits for its reader: a small output
/// for a FIFO is checked before anything is opened, so a refusal returns at once
/// rather than waiting for a reader that would then see nothing.
#[cfg(unix)]
#[test]
fn a_refused_output_for_a_fifo_returns_without_opening_it() {
    let dir = Scratch::new("write-checked-fifo");
    let out = dir.path().join("out.glb");
    let made = std::process::Command::new("mkfifo").arg(&out).status();
    if !made.is_ok_and(|s| s.success()) {
        return; // no mkfifo on this system
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let path = out.clone();
    std::thread::spawn(move || {
        let limits = Limits::default();
        let r = write_checked(
            &check(&path, &limits),
            vec![b'x'; 64],
            &Default::default(),
            &[],
            &[],
            &[],
            (),
        );
        let _ = tx.send(r.map_err(|e| e.to_string()));
    });
    let got = rx
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("write_checked waited for a reader on the FIFO");
    let e = got.expect_err("refused");
    assert!(e.contains("nothing written"), "{e}");
}
