//! Decodes each file given and prints the outcome (for inspecting vectors).
fn main() {
    for path in std::env::args().skip(1) {
        let bytes = std::fs::read(&path).unwrap_or_default();
        match dashvertex_json::decode_bytes(&bytes, &dashvertex_core::Limits::default()) {
            Ok(f) => println!(
                "{path}: ok form={:?} vertices={} sets={} skinned={} bones={:?} foreign={:?}",
                f.form,
                f.document.mesh.len(),
                f.document.mesh.set_count(),
                f.document.mesh.is_skinned(),
                f.document.skeleton.as_ref().map(|s| s.len()),
                f.foreign
                    .iter()
                    .map(|(k, _)| k.as_str())
                    .collect::<Vec<_>>()
            ),
            Err(e) => println!(
                "{path}: {:?} {} {}:{} {}",
                e.kind, e.pointer, e.line, e.column, e.message
            ),
        }
    }
}
