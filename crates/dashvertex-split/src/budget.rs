//! The output budget (`spec/split.md` \[SP12\]): what a split adds to the document, counted
//! before anything is written for it.
//!
//! A split copies JSON into its parts (each part's primitive with its extras and
//! extensions, each new mesh and skin with theirs, each node added beside a split node
//! with its extras, carried extensions and `weights` channels) and writes new accessors
//! (each part's vertices, indices and inverse bind matrices). Under the part budget
//! (\[SP10\]) that is still unbounded by the input: a node with 1 MB of extras cut into
//! 4,096 parts would make 4 GB. So the additions are counted per (mesh, skin) pair from
//! the parts and groups the partition chose, and the split is refused when the
//! document's total passes [`output_budget`], before the pair's parts are written.
//!
//! JSON is counted as its text plus [`PER_VALUE`] bytes per value in it, so that the
//! count bounds the document held in memory as well as the bytes written: a megabyte
//! of small numbers is tens of megabytes of `serde_json::Value`.

use serde_json::Value;

use dashvertex_gltf::Gltf;
use dashvertex_gltf::document::{component, components};

use crate::write::{Carry, Cut, Group, Tree, carry};

/// The budget never goes below this many bytes, so a small file may still be cut into
/// thousands of parts with some extras each (4,096 parts take about 7 MiB without
/// extras). Each byte counted is held several times before the output is written (the
/// document, its text, the framed file, the validator's parse): 16 MiB counted runs in
/// well under 256 MiB, 38 MiB did not.
pub const OUTPUT_FLOOR: u64 = 16 << 20;

/// Beyond [`OUTPUT_FLOOR`], the budget is this many bytes per byte of input (the file and
/// its buffers): a split writes each vertex once per part that uses it, and a legitimate
/// split duplicates few (its duplication ratio, in the report, is rarely above 2).
pub const OUTPUT_PER_INPUT_BYTE: u64 = 8;

/// Bytes counted per JSON value (array element, object member, the value itself) on top
/// of its text: what a `serde_json::Value` takes in memory (80 bytes with the
/// `preserve_order` map; a test holds the constant to it).
pub const PER_VALUE: u64 = 80;

/// Bytes counted for each new accessor and its buffer view, beside their data.
pub const ACCESSOR: u64 = 256;

/// Bytes counted for each new mesh, skin or node beside the members it copies (its
/// indices, suffixed name, its place in the tree).
pub const OBJECT: u64 = 256;

/// What a split of an input of `input_bytes` bytes may add to the document:
/// max([`OUTPUT_FLOOR`], [`OUTPUT_PER_INPUT_BYTE`] × `input_bytes`).
pub fn output_budget(input_bytes: u64) -> u64 {
    input_bytes
        .saturating_mul(OUTPUT_PER_INPUT_BYTE)
        .max(OUTPUT_FLOOR)
}

/// What `v` is counted for: its JSON text and [`PER_VALUE`] per value in it (walked
/// with a stack, not recursion, so any depth the reader accepted is counted).
pub fn json_cost(v: &Value) -> u64 {
    let mut total: u64 = 0;
    let mut stack: Vec<&Value> = vec![v];
    while let Some(v) = stack.pop() {
        let text: u64 = match v {
            Value::Null => 4,
            Value::Bool(_) => 5,
            Value::Number(n) => len(&n.to_string()),
            Value::String(s) => text_len(s),
            Value::Array(a) => {
                stack.extend(a.iter());
                2u64.saturating_add(len_of(a.len()))
            }
            Value::Object(o) => {
                let mut t = 2u64.saturating_add(len_of(o.len()).saturating_mul(2));
                for (k, x) in o {
                    t = t.saturating_add(text_len(k)).saturating_add(PER_VALUE);
                    stack.push(x);
                }
                t
            }
        };
        total = total.saturating_add(text).saturating_add(PER_VALUE);
    }
    total
}

/// `n` as a count of bytes.
fn len_of(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// Bytes of `s`.
fn len(s: &str) -> u64 {
    len_of(s.len())
}

/// Bytes of `s` as a JSON string, escapes counted at their longest (`\uXXXX`) for control
/// characters and at two bytes for quotes and backslashes.
fn text_len(s: &str) -> u64 {
    let escapes = s
        .bytes()
        .map(|b| match b {
            b'"' | b'\\' => 1u64,
            0..0x20 => 5,
            _ => 0,
        })
        .sum::<u64>();
    len(s).saturating_add(escapes).saturating_add(2)
}

/// Something copied into the parts: what it is and what its copies add.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Share {
    /// A JSON Pointer into the input: the member copied, or for new accessors the
    /// primitive's `attributes`, or the skin's `inverseBindMatrices`.
    pub what: String,
    /// Bytes its copies are counted for, all together.
    pub bytes: u64,
    /// How many copies.
    pub copies: u64,
}

/// What a split adds, counted so far, and its largest share.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cost {
    /// Bytes counted.
    pub bytes: u64,
    /// The largest single share.
    pub largest: Option<Share>,
}

impl Cost {
    /// Counts `copies` copies of `each` bytes of `what` (a pointer, built only when it is
    /// the largest share so far).
    pub(crate) fn add(&mut self, what: impl FnOnce() -> String, each: u64, copies: u64) {
        let bytes = each.saturating_mul(copies);
        self.bytes = self.bytes.saturating_add(bytes);
        if bytes > 0 && self.largest.as_ref().is_none_or(|l| bytes > l.bytes) {
            self.largest = Some(Share {
                what: what(),
                bytes,
                copies,
            });
        }
    }

    /// Adds `other`'s bytes, and its largest share when larger than this one's.
    pub fn join(&mut self, other: Cost) {
        self.bytes = self.bytes.saturating_add(other.bytes);
        if let Some(o) = other.largest
            && self.largest.as_ref().is_none_or(|l| o.bytes > l.bytes)
        {
            self.largest = Some(o);
        }
    }
}

/// Bytes one element of accessor `a` takes in a new vertex accessor (padded to 4), or 16
/// for an accessor the document does not describe.
fn stride(gltf: &Gltf, a: Option<u64>) -> u64 {
    a.and_then(|a| usize::try_from(a).ok())
        .and_then(|a| gltf.root.accessors.get(a))
        .and_then(|a| Some(component::size(a.component_type)?.saturating_mul(components(&a.kind)?)))
        .map_or(16, |b| b.next_multiple_of(4))
}

/// The pair being counted: its mesh, its skin, and the nodes that draw them.
pub struct PairRef<'a> {
    /// The mesh.
    pub mesh: usize,
    /// The skin.
    pub skin: usize,
    /// The nodes that draw the mesh with the skin.
    pub users: &'a [usize],
}

/// What writing `groups` of `cuts` for `pair` adds to the document
/// ([`crate::write::write_pair`] writes exactly these copies): `vertices[c][k]` is the
/// number of vertices part `k` of cut `c` writes.
pub fn pair_cost(
    gltf: &Gltf,
    pair: &PairRef<'_>,
    cuts: &[Cut<'_>],
    vertices: &[Vec<usize>],
    groups: &[Group],
    tree: &Tree,
) -> Cost {
    let mut cost = Cost::default();
    let groups_n = len_of(groups.len());
    let added = groups_n.saturating_sub(1);
    let m = pair.mesh;
    // Each group's mesh and skin copy the original's members but their primitives and
    // joints.
    if let Some(mesh) = gltf.value.pointer(&format!("/meshes/{m}")) {
        members(&mut cost, mesh, &format!("/meshes/{m}"), groups_n, |k| {
            k != "primitives"
        });
    }
    let s = pair.skin;
    if let Some(skin) = gltf.value.pointer(&format!("/skins/{s}")) {
        members(&mut cost, skin, &format!("/skins/{s}"), groups_n, |k| {
            k != "joints" && k != "inverseBindMatrices"
        });
        let joints: u64 = groups.iter().map(|g| len_of(g.joints.len())).sum();
        cost.add(
            || format!("/skins/{s}/joints"),
            joints.saturating_mul(PER_VALUE + 12),
            1,
        );
        if skin.get("inverseBindMatrices").is_some() {
            cost.add(
                || format!("/skins/{s}/inverseBindMatrices"),
                joints
                    .saturating_mul(64)
                    .saturating_add(ACCESSOR * groups_n),
                1,
            );
        }
    }
    cost.add(
        || format!("/meshes/{m}"),
        OBJECT,
        groups_n.saturating_mul(2),
    );
    // Each part's primitive: its JSON but what is rewritten, and its new accessors.
    for (cut, verts) in cuts.iter().zip(vertices) {
        let p = cut.sets.primitive;
        let at = format!("/meshes/{m}/primitives/{p}");
        let copies = len_of(cut.parts.len());
        let Some(orig) = gltf.value.pointer(&at) else {
            continue;
        };
        members(&mut cost, orig, &at, copies, |k| {
            !matches!(k, "attributes" | "indices" | "targets" | "mode")
        });
        let mut per_vertex: u64 = 0;
        let mut accessors: u64 = 0;
        for (name, a) in &cut.sets.attributes {
            let influence = name.starts_with("JOINTS_") || name.starts_with("WEIGHTS_");
            if influence || !cut.whole {
                per_vertex = per_vertex.saturating_add(stride(gltf, *a));
                accessors += 1;
            }
        }
        if !cut.whole {
            let targets = orig.get("targets").and_then(Value::as_array);
            for t in targets.into_iter().flatten().filter_map(Value::as_object) {
                for a in t.values() {
                    per_vertex = per_vertex.saturating_add(stride(gltf, a.as_u64()));
                    accessors += 1;
                }
            }
        }
        let written: u64 = verts.iter().map(|&v| len_of(v)).sum();
        // Indices at four bytes each, one accessor per part.
        let indices = if cut.whole {
            0
        } else {
            len_of(cut.read.indices.len()).saturating_mul(4)
        };
        let accessors = accessors.saturating_add(u64::from(!cut.whole));
        cost.add(
            || format!("{at}/attributes"),
            written
                .saturating_mul(per_vertex)
                .saturating_add(indices)
                .saturating_add(accessors.saturating_mul(ACCESSOR).saturating_mul(copies)),
            1,
        );
    }
    // Each node added beside a split node: what `sibling` copies, and its channels.
    if added > 0 {
        for &u in pair.users {
            let at = format!("/nodes/{u}");
            let Some(node) = gltf.value.pointer(&at) else {
                continue;
            };
            cost.add(|| at.clone(), OBJECT, added);
            members(&mut cost, node, &at, added, |k| {
                matches!(k, "name" | "weights" | "extras")
            });
            if let Some(exts) = node.get("extensions").and_then(Value::as_object) {
                for (name, v) in exts {
                    if matches!(carry(name), Carry::Copy | Carry::Unknown) {
                        let each = json_cost(v).saturating_add(text_len(name));
                        cost.add(|| format!("{at}/extensions/{}", escape(name)), each, added);
                    }
                }
            }
            for (a, c) in tree.weights.get(&u).into_iter().flatten() {
                cost.add(|| format!("/animations/{a}/channels"), json_cost(c), added);
            }
        }
    }
    cost
}

/// Counts `copies` copies of each member of object `v` (at pointer `at`) that `keep`
/// keeps.
fn members(cost: &mut Cost, v: &Value, at: &str, copies: u64, keep: impl Fn(&str) -> bool) {
    for (k, x) in v.as_object().into_iter().flatten() {
        if keep(k) {
            let each = json_cost(x).saturating_add(text_len(k));
            cost.add(|| format!("{at}/{}", escape(k)), each, copies);
        }
    }
}

/// `name` as a JSON Pointer token (RFC 6901: `~` as `~0`, `/` as `~1`).
pub fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}
