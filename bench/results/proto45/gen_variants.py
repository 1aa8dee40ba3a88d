#!/usr/bin/env python3
"""Forty-fifth session: the variants of t0.cl (fusecl's 8x8 register-tiled x + transpose(y) for a CPU) timed with
transpose_harness.cpp on PoCL, written into the current folder:
  tS.cl  the 8x8 transpose in three stages of two-vector shuffles (unpack, 64-bit, 128-bit) instead of lane by lane
  tN.cl  no transpose at all (wrong results, the same memory traffic): what the shuffles cost
  tP.cl, tP2.cl  OpenCL prefetch() of the next one or two (tP2: second to fourth) work-items' y rows
  bBgG.cl  a B x B tile a work-item (8 or 16), G x G work-items a group (4, 8, 16); bBgGo.cl the same, the work-
         items in the other order (down y's columns first)
  LTgG.cl  a T x T tile a work-item (32, 64, 128) in a loop of 8 x 8 sub-tiles along out's rows (LTgGy.cl: along
         y's rows), G x G work-items a group (1, 2, 4)
t0.cl's group-size variants (t64, t16, t1: groups of 64, 16, 1) are sed edits of its 16s, 256 and l_ arithmetic.
Global sizes: (2048 / B)^2 or (2048 / T)^2 work-items; t*: 65536.
"""
import re

t0 = open('t0.cl').read()
T = lambda m: f'const float8 tt1 = {m};'
rows = lambda f: re.sub(r'const float8 tt1 = \(float8\)\(a1_0\.s(\d)[^;]*;', lambda m: T(f(m[1])), t0)
open('tN.cl', 'w').write(rows(lambda r: f'a1_{r}'))
stage = []
for k, (a, b) in enumerate([(0, 1), (2, 3), (4, 5), (6, 7)]):
    lo = ', '.join(f'a1_{x}.s{i}' for i in (0, 1, 4, 5) for x in (a, b))
    hi = ', '.join(f'a1_{x}.s{i}' for i in (2, 3, 6, 7) for x in (a, b))
    stage += [f'    const float8 p{2*k} = (float8)({lo});', f'    const float8 p{2*k+1} = (float8)({hi});']
for name, (p, q, r, s) in (('u', (0, 2, 1, 3)), ('w', (4, 6, 5, 7))):
    stage += [f'    const float8 {name}0 = (float8)(p{p}.s01, p{q}.s01, p{p}.s45, p{q}.s45), {name}1 = (float8)(p{p}.s23, p{q}.s23, p{p}.s67, p{q}.s67);',
              f'    const float8 {name}2 = (float8)(p{r}.s01, p{s}.s01, p{r}.s45, p{s}.s45), {name}3 = (float8)(p{r}.s23, p{s}.s23, p{r}.s67, p{s}.s67);']
for i in range(4):
    stage.append(f'    const float8 T{i} = (float8)(u{i}.lo, w{i}.lo), T{i+4} = (float8)(u{i}.hi, w{i}.hi);')
src = rows(lambda r: f'T{r}')
at = src.index('    {\n      const long c1 = x0, c0 = y0 + 0;')
open('tS.cl', 'w').write(src[:at] + '\n'.join(stage) + '\n' + src[at:])
at = t0.index('    const float8 a1_0 =')
for name, ahead in (('tP', (1, 2)), ('tP2', (2, 3, 4))):
    pf = ''.join(f'    prefetch(in1 + off1 + y0 + (x0 + {8*d+j}) * st1_1, 8);\n' for d in ahead for j in range(8))
    open(f'{name}.cl', 'w').write(t0[:at] + pf + t0[at:])


def tiles(B, G, order):
    hx = '0123456789abcdef'
    ix = (f'l_ % {G}', f'l_ / {G}') if order == 'x' else (f'l_ / {G}', f'l_ % {G}')
    L = [f'__kernel __attribute__((reqd_work_group_size({G*G}, 1, 1))) void tt(',
         '    __global float* restrict out0, __global const float* restrict in0, __global const float* restrict in1,',
         '    const long n, const long d0, const long d1, const uint2 dv1, const long off0, const long off1, const long st1_0, const long st1_1) {',
         f'  const long tx_n = (d1 + {B-1}) / {B}, ty_n = (d0 + {B-1}) / {B};',
         f'  const long sx_n = (tx_n + {G-1}) / {G}, sy_n = (ty_n + {G-1}) / {G};',
         '  const int l_ = (int)get_local_id(0);', '  long g_ = (long)get_group_id(0);',
         f'  const long bx_ = (g_ % sx_n) * {G} + {ix[0]}; g_ /= sx_n;', f'  const long by_ = (g_ % sy_n) * {G} + {ix[1]};',
         '  if (bx_ >= tx_n || by_ >= ty_n) return;', f'  const long x0 = bx_ * {B}, y0 = by_ * {B};']
    L += [f'  const float{B} a{j} = vload{B}(0, in1 + off1 + y0 + (x0 + {j}) * st1_1);' for j in range(B)]
    for r in range(B):
        comps = ', '.join(f'a{j}.s{hx[r]}' for j in range(B))
        L += [f'  {{ const long i = (y0 + {r}) * d1 + x0; const float{B} t = (float{B})({comps});',
              f'    vstore{B}(vload{B}(0, in0 + off0 + i) + t, 0, out0 + i); }}']
    return '\n'.join(L + ['}']) + '\n'


for B in (8, 16):
    for G in (4, 8, 16):
        open(f'b{B}g{G}.cl', 'w').write(tiles(B, G, 'x'))
        open(f'b{B}g{G}o.cl', 'w').write(tiles(B, G, 'y'))


def loop_tiles(T, G, y_first):
    L = [f'__kernel __attribute__((reqd_work_group_size({G*G}, 1, 1))) void tt(',
         '    __global float* restrict out0, __global const float* restrict in0, __global const float* restrict in1,',
         '    const long n, const long d0, const long d1, const uint2 dv1, const long off0, const long off1, const long st1_0, const long st1_1) {',
         f'  const long tx_n = (d1 + {T-1}) / {T}, ty_n = (d0 + {T-1}) / {T};',
         f'  const long sx_n = (tx_n + {G-1}) / {G}, sy_n = (ty_n + {G-1}) / {G};',
         '  const int l_ = (int)get_local_id(0);', '  long g_ = (long)get_group_id(0);',
         f'  const long bx_ = (g_ % sx_n) * {G} + l_ % {G}; g_ /= sx_n;', f'  const long by_ = (g_ % sy_n) * {G} + l_ / {G};',
         '  if (bx_ >= tx_n || by_ >= ty_n) return;',
         f'  for (int s1 = 0; s1 < {T//8}; ++s1)', f'  for (int s2 = 0; s2 < {T//8}; ++s2) {{',
         f'    const long x0 = bx_ * {T} + s{1 if y_first else 2} * 8, y0 = by_ * {T} + s{2 if y_first else 1} * 8;']
    L += [f'    const float8 a{j} = vload8(0, in1 + off1 + y0 + (x0 + {j}) * st1_1);' for j in range(8)]
    for r in range(8):
        comps = ', '.join(f'a{j}.s{r}' for j in range(8))
        L.append(f'    {{ const long i = (y0 + {r}) * d1 + x0; vstore8(vload8(0, in0 + off0 + i) + (float8)({comps}), 0, out0 + i); }}')
    return '\n'.join(L + ['  }', '}']) + '\n'


for T in (32, 64, 128):
    for G in (1, 2, 4):
        open(f'L{T}g{G}.cl', 'w').write(loop_tiles(T, G, False))
        open(f'L{T}g{G}y.cl', 'w').write(loop_tiles(T, G, True))
