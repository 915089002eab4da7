//! Writes a deterministic skinned DMX file for the browser decode benchmark
//! (`tools/web-bench.sh`): the benchmarks' synthetic mesh (`dash_benches::document`) of N
//! vertices, one influence set, over a chain of 64 bones.
//!
//! Usage: `make_dmx OUT.dmx [VERTICES]` (default 1,000,000).

use dashvertex_binary::{BinaryFile, WriteOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let Some(out) = args.get(1) else {
        eprintln!("usage: make_dmx OUT.dmx [VERTICES]");
        std::process::exit(2);
    };
    let n = args
        .get(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let doc = dash_benches::document(n, 1, 64);
    let bytes = dashvertex_binary::encode(&BinaryFile::new(doc), &WriteOptions::default())?;
    std::fs::write(out, &bytes)?;
    println!("{out}: {n} vertices, {} bytes", bytes.len());
    Ok(())
}
