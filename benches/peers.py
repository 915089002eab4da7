#!/usr/bin/env python3
"""Whole-process benchmark of dash beside its peers, on a large real-shaped skinned GLB.

What users run, measured as they run it: each command is a fresh process timed by
/usr/bin/time (wall time and peak RSS), in alternating rounds so that drift on a shared
machine hits every command alike; the table gives medians and ratios.

  dash-validate FILE                 vs  the official Khronos glTF validator (tools/oracle)
  dashvertex reduce FILE -o OUT --max-influences 4 --normalize unit
                                     vs  Assimp: import + aiProcess_LimitBoneWeights(4)
                                     vs  gltfpack -noq (Debian's gltfpack; it also welds
                                         and reorders, so it does more than dash)
  dashvertex fix FILE -o OUT          (a valid file: nothing to fix)   vs  cp
  dashvertex fix --target threejs    vs  dashvertex reduce --target threejs
  dashvertex remap FILE --manifest M vs  cp (M numbered by `manifest init` from FILE)
  cat FILE > /dev/null               the read floor
  cp FILE COPY                       the read + write floor of a command that rewrites FILE
  cp FILE COPY && sync COPY          the same with the copy on disk: dash's outputs are
                                     synced before they replace a file, as cp's are not
  python3 -c 'open(FILE).read()'     reading the file into memory, page faults included

Usage: python3 benches/peers.py [--shape synthetic|blender|FILE.glb] [--vertices N]
                                [--rounds R] [--threads T] [--keep] [--out DIR]
                                [--baseline DIR] [--no-build] [--without PEER]...
The input is generated once, deterministically, by benches/src/bin/make_skinned_glb.rs
into target/peers/ (or --out DIR, for a disk outside the repository): `synthetic` (default: 3,300,000 vertices, 64 joints, u16 joints, no
indices, about 422 MB) or `blender` (the shape of a Blender 3.4 export: 3,485,411
vertices, 48 joints, u8 joints, u32 indices). `--shape FILE.glb` measures a file of yours,
such as the real export benches/blender_export.py makes when Blender is installed. A peer
that cannot be installed is reported and its pair skipped, never faked. `--baseline DIR`
adds the `dashvertex` and `dash-validate` found in DIR (an earlier build, copied there) to
the same alternating rounds, so that before and after are measured in one run.
"""
import argparse, os, shutil, statistics, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "target", "peers")
REL = os.path.join(ROOT, "target", "release")


def sh(cmd, cwd=ROOT, **kw):
    return subprocess.run(cmd, cwd=cwd, **kw)


def build():
    sh(["cargo", "build", "--release", "-q", "-p", "dashvertex-cli", "-p", "dash-benches", "--bin", "dashvertex", "--bin", "dash-validate",
        "--bin", "make_skinned_glb"], check=True)


def oracle():
    """The official validator through tools/oracle, installed with npm ci if missing."""
    d = os.path.join(ROOT, "tools", "oracle")
    if shutil.which("node") is None:
        return None, "node is not installed"
    if not os.path.isdir(os.path.join(d, "node_modules", "gltf-validator")):
        r = sh(["npm", "ci", "--silent", "--no-audit", "--no-fund"], cwd=d,
               capture_output=True, text=True)
        if r.returncode != 0:
            return None, "npm ci in tools/oracle failed: " + r.stderr.strip()[-200:]
    return ["node", os.path.join(d, "validate.mjs")], None


def assimp():
    """benches/peers/assimp_limit.cpp built against Debian's libassimp-dev."""
    exe = os.path.join(OUT, "assimp_limit")
    src = os.path.join(ROOT, "benches", "peers", "assimp_limit.cpp")
    if not os.path.exists("/usr/include/assimp/Importer.hpp"):
        if os.geteuid() == 0 and shutil.which("apt-get"):
            sh(["apt-get", "install", "-y", "-qq", "libassimp-dev"], capture_output=True)
        if not os.path.exists("/usr/include/assimp/Importer.hpp"):
            return None, "libassimp-dev is not installed (apt-get install libassimp-dev)"
    if shutil.which("g++") is None:
        return None, "g++ is not installed"
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        r = sh(["g++", "-O2", src, "-lassimp", "-o", exe], capture_output=True, text=True)
        if r.returncode != 0:
            return None, "building the Assimp harness failed: " + r.stderr.strip()[-200:]
    return [exe], None


def gltfpack():
    """Debian's gltfpack, installed with apt-get when missing and allowed."""
    if shutil.which("gltfpack") is None and os.geteuid() == 0 and shutil.which("apt-get"):
        sh(["apt-get", "install", "-y", "-qq", "gltfpack"], capture_output=True)
    if shutil.which("gltfpack") is None:
        return None, "gltfpack is not installed (apt-get install gltfpack)"
    return ["gltfpack"], None


def timed(cmd, stdout=subprocess.DEVNULL):
    """(wall seconds, peak RSS bytes, exit code) of one process."""
    r = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + cmd, cwd=ROOT, stdout=stdout,
                       stderr=subprocess.PIPE, text=True)
    last = r.stderr.strip().splitlines()[-1].split()
    return float(last[0]), int(last[1]) * 1024, r.returncode


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", default="synthetic",
                    help="synthetic, blender, or a .glb file to measure")
    ap.add_argument("--vertices", type=int, default=None)
    ap.add_argument("--joints", type=int, default=None)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=0, help="dash --threads (0: default)")
    ap.add_argument("--keep", action="store_true", help="keep the reduced output")
    ap.add_argument("--out", default=None, help="where inputs and outputs go (default target/peers)")
    ap.add_argument("--baseline", default=None,
                    help="a folder with an earlier dashvertex and dash-validate to run beside")
    ap.add_argument("--no-build", action="store_true", help="use target/release as it is")
    ap.add_argument("--without", action="append", default=[],
                    choices=["oracle", "assimp", "gltfpack", "fix", "remap"],
                    help="leave a peer or a dash command out (repeatable)")
    a = ap.parse_args()
    global OUT
    if a.out:
        OUT = os.path.abspath(a.out)
    if not os.path.exists("/usr/bin/time"):
        sys.exit("/usr/bin/time is needed (apt-get install time)")
    os.makedirs(OUT, exist_ok=True)
    if not a.no_build:
        build()
    if a.shape in ("synthetic", "blender"):
        blender = a.shape == "blender"
        a.vertices = a.vertices or (3_485_411 if blender else 3_300_000)
        a.joints = a.joints or (48 if blender else 64)
        src = os.path.join(OUT, f"{a.shape}-{a.vertices}-{a.joints}.glb")
        if not os.path.exists(src):
            sh([os.path.join(REL, "make_skinned_glb"), src, str(a.vertices), str(a.joints),
                "0"] + (["--blender"] if blender else []), check=True)
        what = (f"{a.vertices:,} vertices, 16 influences in 4 sets "
                f"({'u8' if blender else 'u16'} joints, f32 weights), {a.joints} joints"
                + (", u32 indices" if blender else ""))
    else:
        src = os.path.abspath(a.shape)
        what = "a file given on the command line"
    size = os.path.getsize(src)
    reduced = os.path.join(OUT, "reduced.glb")
    copied = os.path.join(OUT, "copy.glb")
    packed = os.path.join(OUT, "packed.glb")
    threads = ["--threads", str(a.threads)] if a.threads else []
    val, why_val = oracle() if "oracle" not in a.without else (None, "--without oracle")
    asp, why_asp = assimp() if "assimp" not in a.without else (None, "--without assimp")
    gp, why_gp = gltfpack() if "gltfpack" not in a.without else (None, "--without gltfpack")
    manifest = os.path.join(OUT, "remap.manifest.json")
    if "remap" not in a.without and not os.path.exists(manifest):
        sh([os.path.join(REL, "dashvertex"), "manifest", "init", src, "-o", manifest,
            "-q"], check=True)
    cmds = {
        "read floor (cat)": ["sh", "-c", f"cat '{src}' > /dev/null"],
        "read + write floor (cp)": ["cp", src, copied],
        "read + write + sync floor (cp; sync)": ["sh", "-c",
                                                 f"cp '{src}' '{copied}' && sync '{copied}'"],
        # What holding the file in memory costs (page faults of fresh memory included).
        "read into memory (python)": [sys.executable, "-c",
                                      "import sys; open(sys.argv[1], 'rb').read()", src],
        "dash-validate": [os.path.join(REL, "dash-validate")] + threads + [src],
        "dashvertex reduce": [os.path.join(REL, "dashvertex"), "reduce", src, "-o", reduced,
                        "--max-influences", "4", "--normalize", "unit", "-q"] + threads,
    }
    def more(bin_dir, tag):
        """The fix, target and remap commands of the dashvertex in `bin_dir`."""
        dv = os.path.join(bin_dir, "dashvertex")
        out = {}
        if "fix" not in a.without:
            out["dashvertex fix (valid file)" + tag] = [
                dv, "fix", src, "-o", reduced + tag + ".fix.glb", "-q"] + threads
            # (its text report, the first changes, goes to standard output: discarded)
            out["dashvertex fix --target threejs" + tag] = [
                dv, "fix", src, "--target", "threejs", "-o", reduced + tag + ".fixt.glb",
                "-q"] + threads
            out["dashvertex reduce --target threejs" + tag] = [
                dv, "reduce", src, "--target", "threejs", "-o",
                reduced + tag + ".redt.glb", "-q"] + threads
        if "remap" not in a.without:
            out["dashvertex remap" + tag] = [
                dv, "remap", src, "--manifest", manifest, "-o", reduced + tag + ".remap.glb",
                "-q"] + threads
        return out
    cmds.update(more(REL, ""))
    if a.baseline:
        base = os.path.abspath(a.baseline)
        cmds.update(more(base, " (baseline)"))
        cmds["dash-validate (baseline)"] = [os.path.join(base, "dash-validate")] + threads + [src]
        cmds["dashvertex reduce (baseline)"] = [
            os.path.join(base, "dashvertex"), "reduce", src, "-o", reduced + ".base.glb",
            "--max-influences", "4", "--normalize", "unit", "-q"] + threads
    if val:
        cmds["official validator"] = val + [src]
    if asp:
        cmds["Assimp LimitBoneWeights"] = asp + [src]
    if gp:
        cmds["gltfpack -noq"] = gp + ["-noq", "-i", src, "-o", packed]
    # Warm the page cache, then alternate.
    timed(cmds["read floor (cat)"])
    runs = {k: [] for k in cmds}
    for r in range(a.rounds):
        for name, cmd in cmds.items():
            t, rss, code = timed(cmd)
            if code not in (0,):
                print(f"warning: {name} exited {code} in round {r + 1}", file=sys.stderr)
            runs[name].append((t, rss))
    med = {k: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v))
           for k, v in runs.items()}
    floor = med["read floor (cat)"][0]
    mb = lambda b: f"{b / 1e6:,.0f} MB"
    print(f"\ninput: {os.path.relpath(src, ROOT)}, {what}, {mb(size)}")
    print(f"{a.rounds} alternating rounds, medians; {os.cpu_count()} cores\n")
    print("| command | wall | × read floor | peak RSS | RSS / file |")
    print("|---|---|---|---|---|")
    for k, (t, rss) in med.items():
        print(f"| {k} | {t:.2f} s | {t / floor:.1f}× | {mb(rss)} | {rss / size:.2f} |")
    print()
    pairs = [("dash-validate", "official validator", 30, 1.1, "file"),
             ("dashvertex reduce", "Assimp LimitBoneWeights", 5, None, "in+out+64MB"),
             ("dashvertex reduce", "gltfpack -noq", None, None, "in+out+64MB")]
    if a.baseline:
        pairs += [("dash-validate (baseline)", "official validator", 30, 1.1, "file"),
                  ("dashvertex reduce (baseline)", "Assimp LimitBoneWeights", 5, None,
                   "in+out+64MB")]
    out_size = os.path.getsize(reduced) if os.path.exists(reduced) else 0
    for ours, peer, speed_target, rss_target, _ in pairs:
        if peer not in med:
            why = {"official validator": why_val, "gltfpack -noq": why_gp}.get(peer, why_asp)
            print(f"- {ours} vs {peer}: skipped ({why})")
            continue
        (t, rss), (pt, prss) = med[ours], med[peer]
        target = f" (target ≥ {speed_target}×)" if speed_target else ""
        line = f"- {ours} vs {peer}: {pt / t:.1f}× faster{target}, " \
               f"{rss / prss:.2f}× the peer's memory"
        if rss_target:
            line += f"; peak RSS {rss / size:.2f}× the file (target ≤ {rss_target}×)"
        else:
            budget = size + out_size + 64e6
            line += f"; peak RSS {mb(rss)} vs input + output + 64 MB = {mb(budget)}"
        print(line)
    cp_t = med["read + write floor (cp)"][0]
    sync_t = med["read + write + sync floor (cp; sync)"][0]
    for tag in ("", " (baseline)"):
        for ours, target in (("dashvertex reduce", 1.5), ("dashvertex fix (valid file)", 1.2),
                             ("dashvertex remap", 1.5)):
            if ours + tag in med:
                t = med[ours + tag][0]
                print(f"- {ours}{tag} vs cp of the input: {t / cp_t:.2f}× the copy's time "
                      f"(target ≤ {target}×); {t / sync_t:.2f}× cp and sync")
        fixt, redt = "dashvertex fix --target threejs" + tag, "dashvertex reduce --target threejs" + tag
        if fixt in med and redt in med:
            print(f"- {fixt} vs {redt}: {med[fixt][0] / med[redt][0]:.2f}× its time "
                  f"(target ≤ 2×), {med[fixt][1] / med[redt][1]:.2f}× its memory")
    if a.baseline:
        for ours in [k for k in med if k + " (baseline)" in med]:
            b = med[ours + " (baseline)"]
            print(f"- {ours}: baseline {b[0]:.2f} s -> {med[ours][0]:.2f} s "
                  f"({b[0] / med[ours][0]:.2f}× faster)")
    if a.baseline and os.path.exists(reduced) and os.path.exists(reduced + ".base.glb"):
        same = open(reduced, "rb").read() == open(reduced + ".base.glb", "rb").read()
        print(f"- reduced output {'identical to' if same else 'DIFFERS from'} the baseline's")
    if out_size:
        print(f"- reduced output: {mb(out_size)} ({out_size / size:.2f}× the input)")
    for f in os.listdir(OUT):
        f = os.path.join(OUT, f)
        if f.startswith(reduced) and not (a.keep and f == reduced) or f in (copied, packed):
            os.remove(f)


if __name__ == "__main__":
    main()
