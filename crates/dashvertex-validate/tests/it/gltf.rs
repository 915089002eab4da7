//! glTF input against real files and against the official Khronos glTF-Validator.
//!
//! - `corpus_results_match_the_provenance_record`: every file of the shared corpus gives
//!   an error exactly where PROVENANCE.md records an official error (no node needed).
//! - `our_errors_are_a_superset_of_the_official_validator`: runs the official validator
//!   (npm `gltf-validator`, pinned in `tools/oracle/`) over the corpus, the crafted vectors
//!   and the Blender fixtures; every official error must be matched by one of ours (same
//!   place, same vertex, mapped code), and every official crash by at least one error.
//!   Without `node` the test says so and passes, unless `DASH_REQUIRE_ORACLE=1` is set, as
//!   `.ci/run` does.

use dashvertex_testkit::repo;

use std::path::{Path, PathBuf};

use dashvertex_validate::{Code, Diagnostic, FileReport, Options, Profile, Severity};
use serde_json::Value;

fn corpus() -> PathBuf {
    repo().join("fixtures/corpus/gltf")
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    dashvertex_testkit::files_under(dir, &["gltf", "glb"])
}

fn validate(path: &Path) -> FileReport {
    dashvertex_validate::validate_path(
        path,
        &Options::new()
            .with_profile(Profile::Gltf)
            .with_max_diagnostics(usize::MAX),
    )
}

#[test]
fn corpus_results_match_the_provenance_record() {
    let provenance = std::fs::read_to_string(corpus().join("PROVENANCE.md")).unwrap();
    let mut checked = 0;
    for line in provenance.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let file = cells[1].trim_matches('`');
        if !(file.ends_with(".gltf") || file.ends_with(".glb")) {
            continue;
        }
        let official = cells[cells.len() - 2];
        let errors: u32 = official
            .split(|c: char| !c.is_ascii_alphanumeric())
            .find_map(|w| w.strip_prefix('E').and_then(|n| n.parse().ok()))
            .unwrap_or(0);
        let report = validate(&corpus().join(file));
        let ours: Vec<&Diagnostic> = report
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .collect();
        if errors == 0 {
            assert!(
                ours.is_empty(),
                "{file}: official is clean of errors, we report {ours:?}"
            );
        } else {
            for code in ["SKIN_NO_COMMON_ROOT"] {
                if official.contains(code) {
                    assert!(
                        ours.iter()
                            .any(|d| d.code.gltf().split(", ").any(|c| c == code)),
                        "{file}: official {code} not matched: {ours:?}"
                    );
                }
            }
            assert_eq!(ours.len() as u32, errors, "{file}: {ours:?}");
        }
        // The zero-weight warnings are counted exactly as the official validator does.
        let used_zero = official
            .find("ACCESSOR_JOINTS_USED_ZERO_WEIGHT")
            .and_then(|_| {
                official
                    .split_whitespace()
                    .find_map(|w| w.strip_prefix('W').and_then(|n| n.parse::<u64>().ok()))
            })
            .unwrap_or(0);
        assert_eq!(
            report.codes.get("PADDING_BONE").copied().unwrap_or(0),
            used_zero,
            "{file}: padding warnings"
        );
        checked += 1;
    }
    assert_eq!(checked, 22, "corpus files checked");
}

/// Runs the official validator over `files`; `None` when it is not available.
fn oracle(files: &[PathBuf]) -> Option<Vec<Value>> {
    dashvertex_testkit::oracle::oracle(files)
}

/// The JSON pointers that use accessor `k` in a document.
fn users_of_accessor(doc: &Value, k: u64) -> Vec<String> {
    let mut out = Vec::new();
    for (m, mesh) in doc["meshes"].as_array().into_iter().flatten().enumerate() {
        for (p, prim) in mesh["primitives"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            for (name, v) in prim["attributes"].as_object().into_iter().flatten() {
                if v.as_u64() == Some(k) {
                    out.push(format!("/meshes/{m}/primitives/{p}/attributes/{name}"));
                }
            }
        }
    }
    for (s, skin) in doc["skins"].as_array().into_iter().flatten().enumerate() {
        if skin["inverseBindMatrices"].as_u64() == Some(k) {
            out.push(format!("/skins/{s}/inverseBindMatrices"));
        }
    }
    for (a, anim) in doc["animations"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        for (s, sampler) in anim["samplers"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            for key in ["input", "output"] {
                if sampler[key].as_u64() == Some(k) {
                    out.push(format!("/animations/{a}/samplers/{s}/{key}"));
                }
            }
        }
    }
    out
}

fn json_of(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap();
    match dashvertex_gltf::load(
        &bytes,
        &dashvertex_gltf::NoFiles,
        &dashvertex_core::Limits::default(),
    ) {
        Ok(g) => g.value,
        Err(_) => Value::Null,
    }
}

/// The vertex an official data message is about (`element at index N` is the flat
/// component index: `components` × vertex + component).
fn official_vertex(message: &str, components: u64) -> Option<u64> {
    let i = message.find("index ")?;
    let digits: String = message[i + 6..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse::<u64>().ok().map(|n| n / components.max(1))
}

fn pointers_related(a: &str, b: &str) -> bool {
    a == b
        || a.starts_with(&format!("{b}/"))
        || b.starts_with(&format!("{a}/"))
        || a.is_empty()
        || b.is_empty()
}

/// Does one of `ours` account for the official message `m`?
fn covered(m: &Value, ours: &[Diagnostic], doc: &Value) -> bool {
    let code = m["code"].as_str().unwrap();
    let pointer = m["pointer"].as_str().unwrap_or("");
    let message = m["message"].as_str().unwrap_or("");
    let data_check = code.starts_with("ACCESSOR_JOINTS_") || code.starts_with("ACCESSOR_WEIGHTS_");
    let accessor = pointer
        .strip_prefix("/accessors/")
        .and_then(|k| k.parse::<u64>().ok());
    // An accessor's finding is covered where the accessor is used, or at the accessor.
    let targets: Vec<String> = match accessor {
        Some(k) => {
            let mut t = users_of_accessor(doc, k);
            t.push(pointer.to_owned());
            t
        }
        None => vec![pointer.to_owned()],
    };
    let vertex_attribute = targets.iter().any(|t| t.contains("/attributes/"));
    let components = accessor
        .and_then(|k| doc["accessors"][k as usize]["type"].as_str())
        .and_then(dashvertex_gltf::document::components)
        .unwrap_or(4);
    let vertex = if data_check || (code == "ACCESSOR_INVALID_FLOAT" && vertex_attribute) {
        official_vertex(message, components)
    } else {
        None
    };
    let primitive = pointer
        .find("/attributes")
        .map(|i| &pointer[..i])
        .unwrap_or(pointer);
    ours.iter()
        .filter(|d| d.severity >= Severity::Warning)
        .any(|d| {
            let ptr = d.location.pointer.as_deref().unwrap_or("");
            let same_vertex = vertex.is_none() || d.location.vertex == vertex;
            let mapped = d.code.gltf().split(", ").any(|c| c == code);
            let place = targets.iter().any(|t| pointers_related(ptr, t));
            if mapped && place && same_vertex {
                return true;
            }
            // An accessor the element budget refused is not read: whatever the official
            // validator finds in its elements has that root cause.
            if d.code == Code::GLTF_ACCESSOR_BUDGET && accessor.is_some() {
                return true;
            }
            match code {
                // A sum error after a bad slot is a cascade: the root cause covers it.
                "ACCESSOR_WEIGHTS_NON_NORMALIZED" => {
                    d.severity == Severity::Error && ptr.starts_with(primitive) && same_vertex
                }
                // After a set mismatch the official validator ignores the joints and then
                // complains that the skinned node's mesh has none: same root cause.
                "NODE_SKIN_WITH_NON_SKINNED_MESH" => {
                    matches!(d.code, Code::GLTF_SET_MISMATCH | Code::GLTF_SET_CONTINUITY)
                }
                // A node whose `skin` names nothing is, to the official validator, a
                // skinned mesh without a skin: the unresolved reference is the root cause.
                "NODE_SKINNED_MESH_WITHOUT_SKIN" => {
                    d.code == Code::GLTF_REFERENCE && ptr == format!("{pointer}/skin")
                }
                // With a node given two parents the official validator takes the last
                // and loses the joints' root; we report the hierarchy once.
                "SKIN_NO_COMMON_ROOT" => d.code == Code::GLTF_NODE_HIERARCHY,
                c if c.starts_with("GLB_") => d.code == Code::GLTF_GLB,
                // A sparse block with more entries than its accessor has elements cannot
                // have its indices in range and increasing: the count is the root cause.
                "ACCESSOR_SPARSE_INDEX_OOB" | "ACCESSOR_SPARSE_INDICES_NON_INCREASING" => {
                    d.code == Code::GLTF_ACCESSOR_SPARSE && pointers_related(ptr, pointer)
                }
                // An attribute whose name is not a glTF semantic has no format to meet.
                "MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT" => {
                    d.code == Code::GLTF_ATTRIBUTE && ptr == pointer
                }
                // A buffer URI that is not relative is not read (spec/security.md §1); the
                // official validator's failure to read it is the same finding.
                "IO_ERROR" => d.code == Code::GLTF_BUFFER_NOT_RELATIVE && ptr == pointer,
                // A byteStride on a view of indices: the indices' accessor then runs past
                // the view and is an index accessor with a stride, one root cause.
                "ACCESSOR_TOO_LONG" | "MESH_PRIMITIVE_INDICES_ACCESSOR_WITH_BYTESTRIDE" => {
                    d.code == Code::GLTF_BYTE_STRIDE && indices_view(doc, pointer, ptr)
                }
                // A rotation component beyond [-1, 1] is a rotation that is not unit.
                "VALUE_NOT_IN_RANGE" if pointer.contains("/rotation") => {
                    d.code == Code::GLTF_NODE_ROTATION && pointers_related(ptr, pointer)
                }
                _ => false,
            }
        })
}

/// True when `ours` points at the byteStride of the buffer view behind the accessor or
/// the primitive's indices that `official` points at.
fn indices_view(doc: &Value, official: &str, ours: &str) -> bool {
    let accessor = if let Some(k) = official.strip_prefix("/accessors/") {
        k.parse::<u64>().ok()
    } else if official.ends_with("/indices") {
        doc.pointer(official).and_then(Value::as_u64)
    } else {
        None
    };
    accessor
        .and_then(|k| doc["accessors"][k as usize]["bufferView"].as_u64())
        .is_some_and(|v| ours == format!("/bufferViews/{v}/byteStride"))
}

fn oracle_files() -> Vec<PathBuf> {
    let mut files = files_under(&corpus());
    // The official validator reads a buffer URI wherever it points; we refuse one that
    // leaves the glTF's folder (spec/security.md), so that vector has nothing to compare.
    files.extend(
        files_under(&repo().join("spec/vectors/gltf"))
            .into_iter()
            .filter(|p| !p.ends_with("buffer-outside-folder.gltf")),
    );
    files.extend(files_under(&repo().join("fixtures/blender")));
    files
}

#[test]
fn our_errors_are_a_superset_of_the_official_validator() {
    let files = oracle_files();
    let Some(results) = oracle(&files) else {
        return;
    };
    assert_eq!(results.len(), files.len());
    let mut official_errors = 0;
    let mut crashes = 0;
    let mut missed: Vec<String> = Vec::new();
    for (path, r) in files.iter().zip(&results) {
        let ours = validate(path);
        if r["ok"] == false {
            crashes += 1;
            assert!(
                ours.counts.errors > 0,
                "{}: the official validator crashed ({}); we must report an error",
                path.display(),
                r["error"]
            );
            continue;
        }
        let doc = json_of(path);
        for m in r["report"]["issues"]["messages"].as_array().unwrap() {
            let sev = m["severity"].as_u64().unwrap();
            let code = m["code"].as_str().unwrap();
            // Errors, and the skinning warnings we also report.
            let wanted = sev == 0
                || (sev == 1
                    && matches!(
                        code,
                        "ACCESSOR_JOINTS_USED_ZERO_WEIGHT"
                            | "NODE_SKINNED_MESH_WITHOUT_SKIN"
                            | "NODE_SKINNED_MESH_NON_ROOT"
                            | "NODE_SKINNED_MESH_LOCAL_TRANSFORMS"
                    ));
            if !wanted {
                continue;
            }
            official_errors += u64::from(sev == 0);
            if !covered(m, &ours.diagnostics, &doc) {
                let codes: Vec<String> = ours
                    .diagnostics
                    .iter()
                    .map(|d| {
                        format!(
                            "{} at {}",
                            d.code.as_str(),
                            d.location.pointer.as_deref().unwrap_or("")
                        )
                    })
                    .collect();
                missed.push(format!(
                    "{}: official {} at {} is not covered by ours: {}",
                    path.display(),
                    m["code"],
                    m["pointer"],
                    codes.join(", ")
                ));
            }
        }
    }
    assert!(
        missed.is_empty(),
        "{} official finding(s) not covered:\n{}",
        missed.len(),
        missed.join("\n")
    );
    eprintln!(
        "oracle: {} files, {official_errors} official errors all covered, {crashes} official crash(es) answered with errors",
        files.len()
    );
    assert!(official_errors >= 30 && crashes >= 1);
}

/// Largest-remainder quantization of one vertex's weights (all sets) to integers summing
/// to exactly `max` (a test helper; the reducer has the real one).
fn quantize(weights: &[[f32; 4]], max: u32) -> Vec<[u32; 4]> {
    let total: f64 = weights.iter().flatten().map(|&w| f64::from(w)).sum();
    let mut out: Vec<[u32; 4]> = vec![[0; 4]; weights.len()];
    if total <= 0.0 {
        return out;
    }
    let mut rem = Vec::new();
    let mut used = 0u32;
    for (s, set) in weights.iter().enumerate() {
        for (k, &w) in set.iter().enumerate() {
            let exact = f64::from(w) / total * f64::from(max);
            let floor = exact.floor() as u32;
            out[s][k] = floor;
            used += floor;
            rem.push((exact - f64::from(floor), s, k));
        }
    }
    rem.sort_by(|a, b| b.0.total_cmp(&a.0));
    for &(_, s, k) in rem.iter().take((max - used) as usize) {
        out[s][k] += 1;
    }
    out
}

#[test]
fn exported_files_pass_the_official_validator() {
    use dashvertex_gltf::export::{Editor, Influences, Weights};
    use dashvertex_gltf::{Container, import};
    let dir = std::env::temp_dir().join(format!("dash-export-oracle-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut outputs = Vec::new();
    let sources = [
        corpus().join("khronos_samples/CesiumMan.glb"),
        corpus().join("khronos_samples/Fox.glb"),
        corpus().join("blenderio/03_skinned_cylinder/03_skinned_cylinder.gltf"),
        corpus().join("assetgen/Animation_SkinType/Animation_SkinType_01.gltf"),
        repo().join("fixtures/blender/rig24_all.glb"),
        repo().join("spec/vectors/gltf/multiset-valid.gltf"),
    ];
    for src in &sources {
        let g = dashvertex_gltf::load_path(src, &dashvertex_core::Limits::default()).unwrap();
        let prims = import::import(&g, &dashvertex_core::Limits::default()).unwrap();
        for (variant, container) in [
            ("f32", Container::Glb),
            ("unorm8", Container::Gltf),
            ("unorm16", Container::Glb),
        ] {
            let mut ed = Editor::new(&g).unwrap();
            for p in prims.iter().filter(|p| p.document.mesh.is_skinned()) {
                let mesh = &p.document.mesh;
                let joints: Vec<Vec<[u32; 4]>> = (0..mesh.set_count())
                    .map(|s| {
                        (0..mesh.len())
                            .map(|v| mesh.set(v, s).unwrap().joints)
                            .collect()
                    })
                    .collect();
                let per_vertex: Vec<Vec<[f32; 4]>> = (0..mesh.len())
                    .map(|v| mesh.sets_of(v).map(|s| s.weights).collect())
                    .collect();
                type Quantizer<'q> = &'q dyn Fn(&[[f32; 4]]) -> Vec<[u32; 4]>;
                let set_major = |q: Quantizer| -> Vec<Vec<[u32; 4]>> {
                    let qv: Vec<Vec<[u32; 4]>> = per_vertex.iter().map(|w| q(w)).collect();
                    (0..mesh.set_count())
                        .map(|s| qv.iter().map(|x| x[s]).collect())
                        .collect()
                };
                let weights = match variant {
                    "f32" => Weights::F32(
                        (0..mesh.set_count())
                            .map(|s| per_vertex.iter().map(|w| w[s]).collect())
                            .collect(),
                    ),
                    "unorm8" => Weights::Unorm8(
                        set_major(&|w| quantize(w, 255))
                            .into_iter()
                            .map(|s| s.into_iter().map(|x| x.map(|c| c as u8)).collect())
                            .collect(),
                    ),
                    _ => Weights::Unorm16(
                        set_major(&|w| quantize(w, 65535))
                            .into_iter()
                            .map(|s| s.into_iter().map(|x| x.map(|c| c as u16)).collect())
                            .collect(),
                    ),
                };
                ed.set_influences(p.mesh, p.primitive, &Influences { joints, weights })
                    .unwrap();
            }
            let ext = if container == Container::Glb {
                "glb"
            } else {
                "gltf"
            };
            let stem = src.file_stem().unwrap().to_string_lossy();
            let out = dir.join(format!("{stem}-{variant}.{ext}"));
            std::fs::write(&out, ed.finish(container).unwrap()).unwrap();
            let ours = validate(&out);
            assert_eq!(
                ours.counts.errors,
                0,
                "{}: {:#?}",
                out.display(),
                ours.diagnostics
            );
            outputs.push(out);
        }
    }
    let Some(results) = oracle(&outputs) else {
        return;
    };
    for (path, r) in outputs.iter().zip(&results) {
        assert_eq!(r["ok"], true, "{}: {}", path.display(), r["error"]);
        let errors: Vec<&Value> = r["report"]["issues"]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["severity"] == 0)
            .collect();
        assert!(
            errors.is_empty(),
            "{}: official errors {errors:#?}",
            path.display()
        );
    }
    eprintln!(
        "oracle: {} exported files, 0 official errors",
        outputs.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bytes_in_memory_never_reach_the_filesystem() {
    // The same .gltf: by path its .bin beside it is read; as bytes nothing is, whatever
    // the name says, and the buffer is reported unavailable.
    let path =
        repo().join("fixtures/corpus/gltf/assetgen/Animation_SkinType/Animation_SkinType_01.gltf");
    let opts = Options::default();
    let by_path = dashvertex_validate::validate_path(&path, &opts);
    assert_eq!(by_path.counts.errors, 0, "{:#?}", by_path.diagnostics);
    let bytes = std::fs::read(&path).unwrap();
    let in_memory = dashvertex_validate::validate_bytes(&path.display().to_string(), &bytes, &opts);
    assert!(
        in_memory
            .diagnostics
            .iter()
            .any(|d| d.code.as_str() == "GLTF_BUFFER"),
        "{:#?}",
        in_memory.diagnostics
    );
    // A resolver supplies them.
    let folder = dashvertex_gltf::FsResolver::for_file(&path, &[], u64::MAX).unwrap();
    let with = dashvertex_validate::validate_with("any name", &bytes, &folder, &opts);
    assert_eq!(with.counts, by_path.counts);
}
