#!/usr/bin/env python3
"""FBX in whole processes: `dash-validate x.fbx` against ufbx's own load of the file (the
ufbx_load example of crates/dashvertex-fbx) and Assimp's import (`assimp info`), and
`dashvertex convert x.fbx y.glb` against `assimp export x.fbx y.glb`. Each command a fresh
process, wall time from time.perf_counter around the run, in alternating rounds; medians,
and ratios to the baselines measured in the same run.

  python3 benches/fbx_peers.py FILE.fbx [FILE.fbx ...] [--rounds N]

Needs release builds (`cargo build --release -p dashvertex-cli`, `cargo build --release -p
dashvertex-fbx --example ufbx_load`); Assimp (Debian's assimp-utils) is measured when
installed. benches/make_fbx.py makes a 1 M-vertex FBX with Blender.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REL = os.environ.get("DASH_REL", os.path.join(ROOT, "target", "release"))


def timed(cmd):
    t = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t, r.returncode


def main():
    args = sys.argv[1:]
    rounds = 5
    if "--rounds" in args:
        i = args.index("--rounds")
        rounds = int(args[i + 1])
        del args[i:i + 2]
    tmp = tempfile.mkdtemp(prefix="fbx-peers-")
    assimp = shutil.which("assimp")
    for f in args:
        out = os.path.join(tmp, "out.glb")
        cmds = {
            "ufbx load": [os.path.join(REL, "examples", "ufbx_load"), f],
            "dash-validate": [os.path.join(REL, "dash-validate"), f],
            "dashvertex convert .glb": [os.path.join(REL, "dashvertex"), "convert", f, out],
        }
        if assimp:
            cmds["assimp info"] = [assimp, "info", f]
            cmds["assimp export .glb"] = [assimp, "export", f, os.path.join(tmp, "assimp.glb"), "-fglb2"]
        times = {k: [] for k in cmds}
        codes = {}
        for _ in range(rounds):
            for k, c in cmds.items():
                t, rc = timed(c)
                times[k].append(t)
                codes[k] = rc
        med = {k: statistics.median(v) for k, v in times.items()}
        print(f"{os.path.basename(f)} ({os.path.getsize(f) / 1e6:.1f} MB), median of {rounds} alternating rounds:")
        for k, v in med.items():
            print(f"  {k:26s} {v * 1000:9.1f} ms  exit {codes[k]}")
        v = med["dash-validate"]
        print(f"  dash-validate / ufbx load          = {v / med['ufbx load']:.2f}")
        if assimp:
            print(f"  assimp info / dash-validate        = {med['assimp info'] / v:.2f}")
            print(f"  assimp export / dashvertex convert = {med['assimp export .glb'] / med['dashvertex convert .glb']:.2f}")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
