#!/usr/bin/env python3
"""Builds avatar-vrm0.vrm and avatar-vrm1.vrm: small VRM avatars laid out as UniVRM and
the VRM 1.0 exporters lay theirs out, for the reference test of spec/split.md [SP13]
(`crates/dashvertex-cli/tests/it/split_references.rs`). Run from this folder:
`python3 make_avatars.py`. Generated here, so CC0 like the rest of spec/vectors (no small
real VRM avatar with a licence that allows redistribution was found: the samples of
vrm-c/vrm-specification that are small have no skin or morph target; Seed-san and the
constraint sample are large and under the VRM Public License).

What makes them like exported avatars:
- a 22-joint humanoid (hips to head, shoulders, arms, legs, two hair joints) under a
  root node; the inverse bind matrices of a T-pose;
- the Body mesh has two primitives (body and face materials) that share one set of vertex
  attributes (POSITION, NORMAL, TEXCOORD_0, JOINTS_0 as unsigned short, WEIGHTS_0 as
  float), each with its own indices, as UniVRM writes them; every vertex blends two joints;
- eight morph targets on the face (blink_L, blink_R, A, I, U, E, O, Joy) and one on the
  body (Breathe: chest, neck and arms, across the parts of a split) with POSITION and
  NORMAL deltas, shared by both primitives; two are sparse accessors (no bufferView);
- a Hair mesh skinned with its own skin (all 22 joints, three used) and an unskinned Hat
  under the head;
- VRM 0.x: 18 blend shape groups (the presets, blink binding both eyes), first-person
  annotations, humanoid, secondary animation; VRM 1.0: preset and custom expressions by
  node, first person, lookAt, humanoid, VRMC_springBone.
"""
import json, math, struct

JOINTS = [  # name, parent, world position (T-pose, metres)
    ("hips", None, (0.0, 1.0, 0.0)), ("spine", "hips", (0.0, 1.1, 0.0)),
    ("chest", "spine", (0.0, 1.25, 0.0)), ("upperChest", "chest", (0.0, 1.35, 0.0)),
    ("neck", "upperChest", (0.0, 1.5, 0.0)), ("head", "neck", (0.0, 1.6, 0.0)),
    ("hair1", "head", (0.0, 1.72, -0.1)), ("hair2", "hair1", (0.0, 1.6, -0.18)),
]
for side, sx in (("L", 1.0), ("R", -1.0)):
    JOINTS += [
        (f"shoulder.{side}", "upperChest", (0.05 * sx, 1.45, 0.0)),
        (f"upperArm.{side}", f"shoulder.{side}", (0.15 * sx, 1.45, 0.0)),
        (f"lowerArm.{side}", f"upperArm.{side}", (0.4 * sx, 1.45, 0.0)),
        (f"hand.{side}", f"lowerArm.{side}", (0.62 * sx, 1.45, 0.0)),
        (f"upperLeg.{side}", "hips", (0.1 * sx, 0.95, 0.0)),
        (f"lowerLeg.{side}", f"upperLeg.{side}", (0.1 * sx, 0.5, 0.0)),
        (f"foot.{side}", f"lowerLeg.{side}", (0.1 * sx, 0.08, 0.0)),
    ]
J = {n: k for k, (n, _, _) in enumerate(JOINTS)}
POS = {n: p for n, _, p in JOINTS}
# Body tubes: (from joint, to joint, end point when the tube ends past the last joint).
SEGMENTS = [("hips", "spine"), ("spine", "chest"), ("chest", "upperChest"), ("upperChest", "neck"),
            ("neck", "head")]
for s, sx in (("L", 1.0), ("R", -1.0)):
    SEGMENTS += [(f"shoulder.{s}", f"upperArm.{s}"), (f"upperArm.{s}", f"lowerArm.{s}"),
                 (f"lowerArm.{s}", f"hand.{s}"), (f"hand.{s}", None, (0.72 * sx, 1.45, 0.0)),
                 (f"hips", f"upperLeg.{s}"), (f"upperLeg.{s}", f"lowerLeg.{s}"),
                 (f"lowerLeg.{s}", f"foot.{s}"), (f"foot.{s}", None, (0.1 * sx, 0.02, 0.12))]

def sub(a, b): return tuple(x - y for x, y in zip(a, b))
def add(a, b): return tuple(x + y for x, y in zip(a, b))
def mul(a, k): return tuple(x * k for x in a)
def cross(a, b): return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])
def norm(a):
    l = math.sqrt(sum(x * x for x in a)) or 1.0
    return mul(a, 1.0 / l)
def r4(v): return tuple(struct.unpack("<f", struct.pack("<f", x))[0] for x in v)

class Mesh:
    def __init__(self):
        self.pos, self.nrm, self.uv, self.joints, self.weights = [], [], [], [], []
    def vertex(self, p, n, uv, inf):
        inf = (inf + [(0, 0.0)] * 4)[:4]
        self.pos.append(r4(p)); self.nrm.append(r4(norm(n))); self.uv.append(uv)
        self.joints.append([j for j, _ in inf]); self.weights.append([w for _, w in inf])
        return len(self.pos) - 1

def tube(m, a, b, ja, jb, radius, around=8, rings=3):
    """Rings from a to b; ring t blends ja (1 - t) and jb (t) (jb None: all ja)."""
    axis = norm(sub(b, a))
    u = norm(cross(axis, (0.0, 0.0, 1.0) if abs(axis[2]) < 0.9 else (1.0, 0.0, 0.0)))
    v = cross(axis, u)
    first = len(m.pos)
    for r in range(rings):
        t = r / (rings - 1)
        c = add(a, mul(sub(b, a), t))
        inf = [(ja, 1.0)] if jb is None else [(ja, 1.0 - t), (jb, t)] if 0 < t < 1 else [(jb if t == 1 else ja, 1.0)]
        for k in range(around):
            ang = 2 * math.pi * k / around
            n = add(mul(u, math.cos(ang)), mul(v, math.sin(ang)))
            m.vertex(add(c, mul(n, radius)), n, (k / around, t), inf)
    tris = []
    for r in range(rings - 1):
        for k in range(around):
            a0 = first + r * around + k; a1 = first + r * around + (k + 1) % around
            b0 = a0 + around; b1 = a1 + around
            tris += [a0, a1, b1, a0, b1, b0]
    return tris

def sphere(m, centre, radius, lat=7, lon=12):
    """The face: a sphere weighted to the head, its lowest ring blending the neck."""
    first = len(m.pos)
    for i in range(lat):
        th = math.pi * (i + 0.5) / lat
        for k in range(lon):
            ph = 2 * math.pi * k / lon
            n = (math.sin(th) * math.sin(ph), math.cos(th), math.sin(th) * math.cos(ph))
            inf = [(J["head"], 0.7), (J["neck"], 0.3)] if i == lat - 1 else [(J["head"], 1.0)]
            m.vertex(add(centre, mul(n, radius)), n, (k / lon, i / lat), inf)
    tris = []
    for i in range(lat - 1):
        for k in range(lon):
            a0 = first + i * lon + k; a1 = first + i * lon + (k + 1) % lon
            tris += [a0, a0 + lon, a1 + lon, a0, a1 + lon, a1]
    return first, tris

class Blob:
    def __init__(self):
        self.data, self.views, self.accessors = bytearray(), [], []
    def view(self, raw, target=None):
        while len(self.data) % 4: self.data.append(0)
        v = {"buffer": 0, "byteOffset": len(self.data), "byteLength": len(raw)}
        if target: v["target"] = target
        self.views.append(v); self.data.extend(raw)
        return len(self.views) - 1
    def acc(self, rows, fmt, ctype, kind, target=34962, minmax=False):
        raw = b"".join(struct.pack("<" + fmt * len(r), *r) for r in rows)
        a = {"bufferView": self.view(raw, target), "componentType": ctype, "count": len(rows), "type": kind}
        if minmax:
            a["min"] = [min(r[k] for r in rows) for k in range(len(rows[0]))]
            a["max"] = [max(r[k] for r in rows) for k in range(len(rows[0]))]
        self.accessors.append(a)
        return len(self.accessors) - 1
    def sparse(self, rows, n):
        """A VEC3 float accessor of n zeros but `rows` {index: delta} (UniVRM-style sparse)."""
        idx = sorted(rows)
        iv = self.view(struct.pack(f"<{len(idx)}I", *idx))
        vv = self.view(b"".join(struct.pack("<3f", *rows[i]) for i in idx))
        allv = [rows.get(i, (0.0, 0.0, 0.0)) for i in range(n)]
        a = {"componentType": 5126, "count": n, "type": "VEC3",
             "min": [min(r[k] for r in allv) for k in range(3)], "max": [max(r[k] for r in allv) for k in range(3)],
             "sparse": {"count": len(idx), "indices": {"bufferView": iv, "componentType": 5125},
                        "values": {"bufferView": vv}}}
        self.accessors.append(a)
        return len(self.accessors) - 1

def avatar():
    blob = Blob()
    body = Mesh()
    body_tris = []
    for seg in SEGMENTS:
        a = seg[0]; b = seg[1]
        end = POS[b] if b else seg[2]
        radius = 0.05 if a in ("hips", "spine", "chest", "upperChest") else 0.03
        body_tris += tube(body, POS[a], end, J[a], J[b] if b else None, radius)
    face_first, face_tris = sphere(body, (0.0, 1.68, 0.0), 0.1)
    n = len(body.pos)
    face = range(face_first, n)
    def region(pred, delta):
        return {i: r4(delta(body.pos[i])) for i in face if pred(body.pos[i])}
    front = lambda p: p[2] > 0.05
    targets = [
        ("blink_L", region(lambda p: front(p) and p[0] > 0.01 and 1.68 < p[1] < 1.74, lambda p: (0.0, -0.012, 0.0))),
        ("blink_R", region(lambda p: front(p) and p[0] < -0.01 and 1.68 < p[1] < 1.74, lambda p: (0.0, -0.012, 0.0))),
        ("A", region(lambda p: front(p) and p[1] < 1.64, lambda p: (0.0, -0.02, 0.004))),
        ("I", region(lambda p: front(p) and p[1] < 1.64, lambda p: (0.01 * (1 if p[0] > 0 else -1), 0.0, 0.0))),
        ("U", region(lambda p: front(p) and p[1] < 1.64, lambda p: (-0.5 * p[0], 0.0, 0.01))),
        ("E", region(lambda p: front(p) and p[1] < 1.64, lambda p: (0.006 * (1 if p[0] > 0 else -1), -0.008, 0.0))),
        ("O", region(lambda p: front(p) and p[1] < 1.64, lambda p: (-0.3 * p[0], -0.015, 0.008))),
        ("Joy", region(lambda p: front(p) and 1.6 < p[1] < 1.74, lambda p: (0.0, 0.006, 0.002))),
    ]
    # A body shape across the skin's parts: chest, neck and arms swell (vertices above
    # the waist but the face).
    swell = {i: r4(mul(body.nrm[i], 0.01)) for i in range(face_first) if body.pos[i][1] > 1.2}
    targets.append(("Breathe", swell))
    attrs = {"POSITION": blob.acc(body.pos, "f", 5126, "VEC3", minmax=True),
             "NORMAL": blob.acc(body.nrm, "f", 5126, "VEC3"),
             "TEXCOORD_0": blob.acc(body.uv, "f", 5126, "VEC2"),
             "JOINTS_0": blob.acc(body.joints, "H", 5123, "VEC4"),
             "WEIGHTS_0": blob.acc(body.weights, "f", 5126, "VEC4")}
    tgts = []
    for k, (_, rows) in enumerate(targets):
        if k in (2, 6):  # A and O: sparse, as UniVRM writes targets that move few vertices
            p = blob.sparse(rows, n)
        else:
            p = blob.acc([rows.get(i, (0.0, 0.0, 0.0)) for i in range(n)], "f", 5126, "VEC3", minmax=True)
        nd = blob.acc([(0.0, 0.0, 0.0)] * n, "f", 5126, "VEC3")
        tgts.append({"POSITION": p, "NORMAL": nd})
    prims = [{"attributes": attrs, "indices": blob.acc([(i,) for i in tris], "I", 5125, "SCALAR", target=34963),
              "material": mat, "targets": tgts}
             for tris, mat in ((body_tris, 0), (face_tris, 1))]
    meshes = [{"name": "Body", "primitives": prims, "weights": [0.0] * len(targets),
               "extras": {"targetNames": [t for t, _ in targets]}}]
    hair = Mesh()
    hair_tris = tube(hair, POS["head"], POS["hair1"], J["head"], J["hair1"], 0.04, rings=3)
    hair_tris += tube(hair, POS["hair1"], POS["hair2"], J["hair1"], J["hair2"], 0.03, rings=3)
    meshes.append({"name": "Hair", "primitives": [{
        "attributes": {"POSITION": blob.acc(hair.pos, "f", 5126, "VEC3", minmax=True),
                       "NORMAL": blob.acc(hair.nrm, "f", 5126, "VEC3"),
                       "TEXCOORD_0": blob.acc(hair.uv, "f", 5126, "VEC2"),
                       "JOINTS_0": blob.acc(hair.joints, "H", 5123, "VEC4"),
                       "WEIGHTS_0": blob.acc(hair.weights, "f", 5126, "VEC4")},
        "indices": blob.acc([(i,) for i in hair_tris], "I", 5125, "SCALAR", target=34963), "material": 2}]})
    hat = [(0.0, 0.12, 0.0), (0.08, 0.08, 0.0), (-0.08, 0.08, 0.0)]
    meshes.append({"name": "Hat", "primitives": [{"attributes": {
        "POSITION": blob.acc(hat, "f", 5126, "VEC3", minmax=True)}, "material": 2}]})
    # Nodes: 0 Root; 1.. the joints in JOINTS order; then Body, Hair, Hat.
    nodes = [{"name": "Root", "children": [1]}]
    for name, parent, p in JOINTS:
        rel = sub(p, POS[parent]) if parent else p
        nodes.append({"name": name, "translation": list(r4(rel))})
    for k, (name, parent, _) in enumerate(JOINTS):
        if parent:
            nodes[1 + J[parent]].setdefault("children", []).append(1 + k)
    body_node, hair_node, hat_node = len(nodes), len(nodes) + 1, len(nodes) + 2
    nodes += [{"name": "Body", "mesh": 0, "skin": 0}, {"name": "Hair", "mesh": 1, "skin": 1},
              {"name": "Hat", "mesh": 2, "translation": [0.0, 0.1, 0.0]}]
    nodes[0]["children"] += [body_node, hair_node]
    nodes[1 + J["head"]].setdefault("children", []).append(hat_node)
    ibm = []
    for _, _, p in JOINTS:
        ibm.append(r4((1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -p[0], -p[1], -p[2], 1)))
    skins = [{"name": f"{m}Skin", "joints": [1 + k for k in range(len(JOINTS))], "skeleton": 1,
              "inverseBindMatrices": blob.acc(ibm, "f", 5126, "MAT4", target=None)} for m in ("Body", "Hair")]
    doc = {"asset": {"version": "2.0", "generator": "spec/vectors/split/make_avatars.py"},
           "scene": 0, "scenes": [{"nodes": [0]}], "nodes": nodes, "meshes": meshes, "skins": skins,
           "materials": [{"name": "Body", "pbrMetallicRoughness": {"baseColorFactor": [0.9, 0.8, 0.7, 1]}},
                         {"name": "Face", "pbrMetallicRoughness": {"baseColorFactor": [1, 0.9, 0.8, 1]},
                          "extensions": {"KHR_materials_unlit": {}}},
                         {"name": "Hair", "pbrMetallicRoughness": {"baseColorFactor": [0.3, 0.2, 0.1, 1]}}],
           "extensionsUsed": ["KHR_materials_unlit"]}
    return doc, blob, [t for t, _ in targets], (body_node, hair_node, hat_node)

HUMAN = ["hips", "spine", "chest", "upperChest", "neck", "head"] + [
    f"{s}{b}" for s in ("left", "right") for b in ("Shoulder", "UpperArm", "LowerArm", "Hand", "UpperLeg", "LowerLeg", "Foot")]
def human_node(bone):
    if bone.startswith(("left", "right")):
        side = "L" if bone.startswith("left") else "R"
        rest = bone[4:] if side == "L" else bone[5:]
        return 1 + J[f"{rest[0].lower()}{rest[1:]}.{side}"]
    return 1 + J[bone]

def write_glb(path, doc, blob):
    doc["bufferViews"] = blob.views
    doc["accessors"] = blob.accessors
    data = bytes(blob.data) + b"\0" * (-len(blob.data) % 4)
    doc["buffers"] = [{"byteLength": len(data)}]
    js = json.dumps(doc, separators=(",", ":")).encode()
    js += b" " * (-len(js) % 4)
    body = struct.pack("<II", len(js), 0x4E4F534A) + js + struct.pack("<II", len(data), 0x004E4942) + data
    with open(path, "wb") as f:
        f.write(struct.pack("<III", 0x46546C67, 2, 12 + len(body)) + body)

# VRM 0.x, as UniVRM 0.x writes it.
doc, blob, names, (body, hair, hat) = avatar()
T = {n: k for k, n in enumerate(names)}
groups = [("Neutral", "neutral", []), ("A", "a", [("A", 100)]), ("I", "i", [("I", 100)]),
          ("U", "u", [("U", 100)]), ("E", "e", [("E", 100)]), ("O", "o", [("O", 100)]),
          ("Blink", "blink", [("blink_L", 100), ("blink_R", 100)]), ("Blink_L", "blink_l", [("blink_L", 100)]),
          ("Blink_R", "blink_r", [("blink_R", 100)]), ("Joy", "joy", [("Joy", 100), ("A", 30)]),
          ("Angry", "angry", [("E", 60)]), ("Sorrow", "sorrow", [("U", 40), ("blink_L", 20), ("blink_R", 20)]),
          ("Fun", "fun", [("Joy", 70)]), ("Breathe", "unknown", [("Breathe", 100), ("A", 20)]), ("LookUp", "lookup", []), ("LookDown", "lookdown", []),
          ("LookLeft", "lookleft", []), ("LookRight", "lookright", [])]
doc["extensionsUsed"].append("VRM")
doc["extensions"] = {"VRM": {
    "exporterVersion": "UniVRM-0.99.0 (shape of; written by make_avatars.py)", "specVersion": "0.0",
    "meta": {"title": "Avatar", "version": "1", "author": "dash spec vectors", "allowedUserName": "Everyone",
             "violentUssageName": "Disallow", "sexualUssageName": "Disallow", "commercialUssageName": "Allow",
             "licenseName": "CC0", "texture": -1},
    "humanoid": {"humanBones": [{"bone": b, "node": human_node(b), "useDefaultValues": True} for b in HUMAN],
                 "armStretch": 0.05, "legStretch": 0.05, "hasTranslationDoF": False},
    "firstPerson": {"firstPersonBone": 1 + J["head"], "firstPersonBoneOffset": {"x": 0, "y": 0.06, "z": 0},
                    "meshAnnotations": [{"mesh": 0, "firstPersonFlag": "Auto"}, {"mesh": 1, "firstPersonFlag": "Auto"},
                                        {"mesh": 2, "firstPersonFlag": "ThirdPersonOnly"}],
                    "lookAtTypeName": "BlendShape",
                    "lookAtHorizontalInner": {"curve": [0, 0, 0, 1, 1, 1, 1, 0], "xRange": 90, "yRange": 10}},
    "blendShapeMaster": {"blendShapeGroups": [
        {"name": g, "presetName": p, "binds": [{"mesh": 0, "index": T[t], "weight": w} for t, w in b],
         "materialValues": [], "isBinary": False} for g, p, b in groups]},
    "secondaryAnimation": {"boneGroups": [{"comment": "hair", "stiffiness": 1, "gravityPower": 0,
                                           "gravityDir": {"x": 0, "y": -1, "z": 0}, "dragForce": 0.4, "center": -1,
                                           "hitRadius": 0.02, "bones": [1 + J["hair1"]], "colliderGroups": [0]}],
                           "colliderGroups": [{"node": 1 + J["head"], "colliders": [{"offset": {"x": 0, "y": 0.08, "z": 0}, "radius": 0.1}]}]},
    "materialProperties": [{"name": m, "shader": "VRM_USE_GLTFSHADER", "renderQueue": 2000,
                            "floatProperties": {}, "vectorProperties": {}, "textureProperties": {},
                            "keywordMap": {}, "tagMap": {}} for m in ("Body", "Face", "Hair")]}}
write_glb("avatar-vrm0.vrm", doc, blob)

# VRM 1.0: expressions bind nodes.
doc, blob, names, (body, hair, hat) = avatar()
bind = lambda pairs: {"morphTargetBinds": [{"node": body, "index": T[t], "weight": w} for t, w in pairs]}
doc["extensionsUsed"] += ["VRMC_springBone", "VRMC_vrm"]
doc["extensions"] = {
    "VRMC_vrm": {
        "specVersion": "1.0",
        "meta": {"name": "Avatar", "version": "1", "authors": ["dash spec vectors"],
                 "licenseUrl": "https://vrm.dev/licenses/1.0/", "avatarPermission": "everyone",
                 "commercialUsage": "personalNonProfit", "allowRedistribution": True, "modification": "allowModification"},
        "humanoid": {"humanBones": {b: {"node": human_node(b)} for b in HUMAN}},
        "firstPerson": {"meshAnnotations": [{"node": body, "type": "auto"}, {"node": hair, "type": "auto"},
                                            {"node": hat, "type": "thirdPersonOnly"}]},
        "lookAt": {"type": "expression", "offsetFromHeadBone": [0, 0.06, 0],
                   "rangeMapHorizontalInner": {"inputMaxValue": 90, "outputScale": 1},
                   "rangeMapVerticalUp": {"inputMaxValue": 90, "outputScale": 1}},
        "expressions": {
            "preset": {"happy": bind([("Joy", 1.0), ("A", 0.3)]), "angry": bind([("E", 0.6)]),
                       "sad": bind([("U", 0.4), ("blink_L", 0.2), ("blink_R", 0.2)]), "relaxed": bind([("Joy", 0.7)]),
                       "surprised": bind([("O", 1.0)]), "aa": bind([("A", 1.0)]), "ih": bind([("I", 1.0)]),
                       "ou": bind([("U", 1.0)]), "ee": bind([("E", 1.0)]), "oh": bind([("O", 1.0)]),
                       "blink": {**bind([("blink_L", 1.0), ("blink_R", 1.0)]), "isBinary": False,
                                 "overrideBlink": "none", "overrideLookAt": "none", "overrideMouth": "none"},
                       "blinkLeft": bind([("blink_L", 1.0)]), "blinkRight": bind([("blink_R", 1.0)]),
                       "lookUp": {}, "lookDown": {}, "lookLeft": {}, "lookRight": {}, "neutral": {}},
            "custom": {"wink_smile": bind([("blink_L", 1.0), ("Joy", 0.5)]),
                       "breathe": bind([("Breathe", 1.0), ("A", 0.2)])}}},
    "VRMC_springBone": {"specVersion": "1.0",
                        "colliders": [{"node": 1 + J["head"], "shape": {"sphere": {"offset": [0, 0.08, 0], "radius": 0.1}}}],
                        "colliderGroups": [{"name": "head", "colliders": [0]}],
                        "springs": [{"name": "hair", "joints": [{"node": 1 + J["hair1"]}, {"node": 1 + J["hair2"]}],
                                     "colliderGroups": [0]}]}}
write_glb("avatar-vrm1.vrm", doc, blob)
