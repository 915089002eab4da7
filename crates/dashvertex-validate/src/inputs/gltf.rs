//! glTF input: every influence check of the official Khronos validator, with the same
//! semantics, plus the checks it lacks (`spec/validation.md` §7).
//!
//! [`validate_keeping`] runs the checks in a fixed order (the report's order): the
//! document's structure and node forest (`hierarchy`), the schema-level rules of
//! `gltf_checks`, the skins and the nodes that use them (`skins`), then each skinned
//! primitive's sets and every vertex (`primitive`).

mod hierarchy;
mod primitive;
mod skins;

use dashvertex_gltf::document;
use dashvertex_gltf::skinning;
use dashvertex_gltf::{Gltf, LoadError, Resolver};
use dashvertex_json::pointer::Locator;

use super::gltf_checks as checks;
use crate::codes::Code;
use crate::diagnostic::{Diagnostic, Location};
use crate::influences::Profile;
use crate::options::Options;
use crate::sink::Sink;
use skins::Barred;

/// Pointer locations in the document's JSON text.
pub(crate) struct Doc<'a> {
    locator: Locator<'a>,
}

impl Doc<'_> {
    pub(crate) fn at(&self, pointer: &str) -> Location {
        let (line, column) = self.locator.line_col_nearest(pointer);
        Location {
            pointer: Some(pointer.to_owned()),
            line: Some(line as u64),
            column: Some(column as u64),
            ..Location::default()
        }
    }

    pub(crate) fn push(
        &self,
        sink: &mut Sink,
        code: Code,
        pointer: &str,
        message: impl FnOnce() -> String,
    ) {
        sink.push(code, || Diagnostic::new(code, message(), self.at(pointer)));
    }
}

/// Validates a glTF document, returning the profile used and giving back bytes handed
/// over once the checks are done (`None` when they were borrowed, or the document could
/// not be loaded). Bytes handed over (a file read for the purpose) are read in place;
/// borrowed bytes cost a copy of a GLB's binary chunk.
pub fn validate_keeping(
    bytes: std::borrow::Cow<'_, [u8]>,
    resolver: &dyn Resolver,
    opts: &Options,
    sink: &mut Sink,
) -> (Profile, Option<Vec<u8>>) {
    let profile = opts.profile.unwrap_or(Profile::Gltf);
    let loaded = match bytes {
        std::borrow::Cow::Borrowed(b) => dashvertex_gltf::load(b, resolver, &opts.limits),
        std::borrow::Cow::Owned(v) => dashvertex_gltf::load_owned(v, resolver, &opts.limits),
    };
    let gltf = match loaded {
        Ok(g) => g,
        Err(e) => {
            let (code, location, message) = match &e {
                LoadError::Glb { offset, .. } => (
                    Code::GLTF_GLB,
                    Location {
                        offset: Some(*offset),
                        ..Location::default()
                    },
                    e.to_string(),
                ),
                LoadError::Json {
                    pointer,
                    line,
                    column,
                    message,
                } => (
                    Code::GLTF_JSON,
                    Location {
                        pointer: Some(pointer.clone()),
                        line: Some(*line as u64),
                        column: Some(*column as u64),
                        ..Location::default()
                    },
                    // The location is the diagnostic's own; the message need not repeat it.
                    message.clone(),
                ),
                LoadError::Limit(_) => (Code::LIMIT_EXCEEDED, Location::default(), e.to_string()),
                // Reading a file (load_path) is not this path's; any other failure to load.
                _ => (Code::IO_ERROR, Location::default(), e.to_string()),
            };
            sink.push(code, || Diagnostic::new(code, message, location));
            return (profile, None);
        }
    };
    let doc = Doc {
        locator: Locator::new(&gltf.text),
    };
    let prims = skinning::primitive_sets(&gltf.root);
    // Three parts run side by side, each into a sink of its own, appended in report
    // order: the document's structure (its element walks run on one thread), the skins
    // and the influences of every vertex (in parallel chunks), and the float walks.
    let (first, (middle, last)) = dashvertex_core::par::join(
        || {
            let mut s = sink.fork();
            structure(&gltf, &doc, opts, &mut s);
            primitive::set_limits(&doc, &prims, opts, &mut s);
            s
        },
        || {
            dashvertex_core::par::join(
                || {
                    let mut s = sink.fork();
                    influences(&gltf, &doc, &prims, profile, opts, &mut s);
                    s
                },
                || {
                    let mut s = sink.fork();
                    floats(&gltf, &doc, &prims, opts, &mut s);
                    s
                },
            )
        },
    );
    for part in [first, middle, last] {
        sink.append(part);
    }
    drop(doc);
    (profile, gltf.into_input())
}

/// The skins' joint counts for an engine target, the skinned nodes, and every skinned
/// primitive's influences.
fn influences(
    gltf: &Gltf,
    doc: &Doc,
    prims: &[skinning::PrimitiveSets],
    profile: Profile,
    opts: &Options,
    sink: &mut Sink,
) {
    for (s, skin) in gltf.root.skins.iter().enumerate() {
        let ptr = format!("/skins/{s}/joints");
        crate::influences::target_joints(
            opts.target,
            skin.joints.len(),
            &|| doc.at(&ptr),
            &format!("skin {s}"),
            sink,
        );
    }
    let users = skinning::mesh_nodes(&gltf.root);
    skins::nodes(gltf, doc, prims, sink);
    // Per skin, once: the joints a manifest bars from weight (shared by its primitives).
    let barred: Vec<Barred> = match &opts.joint_order {
        Some(order) => (0..gltf.root.skins.len())
            .map(|s| skins::barred_joints(gltf, s, order))
            .collect(),
        None => Vec::new(),
    };
    for p in prims {
        primitive::primitive(gltf, doc, p, &users, &barred, profile, opts, sink);
    }
}

/// The document's own checks, in report order: its framing and JSON, buffers, structure
/// and node forest, the schema-level rules, animations, bounds, and the skins.
fn structure(gltf: &Gltf, doc: &Doc, opts: &Options, sink: &mut Sink) {
    if gltf.byte_order_mark {
        let code = Code::GLTF_JSON;
        sink.push(code, || {
            Diagnostic::new(
                code,
                "the JSON starts with a UTF-8 byte order mark (bytes EF BB BF); glTF JSON has none"
                    .to_owned(),
                Location {
                    offset: Some(gltf.json_offset),
                    line: Some(1),
                    column: Some(1),
                    ..Location::default()
                },
            )
        });
    }
    checks::buffers::check_all(gltf, doc, sink);
    ranges_and_budget(gltf, doc, sink);
    let broken = hierarchy::structure(gltf, doc, sink);
    checks::required::check_all(&gltf.value, doc, sink);
    checks::references::check_all(&gltf.value, doc, sink);
    checks::nodes::check_all(&gltf.value, doc, sink);
    checks::animations::check_all(gltf, doc, opts, sink);
    checks::bounds::check_all(gltf, doc, opts, sink);
    checks::buffer_views::check_all(&gltf.value, doc, sink);
    checks::primitives::check_all(gltf, doc, opts, sink);
    checks::accessors::check_all(&gltf.value, doc, sink);
    checks::attributes::check_all(&gltf.value, doc, sink);
    checks::attribute_formats::check_all(&gltf.value, doc, sink);
    checks::morph::check_all(&gltf.value, doc, sink);
    checks::extensions::check_all(&gltf.value, doc, sink);
    checks::compression::check_all(gltf, doc, sink);
    checks::vertex_views::check_all(&gltf.value, doc, sink);
    checks::texcoords::check_all(&gltf.value, doc, sink);
    checks::colors::check_all(gltf, doc, opts, sink);
    let tainted = hierarchy::below_broken(&skinning::parents(&gltf.root), &broken);
    skins::skins(gltf, doc, &tainted, opts, sink);
    skins::skin_scenes(gltf, doc, &tainted, sink);
    accessor_usage(gltf, doc, sink);
}

/// Non-finite values in every FLOAT accessor; NORMAL and TANGENT lengths and signs.
fn floats(
    gltf: &Gltf,
    doc: &Doc,
    prims: &[skinning::PrimitiveSets],
    opts: &Options,
    sink: &mut Sink,
) {
    let mut checked = crate::inputs::gltf_floats::positions(gltf, doc, prims, opts, sink);
    checked.extend(crate::inputs::gltf_floats::animations(
        gltf, doc, opts, sink,
    ));
    crate::inputs::gltf_floats::others(gltf, doc, &checked, opts, sink);
    checks::unit_vectors::check_all(gltf, doc, opts, sink);
}

/// Every check of a document already loaded except those of the influences of each
/// vertex and of an engine target: what a reader of the file's structure, buffers,
/// hierarchy, skins and animations relies on. `dashvertex reduce`, `fix` and `remap` run
/// it on their input before they read it (`spec/validation.md` §6). The findings in
/// report order, at most `opts.max_diagnostics` of them kept, with the count of each code.
pub fn check_document(
    gltf: &Gltf,
    opts: &Options,
) -> (std::collections::BTreeMap<Code, u64>, Vec<Diagnostic>) {
    let mut sink = Sink::for_options(opts);
    let doc = Doc {
        locator: Locator::new(&gltf.text),
    };
    let prims = skinning::primitive_sets(&gltf.root);
    // Side by side, appended in report order (as in `validate`).
    let (first, last) = dashvertex_core::par::join(
        || {
            let mut s = sink.fork();
            structure(gltf, &doc, opts, &mut s);
            primitive::set_limits(&doc, &prims, opts, &mut s);
            skins::nodes(gltf, &doc, &prims, &mut s);
            s
        },
        || {
            let mut s = sink.fork();
            floats(gltf, &doc, &prims, opts, &mut s);
            s
        },
    );
    sink.append(first);
    sink.append(last);
    sink.into_parts()
}

/// `GLTF_BUFFER_VIEW_RANGE` for each buffer view outside its buffer, and
/// `GLTF_ACCESSOR_BUDGET` once for the accessors the element budget refuses (both decided
/// by the reader when the document loaded, spec/security.md [L2] [L3]). The reads these
/// refuse report nothing more.
fn ranges_and_budget(gltf: &Gltf, doc: &Doc, sink: &mut Sink) {
    for e in gltf.view_range_errors() {
        // At the member that leaves the buffer: the offset, when the view starts past it.
        let member = if e.byte_offset >= e.buffer_length {
            "byteOffset"
        } else {
            "byteLength"
        };
        doc.push(
            sink,
            Code::GLTF_BUFFER_VIEW_RANGE,
            &format!("/bufferViews/{}/{member}", e.view),
            || {
                format!(
                    "buffer view {}: byteOffset {} + byteLength {} = {} is past the end of buffer {} (byteLength {})",
                    e.view, e.byte_offset, e.byte_length, e.end, e.buffer, e.buffer_length
                )
            },
        );
    }
    let mut refused = gltf.budget_refused();
    if let Some(first) = refused.next() {
        let more = refused.count();
        doc.push(
            sink,
            Code::GLTF_ACCESSOR_BUDGET,
            &format!("/accessors/{}/count", first.index),
            || {
                format!(
                    "accessor {}: its {} elements, read from {} place(s), take the elements the document's accessors declare to {}, past its budget of {} (2^20 + {} per byte of its {}-byte input); it{} {} not checked",
                    first.index,
                    first.count,
                    first.uses,
                    first.total,
                    first.budget,
                    dashvertex_gltf::budget::PER_BYTE,
                    first.input_bytes,
                    if more > 0 {
                        format!(" and the {more} accessor(s) after it that dash reads")
                    } else {
                        String::new()
                    },
                    if more > 0 { "are" } else { "is" },
                )
            },
        );
    }
}

/// True for a read refused for a cause reported once elsewhere: an unavailable buffer
/// (`GLTF_BUFFER`), a view outside its buffer (`GLTF_BUFFER_VIEW_RANGE`), the element
/// budget (`GLTF_ACCESSOR_BUDGET`), data in a compressed stream
/// (`GLTF_EXTENSION_UNSUPPORTED`).
pub(crate) fn reported_elsewhere(e: &dashvertex_gltf::AccessorError) -> bool {
    matches!(
        e,
        dashvertex_gltf::AccessorError::Buffer { .. }
            | dashvertex_gltf::AccessorError::ViewRange { .. }
            | dashvertex_gltf::AccessorError::Budget(_)
            | dashvertex_gltf::AccessorError::Compressed { .. }
    )
}

/// `ACCESSOR_USAGE_OVERRIDE`: an accessor (or the buffer view it lies in) holds inverse
/// bind matrices and vertex attributes at once. Reported once per skin, at its
/// `inverseBindMatrices`, naming the first attribute that also uses the data.
fn accessor_usage(gltf: &Gltf, doc: &Doc, sink: &mut Sink) {
    let root = &gltf.root;
    if root.skins.iter().all(|s| s.inverse_bind_matrices.is_none()) {
        return;
    }
    let view_of = |a: u64| {
        usize::try_from(a)
            .ok()
            .and_then(|a| root.accessors.get(a))
            .and_then(|a| a.buffer_view)
    };
    // The first vertex attribute reading each accessor and each buffer view.
    let mut by_accessor: std::collections::HashMap<u64, String> = std::collections::HashMap::new();
    let mut by_view: std::collections::HashMap<u64, String> = std::collections::HashMap::new();
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            for (name, v) in &prim.attributes {
                let Some(a) = v.as_u64() else { continue };
                let what = || format!("attribute {name} of mesh {m} primitive {p}");
                by_accessor.entry(a).or_insert_with(what);
                if let Some(view) = view_of(a) {
                    by_view.entry(view).or_insert_with(what);
                }
            }
        }
    }
    for (s, skin) in root.skins.iter().enumerate() {
        let Some(ibm) = skin.inverse_bind_matrices else {
            continue;
        };
        let clash = match by_accessor.get(&ibm) {
            Some(user) => Some(format!("accessor {ibm} is also {user}")),
            None => view_of(ibm).and_then(|v| {
                by_view
                    .get(&v)
                    .map(|user| format!("its buffer view {v} also holds {user}"))
            }),
        };
        if let Some(clash) = clash {
            doc.push(
                sink,
                Code::GLTF_ACCESSOR_USAGE,
                &format!("/skins/{s}/inverseBindMatrices"),
                || format!("skin {s}: the inverse bind matrices are vertex data too: {clash}"),
            );
        }
    }
}

/// True when the accessor's buffer view has a byteStride outside 4…252 or not a
/// multiple of 4 (reported once by [`hierarchy::structure`]).
fn bad_stride(gltf: &Gltf, accessor: u64) -> bool {
    gltf.view_stride(accessor)
        .is_some_and(|s| !document::byte_stride_valid(s))
}
