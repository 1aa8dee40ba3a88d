#!/usr/bin/env python3
"""Session 51's PoCL comparisons: fusecl-axis-probe lines grouped under
"## round R x X" or "## round R xl X" headers (the switch off, X = 0, or on);
medians (ranges) per case each way. Usage: table.py RAW."""
import collections
import re
import statistics
import sys

times = collections.defaultdict(list)
side = None
for line in open(sys.argv[1]):
    h = re.match(r"## round (\d+) xl? (\d+)", line)
    if h:
        side = "before" if h.group(2) == "0" else "after"
        continue
    m = re.match(r"(\w+)\s+\((\d+), (\d+)\)\s+axis 1:\s+([\d.]+) us", line)
    if m and side:
        times[(m.group(1), int(m.group(3)), side)].append(float(m.group(4)))
print("| case | switch off (us) | switch on (us) | off / on |")
print("|---|---:|---:|---:|")
for name, m in sorted({(k[0], k[1]) for k in times}, key=lambda k: (k[0], k[1])):
    a, b = times[(name, m, "before")], times[(name, m, "after")]
    if not a or not b:
        continue
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"| {name} over rows of {m} | {ma:.0f} ({min(a):.0f}-{max(a):.0f}) | {mb:.0f} ({min(b):.0f}-{max(b):.0f}) | {ma / mb:.2f} |")
