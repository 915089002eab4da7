#!/usr/bin/env python3
"""Builds the split vectors of spec/split.md: small .gltf files (embedded buffers), each
split as `vectors.json` says; the outcome (the report, or the refusal) is the
`.expected.json` beside it. Run from this folder: `python3 make_vectors.py`; the expected
outcomes are written by the test (`BLESS=1 cargo test -p dashvertex-split --test vectors`)
and read by hand.

The model is a strip of quads along x: column c has a bottom vertex (c, 0) and a top vertex
(c, 1); joint c is a node at (c, 0, 0), a child of joint c - 1. Each quad is two triangles.
"""
import base64, json, struct

def f32(*v): return struct.pack(f"<{len(v)}f", *v)

def strip(columns, influences, joints, mode=4, morph=False, anim=False, tris=None, targets=None, hat=False):
    """influences(c) -> [(joint, weight)] of column c's two vertices. targets: morph
    targets, each a function (c, y) -> (dx, dy, dz). hat: an unskinned triangle (mesh 1)
    drawn by a node under the last joint."""
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
    pos, js, ws = [], [], []
    for c in range(columns):
        for y in (0.0, 1.0):
            pos += [float(c), y, 0.0]
            inf = influences(c) + [(0, 0.0)] * 4
            js += [j for j, _ in inf[:4]]
            ws += [w for _, w in inf[:4]]
    n = 2 * columns
    attrs = {"POSITION": acc(f32(*pos), 5126, "VEC3", n,
                             ([0.0, 0.0, 0.0], [float(columns - 1), 1.0, 0.0])),
             "JOINTS_0": acc(struct.pack(f"<{4*n}B", *js), 5121, "VEC4", n),
             "WEIGHTS_0": acc(f32(*ws), 5126, "VEC4", n)}
    if tris is None:
        tris = []
        for c in range(columns - 1):
            b, t, b1, t1 = 2 * c, 2 * c + 1, 2 * c + 2, 2 * c + 3
            tris += [b, b1, t, b1, t1, t]
    prim = {"attributes": attrs, "indices": acc(struct.pack(f"<{len(tris)}H", *tris), 5123, "SCALAR",
                                                len(tris), target=34963),
            "material": 0, "extras": {"kept": True}}
    if mode != 4:
        prim["mode"] = mode
    mesh = {"name": "strip", "primitives": [prim]}
    if morph:
        d = [0.0, 0.0, 0.25] * n
        prim["targets"] = [{"POSITION": acc(f32(*d), 5126, "VEC3", n, ([0.0, 0.0, 0.25], [0.0, 0.0, 0.25]))}]
        mesh["weights"] = [0.5]
    if targets:
        prim["targets"] = []
        for t in targets:
            d = [x for c in range(columns) for y in (0.0, 1.0) for x in t(c, y)]
            lo = [min(d[k::3]) for k in range(3)]
            hi = [max(d[k::3]) for k in range(3)]
            prim["targets"].append({"POSITION": acc(f32(*d), 5126, "VEC3", n, (lo, hi))})
        mesh["weights"] = [0.0] * len(targets)
    ibm = []
    for j in range(joints):
        ibm += [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -float(j), 0, 0, 1]
    nodes = [{"name": "strip", "mesh": 0, "skin": 0}]
    for j in range(joints):
        node = {"name": f"joint{j}", "translation": [0.0 if j == 0 else 1.0, 0.0, 0.0]}
        if j + 1 < joints:
            node["children"] = [j + 2]
        nodes.append(node)
    meshes = [mesh]
    if hat:
        hp = acc(f32(0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.5, 0.0), 5126, "VEC3", 3,
                 ([0.0, 0.0, 0.0], [0.5, 0.5, 0.0]))
        meshes.append({"name": "hat", "primitives": [{"attributes": {"POSITION": hp}, "material": 0}]})
        nodes[joints].setdefault("children", []).append(len(nodes))
        nodes.append({"name": "hat", "mesh": 1, "translation": [0.0, 1.0, 0.0]})
    doc = {"asset": {"version": "2.0", "generator": "spec/vectors/split/make_vectors.py"},
           "scene": 0, "scenes": [{"nodes": [0, 1]}], "nodes": nodes, "meshes": meshes,
           "materials": [{"name": "paint"}],
           "skins": [{"name": "rig", "joints": list(range(1, joints + 1)),
                      "inverseBindMatrices": acc(f32(*ibm), 5126, "MAT4", joints, target=None)}]}
    if anim:
        times = acc(f32(0.0, 1.0), 5126, "SCALAR", 2, ([0.0], [1.0]), target=None)
        rot = acc(f32(0, 0, 0, 1, 0, 0, 0.38268343, 0.9238795), 5126, "VEC4", 2, target=None)
        mw = acc(f32(0.0, 1.0), 5126, "SCALAR", 2, target=None)
        doc["animations"] = [{"name": "bend", "samplers": [
            {"input": times, "output": rot}, {"input": times, "output": mw}],
            "channels": [{"sampler": 0, "target": {"node": 3, "path": "rotation"}},
                         {"sampler": 1, "target": {"node": 0, "path": "weights"}}]}]
    doc["accessors"] = accessors
    doc["bufferViews"] = views
    doc["buffers"] = [{"byteLength": len(blob),
                       "uri": "data:application/octet-stream;base64," + base64.b64encode(bytes(blob)).decode()}]
    return doc

def write(name, doc, indent=1):
    with open(name, "w") as f:
        json.dump(doc, f, indent=indent)
        f.write("\n")

one = lambda c: [(c, 1.0)]
# SP1: a skin within the budget is left as it was.
write("within.gltf", strip(3, one, 3))
# SP2: only joints with weight count: a 6-joint skin of which the strip weights 2.
write("unused-joints.gltf", strip(2, one, 6))
# SP3-SP6: six columns, one joint each; morph target, `weights` channel and material carried.
write("strip.gltf", strip(6, one, 6, morph=True, anim=True))
# SP7/SP8: one triangle over three joints; vertex 0 blends joints 1 (0.9) and 0 (0.1).
blend = lambda c: [(1, 0.9), (0, 0.1)] if c == 0 else [(c, 1.0)]
write("triangle-over-budget.gltf", strip(3, blend, 3, tris=[0, 2, 4]))
# SP8: every joint of the triangle is the only one of a vertex: nothing can be taken off.
write("triangle-unfixable.gltf", strip(3, one, 3, tris=[0, 2, 4]))
# SP9: strips, fans and loops are split as the lists they draw. A triangle strip along the
# quads, top-bottom zigzag (its odd triangles wound as the strip winds them); a fan around
# vertex 0 over the top vertices, right to left; both face +z, as the other vectors do, so a
# conversion that got the winding wrong is culled in three.js. A line strip along the
# bottom edge.
write("triangle-strip.gltf", strip(4, one, 4, mode=5, tris=[1, 0, 3, 2, 5, 4, 7, 6], morph=True, anim=True))
write("triangle-fan.gltf", strip(4, one, 4, mode=6, tris=[0, 7, 5, 3, 1], morph=True, anim=True))
write("line-strip.gltf", strip(4, one, 4, mode=3, tris=[0, 2, 4, 6]))

# SP10: the strip under two joints a part needs five parts (each quad's two joints are a
# set of its own), refused under --max-parts 4 before any part is grown.
# SP11: node extensions. KHR_node_visibility is copied to every node added beside the split
# one; an extension the split does not know is refused at its JSON Pointer.
def with_node_extensions(doc, exts):
    doc["nodes"][0]["extensions"] = exts
    doc["extensionsUsed"] = sorted(exts)
    return doc
write("node-visibility.gltf", with_node_extensions(strip(4, one, 4), {"KHR_node_visibility": {"visible": False}}))
write("node-extension-unknown.gltf", with_node_extensions(strip(4, one, 4), {"EXT_example_node_tag": {"tag": 7}}))
# SP12: 1,500 zeros of node extras (82 bytes each as the document holds them) copied to
# the 198 nodes added beside a 200-column strip cut to two joints a part: about 23 MiB,
# past the 16 MiB output budget of a small file. Refused, naming /nodes/0/extras.
big = strip(200, one, 200)
big["nodes"][0]["extras"] = {"samples": [0] * 1500}
write("extras-over-budget.gltf", big, indent=None)

# SP13: references held by extensions follow the rewrite. A six-column strip, one joint a
# column, cut to two joints a part: five meshes (mesh 0 and four appended), four nodes
# beside node 0. Two morph targets: "blink" lifts the top of columns 0-1, "joy" pushes
# columns 3-5 forward; an unskinned hat (mesh 1, node 7) is left alone. VRM 0.x binds and
# first-person annotations name meshes; VRM 1.0's name nodes; humanoid bones and spring
# bones name joint nodes, which the split never renumbers.
def avatar():
    blink = lambda c, y: (0.0, -0.5 * y, 0.0) if c < 2 else (0.0, 0.0, 0.0)
    joy = lambda c, y: (0.0, 0.0, 0.25) if c >= 3 else (0.0, 0.0, 0.0)
    return strip(6, one, 6, targets=[blink, joy], hat=True)
BONES = {"hips": 1, "spine": 2, "chest": 3, "neck": 4, "head": 5}
vrm0 = avatar()
vrm0["extensionsUsed"] = ["VRM"]
vrm0["extensions"] = {"VRM": {
    "specVersion": "0.0", "exporterVersion": "make_vectors.py",
    "meta": {"title": "strip", "allowedUserName": "Everyone", "licenseName": "CC0"},
    "humanoid": {"humanBones": [{"bone": b, "node": n, "useDefaultValues": True} for b, n in BONES.items()]},
    "firstPerson": {"firstPersonBone": 5, "firstPersonBoneOffset": {"x": 0, "y": 0.06, "z": 0},
                    "meshAnnotations": [{"mesh": 0, "firstPersonFlag": "Auto"},
                                        {"mesh": 1, "firstPersonFlag": "ThirdPersonOnly"}],
                    "lookAtTypeName": "Bone"},
    "blendShapeMaster": {"blendShapeGroups": [
        {"name": "Blink", "presetName": "blink", "binds": [{"mesh": 0, "index": 0, "weight": 100}], "materialValues": []},
        {"name": "Joy", "presetName": "joy", "binds": [{"mesh": 0, "index": 1, "weight": 100}], "materialValues": []},
        {"name": "Both", "presetName": "unknown", "binds": [{"mesh": 0, "index": 0, "weight": 50}, {"mesh": 0, "index": 1, "weight": 50}], "materialValues": []}]},
    "secondaryAnimation": {"boneGroups": [{"comment": "tail", "stiffiness": 1, "gravityPower": 0,
                                           "gravityDir": {"x": 0, "y": -1, "z": 0}, "dragForce": 0.4,
                                           "center": -1, "hitRadius": 0.02, "bones": [6], "colliderGroups": []}],
                           "colliderGroups": []},
    "materialProperties": []}}
write("vrm0-expressions.gltf", vrm0)
vrm1 = avatar()
vrm1["extensionsUsed"] = ["VRMC_springBone", "VRMC_vrm"]
vrm1["extensions"] = {"VRMC_vrm": {
    "specVersion": "1.0",
    "meta": {"name": "strip", "version": "1", "authors": ["make_vectors.py"], "licenseUrl": "https://vrm.dev/licenses/1.0/"},
    "humanoid": {"humanBones": {b: {"node": n} for b, n in BONES.items()}},
    "firstPerson": {"meshAnnotations": [{"node": 0, "type": "auto"}, {"node": 7, "type": "thirdPersonOnly"}]},
    "lookAt": {"type": "bone", "offsetFromHeadBone": [0, 0.06, 0]},
    "expressions": {"preset": {"blink": {"morphTargetBinds": [{"node": 0, "index": 0, "weight": 1.0}]},
                               "happy": {"morphTargetBinds": [{"node": 0, "index": 1, "weight": 1.0}]}},
                    "custom": {"both/half": {"morphTargetBinds": [{"node": 0, "index": 0, "weight": 0.5},
                                                                   {"node": 0, "index": 1, "weight": 0.5}]}}}},
    "VRMC_springBone": {"specVersion": "1.0", "springs": [{"name": "tail", "joints": [{"node": 5}, {"node": 6}]}]}}
write("vrm1-expressions.gltf", vrm1)
# SP13: an extension at the root the split does not know may name meshes or nodes: refused.
unknown_root = strip(4, one, 4)
unknown_root["extensionsUsed"] = ["EXT_example_scene_index"]
unknown_root["extensions"] = {"EXT_example_scene_index": {"drawnBy": [{"mesh": 0, "node": 0}]}}
write("root-extension-unknown.gltf", unknown_root)

with open("vectors.json", "w") as f:
    json.dump([
        {"file": "within.gltf", "maxJoints": 3, "reduce": False, "rule": "SP1"},
        {"file": "unused-joints.gltf", "maxJoints": 2, "reduce": False, "rule": "SP2"},
        {"file": "strip.gltf", "maxJoints": 3, "reduce": False, "rule": "SP3"},
        {"file": "strip.gltf", "maxJoints": 2, "reduce": False, "rule": "SP4"},
        {"file": "triangle-over-budget.gltf", "maxJoints": 2, "reduce": False, "rule": "SP7"},
        {"file": "triangle-over-budget.gltf", "maxJoints": 2, "reduce": True, "rule": "SP8"},
        {"file": "triangle-unfixable.gltf", "maxJoints": 2, "reduce": True, "rule": "SP8"},
        {"file": "triangle-strip.gltf", "maxJoints": 2, "reduce": False, "rule": "SP9"},
        {"file": "triangle-fan.gltf", "maxJoints": 3, "reduce": False, "rule": "SP9"},
        {"file": "line-strip.gltf", "maxJoints": 2, "reduce": False, "rule": "SP9"},
        {"file": "strip.gltf", "maxJoints": 2, "maxParts": 4, "reduce": False, "rule": "SP10"},
        {"file": "node-visibility.gltf", "maxJoints": 2, "reduce": False, "rule": "SP11"},
        {"file": "node-extension-unknown.gltf", "maxJoints": 2, "reduce": False, "rule": "SP11"},
        {"file": "extras-over-budget.gltf", "maxJoints": 2, "reduce": False, "rule": "SP12"},
        {"file": "vrm0-expressions.gltf", "maxJoints": 2, "reduce": False, "rule": "SP13"},
        {"file": "vrm1-expressions.gltf", "maxJoints": 2, "reduce": False, "rule": "SP13"},
        {"file": "root-extension-unknown.gltf", "maxJoints": 2, "reduce": False, "rule": "SP13"},
    ], f, indent=1)
    f.write("\n")
