#!/usr/bin/env python3
"""Fills the "diagnostics" of every vector in expected.json from dash-validate's output.

Used when vectors are added: run it, then READ THE DIFF (`git diff spec/vectors/expected.json`)
and check every new expectation by hand before committing. The test
`vectors_produce_exactly_the_listed_diagnostics` then holds the validator to them.

Usage: python3 spec/vectors/update_expected.py path/to/dash-validate
"""
import json, os, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))
tool = sys.argv[1]
manifest_path = os.path.join(here, "expected.json")
m = json.load(open(manifest_path))
known = {v["file"] for v in m["vectors"]}
# New validation vectors get an entry; their options are set by hand afterwards.
for sub in ("validate", "gltf", "fbx"):
    for name in sorted(os.listdir(os.path.join(here, sub))):
        f = f"{sub}/{name}"
        if f not in known and not name.endswith(".py") and not name.endswith(".bin"):
            m["vectors"].append({"file": f, "spec": [], "decode": "ok"})
for v in m["vectors"]:
    args = [tool, "--format", "json", "--max-diagnostics", "1000"]
    opts = v.get("options", {})
    if "profile" in opts: args += ["--profile", opts["profile"]]
    if "bones" in opts: args += ["--bones", str(opts["bones"])]
    if "manifest" in opts: args += ["--manifest", os.path.join(here, opts["manifest"])]
    if opts.get("locked"): args += ["--locked"]
    if "target" in opts: args += ["--target", opts["target"]]
    if "max_vertices" in opts: args += ["--max-vertices", str(opts["max_vertices"])]
    if "deny" in opts: args += ["--deny", opts["deny"]]
    args.append(os.path.join(here, v["file"]))
    out = subprocess.run(args, capture_output=True, text=True)
    report = json.loads(out.stdout)["files"][0]
    v["diagnostics"] = [dict(code=d["code"], **d["location"]) for d in report["diagnostics"]]
json.dump(m, open(manifest_path, "w"), indent=2)
open(manifest_path, "a").write("\n")
print(f"{len(m['vectors'])} vectors")
