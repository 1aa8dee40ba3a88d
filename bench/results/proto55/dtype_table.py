"""Medians of pocl_dtype_width.sh's three rounds: op:dtype by row length, one column per configuration."""
import collections, re, statistics, sys

rows = collections.defaultdict(list)
for line in open(sys.argv[1] if len(sys.argv) > 1 else "pocl_dtype_width.txt"):
    m = re.match(r"r\d (\S+) (\S+)\s+\((\d+), (\d+)\)\s+axis 1:\s+([\d.]+) us", line)
    if m:
        cfg, case, _, length, us = m.groups()
        rows[(case, int(length), cfg)].append(float(us))
cases = sorted({(c, l) for c, l, _ in rows}, key=lambda k: (k[0], k[1]))
for case in sorted({c for c, _ in cases}):
    cfgs = sorted({g for c, _, g in rows if c == case}, key=lambda g: (g.split("-")[0], {"rule": 0, "16": 1, "8": 2, "4": 3, "2": 4}.get(g.split("-")[1], 9)))
    print(f"\n| {case} | " + " | ".join(cfgs) + " |")
    print("|---|" + "---:|" * len(cfgs))
    for length in sorted({l for c, l in cases if c == case}):
        vals = [statistics.median(rows[(case, length, g)]) for g in cfgs]
        best = min(vals)
        print(f"| {length} | " + " | ".join(("**%.0f**" if v == best else "%.0f") % v for v in vals) + " |")
