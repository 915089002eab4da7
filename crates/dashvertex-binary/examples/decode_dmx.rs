//! Decodes each file with the three decoders and prints the outcomes (for inspecting
//! vectors).
fn main() {
    let limits = dashvertex_core::Limits::default();
    for path in std::env::args().skip(1) {
        let bytes = std::fs::read(&path).unwrap_or_default();
        let show = |r: Result<dashvertex_binary::BinaryFile, dashvertex_binary::BinaryError>| {
            match r {
                Ok(f) => format!(
                    "ok kind={:?} minor={} layout={:?} vertices={} sets={} skinned={} bones={:?} foreign={:?} unreferenced={}",
                    f.kind,
                    f.minor,
                    f.vertex_layout,
                    f.document.mesh.len(),
                    f.document.mesh.set_count(),
                    f.document.mesh.is_skinned(),
                    f.document.skeleton.as_ref().map(|s| s.len()),
                    f.foreign
                        .iter()
                        .map(|x| (x.name(), x.bytes.len()))
                        .collect::<Vec<_>>(),
                    f.unreferenced
                ),
                Err(e) => format!("{} @{} {}", e.code(), e.offset, e),
            }
        };
        let expect = if path.ends_with(".dmx") {
            dashvertex_binary::Expect::Container
        } else if path.ends_with(".raw") {
            dashvertex_binary::Expect::Raw
        } else {
            dashvertex_binary::Expect::Detect
        };
        let a = show(match expect {
            dashvertex_binary::Expect::Container => {
                dashvertex_binary::decode_container(&bytes, &limits)
            }
            dashvertex_binary::Expect::Raw => dashvertex_binary::decode_raw(&bytes, &limits),
            dashvertex_binary::Expect::Detect => dashvertex_binary::decode(&bytes, &limits),
        });
        let b = show(match expect {
            dashvertex_binary::Expect::Container => {
                dashvertex_binary::binrw_io::decode_container(&bytes, &limits)
            }
            dashvertex_binary::Expect::Raw => {
                dashvertex_binary::binrw_io::decode_raw(&bytes, &limits)
            }
            dashvertex_binary::Expect::Detect => {
                dashvertex_binary::binrw_io::decode(&bytes, &limits)
            }
        });
        let c = show(dashvertex_binary::decode_chunked(
            &bytes, 7, expect, &limits,
        ));
        println!("{path}: {a}");
        if a != b || a != c {
            println!("   DISAGREE binrw: {b}\n   DISAGREE nom: {c}");
        }
    }
}
