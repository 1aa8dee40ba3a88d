#!/usr/bin/env python3
"""The per-call table of run3.sh to run8.sh (session 49): fusecl-axis-probe's
output, in sections headed "## round R SETTING", as one row a case (expression
and row length) and a column a setting, each cell every round's us per call.

  python3 bench/results/proto49/table.py axis.txt
"""
import collections
import re
import sys

t = collections.defaultdict(list)
s = None
for line in open(sys.argv[1]):
    if line.startswith("## round"):
        s = line.split()[3]
        continue
    m = re.match(r"(\w+)\s+\((\d+), (\d+)\).*?([\d.]+) us per call", line)
    if m:
        t[(m.group(1), int(m.group(3)), s)].append(float(m.group(4)))
keys = sorted({(e, m) for e, m, _ in t})
sets = []
for e, m, s in t:
    if s not in sets:
        sets.append(s)
print("case | " + " | ".join(sets))
for e, m in keys:
    print(f"{e}-{m} | " + " | ".join("/".join(f"{v:.1f}" for v in t[(e, m, s)]) for s in sets))
