#!/usr/bin/env python3
"""Medians of pocl_lanes_reduce.sh's rounds: m, op, lanes (most=2) and before (most=0), us."""
import re, statistics, sys
from collections import defaultdict
t = defaultdict(list)
for path in sys.argv[1:]:
    for line in open(path):
        f = dict(kv.split('=') for kv in line.split())
        if f.get('us'):
            t[(int(f['m']), f['op'], f['most'])].append(float(f['us']))
ops = sorted({k[1] for k in t}, key=lambda o: ['sum', 'max', 'sum_exp'].index(o) if o in ['sum', 'max', 'sum_exp'] else 9)
print('| row length | ' + ' | '.join(f'{o}: lanes / before' for o in ops) + ' |')
print('|---:|' + '---:|' * len(ops))
for m in sorted({k[0] for k in t}):
    cells = []
    for o in ops:
        a, b = t.get((m, o, '2')), t.get((m, o, '0'))
        cells.append(f'{statistics.median(a):.0f} / {statistics.median(b):.0f}' if a and b else '')
    print(f'| {m} | ' + ' | '.join(cells) + ' |')
