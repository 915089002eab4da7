//! An interrupted write leaves nothing behind: the test re-runs its own binary as a child
//! that starts writing a destination and waits; the parent sends SIGTERM (then SIGINT,
//! SIGHUP) mid-write and checks that the child ended as the signal would end it, that
//! its temporary file is gone and that the old destination is untouched.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

const CHILD: &str = "DASH_FS_SIGNAL_CHILD";

/// The child's part: write half an output, say so, then wait to be killed.
#[test]
fn child_writer() {
    let Ok(dest) = std::env::var(CHILD) else {
        return;
    };
    dashvertex_fs::install_signal_cleanup();
    let mut out = dashvertex_fs::Output::create(Path::new(&dest)).unwrap();
    out.write_all(&[b'x'; 1 << 20]).unwrap();
    out.flush().unwrap();
    println!("writing");
    std::io::stdout().flush().unwrap();
    std::thread::sleep(Duration::from_secs(60));
    panic!("not interrupted");
}

fn temps(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".dash-tmp-"))
        .collect()
}

#[test]
fn a_signal_mid_write_removes_the_temporary_file() {
    for (name, number) in [("TERM", 15), ("INT", 2), ("HUP", 1)] {
        let dir = std::env::temp_dir().join(format!("dash-fs-sig-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let dest = dir.join("out.bin");
        std::fs::write(&dest, b"old").unwrap();
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "child_writer",
                "--nocapture",
                "--test-threads",
                "1",
            ])
            .env(CHILD, &dest)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let ready = lines.any(|l| l.is_ok_and(|l| l.contains("writing")));
        assert!(ready, "the child did not start writing");
        assert_eq!(temps(&dir).len(), 1, "a temporary file while writing");
        let kill = Command::new("kill")
            .args([format!("-{name}"), child.id().to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
        let status = child.wait().unwrap();
        // Ended by the signal (default action re-raised), or exit 128 + signal.
        assert!(
            status.signal() == Some(number) || status.code() == Some(128 + number),
            "SIG{name}: {status:?}"
        );
        assert_eq!(temps(&dir), Vec::<String>::new(), "SIG{name} left a temp");
        assert_eq!(std::fs::read(&dest).unwrap(), b"old");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
