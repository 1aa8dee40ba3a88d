#!/usr/bin/env python3
"""Medians of pocl_old_new.sh's rounds: expression, shape, before, after, speed-up."""
import re, statistics, sys
from collections import defaultdict
t = defaultdict(list)
for line in open(sys.argv[1]):
    m = re.match(r"round \d+ (old|new) (\w+)\s+(\([\d, ]+\))\s+axis (\d):\s+([\d.]+) us", line)
    if m: t[(m[2], m[3], m[4], m[1])].append(float(m[5]))
print("| expression | shape, axis | before: eda4339 (us) | after (us) | speed-up |\n|---|---|---:|---:|---:|")
for e, s, a in sorted({k[:3] for k in t}, key=lambda k: (k[0], int(k[1].strip('()').split(',')[-1] or 0))):
    o, n = statistics.median(t[(e, s, a, "old")]), statistics.median(t[(e, s, a, "new")])
    print(f"| {e} | {s}, {a} | {o:.0f} | {n:.0f} | {o / n:.1f}x |")
