#!/usr/bin/env python3
"""Table of bench/results/proto50/pocl_chains.sh's output: per workload and
size, each chain count's times over the rounds (median, range), us.
  python3 bench/results/proto50/chains_table.py raw/pocl_chains.txt"""
import re
import statistics
import sys
from collections import defaultdict

times = defaultdict(list)
chains = None
for line in open(sys.argv[1]):
    m = re.match(r"## round \d+ chains (\d+)", line)
    if m:
        chains = int(m.group(1))
        continue
    m = re.match(r"BM_(\w+)/fused_device/(\d+)/real_time\s+([\d.]+) (us|ms)", line)
    if m:
        t = float(m.group(3)) * (1000 if m.group(4) == "ms" else 1)
        times[(m.group(1), int(m.group(2)), chains)].append(t)
counts = sorted({k[2] for k in times})
print("| workload | size | " + " | ".join(f"{c} chain{'s' if c > 1 else ''}" for c in counts) + " | one / four |")
print("|---|---:|" + "---:|" * (len(counts) + 1))
for w, n in sorted({(k[0], k[1]) for k in times}):
    cells, med = [], {}
    for c in counts:
        v = times.get((w, n, c), [])
        if not v:
            cells.append("—")
            continue
        med[c] = statistics.median(v)
        cells.append(f"{med[c]:.0f} ({min(v):.0f}-{max(v):.0f})")
    ratio = f"{med[1] / med[4]:.2f}" if 1 in med and 4 in med else "—"
    print(f"| {w} | 2^{n} | " + " | ".join(cells) + f" | {ratio} |")
