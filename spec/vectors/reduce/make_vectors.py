#!/usr/bin/env python3
"""Builds the skeleton-conversion vectors of spec/reduction.md section 5: small .gltf files
(embedded buffers) whose DashVertex output (`dashvertex reduce IN -o OUT.json`, with the
manifest listed in vectors.json when there is one) is the `.expected.json` beside them.
Run from this folder: `python3 make_vectors.py`; the expected outputs are written by the
test (`BLESS=1 cargo test -p dashvertex-cli --test it reduce_vectors`) and read by hand.
"""
import base64, json, math, struct

def f32(*v): return struct.pack(f"<{len(v)}f", *v)

POS = [(0.0, 1.0, 1.0), (0.0, 1.5, 1.0), (0.5, 1.5, 1.0), (1.0, 1.5, 1.0)]

def document(nodes, attrs_of, scene, skins=None, extra=None):
    blob = bytearray()
    views, accessors = [], []
    def acc(data, ctype, kind, count, minmax=None, target=34962):
        while len(blob) % 4: blob.append(0)
        v = {"buffer": 0, "byteOffset": len(blob), "byteLength": len(data)}
        if target: v["target"] = target
        views.append(v)
        blob.extend(data)
        a = {"bufferView": len(views) - 1, "componentType": ctype, "count": count, "type": kind}
        if minmax: a["min"], a["max"] = minmax
        accessors.append(a)
        return len(accessors) - 1
    flat = [c for p in POS for c in p]
    attrs = {"POSITION": acc(f32(*flat), 5126, "VEC3", len(POS),
             ([min(p[i] for p in POS) for i in range(3)], [max(p[i] for p in POS) for i in range(3)]))}
    attrs_of(acc, attrs)
    doc = {"asset": {"version": "2.0", "generator": "spec/vectors/reduce/make_vectors.py"},
           "scene": 0, "scenes": [{"nodes": scene}], "nodes": nodes,
           "meshes": [{"primitives": [{"attributes": attrs, "mode": 0}]}]}
    if skins is not None:
        skins(acc, doc)
    doc["accessors"] = accessors
    doc["bufferViews"] = views
    doc["buffers"] = [{"byteLength": len(blob),
                       "uri": "data:application/octet-stream;base64," + base64.b64encode(bytes(blob)).decode()}]
    return doc

# Blender's per-bone attributes: one FLOAT SCALAR per bone, "_" + NAME upper-cased.
WEIGHTS = {"_ROOT": [1.0, 0.5, 0.0, 0.0], "_ARM": [0.0, 0.5, 0.75, 0.25], "__TIP.L": [0.0, 0.0, 0.25, 0.75]}

def per_bone(acc, attrs):
    for name, w in WEIGHTS.items():
        attrs[name] = acc(f32(*w), 5126, "SCALAR", 4)

h = math.sqrt(0.5)
# The arm as a matrix node: 90 degrees about Z, then (0, 0.5, 0).
ARM_MATRIX = [0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 0, 0.5, 0, 1]

def write(name, doc):
    with open(name, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")

# 1. Bones as plain nodes (no skin): matched by name, case-insensitively; the armature's
#    translation folds into the root bone; the matrix node is decomposed.
write("per-bone-attributes-nodes.gltf", document(
    [
        {"name": "Armature", "translation": [0, 0, 1], "children": [1, 4]},
        {"name": "root", "translation": [0, 1, 0], "children": [2]},
        {"name": "arm", "matrix": ARM_MATRIX, "children": [3]},
        {"name": "Tip.L", "translation": [0, 0.5, 0], "rotation": [0, 0, -h, h]},
        {"name": "Body", "mesh": 0},
    ],
    per_bone, [0]))

# 2. No node matches: bones named after the attributes, each but the first a child of
#    bone 0 (the one root DashVertex allows).
write("per-bone-attributes-no-nodes.gltf", document(
    [{"name": "Armature", "translation": [0, 0, 1], "children": [1]}, {"name": "Body", "mesh": 0}],
    per_bone, [0]))

# 3. A skin bound at another pose than its nodes stand in: the bones take the bind pose.
def bind_skin(acc, doc):
    ibm = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, -1, 1,   # root bound at (0, 1, 1)
           1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1.5, -1, 1]  # arm bound at (0, 1.5, 1)
    doc["skins"] = [{"joints": [1, 2], "inverseBindMatrices": acc(f32(*ibm), 5126, "MAT4", 2, target=None)}]
def sets(acc, attrs):
    attrs["JOINTS_0"] = acc(struct.pack("<16B", 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0), 5121, "VEC4", 4)
    attrs["WEIGHTS_0"] = acc(f32(1, 0, 0, 0, 0.5, 0.5, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0), 5126, "VEC4", 4)
write("skin-bind-pose.gltf", document(
    [
        {"name": "mesh", "mesh": 0, "skin": 0},
        {"name": "root", "children": [2]},
        {"name": "arm", "translation": [0, 0.25, 0]},
    ],
    sets, [0, 1], skins=bind_skin))

# 4. The same skin with a manifest that has bones the rig lacks: `hand` (parent arm) hangs
#    under arm with the identity transform; `ghost` (parent unknown) becomes a child of
#    bone 0, its rest pose kept at the model origin.
with open("placeholders.manifest.json", "w") as f:
    json.dump({"version": 1, "bones": [
        {"index": 0, "name": "root"},
        {"index": 1, "name": "arm", "parent": "root"},
        {"index": 2, "name": "hand", "parent": "arm"},
        {"index": 3, "name": "ghost"},
    ]}, f, indent=2)
    f.write("\n")
