#!/usr/bin/env python3
"""dashvertex.read beside dash-validate and beside pygltflib + numpy.frombuffer, on a
generated Blender-shaped GLB (benches/src/bin/make_skinned_glb.rs --blender), and
dashvertex.reduce's throughput on the arrays read. Not a test: it prints figures.

    python3 benches/python_read.py                       # 1,000,000 vertices, 5 rounds
    python3 benches/python_read.py --vertices 3300000    # the 422 MB file of benches/README.md

Needs the dashvertex wheel installed in the running Python (crates/dashvertex-py/README.md) and
pygltflib for its row (`pip install pygltflib`). Each figure is the median of the rounds;
dash-validate runs as a fresh process each round (as users run it), the two readers in this
process, after one warm-up read so the page cache holds the file.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]


def median_time(f, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def pygltflib_read(path: str) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """What users write today: pygltflib for the JSON and the binary chunk, numpy for the
    accessors (byteStride and normalized integers by hand; no sparse support)."""
    import pygltflib

    g = pygltflib.GLTF2().load_binary(path)
    blob = g.binary_blob()
    dtypes = {5121: np.uint8, 5123: np.uint16, 5126: np.float32}

    def accessor(i: int) -> np.ndarray:
        a = g.accessors[i]
        v = g.bufferViews[a.bufferView]
        dt = np.dtype(dtypes[a.componentType])
        width = {"VEC3": 3, "VEC4": 4}[a.type]
        start = (v.byteOffset or 0) + (a.byteOffset or 0)
        stride = v.byteStride or dt.itemsize * width
        # A strided view of the binary chunk (numpy.frombuffer for tightly packed data).
        out = np.ndarray((a.count, width), dtype=dt, buffer=blob, offset=start, strides=(stride, dt.itemsize))
        if a.normalized:
            return (out.astype(np.float64) / {5121: 255.0, 5123: 65535.0}[a.componentType]).astype(np.float32)
        return out

    out = []
    for m in g.meshes:
        for p in m.primitives:
            attrs = {k: v for k, v in p.attributes.__dict__.items() if isinstance(v, int)}
            pos = np.ascontiguousarray(accessor(attrs["POSITION"]))
            n_sets = sum(1 for k in attrs if k.startswith("JOINTS_"))
            joints = np.hstack([accessor(attrs[f"JOINTS_{s}"]) for s in range(n_sets)]).astype(np.uint16)
            weights = np.hstack([accessor(attrs[f"WEIGHTS_{s}"]) for s in range(n_sets)])
            out.append((pos, joints, weights))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vertices", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--file", help="an existing GLB instead of a generated one")
    a = ap.parse_args()
    import dashvertex

    tmp = tempfile.mkdtemp()
    if a.file:
        path = a.file
    else:
        subprocess.run(["cargo", "build", "-q", "--release", "-p", "dash-benches", "--bin", "make_skinned_glb",
                        "-p", "dashvertex-cli", "--bin", "dash-validate"], cwd=REPO, check=True)
        path = os.path.join(tmp, "blender.glb")
        subprocess.run([str(REPO / "target/release/make_skinned_glb"), path, str(a.vertices), "48", "--blender"],
                       check=True, stdout=subprocess.DEVNULL)
    validate = str(REPO / "target/release/dash-validate")
    size = os.path.getsize(path)

    model = dashvertex.read(path)  # warm-up: the page cache holds the file
    prims = model.primitives
    n = sum(len(p) for p in prims)
    t_read = median_time(lambda: dashvertex.read(path), a.rounds)
    t_validate = median_time(
        lambda: subprocess.run([validate, "-q", path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
        a.rounds,
    )
    try:
        ref = pygltflib_read(path)
        for (pos, j, w), p in zip(ref, prims):
            assert np.array_equal(pos, p.positions) and np.array_equal(j, p.joints)
            assert w.tobytes() == p.weights.tobytes(), "pygltflib decoding differs"
        t_pyg = median_time(lambda: pygltflib_read(path), a.rounds)
    except ImportError:
        t_pyg = None
    j, w = prims[0].joints, prims[0].weights
    t_reduce = median_time(lambda: dashvertex.reduce(j, w, max_influences=4), a.rounds)

    print(f"{path}: {size / 1e6:.0f} MB, {n:,} vertices, {prims[0].sets} sets, joints {j.dtype} ({prims[0].weight_storage} weights in the file)")
    print(f"  dashvertex.read                 {t_read:7.3f} s")
    print(f"  dash-validate (fresh process)   {t_validate:7.3f} s   read / validate = {t_read / t_validate:.2f}x")
    if t_pyg is None:
        print("  pygltflib + numpy.frombuffer    (pygltflib not installed)")
    else:
        print(f"  pygltflib + numpy.frombuffer    {t_pyg:7.3f} s   read / pygltflib = {t_read / t_pyg:.2f}x")
    print(f"  dashvertex.reduce ({j.shape[1]} -> 4)      {t_reduce:7.3f} s   {len(j) / t_reduce / 1e6:.1f} M vertices/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
