"""Medians of interleaved probe rounds (lines "r<k> <label> <probe line>") per label, with each label's kernel
count, beside torch.compile (bench/torch_axis.py's output, the second argument)."""
import collections, re, statistics, sys

d, kernels, labels = collections.defaultdict(list), {}, []
for line in open(sys.argv[1]):
    m = re.match(r"r\d (\S+) (\S+)\s+\((\d+), (\d+)\)\s+axis (\d):\s+([\d.]+) us.*?(\d+) kernels", line)
    if m:
        if m[1] not in labels:
            labels.append(m[1])
        key = (m[2], int(m[5]), int(m[3]), int(m[4]), m[1])
        d[key].append(float(m[6]))
        kernels[key] = int(m[7])
torch = {}
if len(sys.argv) > 2:
    for line in open(sys.argv[2]):
        m = re.match(r"(\S+)\s+(\d+)x(\d+)\s+axis (\d):.*torch.compile\s+([\d.]+) us", line)
        if m:
            torch[(m[1], int(m[4]), int(m[2]), int(m[3]))] = float(m[5])
print("| case | shape | axis | " + " | ".join(f"{l} (kernels)" for l in labels) + " | torch.compile |")
print("|---|---|---:|" + "---:|" * (len(labels) + 1))
for k in sorted({key[:4] for key in d}):
    cells = [f"{statistics.median(d[k + (l,)]):.1f} ({kernels[k + (l,)]})" if d.get(k + (l,)) else "" for l in labels]
    t = torch.get(k)
    print(f"| {k[0]} | {k[2]} x {k[3]} | {k[1]} | " + " | ".join(cells) + (f" | {t:.1f} |" if t else " | |"))
