#!/usr/bin/env python3
"""pocl_vs_before13.sh's csv as a table: per benchmark, each build's median
(and range) over the rounds, us, and before / now."""
import csv, statistics, sys
from collections import defaultdict
t = defaultdict(list)
for row in csv.reader(open(sys.argv[1])):
    if len(row) < 6 or not row[2].startswith('"BM_') and not row[2].startswith('BM_'):
        continue
    build, name, real, unit = row[0], row[2].strip('"'), row[4], row[6]
    scale = {'ns': 1e-3, 'us': 1.0, 'ms': 1e3}[unit]
    t[(name, build)].append(float(real) * scale)
names = sorted({k[0] for k in t}, key=lambda n: (n.split('/')[0], int(n.split('/')[2])))
print('| workload | size | 44b1911 | now | before / now |')
print('|---|---|---:|---:|---:|')
for n in names:
    o, w = t.get((n, 'old')), t.get((n, 'new'))
    wl, size = n.split('/')[0][3:], '2^' + n.split('/')[2]
    f = lambda v: f'{statistics.median(v):.0f} ({min(v):.0f}-{max(v):.0f})'
    if o and w:
        print(f'| {wl} | {size} | {f(o)} | {f(w)} | {statistics.median(o) / statistics.median(w):.2f} |')
    elif w:
        print(f'| {wl} | {size} | (not in the suite) | {f(w)} | |')
