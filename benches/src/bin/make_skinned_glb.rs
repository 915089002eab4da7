//! Writes a large, deterministic, real-shaped skinned GLB for the whole-process peer
//! benchmark (`benches/peers.py`), built by `dashvertex_testkit::shaped::ShapedGlb`: one triangle-list primitive with POSITION, NORMAL,
//! TEXCOORD_0, 16 influences per vertex in four JOINTS_n (u16) / WEIGHTS_n (f32) sets,
//! and a skin of a joint tree with inverse bind matrices, the shape a Blender export with
//! "all influences" has. Every vertex's weights sum to 1 within the glTF tolerance, with
//! distinct joints, heaviest first, so the file is valid for the official validator.
//!
//! With `--blender` the file has the shape Blender 3.4's exporter gives a dense character
//! (measured on a real export): UNSIGNED_BYTE joints, 48 joints by default, and a u32
//! index buffer of about 2.27 indices per vertex (vertices split at seams, as Blender
//! writes them), after the attributes in the exporter's order.
//!
//! Usage: `make_skinned_glb OUT.glb [VERTICES] [JOINTS] [KEYFRAMES] [--blender]`
//! (default 3,300,000 vertices; 64 joints, 48 with `--blender`).

use dashvertex_testkit::shaped::ShapedGlb;

fn main() -> std::io::Result<()> {
    let all: Vec<String> = std::env::args().collect();
    let blender = all.iter().any(|a| a == "--blender");
    let args: Vec<&String> = all.iter().filter(|a| *a != "--blender").collect();
    let Some(out) = args.get(1) else {
        eprintln!("usage: make_skinned_glb OUT.glb [VERTICES] [JOINTS] [KEYFRAMES] [--blender]");
        std::process::exit(2);
    };
    let parse = |i: usize, d: usize| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let shape = ShapedGlb {
        vertices: parse(2, 3_300_000),
        joints: parse(3, ShapedGlb::default_joints(blender)),
        keyframes: parse(4, 0),
        blender,
    };
    let Some((glb, indices)) = shape.build() else {
        eprintln!("make_skinned_glb: a GLB of that size would be 4 GiB or more");
        std::process::exit(2);
    };
    std::fs::write(out, &glb)?;
    eprintln!(
        "{out}: {} vertices, {} joints, {indices} indices, {} bytes",
        shape.vertices / 3 * 3,
        shape.joint_count(),
        glb.len()
    );
    Ok(())
}
