#!/usr/bin/env python3
"""An independent reader of VRM references (spec/split.md [SP13]); no dash code.

    python3 check_references.py INPUT OUTPUT

INPUT and OUTPUT are glTF/GLB/VRM files (OUTPUT the split of INPUT). For each expression
(VRM 0.x blend shape group, VRM 1.0 preset or custom expression) the script lists what it
moves: following each bind to the nodes that draw its mesh (VRM 0.x: every node whose
`mesh` is the bind's; VRM 1.0: the bind's node), every element (triangle, line, point)
those nodes draw that has a vertex whose POSITION delta in the bound morph target is not
zero, as its corners' (position, delta × bind weight) in model space (an unskinned node's
world matrix applied; a skinned node's own transform is ignored, glTF 2.0 §3.7.3.2). It
asserts, per expression, that the input and the output move the same multiset of elements
and the same set of (position, delta) vertices (a vertex on a seam between parts is
written once per part, so vertices are compared as a set, elements as a multiset). The
same is asserted for the elements each first-person annotation flag covers. Exit status 0
when every check holds; the lines printed say what was compared.
"""
import base64
import json
import math
import os
import struct
import sys
from collections import Counter

COMPONENT = {5120: ("b", 1), 5121: ("B", 1), 5122: ("h", 2), 5123: ("H", 2), 5125: ("I", 4), 5126: ("f", 4)}
NORM = {5120: 127.0, 5121: 255.0, 5122: 32767.0, 5123: 65535.0}
WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}


def load(path):
    data = open(path, "rb").read()
    if data[:4] == b"glTF":
        n = struct.unpack_from("<I", data, 12)[0]
        doc = json.loads(data[20:20 + n])
        rest = data[20 + n:]
        blob = None
        if len(rest) >= 8:
            m = struct.unpack_from("<I", rest, 0)[0]
            blob = rest[8:8 + m]
    else:
        doc, blob = json.loads(data), None
    buffers = []
    for b in doc.get("buffers", []):
        uri = b.get("uri")
        if uri is None:
            buffers.append(blob)
        elif uri.startswith("data:"):
            buffers.append(base64.b64decode(uri.split(",", 1)[1]))
        else:
            buffers.append(open(os.path.join(os.path.dirname(path), uri), "rb").read())
    return doc, buffers


def read(doc, buffers, index):
    """Accessor `index` as a list of tuples of floats (sparse substitutions applied)."""
    a = doc["accessors"][index]
    fmt, size = COMPONENT[a["componentType"]]
    width = WIDTH[a["type"]]
    count = a["count"]
    norm = a.get("normalized", False)

    def conv(x):
        return max(x / NORM[a["componentType"]], -1.0) if norm else float(x)

    def elements(view_index, offset, n, fmt, size, width):
        v = doc["bufferViews"][view_index]
        buf = buffers[v.get("buffer", 0)]
        stride = v.get("byteStride") or size * width
        base = v.get("byteOffset", 0) + offset
        return [struct.unpack_from(f"<{width}{fmt}", buf, base + i * stride) for i in range(n)]

    if "bufferView" in a:
        out = [tuple(conv(x) for x in e) for e in elements(a["bufferView"], a.get("byteOffset", 0), count, fmt, size, width)]
    else:
        out = [(0.0,) * width for _ in range(count)]
    sp = a.get("sparse")
    if sp:
        ifmt, isize = COMPONENT[sp["indices"]["componentType"]]
        idx = elements(sp["indices"]["bufferView"], sp["indices"].get("byteOffset", 0), sp["count"], ifmt, isize, 1)
        val = elements(sp["values"]["bufferView"], sp["values"].get("byteOffset", 0), sp["count"], fmt, size, width)
        for (i,), v in zip(idx, val):
            out[i] = tuple(conv(x) for x in v)
    return out


def mat_mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(4)) for j in range(4)] for i in range(4)]


def local(node):
    if "matrix" in node:
        m = node["matrix"]
        return [[m[c * 4 + r] for c in range(4)] for r in range(4)]
    t = node.get("translation", [0, 0, 0])
    x, y, z, w = node.get("rotation", [0, 0, 0, 1])
    s = node.get("scale", [1, 1, 1])
    r = [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
         [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
         [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]
    return [[r[i][0] * s[0], r[i][1] * s[1], r[i][2] * s[2], t[i]] for i in range(3)] + [[0, 0, 0, 1]]


def world_matrices(doc):
    nodes = doc.get("nodes", [])
    parent = {}
    for i, n in enumerate(nodes):
        for c in n.get("children", []):
            parent[c] = i
    out = {}
    for i in range(len(nodes)):
        chain, j = [], i
        while j is not None and len(chain) <= len(nodes):
            chain.append(j)
            j = parent.get(j)
        m = [[float(r == c) for c in range(4)] for r in range(4)]
        for j in reversed(chain):
            m = mat_mul(m, local(nodes[j]))
        out[i] = m
    return out


def elements_of(prim, n_vertices, indices):
    mode = prim.get("mode", 4)
    ix = indices if indices is not None else list(range(n_vertices))
    if mode == 4:
        return [tuple(ix[k:k + 3]) for k in range(0, len(ix) - 2, 3)]
    if mode == 1:
        return [tuple(ix[k:k + 2]) for k in range(0, len(ix) - 1, 2)]
    if mode == 0:
        return [(v,) for v in ix]
    if mode == 5:
        return [(ix[k], ix[k + 1], ix[k + 2]) if k % 2 == 0 else (ix[k + 1], ix[k], ix[k + 2]) for k in range(len(ix) - 2)]
    if mode == 6:
        return [(ix[k], ix[k + 1], ix[0]) for k in range(1, len(ix) - 1)]
    if mode in (2, 3):
        lines = [(ix[k], ix[k + 1]) for k in range(len(ix) - 1)]
        return lines + ([(ix[-1], ix[0])] if mode == 2 and len(ix) > 1 else [])
    raise ValueError(f"mode {mode}")


def canonical(element):
    """A triangle's or line's corners rotated to start at the least one (winding kept)."""
    k = element.index(min(element))
    return element[k:] + element[:k]


class Reader:
    def __init__(self, path):
        self.doc, self.buffers = load(path)
        self.world = world_matrices(self.doc)
        self.cache = {}

    def place(self, node, p):
        n = self.doc["nodes"][node]
        if "skin" in n:
            return p
        m = self.world[node]
        return tuple(sum(m[r][c] * (p + (1.0,))[c] for c in range(4)) for r in range(3))

    def draws(self, node):
        """[(positions, elements, primitive JSON)] of the primitives node `node` draws."""
        n = self.doc["nodes"][node]
        if "mesh" not in n:
            return []
        out = []
        for prim in self.doc["meshes"][n["mesh"]]["primitives"]:
            pos = read(self.doc, self.buffers, prim["attributes"]["POSITION"])
            idx = [int(i[0]) for i in read(self.doc, self.buffers, prim["indices"])] if "indices" in prim else None
            out.append(([self.place(node, p) for p in pos], elements_of(prim, len(pos), idx), prim))
        return out

    def moved(self, node, target, weight):
        """(element multiset, vertex set) that morph `target` (× weight) moves on `node`."""
        elements, vertices = Counter(), set()
        for pos, elems, prim in self.draws(node):
            targets = prim.get("targets", [])
            if target >= len(targets) or "POSITION" not in targets[target]:
                continue
            d = read(self.doc, self.buffers, targets[target]["POSITION"])
            moving = [any(x != 0.0 for x in dv) for dv in d]
            for e in elems:
                if any(moving[v] for v in e):
                    corners = tuple((pos[v], tuple(x * weight for x in d[v])) for v in e)
                    elements[canonical(corners)] += 1
                    vertices.update(corners)
        return elements, vertices

    def nodes_of_mesh(self, mesh):
        return [i for i, n in enumerate(self.doc.get("nodes", [])) if n.get("mesh") == mesh]

    def expressions(self):
        """{name: [(node, target, weight)]} of the file's VRM expressions."""
        ext = self.doc.get("extensions", {})
        out = {}
        for g in ext.get("VRM", {}).get("blendShapeMaster", {}).get("blendShapeGroups", []):
            binds = []
            for b in g.get("binds", []):
                for node in self.nodes_of_mesh(b["mesh"]):
                    binds.append((node, b["index"], b.get("weight", 100) / 100.0))
            out["vrm0:" + g.get("name", "")] = binds
        vrm1 = ext.get("VRMC_vrm", {}).get("expressions", {})
        for kind in ("preset", "custom"):
            for name, x in vrm1.get(kind, {}).items():
                out[f"vrm1:{kind}:{name}"] = [(b["node"], b["index"], b.get("weight", 1.0)) for b in x.get("morphTargetBinds", [])]
        return out

    def annotations(self):
        """{flag: element multiset} of the first-person annotations."""
        ext = self.doc.get("extensions", {})
        by_flag = {}
        for a in ext.get("VRM", {}).get("firstPerson", {}).get("meshAnnotations", []):
            for node in self.nodes_of_mesh(a["mesh"]):
                by_flag.setdefault("vrm0:" + a.get("firstPersonFlag", ""), []).append(node)
        for a in ext.get("VRMC_vrm", {}).get("firstPerson", {}).get("meshAnnotations", []):
            by_flag.setdefault("vrm1:" + a.get("type", ""), []).append(a["node"])
        out = {}
        for flag, nodes in by_flag.items():
            c = Counter()
            for node in nodes:
                for pos, elems, _ in self.draws(node):
                    c.update(canonical(tuple(pos[v] for v in e)) for e in elems)
            out[flag] = c
        return out


def main(inp, outp):
    a, b = Reader(inp), Reader(outp)
    ea, eb = a.expressions(), b.expressions()
    failures = []
    if sorted(ea) != sorted(eb):
        failures.append(f"expressions differ: {sorted(ea)} vs {sorted(eb)}")
    for name in sorted(ea):
        el_a, vx_a, el_b, vx_b = Counter(), set(), Counter(), set()
        for node, t, w in ea[name]:
            e, v = a.moved(node, t, w)
            el_a += e
            vx_a |= v
        for node, t, w in eb.get(name, []):
            e, v = b.moved(node, t, w)
            el_b += e
            vx_b |= v
        same = el_a == el_b and vx_a == vx_b
        print(f"expression {name}: binds {len(ea[name])} -> {len(eb.get(name, []))}, "
              f"moves {sum(el_a.values())} elements / {len(vx_a)} vertices -> "
              f"{sum(el_b.values())} / {len(vx_b)}: {'same' if same else 'DIFFERENT'}")
        if not same:
            failures.append(f"expression {name}: the output moves {sum(el_b.values())} elements "
                            f"({len(vx_b)} vertices), the input {sum(el_a.values())} ({len(vx_a)})")
    fa, fb = a.annotations(), b.annotations()
    for flag in sorted(set(fa) | set(fb)):
        ca, cb = fa.get(flag, Counter()), fb.get(flag, Counter())
        same = ca == cb
        print(f"first-person {flag}: {sum(ca.values())} elements -> {sum(cb.values())}: {'same' if same else 'DIFFERENT'}")
        if not same:
            failures.append(f"first-person {flag}: {sum(cb.values())} elements in the output, {sum(ca.values())} in the input")
    if not ea:
        failures.append("no VRM expression in the input")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
