//! Hostile counts are refused before anything is allocated; peak memory is measured in a
//! child process (Linux `/proc/self/status`, VmHWM).

use std::process::Command;

use dashvertex_core::Limits;

fn peak_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Runs in a child process only (when `DASH_PROBE_FILE` is set): decodes the file with
/// every decoder, without limits, and prints the peak resident memory.
#[test]
fn probe_child() {
    let Ok(path) = std::env::var("DASH_PROBE_FILE") else {
        return;
    };
    if path != "none" {
        let bytes = std::fs::read(&path).unwrap();
        let unlimited = Limits::UNLIMITED;
        assert!(dashvertex_binary::decode_container(&bytes, &unlimited).is_err());
        assert!(dashvertex_binary::binrw_io::decode_container(&bytes, &unlimited).is_err());
        assert!(
            dashvertex_binary::decode_chunked(
                &bytes,
                7,
                dashvertex_binary::Expect::Container,
                &unlimited
            )
            .is_err()
        );
        let mut cursor = std::io::Cursor::new(&bytes);
        assert!(
            dashvertex_binary::read_layout(&mut cursor, bytes.len() as u64, &unlimited).is_err()
        );
    }
    println!("PEAK_KB {}", peak_kb().unwrap_or(0));
}

fn child_peak(file: &str) -> u64 {
    // The test's name within the test binary: this module's path without the crate.
    let probe = format!(
        "{}::probe_child",
        module_path!().split_once("::").map_or("", |(_, m)| m)
    );
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            probe.as_str(),
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env("DASH_PROBE_FILE", file)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text.lines()
        .find_map(|l| l.split("PEAK_KB ").nth(1))
        .and_then(|n| n.split_whitespace().next()?.parse().ok())
        .unwrap()
}

#[test]
fn a_100_byte_file_claiming_4_billion_vertices_is_refused_in_a_few_mb() {
    if peak_kb().is_none() {
        eprintln!("SKIPPED: no /proc/self/status on this system, peak memory cannot be measured");
        return;
    }
    for name in [
        "invalid-4-billion-vertices.dmx",
        "invalid-vertices-beyond-eof.dmx",
    ] {
        let file = crate::common::repo().join("spec/vectors/binary").join(name);
        assert!(std::fs::metadata(&file).unwrap().len() < 128);
        let base = child_peak("none");
        let with = child_peak(file.to_str().unwrap());
        let extra = with.saturating_sub(base);
        eprintln!("{name}: peak {with} kB against a baseline of {base} kB (+{extra} kB)");
        assert!(
            extra < 4096,
            "{name}: decoding took {extra} kB more than the baseline"
        );
    }
}
