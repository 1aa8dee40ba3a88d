#!/usr/bin/env python3
"""Tables of pocl_chains.sh's and pocl_chains_axes.sh's output: per case
(fusecl-bench's workload and size, or fusecl-axis-probe's case), each chain
count's times over the rounds (median, range), us, and one chain's median
over four's.
  python3 bench/results/proto50/table.py raw/pocl_chains.txt
  python3 bench/results/proto50/table.py raw/pocl_chains_axes.txt"""
import re
import statistics
import sys
from collections import defaultdict

BENCH = re.compile(r"BM_(\w+)/fused_device/(\d+)/real_time\s+([\d.]+) (us|ms)")
PROBE = re.compile(r"(\w+)\s+(\([\d, ]+\))\s+axis (\d+):\s+([\d.]+) us per call")

times = defaultdict(list)
order = []
chains = None
for line in open(sys.argv[1]):
    m = re.match(r"## round \d+ chains (\d+)", line)
    if m:
        chains = int(m.group(1))
        continue
    m = BENCH.match(line)
    if m:
        case, t = f"{m.group(1)} 2^{m.group(2)}", float(m.group(3)) * (1000 if m.group(4) == "ms" else 1)
    else:
        m = PROBE.match(line)
        if not m:
            continue
        case, t = f"{m.group(1)} {m.group(2)} axis {m.group(3)}", float(m.group(4))
    if case not in order:
        order.append(case)
    times[(case, chains)].append(t)
counts = sorted({k[1] for k in times})
print("| case | " + " | ".join(f"{c} chain{'s' if c > 1 else ''}" for c in counts) + " | one / four |")
print("|---|" + "---:|" * (len(counts) + 1))
for case in order:
    v = {c: times[(case, c)] for c in counts if times[(case, c)]}
    med = {c: statistics.median(x) for c, x in v.items()}
    cells = [f"{med[c]:.0f} ({min(v[c]):.0f}-{max(v[c]):.0f})" if c in v else "—" for c in counts]
    ratio = f"{med[1] / med[4]:.2f}" if 1 in med and 4 in med else "—"
    print(f"| {case} | " + " | ".join(cells) + f" | {ratio} |")
