"""Medians of an old/new probe comparison's rounds (lines "r<k> old|new <probe line>"), any axis: old, new, old / new."""
import collections, re, statistics, sys

d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    m = re.match(r"r\d (\S+) (\S+)\s+\((\d+), (\d+)\)\s+axis (\d):\s+([\d.]+) us", line)
    if m:
        d[(m[2], int(m[5]), int(m[3]), int(m[4]), m[1])].append(float(m[6]))
print("| case | shape | axis | old (us) | new (us) | old / new |\n|---|---|---:|---:|---:|---:|")
for k in sorted({key[:4] for key in d}):
    o, n = statistics.median(d[k + ("old",)]), statistics.median(d[k + ("new",)])
    print(f"| {k[0]} | {k[2]} x {k[3]} | {k[1]} | {o:.0f} | {n:.0f} | {o / n:.2f}x |")
