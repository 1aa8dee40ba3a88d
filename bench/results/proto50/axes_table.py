#!/usr/bin/env python3
"""Table of pocl_chains_axes.sh's output: per case, each chain count's
per-call times over the rounds (median, range), us.
  python3 bench/results/proto50/axes_table.py raw/pocl_chains_axes.txt"""
import re
import statistics
import sys
from collections import defaultdict

times = defaultdict(list)
order = []
chains = None
for line in open(sys.argv[1]):
    m = re.match(r"## round \d+ chains (\d+)", line)
    if m:
        chains = int(m.group(1))
        continue
    m = re.match(r"(\w+)\s+(\([\d, ]+\))\s+axis (\d+):\s+([\d.]+) us per call", line)
    if m:
        case = f"{m.group(1)} {m.group(2)} axis {m.group(3)}"
        if case not in order:
            order.append(case)
        times[(case, chains)].append(float(m.group(4)))
counts = sorted({k[1] for k in times})
print("| case | " + " | ".join(f"{c} chain{'s' if c > 1 else ''}" for c in counts) + " | one / four |")
print("|---|" + "---:|" * (len(counts) + 1))
for case in order:
    med = {c: statistics.median(times[(case, c)]) for c in counts if times[(case, c)]}
    cells = [f"{med[c]:.0f} ({min(times[(case, c)]):.0f}-{max(times[(case, c)]):.0f})" for c in counts]
    print(f"| {case} | " + " | ".join(cells) + f" | {med[1] / med[4]:.2f} |")
