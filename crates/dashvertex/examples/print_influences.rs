//! Opens a glTF, GLB or DashVertex file and prints every vertex's influences across all
//! its sets: `cargo run -p dashvertex --example print_influences -- examples/rig.json`

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or("examples/rig.json".into());
    let model = dashvertex::open(path)?;
    for p in &model.primitives {
        let names: Vec<&str> = p.bones().iter().map(|b| b.name.as_str()).collect();
        println!("{}: {} vertices, bones {names:?}", p.name, p.len());
        for v in 0..p.len() {
            println!("  vertex {v}: {:?}", p.influences(v));
        }
    }
    Ok(())
}
