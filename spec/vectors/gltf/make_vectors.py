#!/usr/bin/env python3
"""Builds the glTF validation vectors: small .gltf files with embedded buffers (and one
.glb), each breaking one skinning rule. Run from this folder: `python3 make_vectors.py`.

Every file is otherwise a clean glTF 2.0 asset, so that the official Khronos validator
reports only the skinning problem under test (see the oracle test in dash-validate).
"""
import base64, json, math, struct

def f32(*v): return struct.pack(f"<{len(v)}f", *v)

class Asset:
    def __init__(self):
        self.bin = bytearray()
        self.views = []
        self.accessors = []

    def view(self, data, target=None):
        while len(self.bin) % 4: self.bin.append(0)
        v = {"buffer": 0, "byteOffset": len(self.bin), "byteLength": len(data)}
        if target: v["target"] = target
        self.bin += data
        self.views.append(v)
        return len(self.views) - 1

    def accessor(self, data, ctype, kind, count, normalized=False, target=34962, minmax=None, view=True):
        a = {"componentType": ctype, "count": count, "type": kind}
        if view:
            a["bufferView"] = self.view(data, target)
        if normalized: a["normalized"] = True
        if minmax: a["min"], a["max"] = minmax
        self.accessors.append(a)
        return len(self.accessors) - 1

def ident():
    return [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]

def skinned(joints, weights, nverts=None, jtype=5121, wtype=5126, wnorm=False, nj=2, sets=1,
            ibm=None, ibm_type="MAT4", ibm_ctype=5126, ibm_count=None, joint_nodes=None,
            skin_on_node=True, extra_attrs=None, skeleton=None, tweak=None):
    """joints/weights: per set, a flat list of 4 values per vertex."""
    a = Asset()
    n = nverts if nverts is not None else len(weights[0]) // 4
    pos = [(float(i), float(i % 2), 0.0) for i in range(n)]
    flat = [c for p in pos for c in p]
    attrs = {"POSITION": a.accessor(f32(*flat), 5126, "VEC3", n,
             minmax=([min(p[i] for p in pos) for i in range(3)], [max(p[i] for p in pos) for i in range(3)]))}
    jfmt = {5121: "B", 5123: "H", 5126: "f"}
    wfmt = {5126: "f", 5121: "B", 5123: "H"}
    for s in range(sets):
        j = joints[s]; w = weights[s]
        attrs[f"JOINTS_{s}"] = a.accessor(struct.pack(f"<{len(j)}{jfmt[jtype]}", *j), jtype, "VEC4", len(j) // 4)
        attrs[f"WEIGHTS_{s}"] = a.accessor(struct.pack(f"<{len(w)}{wfmt[wtype]}", *w), wtype, "VEC4", len(w) // 4, normalized=wnorm)
    if extra_attrs:
        extra_attrs(a, attrs)
    mats = ibm if ibm is not None else [v for _ in range(nj) for v in ident()]
    ibm_acc = a.accessor(f32(*mats), ibm_ctype, ibm_type, ibm_count if ibm_count is not None else len(mats) // 16, target=None)
    jn = joint_nodes if joint_nodes is not None else list(range(1, nj + 1))
    nodes = [{"name": "mesh", "mesh": 0}]
    if skin_on_node: nodes[0]["skin"] = 0
    chain = []
    for i in range(nj):
        node = {"name": f"joint{i}"}
        if i > 0: node["translation"] = [0.0, 1.0, 0.0]
        nodes.append(node)
        chain.append(len(nodes) - 1)
    for i in range(nj - 1):
        nodes[chain[i]]["children"] = [chain[i + 1]]
    skin = {"joints": jn, "inverseBindMatrices": ibm_acc}
    if skeleton is not None: skin["skeleton"] = skeleton
    doc = {
        "asset": {"version": "2.0", "generator": "dash spec/vectors/gltf/make_vectors.py"},
        "scene": 0,
        "scenes": [{"nodes": [0, chain[0]]}],
        "nodes": nodes,
        "meshes": [{"primitives": [{"attributes": attrs}]}],
        "skins": [skin],
        "accessors": a.accessors,
        "bufferViews": a.views,
        "buffers": [{"byteLength": len(a.bin), "uri": "data:application/octet-stream;base64," + base64.b64encode(bytes(a.bin)).decode()}],
    }
    if tweak: tweak(doc, a)
    return doc

def write(name, doc):
    with open(name, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")

J = lambda *v: list(v)
# 3 vertices, 2 joints, one set.
OKJ = [J(0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0)]
OKW = [J(1, 0, 0, 0, 0.5, 0.5, 0, 0, 1, 0, 0, 0)]

write("valid-minimal.gltf", skinned(OKJ, OKW))
write("joints-out-of-range.gltf", skinned([J(0, 0, 0, 0, 0, 2, 0, 0, 1, 5, 0, 0)], OKW))
write("joints-duplicate.gltf", skinned([J(0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0)], OKW))
# A NaN weight is not 0: its joint is used, so the same joint in another slot with weight
# is a duplicate (ACCESSOR_JOINTS_INDEX_DUPLICATE), beside the NaN itself.
write("joints-duplicate-nan-weight.gltf",
      skinned([J(0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0)], [J(1, 0, 0, 0, float("nan"), 0.5, 0, 0, 1, 0, 0, 0)]))
write("joints-used-zero-weight.gltf", skinned([J(0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0)], OKW))
write("weights-negative.gltf", skinned(OKJ, [J(1, 0, 0, 0, 1.5, -0.5, 0, 0, 1, 0, 0, 0)]))
write("weights-non-normalized.gltf", skinned(OKJ, [J(0.9, 0, 0, 0, 0.5, 0.5000005, 0, 0, 0, 0, 0, 0)]))
write("weights-unorm8-sum.gltf", skinned(OKJ, [J(255, 0, 0, 0, 127, 127, 0, 0, 128, 128, 0, 0)], wtype=5121, wnorm=True))
write("weights-unorm16-sum.gltf", skinned(OKJ, [J(65535, 0, 0, 0, 32767, 32767, 0, 0, 65535, 0, 0, 0)], wtype=5123, wnorm=True))
write("weights-unorm8-valid.gltf", skinned([J(0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0)], [J(255, 0, 0, 0, 128, 127, 0, 0, 85, 170, 0, 0)], wtype=5121, wnorm=True))
write("weights-unorm8-not-normalized.gltf", skinned(OKJ, [J(255, 0, 0, 0, 128, 127, 0, 0, 255, 0, 0, 0)], wtype=5121, wnorm=False))
write("weights-nan.gltf", skinned(OKJ, [J(1, 0, 0, 0, math.nan, 0.5, 0, 0, 1, 0, 0, 0)]))
write("weights-infinite.gltf", skinned(OKJ, [J(1, 0, 0, 0, math.inf, 0, 0, 0, 1, 0, 0, 0)]))
write("weights-all-zero.gltf", skinned(OKJ, [J(1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0)]))
write("joints-float.gltf", skinned([J(0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0)], OKW, jtype=5126))
# Two sets: 8 influences of 0.125, all bones distinct.
# Three identical vertices (a whole triangle).
T = lambda s: [v for _ in range(3) for v in s]
J8 = [T(J(0, 1, 2, 3)), T(J(4, 5, 6, 7))]
W8 = [T(J(0.125, 0.125, 0.125, 0.125)), T(J(0.125, 0.125, 0.125, 0.125))]
write("multiset-valid.gltf", skinned(J8, W8, nj=8, sets=2))
write("multiset-duplicate-across-sets.gltf", skinned([T(J(0, 1, 2, 3)), J(3, 5, 6, 7) + T(J(4, 5, 6, 7))[4:]], W8, nj=8, sets=2))
write("multiset-set-order.gltf", skinned([T(J(0, 1, 2, 3)), J(4, 0, 0, 0) + T(J(4, 5, 6, 7))[4:]], [T(J(0.3, 0.2, 0.1, 0.1)), J(0.3, 0, 0, 0) + T(J(0.1, 0.1, 0.05, 0.05))[4:]], nj=8, sets=2))
write("multiset-set-gap.gltf", skinned([J(0, 0, 0, 0) + T(J(0, 1, 2, 3))[4:], J(1, 0, 0, 0) + T(J(4, 5, 6, 7))[4:]], [J(0.5, 0, 0, 0) + W8[0][4:], J(0.5, 0, 0, 0) + W8[1][4:]], nj=8, sets=2))
write("multiset-trailing-zero.gltf", skinned([T(J(0, 1, 0, 0)), T(J(0, 0, 0, 0))], [T(J(0.5, 0.5, 0, 0)), T(J(0, 0, 0, 0))], nj=8, sets=2))
def drop_weights1(doc, a):
    del doc["meshes"][0]["primitives"][0]["attributes"]["WEIGHTS_1"]
write("set-mismatch.gltf", skinned(J8, W8, nj=8, sets=2, tweak=drop_weights1))
def rename_set(doc, a):
    at = doc["meshes"][0]["primitives"][0]["attributes"]
    at["JOINTS_2"] = at.pop("JOINTS_1"); at["WEIGHTS_2"] = at.pop("WEIGHTS_1")
write("set-continuity.gltf", skinned(J8, W8, nj=8, sets=2, tweak=rename_set))
def short_weights(doc, a):
    acc = doc["meshes"][0]["primitives"][0]["attributes"]["WEIGHTS_0"]
    doc["accessors"][acc]["count"] = 2
write("count-mismatch.gltf", skinned(OKJ, OKW, tweak=short_weights))
def no_view(doc, a):
    acc = doc["meshes"][0]["primitives"][0]["attributes"]["WEIGHTS_0"]
    del doc["accessors"][acc]["bufferView"]
write("accessor-without-buffer-view.gltf", skinned(OKJ, OKW, tweak=no_view))
write("ibm-count.gltf", skinned(OKJ, OKW, ibm=ident(), nj=2))
bad_row = ident(); bad_row[15] = 1.0000001
write("ibm-fourth-row.gltf", skinned(OKJ, OKW, ibm=ident() + bad_row))
nan_ibm = ident(); nan_ibm[0] = math.nan
write("ibm-non-finite.gltf", skinned(OKJ, OKW, ibm=ident() + nan_ibm))
singular = ident(); singular[0] = 0.0
write("ibm-singular.gltf", skinned(OKJ, OKW, ibm=ident() + singular))
write("ibm-format.gltf", skinned(OKJ, OKW, ibm=[1.0] * 8, ibm_type="VEC4", ibm_count=2))
def split_roots(doc, a):
    # Joints 1 and 2 become two unrelated roots.
    doc["nodes"][1].pop("children", None)
    doc["scenes"][0]["nodes"] = [0, 1, 2]
write("skin-no-common-root.gltf", skinned(OKJ, OKW, tweak=split_roots))
write("skin-skeleton-invalid.gltf", skinned(OKJ, OKW, skeleton=2))
def dup_joint(doc, a):
    doc["skins"][0]["joints"] = [1, 1]
write("skin-duplicate-joints.gltf", skinned(OKJ, OKW, tweak=dup_joint))
# A mesh whose only node has no skin, holding bad data the official validator never reads.
write("mesh-without-skin.gltf", skinned([J(0, 0, 0, 0, 9, 1, 0, 0, 1, 0, 0, 0)], [J(1, 0, 0, 0, 2, -1, 0, 0, 1, 0, 0, 0)], skin_on_node=False))
def unskinned_mesh(doc, a):
    at = doc["meshes"][0]["primitives"][0]["attributes"]
    del at["JOINTS_0"]; del at["WEIGHTS_0"]
write("skin-on-mesh-without-joints.gltf", skinned(OKJ, OKW, tweak=unskinned_mesh))
def unaligned(doc, a):
    # Give JOINTS_0 an accessor byteOffset of 2 inside its (aligned) view, values unchanged;
    # later views move by 4 and stay aligned.
    acc = doc["meshes"][0]["primitives"][0]["attributes"]["JOINTS_0"]
    v = doc["accessors"][acc]["bufferView"]
    data = bytearray(base64.b64decode(doc["buffers"][0]["uri"].split(",", 1)[1]))
    start = doc["bufferViews"][v]["byteOffset"]
    end = start + doc["bufferViews"][v]["byteLength"]
    data[end:end] = b"\0\0"
    data[start:start] = b"\0\0"
    doc["accessors"][acc]["byteOffset"] = 2
    doc["bufferViews"][v]["byteLength"] += 4
    for i, view in enumerate(doc["bufferViews"]):
        if i != v and view["byteOffset"] >= end:
            view["byteOffset"] += 4
    doc["buffers"][0]["byteLength"] = len(data)
    doc["buffers"][0]["uri"] = "data:application/octet-stream;base64," + base64.b64encode(bytes(data)).decode()
write("joints-unaligned.gltf", skinned(OKJ, OKW, tweak=unaligned))
def glb(doc):
    data = base64.b64decode(doc["buffers"][0]["uri"].split(",", 1)[1])
    del doc["buffers"][0]["uri"]
    text = json.dumps(doc).encode()
    text += b" " * (-len(text) % 4)
    data += b"\0" * (-len(data) % 4)
    out = b"glTF" + struct.pack("<II", 2, 12 + 8 + len(text) + 8 + len(data))
    out += struct.pack("<I", len(text)) + b"JSON" + text
    out += struct.pack("<I", len(data)) + b"BIN\0" + data
    return out
with open("multiset-valid.glb", "wb") as f:
    f.write(glb(skinned(J8, W8, nj=8, sets=2)))
with open("glb-truncated.glb", "wb") as f:
    f.write(glb(skinned(OKJ, OKW))[:-20])

def missing_file(doc, a):
    doc["buffers"][0]["uri"] = "missing-buffer.bin"
write("buffer-missing-file.gltf", skinned(OKJ, OKW, tweak=missing_file))
def skin_no_mesh(doc, a):
    doc["nodes"].append({"name": "skinned-without-mesh", "skin": 0})
    doc["scenes"][0]["nodes"].append(len(doc["nodes"]) - 1)
write("skin-without-mesh.gltf", skinned(OKJ, OKW, tweak=skin_no_mesh))
with open("json-type-mismatch.gltf", "w") as f:
    f.write('{"asset": {"version": "2.0"}, "accessors": [{"componentType": "FLOAT", "count": 1, "type": "VEC4"}]}\n')
with open("json-syntax.gltf", "w") as f:
    f.write('{"asset": {"version": "2.0"}, "nodes": [\n')

# Structure the skinning data depends on (spec/validation.md: GLTF_REFERENCE,
# GLTF_NODE_HIERARCHY, GLTF_BYTE_STRIDE, GLTF_EMPTY_ARRAY, GLTF_GLB, GLTF_BUFFER).
def view_missing_buffer(doc, a):
    doc["bufferViews"][2]["buffer"] = 5
write("buffer-view-missing-buffer.gltf", skinned(OKJ, OKW, tweak=view_missing_buffer))
def node_missing_skin(doc, a):
    doc["nodes"][0]["skin"] = 9
write("node-missing-skin.gltf", skinned(OKJ, OKW, tweak=node_missing_skin))
def node_cycle(doc, a):
    doc["nodes"][2]["children"] = [1]
write("node-cycle.gltf", skinned(OKJ, OKW, tweak=node_cycle))
def node_two_parents(doc, a):
    doc["nodes"].append({"name": "second-parent", "children": [2]})
    doc["scenes"][0]["nodes"].append(len(doc["nodes"]) - 1)
write("node-two-parents.gltf", skinned(OKJ, OKW, tweak=node_two_parents))
def stride_256(doc, a):
    doc["bufferViews"][2]["byteStride"] = 256
write("byte-stride-out-of-range.gltf", skinned(OKJ, OKW, tweak=stride_256))
def skins_empty(doc, a):
    del doc["nodes"][0]["skin"]
    doc["skins"] = []
    del doc["meshes"][0]["primitives"][0]["attributes"]["JOINTS_0"]
    del doc["meshes"][0]["primitives"][0]["attributes"]["WEIGHTS_0"]
write("skins-empty-array.gltf", skinned(OKJ, OKW, tweak=skins_empty))
with open("root-not-object.gltf", "w") as f:
    f.write("[]\n")
# A UTF-8 byte order mark, which glTF forbids (INVALID_JSON in the official validator);
# dash reports it once and still checks the rest.
with open("json-byte-order-mark.gltf", "w", encoding="utf-8") as f:
    f.write("\ufeff" + json.dumps(skinned(OKJ, OKW), indent=1) + "\n")
# Nesting: up to 127 arrays and objects, the root included, are read (spec/security.md);
# extras 124 arrays deep under a node make 127, 200 deep is refused as GLTF_JSON.
def deep_extras(levels):
    def tweak(doc, a):
        v = 1
        for _ in range(levels):
            v = [v]
        doc["nodes"][0]["extras"] = v
    return tweak
write("extras-deep.gltf", skinned(OKJ, OKW, tweak=deep_extras(124)))
write("extras-too-deep.gltf", skinned(OKJ, OKW, tweak=deep_extras(200)))
def outside(doc, a):
    doc["buffers"][0]["uri"] = "../manifest.json"
write("buffer-outside-folder.gltf", skinned(OKJ, OKW, tweak=outside))
def two_json_chunks(data):
    text = b'{"asset":{"version":"2.0"}}' + b" "
    chunk = struct.pack("<I", len(text)) + b"JSON" + text
    body = data[12:] + chunk
    return b"glTF" + struct.pack("<II", 2, 12 + len(body)) + body
with open("glb-second-json-chunk.glb", "wb") as f:
    f.write(two_json_chunks(glb(skinned(OKJ, OKW))))
def misaligned_json(data):
    (n,) = struct.unpack_from("<I", data, 12)
    out = bytearray(data)
    struct.pack_into("<I", out, 12, n - 1)
    return bytes(out)
with open("glb-chunk-length-unaligned.glb", "wb") as f:
    f.write(misaligned_json(glb(skinned(OKJ, OKW))))

# Skin structure (spec/validation.md §6): the scene holding a skinned node must hold the
# joints' root (NODE_SKIN_NO_SCENE); an accessor is inverse bind matrices and a vertex
# attribute at once (ACCESSOR_USAGE_OVERRIDE); two skins share a joint that two nodes
# list as their child (NODE_PARENT_OVERRIDE, reported once: GLTF_NODE_HIERARCHY).
def joints_in_other_scene(doc, a):
    doc["scenes"] = [{"nodes": [0]}, {"nodes": [1]}]
write("skin-joints-other-scene.gltf", skinned(OKJ, OKW, tweak=joints_in_other_scene))
def ibm_as_attribute(doc, a):
    doc["meshes"][0]["primitives"][0]["attributes"]["_BIND"] = doc["skins"][0]["inverseBindMatrices"]
write("skin-ibm-also-attribute.gltf", skinned(OKJ, OKW, nj=3, tweak=ibm_as_attribute))
def shared_joint_two_parents(doc, a):
    # Skin 1 = [other-root, joint1]; joint1 (node 2) is also joint0's child in skin 0.
    doc["nodes"].append({"name": "other-root", "children": [2]})
    other = len(doc["nodes"]) - 1
    doc["nodes"].append({"name": "mesh2", "mesh": 0, "skin": 1})
    doc["scenes"][0]["nodes"] += [other, len(doc["nodes"]) - 1]
    doc["skins"].append({"joints": [other, 2], "inverseBindMatrices": doc["skins"][0]["inverseBindMatrices"]})
write("skins-shared-joint-two-parents.gltf", skinned(OKJ, OKW, tweak=shared_joint_two_parents))
# A skin whose joint order is not the bone manifest's (JOINT_ORDER, with
# manifests/joint-order.json and --locked).
write("skin-joint-order.gltf", skinned(OKJ, OKW))
# Engine targets (spec/targets.md): one set, two sets, three sets, each with weight in every
# set; a skin of 300 joints. Valid glTF all; what a target makes of them is in expected.json.
write("target-one-set.gltf", skinned(OKJ, OKW))
write("target-two-sets.gltf", skinned([T(J(0, 1, 2, 3)), T(J(4, 5, 6, 0))], [T(J(0.25, 0.25, 0.125, 0.125)), T(J(0.125, 0.0625, 0.0625, 0))], nj=8, sets=2))
write("target-three-sets.gltf", skinned([T(J(0, 1, 2, 3)), T(J(4, 5, 6, 7)), T(J(8, 9, 0, 0))], [T(J(0.25, 0.125, 0.125, 0.125)), T(J(0.0625, 0.0625, 0.0625, 0.0625)), T(J(0.0625, 0.0625, 0, 0))], nj=10, sets=3))
write("target-many-joints.gltf", skinned(OKJ, OKW, nj=300))
# A weight above 1 in a vertex whose sum still passes the tolerance, and a share that
# becomes subnormal when its vertex is renormalized (dashvertex fix must drop it, not keep a
# WEIGHT_SUBNORMAL).
write("weights-above-one.gltf", skinned(OKJ, [J(1.0000001, 0, 0, 0, 0.5, 0.5, 0, 0, 1, 0, 0, 0)]))
write("weights-subnormal-share.gltf", skinned([J(0, 0, 0, 0, 0, 1, 2, 0, 1, 0, 0, 0)], [J(1, 0, 0, 0, 1, 1, 2e-38, 0, 1, 0, 0, 0)], nj=3))
# Blender's automatic neutral bone as the skin's second joint (NEUTRAL_BONE with --manifest).
def neutral_bone(doc, a):
    doc["nodes"][2]["name"] = "neutral_bone"
write("skin-neutral-bone.gltf", skinned(OKJ, OKW, tweak=neutral_bone))
# Buffer ranges and the element budget (spec/security.md [L2] [L3]): a view past the end of
# its buffer (BUFFER_VIEW_TOO_LONG), a byteStride longer than its view
# (BUFFER_VIEW_TOO_BIG_BYTE_STRIDE), both on views no accessor uses; an accessor without a
# buffer view declaring more elements than a file of this size may make dash read (legal
# glTF, refused by dash: GLTF_ACCESSOR_BUDGET).
def view_too_long(doc, a):
    doc["bufferViews"].append({"buffer": 0, "byteOffset": 16, "byteLength": 1500000000})
write("buffer-view-too-long.gltf", skinned(OKJ, OKW, tweak=view_too_long))
def stride_too_big(doc, a):
    doc["bufferViews"].append({"buffer": 0, "byteOffset": 16, "byteLength": 8, "byteStride": 16})
write("byte-stride-longer-than-view.gltf", skinned(OKJ, OKW, tweak=stride_too_big))
def budget(doc, a):
    doc["accessors"].append({"componentType": 5126, "count": 1200000, "type": "VEC3", "min": [0.0, 0.0, 0.0], "max": [0.0, 0.0, 0.0]})
    doc["meshes"].append({"primitives": [{"attributes": {"POSITION": len(doc["accessors"]) - 1}}]})
    doc["nodes"].append({"name": "zeros", "mesh": 1})
    doc["scenes"][0]["nodes"].append(len(doc["nodes"]) - 1)
write("accessor-budget.gltf", skinned(OKJ, OKW, tweak=budget))
# Non-finite floats in accessors dash reads (ACCESSOR_INVALID_FLOAT): a POSITION element,
# an animation sampler's output.
def nan_position(doc, a):
    data = bytearray(base64.b64decode(doc["buffers"][0]["uri"].split(",", 1)[1]))
    struct.pack_into("<f", data, 12, math.nan)
    doc["buffers"][0]["uri"] = "data:application/octet-stream;base64," + base64.b64encode(bytes(data)).decode()
write("position-non-finite.gltf", skinned(OKJ, OKW, tweak=nan_position))
def nan_animation(doc, a):
    times = a.accessor(f32(0.0, 1.0), 5126, "SCALAR", 2, target=None, minmax=([0.0], [1.0]))
    values = a.accessor(f32(0.0, 1.0, 0.0, math.inf, 1.0, 0.0), 5126, "VEC3", 2, target=None)
    doc["accessors"] = a.accessors
    doc["bufferViews"] = a.views
    doc["buffers"][0] = {"byteLength": len(a.bin), "uri": "data:application/octet-stream;base64," + base64.b64encode(bytes(a.bin)).decode()}
    doc["animations"] = [{"samplers": [{"input": times, "output": values}], "channels": [{"sampler": 0, "target": {"node": 2, "path": "translation"}}]}]
write("animation-non-finite.gltf", skinned(OKJ, OKW, tweak=nan_animation))

# Document checks beyond the influences (spec/validation.md §6), each one finding on an
# otherwise valid file: unresolved references outside the skinning structure, members the
# schema requires, empty nested arrays, buffer URIs and placeholders, node transforms, a
# GLB with bytes after its declared length, integers written with a zero fraction.
def unresolved_document(doc, a):
    doc["meshes"][0]["primitives"][0]["indices"] = 40
    doc["animations"] = [{"channels": [{"sampler": 1, "target": {"node": 9, "path": "rotation"}}],
                          "samplers": [{"input": 41, "output": 42}]}]
    doc["scene"] = 3
write("document-unresolved-references.gltf", skinned(OKJ, OKW, tweak=unresolved_document))
def required_missing(doc, a):
    del doc["asset"]["version"]
    doc["meshes"].append({"primitives": [{"mode": 0}]})
write("document-required-missing.gltf", skinned(OKJ, OKW, tweak=required_missing))
def empty_nested(doc, a):
    doc["nodes"][2]["children"] = []
    doc["meshes"].append({"primitives": []})
write("document-empty-nested.gltf", skinned(OKJ, OKW, tweak=empty_nested))
def placeholder_buffer(doc, a):
    doc["buffers"].append({"byteLength": 16})
write("buffer-placeholder.gltf", skinned(OKJ, OKW, tweak=placeholder_buffer))
def remote_buffer(doc, a):
    doc["buffers"].append({"byteLength": 16, "uri": "https://example.com/more.bin"})
write("buffer-not-relative.gltf", skinned(OKJ, OKW, tweak=remote_buffer))
def bad_data_uri(doc, a):
    doc["buffers"][0]["uri"] = doc["buffers"][0]["uri"].replace("application/octet-stream", "text/plain")
write("buffer-data-uri-media-type.gltf", skinned(OKJ, OKW, tweak=bad_data_uri))
def rotation_non_unit(doc, a):
    doc["nodes"][2]["rotation"] = [0.0, 0.0, 0.0, 2.0]
write("node-rotation-non-unit.gltf", skinned(OKJ, OKW, tweak=rotation_non_unit))
def matrix_and_trs(doc, a):
    doc["nodes"][2]["matrix"] = ident()
write("node-matrix-and-trs.gltf", skinned(OKJ, OKW, tweak=matrix_and_trs))
with open("glb-extra-data.glb", "wb") as f:
    f.write(glb(skinned(OKJ, OKW)) + b"\0\0\0\0")
with open("json-integers-as-floats.gltf", "w") as f:
    text = json.dumps(skinned(OKJ, OKW), indent=1)
    f.write(text.replace('"count": 3,', '"count": 3.0,').replace('"bufferView": 1', '"bufferView": 1.0') + "\n")
def joints_missing_accessor(doc, a):
    doc["meshes"][0]["primitives"][0]["attributes"]["JOINTS_0"] = 99
write("joints-missing-accessor.gltf", skinned(OKJ, OKW, tweak=joints_missing_accessor))

# Animations (spec/validation.md §6): each file one animation of joint1 with one problem.
def with_animation(times, values, path="rotation", kind="VEC4", interpolation=None,
                   time_bounds=True, extra=None):
    def tweak(doc, a):
        tmin = [min(times)] if time_bounds else None
        inp = a.accessor(f32(*times), 5126, "SCALAR", len(times), target=None,
                         minmax=([min(times)], [max(times)]) if time_bounds else None)
        out = a.accessor(f32(*values), 5126, kind, len(values) // {"VEC4": 4, "VEC3": 3, "SCALAR": 1}[kind], target=None)
        sampler = {"input": inp, "output": out}
        if interpolation: sampler["interpolation"] = interpolation
        doc["animations"] = [{"channels": [{"sampler": 0, "target": {"node": 2, "path": path}}],
                              "samplers": [sampler]}]
        if extra: extra(doc, a)
        doc["buffers"][0] = {"byteLength": len(a.bin), "uri": "data:application/octet-stream;base64," + base64.b64encode(bytes(a.bin)).decode()}
    return tweak
Q = [0.0, 0.0, 0.0, 1.0]
write("animation-valid.gltf", skinned(OKJ, OKW, tweak=with_animation([0.0, 1.0], Q + Q)))
# An interpolation the schema does not list (VALUE_NOT_IN_LIST).
write("animation-interpolation-unknown.gltf",
      skinned(OKJ, OKW, tweak=with_animation([0.0, 1.0], Q + Q, interpolation="BOGUS")))
write("animation-input-not-increasing.gltf", skinned(OKJ, OKW, tweak=with_animation([0.0, 1.0, 1.0], Q + Q + Q)))
write("animation-rotation-non-unit.gltf", skinned(OKJ, OKW, tweak=with_animation([0.0, 1.0], Q + [0.0, 0.0, 0.0, 0.5])))
write("animation-output-count.gltf", skinned(OKJ, OKW, tweak=with_animation([0.0, 1.0], Q + Q + Q)))
def second_channel(doc, a):
    doc["animations"][0]["channels"].append({"sampler": 0, "target": {"node": 2, "path": "rotation"}})
write("animation-duplicate-target.gltf", skinned(OKJ, OKW, tweak=with_animation([0.0, 1.0], Q + Q, extra=second_channel)))
def bad_bounds(doc, a):
    doc["accessors"][0]["max"] = [2.0, 1.0, 5.0]
write("accessor-bounds-mismatch.gltf", skinned(OKJ, OKW, tweak=bad_bounds))

# Primitives beyond the influences: indices past the vertices and the restart value, a
# POSITION without bounds, a sparse count past the accessor's, a stride on indices.
def with_indices(values, ctype=5121, fmt="B", stride=False):
    def tweak(doc, a):
        idx = a.accessor(struct.pack(f"<{len(values)}{fmt}", *values), ctype, "SCALAR", len(values), target=34963)
        if stride:
            doc["bufferViews"][doc["accessors"][idx]["bufferView"]]["byteStride"] = 4
        doc["meshes"][0]["primitives"][0]["indices"] = idx
        doc["buffers"][0] = {"byteLength": len(a.bin), "uri": "data:application/octet-stream;base64," + base64.b64encode(bytes(a.bin)).decode()}
    return tweak
write("indices-valid.gltf", skinned(OKJ, OKW, tweak=with_indices([0, 1, 2])))
write("indices-out-of-range.gltf", skinned(OKJ, OKW, tweak=with_indices([0, 1, 3])))
write("indices-primitive-restart.gltf", skinned(OKJ, OKW, tweak=with_indices([0, 1, 255])))
write("indices-byte-stride.gltf", skinned(OKJ, OKW, tweak=with_indices([0, 1, 2, 0], stride=True)))
def position_no_bounds(doc, a):
    del doc["accessors"][0]["min"]
    del doc["accessors"][0]["max"]
write("position-without-bounds.gltf", skinned(OKJ, OKW, tweak=position_no_bounds))
def sparse_too_many(doc, a):
    view = a.view(struct.pack("<4B", 0, 1, 2, 0) + f32(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0))
    doc["accessors"].append({"componentType": 5126, "count": 1, "type": "VEC3",
        "sparse": {"count": 4, "indices": {"bufferView": view, "componentType": 5121},
                   "values": {"bufferView": view, "byteOffset": 4}}})
    doc["buffers"][0] = {"byteLength": len(a.bin), "uri": "data:application/octet-stream;base64," + base64.b64encode(bytes(a.bin)).decode()}
write("accessor-sparse-count.gltf", skinned(OKJ, OKW, tweak=sparse_too_many))

# Accessor layout, dependencies, extensions, morph targets, attribute names, value ranges.
def float_normalized(doc, a):
    doc["accessors"].append({"componentType": 5126, "count": 1, "type": "SCALAR", "normalized": True})
write("accessor-float-normalized.gltf", skinned(OKJ, OKW, tweak=float_normalized))
def weights_without_mesh(doc, a):
    doc["nodes"][2]["weights"] = [0.5]
write("node-weights-without-mesh.gltf", skinned(OKJ, OKW, tweak=weights_without_mesh))
def undeclared_extension(doc, a):
    doc["nodes"][2]["extensions"] = {"EXT_not_declared": {}}
write("extension-undeclared.gltf", skinned(OKJ, OKW, tweak=undeclared_extension))
def morph_without_base(doc, a):
    doc["meshes"][0]["primitives"][0]["targets"] = [{"NORMAL": 0}]
write("morph-target-without-base.gltf", skinned(OKJ, OKW, tweak=morph_without_base))
def unknown_attribute(doc, a):
    doc["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_00"] = 0
write("attribute-invalid-name.gltf", skinned(OKJ, OKW, tweak=unknown_attribute))
# Attribute formats (MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT): a morph target's
# TANGENT is a VEC3 displacement, not the base's VEC4; a NORMAL is VEC3.
def with_morph_tangent(kind, normal="VEC3"):
    box = {}
    def extra(a, attrs):
        n = a.accessors[attrs["POSITION"]]["count"]
        nw = 4 if normal == "VEC4" else 3
        attrs["NORMAL"] = a.accessor(f32(*([0.0, 0.0, 1.0, 0.0][:nw] * n)), 5126, normal, n)
        attrs["TANGENT"] = a.accessor(f32(*([1.0, 0.0, 0.0, 1.0] * n)), 5126, "VEC4", n)
        width = 4 if kind == "VEC4" else 3
        box["t"] = a.accessor(f32(*([0.0] * width * n)), 5126, kind, n)
    def tweak(doc, a):
        doc["meshes"][0]["primitives"][0]["targets"] = [{"TANGENT": box["t"]}]
        doc["meshes"][0]["weights"] = [0.0]
    return {"extra_attrs": extra, "tweak": tweak}
write("morph-target-tangent-vec3.gltf", skinned(OKJ, OKW, **with_morph_tangent("VEC3")))
write("morph-target-tangent-vec4.gltf", skinned(OKJ, OKW, **with_morph_tangent("VEC4")))
write("attribute-normal-vec4.gltf", skinned(OKJ, OKW, **with_morph_tangent("VEC3", normal="VEC4")))
def zero_length_view(doc, a):
    doc["bufferViews"].append({"buffer": 0, "byteLength": 0})
write("buffer-view-zero-length.gltf", skinned(OKJ, OKW, tweak=zero_length_view))

# Accessor extent and GLB framing: an accessor whose elements run past its buffer view
# (ACCESSOR_TOO_LONG, on an accessor no primitive reads); a GLB whose JSON chunk is empty
# (GLB_EMPTY_CHUNK); bytes that are neither text nor a GLB header (GLB_INVALID_MAGIC).
def accessor_too_long(doc, a):
    doc["accessors"].append({"componentType": 5126, "count": 3, "type": "VEC4", "bufferView": 0, "byteOffset": 4})
write("accessor-too-long.gltf", skinned(OKJ, OKW, tweak=accessor_too_long))
with open("glb-empty-chunk.glb", "wb") as f:
    f.write(b"glTF" + struct.pack("<II", 2, 20) + struct.pack("<I", 0) + b"JSON")
with open("glb-invalid-magic.glb", "wb") as f:
    f.write(b"\0" * 4 + glb(skinned(OKJ, OKW))[4:])
# Vertex data in buffer views and node matrices: a COLOR_0 accessor 2 bytes into its own
# view (MESH_PRIMITIVE_ACCESSOR_UNALIGNED); a COLOR_0 read from POSITION's view, which has
# no byteStride (MESH_PRIMITIVE_ACCESSOR_WITHOUT_BYTESTRIDE); indices read from the
# joints' view, declared ARRAY_BUFFER (BUFFER_VIEW_TARGET_OVERRIDE); a node matrix with a
# shear (NODE_MATRIX_NON_TRS).
def color_on(view, offset):
    def tweak(doc, a):
        doc["accessors"].append({"componentType": 5121, "normalized": True, "count": 3, "type": "VEC4", "bufferView": view, "byteOffset": offset})
        doc["meshes"][0]["primitives"][0]["attributes"]["COLOR_0"] = len(doc["accessors"]) - 1
    return tweak
def unaligned_color(doc, a):
    doc["bufferViews"].append({"buffer": 0, "byteOffset": 0, "byteLength": 36, "target": 34962})
    color_on(len(doc["bufferViews"]) - 1, 2)(doc, a)
write("attribute-unaligned.gltf", skinned(OKJ, OKW, tweak=unaligned_color))
write("attribute-view-without-stride.gltf", skinned(OKJ, OKW, tweak=color_on(0, 0)))
def indices_on_vertex_view(doc, a):
    doc["accessors"].append({"componentType": 5121, "count": 3, "type": "SCALAR", "bufferView": 1})
    doc["meshes"][0]["primitives"][0]["indices"] = len(doc["accessors"]) - 1
write("buffer-view-target-override.gltf", skinned(OKJ, OKW, tweak=indices_on_vertex_view))
def sheared_node(doc, a):
    doc["nodes"].append({"matrix": [1, 0, 0, 0, 0.5, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]})
write("node-matrix-shear.gltf", skinned(OKJ, OKW, tweak=sheared_node))
# A rotation written with five digits, as Sketchfab exports write it: its columns are
# orthogonal only to about 1.5e-5 (cosine), but rebuilt from its decomposition it differs by
# 1.3e-5, under the official validator's 5e-5: valid, as the official validator says.
def rounded_node(doc, a):
    doc["nodes"].append({"matrix": [0.70003, 0.70724, 0.09889, 0, -0.60124, 0.50898, 0.61599, 0,
                                    0.38531, -0.49066, 0.78153, 0, 0.25, 0, 0, 1]})
write("node-matrix-rounded.gltf", skinned(OKJ, OKW, tweak=rounded_node))
# A skinned mesh's node with a parent and a transform of its own, neither of which moves it
# (the official warnings NODE_SKINNED_MESH_NON_ROOT and NODE_SKINNED_MESH_LOCAL_TRANSFORMS).
def skinned_node_placed(doc, a):
    doc["nodes"][0]["translation"] = [0.0, 0.0, 1.0]
    doc["nodes"].append({"name": "holder", "children": [0]})
    doc["scenes"][0]["nodes"] = [len(doc["nodes"]) - 1, 1]
write("node-skinned-mesh-placed.gltf", skinned(OKJ, OKW, tweak=skinned_node_placed))
# Inverse bind matrices in a view with a byteStride (SKIN_IBM_ACCESSOR_WITH_BYTESTRIDE), as
# Sketchfab exports write them: read all the same, packed by `dashvertex fix`.
def strided_ibm(doc, a):
    ibm = doc["accessors"][doc["skins"][0]["inverseBindMatrices"]]
    doc["bufferViews"][ibm["bufferView"]]["byteStride"] = 64
write("ibm-stride.gltf", skinned(OKJ, OKW, tweak=strided_ibm))
# A material whose normal texture reads TEXCOORD_0 (texCoord absent), on a primitive
# without texture coordinates (MESH_PRIMITIVE_TOO_FEW_TEXCOORDS).
def texture_without_texcoord(doc, a):
    doc["textures"] = [{}]
    doc["materials"] = [{"normalTexture": {"index": 0}}]
    doc["meshes"][0]["primitives"][0]["material"] = 0
write("material-texcoord-missing.gltf", skinned(OKJ, OKW, tweak=texture_without_texcoord))
# A FLOAT COLOR_0 with a component of 1.5, in a buffer of its own (ACCESSOR_NON_CLAMPED).
def color_above_one(doc, a):
    data = f32(1.5, 0, 0, 0, 0, 0, 0, 0, 0)
    doc["buffers"].append({"byteLength": len(data), "uri": "data:application/octet-stream;base64," + base64.b64encode(data).decode()})
    doc["bufferViews"].append({"buffer": len(doc["buffers"]) - 1, "byteLength": len(data), "target": 34962})
    doc["accessors"].append({"componentType": 5126, "count": 3, "type": "VEC3", "bufferView": len(doc["bufferViews"]) - 1})
    doc["meshes"][0]["primitives"][0]["attributes"]["COLOR_0"] = len(doc["accessors"]) - 1
write("color-out-of-range.gltf", skinned(OKJ, OKW, tweak=color_above_one))
# Mesh members of the wrong JSON type, each read as absent and reported, the rest still
# checked: a second primitive that is an array (ARRAY_TYPE_MISMATCH at `primitives`), and
# morph targets that are an object (TYPE_MISMATCH).
def mesh_wrong_types(doc, a):
    doc["meshes"].append({"primitives": [{"attributes": {"POSITION": 0}, "targets": {}}, []]})
write("mesh-member-types.gltf", skinned(OKJ, OKW, tweak=mesh_wrong_types))
# Vertex data in a buffer of its own, as COLOR_0 above: a NORMAL with one vector (1, 1, 1)
# (ACCESSOR_VECTOR3_NON_UNIT), a TANGENT with w = 0 (ACCESSOR_INVALID_SIGN), and a FLOAT
# accessor nothing uses that holds -inf, NaN and inf (ACCESSOR_INVALID_FLOAT).
def own_buffer(doc, data, count, kind):
    doc["buffers"].append({"byteLength": len(data), "uri": "data:application/octet-stream;base64," + base64.b64encode(data).decode()})
    doc["bufferViews"].append({"buffer": len(doc["buffers"]) - 1, "byteLength": len(data)})
    doc["accessors"].append({"componentType": 5126, "count": count, "type": kind, "bufferView": len(doc["bufferViews"]) - 1})
    return len(doc["accessors"]) - 1
def normal_not_unit(doc, a):
    attrs = doc["meshes"][0]["primitives"][0]["attributes"]
    attrs["NORMAL"] = own_buffer(doc, f32(0, 0, 1, 0, 1, 0, 1, 1, 1), 3, "VEC3")
    doc["bufferViews"][-1]["target"] = 34962
write("normal-non-unit.gltf", skinned(OKJ, OKW, tweak=normal_not_unit))
def tangent_without_sign(doc, a):
    attrs = doc["meshes"][0]["primitives"][0]["attributes"]
    attrs["NORMAL"] = own_buffer(doc, f32(0, 0, 1, 0, 0, 1, 0, 0, 1), 3, "VEC3")
    doc["bufferViews"][-1]["target"] = 34962
    attrs["TANGENT"] = own_buffer(doc, f32(1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, -1), 3, "VEC4")
    doc["bufferViews"][-1]["target"] = 34962
write("tangent-sign.gltf", skinned(OKJ, OKW, tweak=tangent_without_sign))
def unused_non_finite(doc, a):
    own_buffer(doc, f32(-math.inf, math.nan, math.inf, 1), 4, "SCALAR")
write("accessor-non-finite.gltf", skinned(OKJ, OKW, tweak=unused_non_finite))
# What `dashvertex fix` repairs in vertex attributes (spec/fix.md [F9]), and what it leaves:
# a TANGENT whose xyz is (2, 0, 0) and whose w values are 0.9995 and -1.0004 (within 0.001
# of a sign); a NORMAL with a zero vector (left: no direction) beside one of length 3; a
# FLOAT COLOR_0 and COLOR_1 sharing one VEC4 accessor with declared bounds, components
# below 0 and above 1.
def tangent_near_unit(doc, a):
    attrs = doc["meshes"][0]["primitives"][0]["attributes"]
    attrs["NORMAL"] = own_buffer(doc, f32(0, 0, 1, 0, 0, 1, 0, 0, 1), 3, "VEC3")
    doc["bufferViews"][-1]["target"] = 34962
    attrs["TANGENT"] = own_buffer(doc, f32(2, 0, 0, 0.9995, 0, 1, 0, -1.0004, 1, 0, 0, 1), 3, "VEC4")
    doc["bufferViews"][-1]["target"] = 34962
write("tangent-near-unit.gltf", skinned(OKJ, OKW, tweak=tangent_near_unit))
def normal_zero_length(doc, a):
    attrs = doc["meshes"][0]["primitives"][0]["attributes"]
    attrs["NORMAL"] = own_buffer(doc, f32(0, 0, 1, 0, 0, 0, 0, 3, 0), 3, "VEC3")
    doc["bufferViews"][-1]["target"] = 34962
write("normal-zero-length.gltf", skinned(OKJ, OKW, tweak=normal_zero_length))
def color_shared_bounds(doc, a):
    attrs = doc["meshes"][0]["primitives"][0]["attributes"]
    c = own_buffer(doc, f32(-0.25, 0.5, 1.25, 1, 0, 0, 0, 1, 1, 1, 1, 2), 3, "VEC4")
    doc["bufferViews"][-1]["target"] = 34962
    doc["accessors"][c]["min"] = [-0.25, 0, 0, 1]
    doc["accessors"][c]["max"] = [1, 1, 1.25, 2]
    attrs["COLOR_0"] = c
    attrs["COLOR_1"] = c
write("color-shared-bounds.gltf", skinned(OKJ, OKW, tweak=color_shared_bounds))
