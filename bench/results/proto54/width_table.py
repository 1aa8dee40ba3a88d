#!/usr/bin/env python3
"""pocl_width_oldnew.txt (or with argument 2, pocl_width_oldnew2.txt) as a Markdown table: medians (range) of the
three rounds, old / new."""
import collections, os, statistics, sys
second = len(sys.argv) > 1 and sys.argv[1] == '2'
here = os.path.dirname(os.path.abspath(__file__))
d = collections.defaultdict(list)
for l in open(os.path.join(here, 'pocl_width_oldnew2.txt' if second else 'pocl_width_oldnew.txt')):
    f = l.split()
    if f[0] == 'lanes':  # sum over rows of 32 as the suite takes it
        d[('sum (lanes on)', 32, f[2])].append(float(f[3]))
        continue
    r, b, op, n, m, t = f
    d[(op, int(m.strip(')')), b)].append(float(t))
ops, lengths = (['sum (lanes on)', 'sum', 'max', 'argmax'], [17, 24, 32]) if second else (['sum', 'max', 'argmax', 'var'], [33, 40, 48, 56, 64])
for op in ops:
    for m in lengths:
        if (op, m, 'old') not in d: continue
        o, n = d[(op, m, 'old')], d[(op, m, 'new')]
        print(f"| {op} | {m} | {statistics.median(o):.0f} ({min(o):.0f}-{max(o):.0f}) | "
              f"{statistics.median(n):.0f} ({min(n):.0f}-{max(n):.0f}) | {statistics.median(o) / statistics.median(n):.2f}x |")
