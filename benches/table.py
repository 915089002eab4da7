#!/usr/bin/env python3
"""Prints the last `cargo bench -p dash-benches` run as Markdown tables: each figure's
throughput (median) and its ratio to the baselines of the same group, measured in the
same run. Usage: python3 benches/table.py [target/criterion]"""
import json
import pathlib
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "target/criterion")


def rate(bench):
    est = json.loads((bench / "new" / "estimates.json").read_text())
    meta = json.loads((bench / "new" / "benchmark.json").read_text())
    secs = est["median"]["point_estimate"] / 1e9
    (kind, amount), = meta["throughput"].items()
    return meta["function_id"], kind, amount / secs, secs


def show(kind, per_s):
    if kind == "Bytes":
        return f"{per_s / 2**30:.2f} GiB/s" if per_s >= 2**30 else f"{per_s / 2**20:.0f} MiB/s"
    return f"{per_s / 1e6:.2f} M/s"


for group in sorted(p for p in root.iterdir() if p.is_dir() and p.name != "report"):
    rows = [rate(b) for b in sorted(group.iterdir()) if (b / "new" / "estimates.json").exists()]
    bases = [r for r in rows if "baseline" in r[0]]
    print(f"\n### `{group.name}`\n")
    head = "| benchmark | median time | throughput |" + "".join(f" × `{b[0]}` |" for b in bases)
    print(head)
    print("|---|---:|---:|" + "---:|" * len(bases))
    for name, kind, per_s, secs in rows:
        ratios = "".join(f" {per_s / b[2]:.2f} |" for b in bases)
        print(f"| `{name}` | {secs * 1e3:.2f} ms | {show(kind, per_s)} |{ratios}")
