#!/usr/bin/env python3
"""Makes an animated skinned rig with many influences per vertex, for the fitted
reduction (issue 51): a tube up the Y axis bound to a chain of bones, every vertex
weighted to its INFLUENCES nearest bones (heavy-tailed falloff, seeded jitter), and one
animation that bends every bone about its local Z and X axes over KEYFRAMES linear
keyframes. Deterministic (its own 64-bit LCG, no numpy), glTF 2.0 binary (.glb).

  python3 benches/make_animated_rig.py OUT.glb [RINGS] [SEGMENTS] [BONES] [INFLUENCES] [KEYFRAMES] [SEED]

Defaults: 200 rings x 64 segments (12,800 vertices), 10 bones, 10 influences, 60
keyframes. The committed test fixture fixtures/generated/animated_rig_10.glb is
`python3 benches/make_animated_rig.py fixtures/generated/animated_rig_10.glb 12 12 10 10 12 51`.
"""
import json
import math
import struct
import sys
from array import array

args = sys.argv[1:]
if not args:
    sys.exit(__doc__)
out = args[0]
rings, segments, bones, influences, keyframes, seed = (
    [int(a) for a in args[1:]] + [200, 64, 10, 10, 60, 51][len(args) - 1:]
)[:6]
if influences > 12 or influences > bones:
    sys.exit("at most 12 influences (three sets), and no more than bones")
sets = (influences + 3) // 4
step = 0.25  # bone length
height = bones * step
state = [seed * 2654435761 % 2**64 or 1]


def rand():
    state[0] = (state[0] * 6364136223846793005 + 1442695040888963407) % 2**64
    return (state[0] >> 11) / float(1 << 53)


pos = array("f")
joints = [array("B") for _ in range(sets)]
weights = [array("f") for _ in range(sets)]
for r in range(rings):
    y = height * (r + 0.5) / rings
    for s in range(segments):
        a = 2 * math.pi * s / segments
        radius = 0.2 * (1.0 + 0.15 * math.sin(3 * a) * rand())
        pos.extend((radius * math.cos(a), y, radius * math.sin(a)))
        near = []
        for j in range(bones):
            c = (j + 0.5) * step
            # A heavy tail, as smooth (heat-diffused) weights and all-influence exports have.
            w = (0.6 + 0.8 * rand()) / (1.0 + 2.0 * ((y - c) / step) ** 2)
            near.append((w, j))
        near.sort(key=lambda x: (-x[0], x[1]))
        near = near[:influences]
        total = sum(w for w, _ in near)
        slots = [(j, w / total) for w, j in near] + [(0, 0.0)] * (4 * sets - len(near))
        for k in range(sets):
            for j, w in slots[4 * k:4 * k + 4]:
                joints[k].append(j)
                weights[k].append(w)
idx = array("I")
for r in range(rings - 1):
    for s in range(segments):
        a, b = r * segments + s, r * segments + (s + 1) % segments
        c, d = a + segments, b + segments
        idx.extend((a, c, b, b, c, d))

ibm = array("f")
for j in range(bones):
    ibm.extend((1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -j * step, 0, 1))
times = array("f", (i / 30.0 for i in range(keyframes)))
rot = []
for j in range(bones):
    ph, fz, fx = 2 * math.pi * rand(), 1 + 2 * rand(), 1 + 2 * rand()
    q = array("f")
    for i in range(keyframes):
        t = i / max(keyframes - 1, 1)
        z = 0.6 * math.sin(2 * math.pi * fz * t + ph)
        x = 0.4 * math.sin(2 * math.pi * fx * t + 2 * ph)
        # rotation about Z then about X: q = qz * qx
        cz, sz, cx, sx = math.cos(z / 2), math.sin(z / 2), math.cos(x / 2), math.sin(x / 2)
        # (x, y, z, w) of qz * qx: qz = (0, 0, sz, cz), qx = (sx, 0, 0, cx)
        q.extend((cz * sx, sz * sx, sz * cx, cz * cx))
    rot.append(q)

blob = bytearray()
views, accessors = [], []


def add(data, comp, typ, count, target=None, minmax=None):
    while len(blob) % 4:
        blob.append(0)
    raw = data.tobytes()
    view = {"buffer": 0, "byteOffset": len(blob), "byteLength": len(raw)}
    if target:
        view["target"] = target
    views.append(view)
    blob.extend(raw)
    acc = {"bufferView": len(views) - 1, "componentType": comp, "count": count, "type": typ}
    if minmax:
        acc["min"], acc["max"] = minmax
    accessors.append(acc)
    return len(accessors) - 1


n = rings * segments
lo = [min(pos[i::3]) for i in range(3)]
hi = [max(pos[i::3]) for i in range(3)]
attrs = {"POSITION": add(pos, 5126, "VEC3", n, 34962, (lo, hi))}
for k in range(sets):
    attrs[f"JOINTS_{k}"] = add(joints[k], 5121, "VEC4", n, 34962)
    attrs[f"WEIGHTS_{k}"] = add(weights[k], 5126, "VEC4", n, 34962)
indices = add(idx, 5125, "SCALAR", len(idx), 34963)
ibm_acc = add(ibm, 5126, "MAT4", bones)
t_acc = add(times, 5126, "SCALAR", keyframes, None, ([0.0], [float(times[-1])]))
samplers, channels = [], []
for j in range(bones):
    samplers.append({"input": t_acc, "output": add(rot[j], 5126, "VEC4", keyframes), "interpolation": "LINEAR"})
    channels.append({"sampler": j, "target": {"node": 1 + j, "path": "rotation"}})
nodes = [{"name": "tube", "mesh": 0, "skin": 0}]
for j in range(bones):
    node = {"name": f"bone{j:02}", "translation": [0.0, step if j else 0.0, 0.0]}
    if j + 1 < bones:
        node["children"] = [2 + j]
    nodes.append(node)
doc = {
    "asset": {"version": "2.0", "generator": "dash benches/make_animated_rig.py"},
    "scene": 0,
    "scenes": [{"nodes": [0, 1]}],
    "nodes": nodes,
    "meshes": [{"primitives": [{"attributes": attrs, "indices": indices}]}],
    "skins": [{"joints": list(range(1, bones + 1)), "inverseBindMatrices": ibm_acc, "skeleton": 1}],
    "animations": [{"name": "bend", "samplers": samplers, "channels": channels}],
    "buffers": [{"byteLength": len(blob)}],
    "bufferViews": views,
    "accessors": accessors,
}
js = json.dumps(doc, separators=(",", ":")).encode()
js += b" " * (-len(js) % 4)
blob.extend(b"\0" * (-len(blob) % 4))
with open(out, "wb") as f:
    f.write(struct.pack("<III", 0x46546C67, 2, 12 + 8 + len(js) + 8 + len(blob)))
    f.write(struct.pack("<II", len(js), 0x4E4F534A) + js)
    f.write(struct.pack("<II", len(blob), 0x004E4942) + bytes(blob))
print(f"{out}: {n} vertices, {bones} bones, {influences} influences, {keyframes} keyframes")
