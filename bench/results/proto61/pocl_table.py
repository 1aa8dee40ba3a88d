#!/usr/bin/env python3
"""Table of pocl_builds.sh's rounds: per case, each build's median (range) in
us, and old / new (above 1: the new build is faster)."""
import glob, json, os, statistics, sys

out = sys.argv[1]
t = {}
for f in sorted(glob.glob(os.path.join(out, "*_*.json"))):
    build = os.path.basename(f).split("_")[0]
    for b in json.load(open(f))["benchmarks"]:
        if b.get("error_occurred") or b.get("run_type") == "aggregate":
            continue
        scale = {"us": 1.0, "ms": 1e3, "ns": 1e-3}[b["time_unit"]]
        name = b["run_name"].split("/")
        t.setdefault((name[0][3:], int(name[2])), {}).setdefault(build, []).append(b["real_time"] * scale)
print("| workload | size | old | new | old / new |")
print("|---|---|---:|---:|---:|")
for (w, n), v in t.items():
    if "old" not in v or "new" not in v:
        print(f"| {w} | 2^{n} | {'' if 'old' not in v else round(statistics.median(v['old']))} | "
              f"{'' if 'new' not in v else round(statistics.median(v['new']))} | |")
        continue
    o, m = statistics.median(v["old"]), statistics.median(v["new"])
    fmt = lambda xs: f"{statistics.median(xs):.0f} ({min(xs):.0f}-{max(xs):.0f})"
    ratio = o / m
    mark = "**" if ratio < 0.95 else ""
    print(f"| {w} | 2^{n} | {fmt(v['old'])} | {fmt(v['new'])} | {mark}{ratio:.2f}{mark} |")
