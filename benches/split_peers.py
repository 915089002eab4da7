#!/usr/bin/env python3
"""`dashvertex split` beside Assimp's SplitByBoneCount (+ JoinIdenticalVertices) on real
skinned files of the corpus at several budgets: parts, vertices written against the
vertices a file draws, and whole-process wall time and peak RSS (`/usr/bin/time`, fresh
processes; wall time the median of `--timed` rounds alternating the two commands, each
started from Python the same way, so both pay the same start-up). Assimp's vertex
baseline is the file welded by JoinIdenticalVertices alone (its split writes one vertex per face corner and welds after);
dash never welds, so its baseline is the file's own vertices. Assimp imports only; dash
also validates and writes its output (part of the command's promise).

    python3 benches/split_peers.py [--rounds 5] [--timed 150]

A budget at which a triangle needs more joints than N: dash refuses the file (exit 1,
naming the triangle); Assimp 5.2.5 loops forever, so each Assimp run has a time limit.
"""
import argparse, json, os, re, signal, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "target", "split-peers")
CORPUS = os.path.join(ROOT, "fixtures", "corpus", "gltf", "khronos_samples")
CASES = [("CesiumMan.glb", [4, 8, 16]), ("Fox.glb", [4, 8, 16]), ("RiggedFigure.glb", [4, 8, 16])]
LIMIT = 10  # seconds an Assimp run may take


def timed(cmd, limit=None):
    """(exit code or None on timeout, wall s, peak RSS MB, stdout)."""
    t = ["/usr/bin/time", "-f", "%e %M"] + cmd
    # A session of its own, so that a timeout stops the command itself and not only
    # `time` (Assimp's split of a triangle over the budget loops, allocating, forever).
    with subprocess.Popen(t, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          start_new_session=True) as p:
        try:
            out, err = p.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            return None, float(limit), 0.0, ""
    wall, rss = err.strip().splitlines()[-1].split()
    return p.returncode, float(wall), int(rss) / 1024, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--timed", type=int, default=150,
                    help="alternating rounds that time the two commands")
    a = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "dashvertex-cli"], cwd=ROOT, check=True)
    dash = os.path.join(ROOT, "target", "release", "dashvertex")
    peer = os.path.join(OUT, "assimp_split")
    subprocess.run(["g++", "-O2", os.path.join(ROOT, "benches", "peers", "assimp_split.cpp"),
                    "-lassimp", "-o", peer], check=True)
    tmp = tempfile.mkdtemp(prefix="split-peers-")
    rows = []
    for name, budgets in CASES:
        path = os.path.join(CORPUS, name)
        for n in budgets:
            out, rep = os.path.join(tmp, "out.glb"), os.path.join(tmp, "r.json")
            dcmd = [dash, "split", path, "-o", out, "--max-joints", str(n), "--report", rep, "-q"]
            acmd = [peer, path, str(n)]
            dt, at, dr, ar = [], [], [], []
            dcode = acode = None
            astdout = ""
            for _ in range(a.rounds):
                dcode, w, m, _ = timed(dcmd)
                dt.append(w); dr.append(m)
                acode, w, m, astdout = timed(acmd, LIMIT)
                at.append(w); ar.append(m)
                if acode is None:
                    break  # a loop: once is enough
            # Wall time: the median of rounds that alternate the two commands, each a
            # fresh process, so that a change in the host's load reaches both alike
            # (hyperfine runs one command's runs, then the other's: on a shared VM the
            # load drifts between the two blocks by more than the difference measured).
            # dash is timed as a user runs it, writing the split file only: the report
            # (a second file, synced) is what the rounds above read the figures from.
            timed_dash = [x for x in dcmd if x not in ("--report", rep)]
            pair = [timed_dash] + ([acmd] if acode == 0 else [])
            walls = [[] for _ in pair]
            for _ in range(a.timed):
                for i, cmd in enumerate(pair):
                    t0 = time.perf_counter()
                    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    walls[i].append(time.perf_counter() - t0)
            dt = walls[0]
            if acode == 0:
                at = walls[1]
            row = {"file": name, "n": n}
            if dcode == 0:
                r = json.load(open(rep))
                p = r["primitives"][0]
                row["dash"] = (len(p["parts"]), p["vertices"] + p["duplicatedVertices"], p["vertices"],
                               statistics.median(dt), statistics.median(dr))
            else:
                row["dash"] = ("refused", statistics.median(dt))
            if acode == 0:
                m = re.search(r"\((\d+) welded\).*: (\d+) part\(s\), (\d+) vertices", astdout)
                row["assimp"] = (int(m.group(2)), int(m.group(3)), int(m.group(1)),
                                 statistics.median(at), statistics.median(ar))
            else:
                row["assimp"] = ("timeout" if acode is None else f"exit {acode}", at[0])
            rows.append(row)
    print("| file | N | dash parts | dash vertices / drawn | dash wall, RSS | Assimp parts | Assimp vertices / welded | Assimp wall, RSS |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        d, s = r["dash"], r["assimp"]
        if d[0] == "refused":
            dc = f"refused (a triangle needs > {r['n']}) | – | {d[1]*1000:.1f} ms"
        else:
            dc = f"{d[0]} | {d[1]} / {d[2]} = {d[1]/d[2]:.3f} | {d[3]*1000:.1f} ms, {d[4]:.0f} MB"
        if isinstance(s[0], str):
            sc = f"{s[0]} after {s[1]:.0f} s | – | –"
        else:
            sc = f"{s[0]} | {s[1]} / {s[2]} = {s[1]/s[2]:.3f} | {s[3]*1000:.1f} ms, {s[4]:.0f} MB"
        print(f"| {r['file']} | {r['n']} | {dc} | {sc} |")


if __name__ == "__main__":
    sys.exit(main())
