#!/usr/bin/env python3
"""Medians of pocl_var_lanes.sh's rounds: rows, work-item a row, lanes, ratio."""
import re, statistics, sys
from collections import defaultdict
t = defaultdict(list)
for line in open(sys.argv[1]):
    m = re.match(r"round \d+ lanes=(\d) \w+\s+\((\d+), (\d+)\)\s+axis 1:\s+([\d.]+) us", line)
    if m: t[(int(m[3]), m[1])].append(float(m[4]))
print("| rows of | a work-item a row (us) | a lane a row (us) | speed-up |\n|---:|---:|---:|---:|")
for m in sorted({k[0] for k in t}):
    a, b = statistics.median(t[(m, "0")]), statistics.median(t[(m, "1")])
    print(f"| {m} | {a:.0f} | {b:.0f} | {a / b:.1f}x |")
