#!/usr/bin/env python3
"""What meshopt decoding costs `dash-validate` (issue 48, Targets): on a file compressed by
`gltfpack -c` (EXT_meshopt_compression and KHR_mesh_quantization), `dash-validate` against
the decoder's own decode of the same file plus `dash-validate` on the decoded file. The
target is

    dash-validate(compressed) <= 1.5 x (decoder decode(compressed) + dash-validate(decoded))

The decoder is meshoptimizer's npm package (`benches/peers/meshopt_decode.mjs`: every
compressed view through MeshoptDecoder, as three.js's GLTFLoader decodes them); gltfpack
cannot be the decoder, as it refuses a file it compressed itself. The decoded file is
written once by the same script, plain views in one binary chunk. Each command is a fresh
process, wall time from time.perf_counter around the run, in alternating rounds; medians,
and ratios to the baselines measured in the same run. The decode inside node (start-up
and file read excluded), as the script prints it, is reported beside.

Inputs, each compressed here with `gltfpack -c` (nothing is written into the repository):
the benches' generated skinned GLB (`make_skinned_glb`, POSITION, NORMAL, TEXCOORD_0, 16
influences in 4 sets, 64 joints; gltfpack keeps the 4 heaviest) at each --vertices count,
and the largest skinned glTF of the repository's fixtures (CesiumMan.glb), plus the
checked-in `fixtures/compressed/rf_pack_c.glb` as it is.

  python3 benches/meshopt_peers.py [--rounds N] [--vertices N,N,...] [--out DIR]

Needs release builds (`cargo build --release -p dashvertex-cli --bin dash-validate`,
`cargo build --release -p dash-benches --bin make_skinned_glb`), gltfpack (Debian's
`gltfpack`), node, and meshoptimizer's npm package in MESHOPT_NODE_MODULES (default: the
`js/dash-three/node_modules` an `npm ci` there makes, else `npm install --prefix DIR
meshoptimizer` and point MESHOPT_NODE_MODULES at DIR/node_modules).
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REL = os.environ.get("DASH_REL", os.path.join(ROOT, "target", "release"))
DECODE = os.path.join(ROOT, "benches", "peers", "meshopt_decode.mjs")
FIXTURE = os.path.join(ROOT, "fixtures", "corpus", "gltf", "khronos_samples", "CesiumMan.glb")
PACKED = os.path.join(ROOT, "fixtures", "compressed", "rf_pack_c.glb")


def run(cmd, env=None):
    t = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    return time.perf_counter() - t, r


def verdict(path):
    """dash-validate's error and warning counts and codes, to check both files agree."""
    r = subprocess.run([os.path.join(REL, "dash-validate"), "--format", "json", path],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
    f = json.loads(r.stdout)["files"][0]
    return sorted((d["severity"], d["code"]) for d in f["diagnostics"])


def inputs(tmp, vertices):
    """(label, compressed file) pairs, compressing with gltfpack -c here."""
    out = []
    for n in vertices:
        raw = os.path.join(tmp, f"gen_{n}.glb")
        subprocess.run([os.path.join(REL, "make_skinned_glb"), raw, str(n), "64"],
                       check=True, stdout=subprocess.DEVNULL)
        out.append((f"generated, {n:,} vertices", raw))
    if os.path.exists(FIXTURE):
        out.append(("fixture CesiumMan.glb", FIXTURE))
    packed = []
    for label, raw in out:
        c = os.path.join(tmp, os.path.basename(raw).replace(".glb", "_c.glb"))
        subprocess.run(["gltfpack", "-i", raw, "-o", c, "-c"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        packed.append((label + " (gltfpack -c)", c))
    if os.path.exists(PACKED):
        packed.append(("fixtures/compressed/rf_pack_c.glb", PACKED))
    return packed


def main():
    args = sys.argv[1:]
    rounds, vertices, out = 5, [1_000_000, 3_300_000], None
    while args:
        a = args.pop(0)
        if a == "--rounds":
            rounds = int(args.pop(0))
        elif a == "--vertices":
            vertices = [int(x) for x in args.pop(0).split(",") if x]
        elif a == "--out":
            out = args.pop(0)
        else:
            sys.exit(__doc__)
    modules = os.environ.get("MESHOPT_NODE_MODULES",
                             os.path.join(ROOT, "js", "dash-three", "node_modules"))
    if not os.path.isdir(os.path.join(modules, "meshoptimizer")):
        sys.exit(f"meshoptimizer is not in {modules}: set MESHOPT_NODE_MODULES (see --help)")
    for tool in ("gltfpack", "node"):
        if not shutil.which(tool):
            sys.exit(f"{tool} is not installed")
    env = dict(os.environ, MESHOPT_NODE_MODULES=modules)
    with open(os.path.join(modules, "meshoptimizer", "package.json")) as f:
        version = json.load(f)["version"]
    gp = subprocess.run(["gltfpack", "-v"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                        text=True).stdout.split("\n")[0]
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores; "
          f"{gp}, meshoptimizer npm {version}; median of {rounds} alternating rounds")
    tmp = out or tempfile.mkdtemp(prefix="meshopt-peers-")
    os.makedirs(tmp, exist_ok=True)
    worst, worst_strict = 0.0, 0.0
    for label, c in inputs(tmp, vertices):
        d = os.path.join(tmp, os.path.basename(c).replace(".glb", "_decoded.glb"))
        subprocess.run(["node", DECODE, c, d], check=True, env=env, stdout=subprocess.DEVNULL)
        same = verdict(c) == verdict(d)
        cmds = {
            "decoder: decode": ["node", DECODE, c],
            "dash-validate decoded": [os.path.join(REL, "dash-validate"), d],
            "dash-validate compressed": [os.path.join(REL, "dash-validate"), c],
        }
        times = {k: [] for k in cmds}
        inner = []
        for _ in range(rounds):
            for k, cmd in cmds.items():
                t, r = run(cmd, env)
                times[k].append(t)
                if k == "decoder: decode":
                    inner.append(float(r.stdout.split()[1]) / 1000)
        med = {k: statistics.median(v) for k, v in times.items()}
        base = med["decoder: decode"] + med["dash-validate decoded"]
        ratio = med["dash-validate compressed"] / base
        worst = max(worst, ratio)
        print(f"\n{label}: {os.path.getsize(c) / 1e6:.2f} MB compressed, "
              f"{os.path.getsize(d) / 1e6:.2f} MB decoded; same verdict: {same}")
        for k, v in med.items():
            print(f"  {k:26s} {v * 1000:9.1f} ms")
        print(f"  {'(decode inside node)':26s} {statistics.median(inner) * 1000:9.1f} ms")
        print(f"  compressed / (decode + validate decoded) = {ratio:.2f}  (target <= 1.5)")
        strict = med["dash-validate compressed"] / (statistics.median(inner)
                                                    + med["dash-validate decoded"])
        worst_strict = max(worst_strict, strict)
        print(f"  compressed / (decode inside node + validate decoded) = {strict:.2f}")
        print(f"  compressed / validate decoded            = "
              f"{med['dash-validate compressed'] / med['dash-validate decoded']:.2f}")
    print(f"\nworst ratio {worst:.2f}: target {'met' if worst <= 1.5 else 'NOT met'}; "
          f"against the decode inside node, {worst_strict:.2f}")
    if not out:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
