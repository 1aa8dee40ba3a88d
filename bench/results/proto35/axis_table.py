#!/usr/bin/env python3
# The axis probe's outputs (fusecl-axis-probe, then bench/torch_axis.py after a "## torch" line)
# as one row per case: the best of the rounds of each setting, its kernel count, and torch.compile.
#   python3 axis_table.py axis.txt
import re,collections,sys
cur=None; d=collections.defaultdict(list); torch={}
for f in sys.argv[1:]:
  for l in open(f):
    if l.startswith('## torch'): cur='torch'; continue
    m=re.match(r'## (.*), round (\d)',l)
    if m: cur=m.group(1); continue
    m=re.match(r'(\w+)\s+\(?([\dx, ]+)\)?\s+axis (\d):\s+([\d.]+) us.*?(\d+) kernels',l)
    if m and cur!='torch':
        d[(m.group(1),m.group(2).replace(', ','x'),m.group(3))].append((cur,float(m.group(4)),m.group(5)))
        continue
    m=re.match(r'(\w+)\s+(\S+)\s+axis (\d): eager.*torch.compile\s+([\d.]+)',l)
    if m: torch[(m.group(1),m.group(2),m.group(3))]=float(m.group(4))
vs=[]
for v in d.values():
  for c,_,_ in v:
    if c not in vs: vs.append(c)
print("case | "+" | ".join(vs)+" | torch")
for k,v in d.items():
    row=[]
    for name in vs:
        xs=[(t,kk) for c,t,kk in v if c==name]
        row.append("%.1f(%s)"%(min(x[0] for x in xs), "/".join(sorted(set(x[1] for x in xs)))) if xs else "-")
    print(" ".join(k), " ".join(row), torch.get(k))
