//! Times the native build of the code the WebAssembly module runs on a file, for the
//! browser benchmark's ratio (`tools/web-bench.sh`): decoding, and decoding with the
//! positions, bone indices and weights copied out as the typed arrays are.
//!
//! Usage: `decode_time FILE [RUNS]` (default 7 runs; prints the medians).

use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: decode_time FILE [RUNS]");
        std::process::exit(2);
    };
    let runs: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(7);
    let bytes = std::fs::read(path)?;
    let (mut decode, mut arrays) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let t0 = Instant::now();
        let m = dashvertex_wasm::model::decode(path, &bytes, None)?;
        let t1 = Instant::now();
        let p = m.positions();
        let j = m.joints(0).map_or(0, |j| j.len());
        let w = m.weights(0).map_or(0, |w| w.len());
        let t2 = Instant::now();
        if p.len() != 3 * m.vertex_count() || j != w {
            return Err("bad arrays".into());
        }
        decode.push((t1 - t0).as_secs_f64() * 1e3);
        arrays.push((t2 - t0).as_secs_f64() * 1e3);
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
    };
    let (d, a) = (median(&mut decode), median(&mut arrays));
    println!(
        "native decode: {} bytes, median decode {d:.1} ms, decode + arrays {a:.1} ms",
        bytes.len()
    );
    println!("NATIVE_DECODE_MS={d:.2} NATIVE_ARRAYS_MS={a:.2}");
    Ok(())
}
