//! Gives a file's bones stable indices from a bone manifest (created when missing,
//! extended with new bones) and writes the result as a DMX file: `cargo run -p
//! dashvertex --example stable_indices -- examples/rig.json rig.manifest.json rig.dmx`

use dashvertex::Format;
use dashvertex::reduce::{Config, index_document, read_manifest};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let arg = |i, default: &str| std::env::args().nth(i).unwrap_or(default.into());
    let manifest_path = arg(2, "rig.manifest.json");
    let mut manifest = read_manifest(&manifest_path)?;
    let model = dashvertex::open(arg(1, "examples/rig.json"))?;
    let first = model.primitives.first().ok_or("no skinned primitive")?;
    let indexed = index_document(&first.document, &mut manifest, &Config::default())?;
    std::fs::write(arg(3, "rig.dmx"), dashvertex::write(&indexed, Format::Dmx)?)?;
    std::fs::write(manifest_path, manifest.to_json())?;
    Ok(())
}
