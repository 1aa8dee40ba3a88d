#!/usr/bin/env python3
"""The sweep's table: every workload and size of `bench/gpu_issue13.sh sweep` runs (each a folder holding its
run.json from fusecl-bench and frameworks.json from gpu_frameworks.py), as Markdown rows of eval, fuse(), cupy.fuse
and torch.compile (µs), then the best framework's time over eval's and over fuse()'s, `**` where a framework is
ahead; the copy kernel's times first, the cases where fusecl is behind last.

    python3 bench/sweep_table.py DIR [DIR ...]
"""
import json, sys
rows={}; copy={}
for d in sys.argv[1:]:
    r=json.load(open(d+'/run.json'))
    for b in r['benchmarks']:
        n=b['name'].split('/')
        t=b['real_time']*({'ns':1e-3,'us':1,'ms':1e3}[b['time_unit']])
        if n[0]=='BM_copy': copy.setdefault(int(n[2]),[]).append(round(t,1)); continue
        rows.setdefault((n[0][3:],int(n[2])),{})[n[1]]=t
    f=json.load(open(d+'/frameworks.json'))
    for b in f['benchmarks']:
        rows.setdefault((b['workload'],b['log2']),{})[b['framework']]=b['time_s']*1e6
print('copy', copy)
order=['chain2','sqrt_sin_exp','poly20','black_scholes','haversine','saxpy','transpose_add','softmax','softmax_axis0','row_norm','sum_squares','mean_std','monte_carlo_pi']
n=0; lose=[]
for w in sorted(set(k[0] for k in rows), key=order.index):
    for s in sorted(set(k[1] for k in rows if k[0]==w)):
        v=rows[(w,s)]
        ev=v['fused_device']; fu=v['fuse_device']; cf=v['cupy_fuse']; tc=v['torch_compile']
        best=min(cf,tc)
        m1='' if ev<=best else ' **'; m2='' if fu<=best else ' **'
        n+=1
        if m1 or m2: lose.append((w,s,ev,fu,best))
        print(f"| {w} | 2^{s} | {ev:.1f} | {fu:.1f} | {cf:.1f} | {tc:.1f} | {best/ev:.2f}x{m1} | {best/fu:.2f}x{m2} |")
print(n, 'cases; behind:', lose)
