//! The baseline of the FBX benchmark (benches/fbx_peers.py): ufbx's own load of a file,
//! with its default options, and nothing else.
//!
//! `cargo run --release -p dashvertex-fbx --example ufbx_load -- FILE.fbx`

fn main() -> std::process::ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: ufbx_load FILE.fbx");
        return std::process::ExitCode::from(2);
    };
    match ufbx::load_file(&path, ufbx::LoadOpts::default()) {
        Ok(scene) => {
            println!(
                "{path}: {} node(s), {} mesh(es)",
                scene.nodes.len(),
                scene.meshes.len()
            );
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{path}: {}", e.description);
            std::process::ExitCode::from(1)
        }
    }
}
