//! Validates a file and prints its diagnostics, one a line, and whether it is valid:
//! `cargo run -p dashvertex --example validate_file -- examples/rig.dmx`

use dashvertex::validate::{Options, Profile, validate_file};

fn main() {
    let path = std::env::args().nth(1).unwrap_or("examples/rig.dmx".into());
    let report = validate_file(path.as_ref(), &Options::new().with_profile(Profile::Gltf));
    for d in &report.diagnostics {
        println!("{d}");
    }
    let verdict = if report.valid { "valid" } else { "invalid" };
    println!("{}: {verdict}", report.file);
    std::process::exit(i32::from(!report.valid));
}
