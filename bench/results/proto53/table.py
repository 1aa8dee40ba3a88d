#!/usr/bin/env python3
"""Medians of pocl_lanes.sh's rounds: expression, rows,
a work-item a row, a lane a row, speed-up."""
import re, statistics, sys
from collections import defaultdict
t = defaultdict(list)
for line in open(sys.argv[1]):
    m = re.match(r"round \d+ lanes=(\d) (\w+)\s+\((\d+), (\d+)\)\s+axis 1:\s+([\d.]+) us", line)
    if m: t[(m[2], int(m[4]), m[1])].append(float(m[5]))
print("| expression | rows of | a work-item a row (us) | a lane a row (us) | speed-up |\n|---|---:|---:|---:|---:|")
for e, m in sorted({k[:2] for k in t}):
    a, b = statistics.median(t[(e, m, "0")]), statistics.median(t[(e, m, "1")])
    print(f"| {e} | {m} | {a:.0f} | {b:.0f} | {a / b:.1f}x |")
