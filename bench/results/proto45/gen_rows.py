#!/usr/bin/env python3
"""Forty-fifth session: layer norm (or with a 4th argument "softmax", softmax: max, the sum of exp kept in registers,
exp times the sum's reciprocal corrected as fusecl's fcl_rdiv) over rows of M floats (M % 4 == 0) as proto44/r20.cl computes it, with P work-items
a row each holding K float4 vectors (vector q = sl + k * P of the row, none past the row's M / 4): torch.compile's
layout for rows of 20 is P = 8, K = 1 (5 of 8 work-items loading). Timed against r20.cl by proto44/rows_harness.cpp
(proto44/rows_harness.cpp, argv: a.cl b.cl m rows_per_group_a:rows_per_group_b 3, or 0 for softmax), rows_per_group =
128 / P.  python3 gen_rows.py M P K [softmax] [clamp] > file.cl"""
import sys

M, P, K = (int(a) for a in sys.argv[1:4])
SOFTMAX = 'softmax' in sys.argv[4:]
# clamp: every work-item loads, past the row's end its last vector again (as fusecl's kernels do), instead of a
# predicated load
CLAMP = 'clamp' in sys.argv[4:]
V = M // 4
head = open(__file__.replace('gen_rows.py', '../proto44/r20.cl')).read()
head = head[:head.index('__kernel')]
shfl = lambda op: '\n'.join(f'    y_ = as_float(fcl_shfl_down(as_uint(acc), {d}u)); acc = acc + y_;' for d in [P >> i for i in range(1, P.bit_length())])


def phase(n, expr):
    if SOFTMAX and n == 1:
        return max_phase()
    return f'''  float acc{n};
  {{
    float4 accv = (float4)(0.0f), compv = (float4)(0.0f);
    for (int k = 0; k < {K}; ++k) {{
      if (sl + k * {P} >= {V}) break;
      const float4 v0 = rc0[k];
      const float4 w = {expr};
{'      rc3[k] = w;' if SOFTMAX else ''}
      const float4 y_ = w - compv; const float4 t_ = accv + y_; compv = (isfinite(t_) ? (t_ - accv) - y_ : (float4)(0)); accv = t_;
    }}
    float acc = 0.0f;
    acc += accv.s0 - compv.s0; acc += accv.s1 - compv.s1; acc += accv.s2 - compv.s2; acc += accv.s3 - compv.s3;
    float y_;
{shfl('+')}
    acc = as_float(fcl_shfl_idx(as_uint(acc), (uint)((lid - sl) & 31)));
    acc{n} = acc;
  }}
'''


def max_phase():
    steps = '\n'.join(f'    y_ = as_float(fcl_shfl_down(as_uint(acc), {d}u)); acc = isnan(acc) ? acc : (isnan(y_) ? y_ : fmax(acc, y_));' for d in [P >> i for i in range(1, P.bit_length())])
    return f'''  float acc1;
  {{
    float4 accv = (float4)(-INFINITY); int4 nan_ = (int4)(0);
    for (int k = 0; k < {K}; ++k) {{
      if (sl + k * {P} >= {V}) break;
      accv = fmax(accv, rc0[k]); nan_ |= isnan(rc0[k]);
    }}
    accv = select(accv, (float4)(NAN), nan_ != (int4)(0));
    float acc = fmax(fmax(accv.s0, accv.s1), fmax(accv.s2, accv.s3));
    if (isnan(accv.s0) || isnan(accv.s1) || isnan(accv.s2) || isnan(accv.s3)) acc = NAN;
    float y_;
{steps}
    acc = as_float(fcl_shfl_idx(as_uint(acc), (uint)((lid - sl) & 31)));
    acc1 = acc;
  }}
'''


print(head + f'''__kernel __attribute__((reqd_work_group_size(128, 1, 1)))
void rows_{M}_{P}_{K}(__global float* restrict out0, __global const float* restrict in0,{'' if SOFTMAX else ' const float s0, const float s1, const float s2,'}
    const long n, const long m_, const long off0) {{
  const long m = {M}L;
  const int lid = (int)get_local_id(0);
  const int sl = lid % {P};
  const long o = (long)get_group_id(0) * {128 // P} + lid / {P};
  const long oc = o < n ? o : n - 1;
  float4 rc0[{K}];
  for (int k = 0; k < {K}; ++k) {{
    const long q = sl + k * {P};
    {'rc0[k] = *(__global const float4*)(in0 + off0 + oc * m + (q < %d ? q : %d) * 4);' % (V, V - 1) if CLAMP else 'rc0[k] = q < %d ? *(__global const float4*)(in0 + off0 + oc * m + q * 4) : (float4)(0.0f);' % V}
  }}
{phase(1, 'v0')}  const float r1 = {'acc1' if SOFTMAX else 'acc1 / s0'};
{'  float4 rc3[%d];' % K if SOFTMAX else ''}
{phase(4, 'exp(v0 - (float4)(r1))' if SOFTMAX else '(v0 - (float4)(r1)) * (v0 - (float4)(r1))')}  const float r4 = {'acc4' if SOFTMAX else 'acc4 / s1'};
  if (o < n) {{
    uint rq_ = 0;
    const float4 d = {'(float4)(r4)' if SOFTMAX else 'sqrt((float4)(r4) + (float4)(s2))'};
    for (int k = 0; k < {K}; ++k) {{
      const long q = sl + k * {P};
      if (q >= {V}) break;
      *(__global float4*)(out0 + o * m + q * 4) = fcl_rdiv_float4({'rc3[k]' if SOFTMAX else 'rc0[k] - (float4)(r1)'}, d, &rq_);
    }}
    if (rq_ > 0xd3000000u)
      for (int k = 0; k < {K}; ++k) {{
        const long q = sl + k * {P};
        if (q >= {V}) break;
        *(__global float4*)(out0 + o * m + q * 4) = {'rc3[k]' if SOFTMAX else '(rc0[k] - (float4)(r1))'} / d;
      }}
  }}
}}''')
