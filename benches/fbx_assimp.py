"""dash's FBX influences against Assimp's FBX import (issue 50's peer check).

Per file, the bone weights of every vertex by bone name: dash's from `dashvertex convert
x.fbx y.json` (one vertex per control point, every influence as read), Assimp's from
`benches/peers/assimp_weights.cpp` (Assimp's import without post-processing: one vertex
per face corner). Assimp repeats a control point per corner and dash does not, so what is
compared is the set of distinct influence maps (bone -> weight): every map of one side must
have a map on the other with the same bones and each weight within 2e-6 (Assimp prints
binary32 weights with 9 digits, dash's JSON with the shortest digits that round-trip). A
weight renormalized, dropped, merged or moved to another bone by either side shows up as a
map only one side has. Bone names that are not UTF-8 are read with U+FFFD on both sides.

    python3 benches/fbx_assimp.py [FILE_OR_DIR ...]

Default: fixtures/fbx/ and spec/vectors/fbx/. Needs g++ and Debian's libassimp-dev (the
harness is built into a temporary folder) and the `dashvertex` binary (target/release, else
target/debug, else $DASH_BIN_DIR).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def dashvertex():
    for d in (os.environ.get("DASH_BIN_DIR"), os.path.join(REPO, "target/release"),
              os.path.join(REPO, "target/debug")):
        if d and os.path.exists(os.path.join(d, "dashvertex")):
            return os.path.join(d, "dashvertex")
    sys.exit("build dashvertex first (cargo build --bin dashvertex)")


TOLERANCE = 2e-6


def key(row):
    return tuple(sorted((b, w) for b, w in row.items() if w != 0.0))


def unmatched(mine, theirs):
    """The maps of `mine` with no map of `theirs` within TOLERANCE on the same bones."""
    by_bones = {}
    for t in theirs:
        by_bones.setdefault(tuple(b for b, _ in t), []).append([w for _, w in t])
    out = []
    for m in mine:
        ws = [w for _, w in m]
        close = any(all(abs(a - b) <= TOLERANCE for a, b in zip(ws, t))
                    for t in by_bones.get(tuple(b for b, _ in m), []))
        if not close:
            out.append(m)
    return sorted(out)


def dash_maps(exe, fbx, tmp):
    out = os.path.join(tmp, "dash.json")
    try:
        r = subprocess.run([exe, "convert", fbx, out, "-q"], capture_output=True, text=True,
                           timeout=120, errors="replace")
    except subprocess.TimeoutExpired:
        return None, "no answer within 120 s"
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1] if r.stderr else "failed"
    with open(out, encoding="utf-8", errors="replace") as f:
        doc = json.load(f)
    names = [b["name"] for b in doc.get("bone", [])]
    rows = []
    for v in doc["vertex"]:
        row = {}
        sets = [(v.get("skinIndex", []), v.get("skinWeight", []))]
        sets += [(s["skinIndex"], s["skinWeight"]) for s in v.get("skinSets", [])]
        for idx, ws in sets:
            for i, w in zip(idx, ws):
                if w != 0.0:
                    row[names[i]] = row.get(names[i], 0.0) + w
        rows.append(row)
    return rows, None


def assimp_maps(harness, fbx):
    try:
        r = subprocess.run([harness, fbx], capture_output=True, text=True, timeout=120,
                           errors="replace")
    except subprocess.TimeoutExpired:
        return None, "no answer within 120 s"
    if r.returncode != 0:
        return None, (r.stderr.strip() or f"exit {r.returncode}")[:120]
    rows = []
    for line in r.stdout.splitlines():
        parts = line.split("\t")[2:]
        rows.append({p.rsplit("=", 1)[0]: float(p.rsplit("=", 1)[1]) for p in parts})
    return rows, None


def files(args):
    paths = args or [os.path.join(REPO, "fixtures/fbx"), os.path.join(REPO, "spec/vectors/fbx")]
    for p in paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                yield from (os.path.join(root, n) for n in sorted(names) if n.lower().endswith(".fbx"))
        else:
            yield p


def main():
    exe = dashvertex()
    if not shutil.which("g++") or not os.path.exists("/usr/include/assimp/Importer.hpp"):
        sys.exit("SKIPPED: g++ and libassimp-dev are needed to build the Assimp harness")
    with tempfile.TemporaryDirectory() as tmp:
        harness = os.path.join(tmp, "assimp_weights")
        subprocess.run(["g++", "-O2", "-std=c++17", os.path.join(REPO, "benches/peers/assimp_weights.cpp"),
                        "-lassimp", "-o", harness], check=True)
        tally = {"same": 0, "differ": 0, "skinless": 0, "dash refused": 0, "assimp refused": 0}
        for f in files(sys.argv[1:]):
            name = os.path.relpath(f, REPO)
            d, why_d = dash_maps(exe, f, tmp)
            a, why_a = assimp_maps(harness, f)
            if d is None:
                tally["dash refused"] += 1
                print(f"{name}: dash refused ({why_d}); Assimp {'refused' if a is None else 'read it'}")
                continue
            if a is None:
                tally["assimp refused"] += 1
                print(f"{name}: Assimp refused ({why_a})")
                continue
            ds = {key(r) for r in d if r}
            as_ = {key(r) for r in a if r}
            if not ds and not as_:
                tally["skinless"] += 1
                print(f"{name}: no skin on either side")
                continue
            only_d, only_a = unmatched(ds, as_), unmatched(as_, ds)
            if not only_d and not only_a:
                tally["same"] += 1
                print(f"{name}: same ({len(ds)} distinct influence maps; dash {len(d)} control points, Assimp {len(a)} corners)")
            else:
                tally["differ"] += 1
                print(f"{name}: DIFFER: {len(only_d)} map(s) only dash has, {len(only_a)} only Assimp has")
                for x in only_d[:2]:
                    print(f"    dash only:   {dict(x)}")
                for x in only_a[:2]:
                    print(f"    Assimp only: {dict(x)}")
        print(json.dumps(tally))


main()
