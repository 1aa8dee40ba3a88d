#!/usr/bin/env python3
"""Session 46: softmax over rows of 20 (2 work-items a row, 3 float4 each, 64
rows a group of 128), written as four phases - load, max, sum, store - each in
fusecl's form (read from ../proto45/kernels/softmax-20.cl, afd569d) or the form
of ../proto45/gen_rows.py (clamped loads, written out below), which runs 140 us
against fusecl's 148 with bit-identical outputs. argv: four letters, one a phase
(e.g. fggf; more forms below). The generator's forms are copied verbatim from
its kernel; the declarations the phases share are hoisted into the preamble
(fusecl's unused mo and __local arrays left out)."""
import os
import sys

FUSECL = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "proto45", "kernels", "softmax-20.cl")).read()


def between(first, last):
    """fusecl's text from `first` up to `last` (None: the end), `first` included."""
    a = FUSECL.index(first)
    return FUSECL[a:FUSECL.index(last, a) if last else len(FUSECL)]


HEAD = FUSECL[:FUSECL.index("__kernel")] + r'''__kernel __attribute__((reqd_work_group_size(128, 1, 1)))
void rows_KNAME(
    __global float* restrict out0,
    __global const float* restrict in0,
    const long n,
    const long m_,
    const long off0)
{
  const long m = 20L;
  const int lid = (int)get_local_id(0);
  const int sl = lid % 2;
  const long o = (long)get_group_id(0) * 64 + lid / 2;
  float4 rc0[3];
  float4 rc3[3];
'''

LOAD = {'f': between('  {\n    const long oc', '  float acc1;'), 'g': r'''  const long oc = o < n ? o : n - 1;
  for (int k = 0; k < 3; ++k) {
    const long q = sl + k * 2;
    rc0[k] = *(__global const float4*)(in0 + off0 + oc * m + (q < 5 ? q : 4) * 4);
  }
'''}

MAX = {'f': between('  float acc1;', '  float acc4;'), 'g': r'''  float acc1;
  {
    float4 accv = (float4)(-INFINITY); int4 nan_ = (int4)(0);
    for (int k = 0; k < 3; ++k) {
      if (sl + k * 2 >= 5) break;
      accv = fmax(accv, rc0[k]); nan_ |= isnan(rc0[k]);
    }
    accv = select(accv, (float4)(NAN), nan_ != (int4)(0));
    float acc = fmax(fmax(accv.s0, accv.s1), fmax(accv.s2, accv.s3));
    if (isnan(accv.s0) || isnan(accv.s1) || isnan(accv.s2) || isnan(accv.s3)) acc = NAN;
    float y_;
    y_ = as_float(fcl_shfl_down(as_uint(acc), 1u)); acc = isnan(acc) ? acc : (isnan(y_) ? y_ : fmax(acc, y_));
    acc = as_float(fcl_shfl_idx(as_uint(acc), (uint)((lid - sl) & 31)));
    acc1 = acc;
  }
  const float r1 = acc1;
'''}

SUM = {'f': between('  float acc4;', '  if (o < n) {'), 'g': r'''  float acc4;
  {
    float4 accv = (float4)(0.0f), compv = (float4)(0.0f);
    for (int k = 0; k < 3; ++k) {
      if (sl + k * 2 >= 5) break;
      const float4 v0 = rc0[k];
      const float4 w = exp(v0 - (float4)(r1));
      rc3[k] = w;
      const float4 y_ = w - compv; const float4 t_ = accv + y_; compv = (isfinite(t_) ? (t_ - accv) - y_ : (float4)(0)); accv = t_;
    }
    float acc = 0.0f;
    acc += accv.s0 - compv.s0; acc += accv.s1 - compv.s1; acc += accv.s2 - compv.s2; acc += accv.s3 - compv.s3;
    float y_;
    y_ = as_float(fcl_shfl_down(as_uint(acc), 1u)); acc = acc + y_;
    acc = as_float(fcl_shfl_idx(as_uint(acc), (uint)((lid - sl) & 31)));
    acc4 = acc;
  }
  const float r4 = acc4;
'''}

STORE = {'f': between('  if (o < n) {', None), 'g': r'''  if (o < n) {
    uint rq_ = 0;
    const float4 d = (float4)(r4);
    for (int k = 0; k < 3; ++k) {
      const long q = sl + k * 2;
      if (q >= 5) break;
      *(__global float4*)(out0 + o * m + q * 4) = fcl_rdiv_float4(rc3[k], d, &rq_);
    }
    if (rq_ > 0xd3000000u)
      for (int k = 0; k < 3; ++k) {
        const long q = sl + k * 2;
        if (q >= 5) break;
        *(__global float4*)(out0 + o * m + q * 4) = rc3[k] / d;
      }
  }
}
'''}

# Forms between the two (session 46, call 2):
#   load a: f with the chunk's index in int (sl + k * 2, as g has it);
#   load b: f clamping every chunk (no "k < 2 ||", as g);
#   load c: both.
#   store a: f with the index in int; c: f testing the row's end at every
#   chunk (as g); d: both; e: g with the index in long; h: g testing only past
#   the chunks every work-item has (as f).
LOAD['a'] = LOAD['f'].replace('sl + (long)k * 2', 'sl + k * 2')
LOAD['b'] = LOAD['f'].replace('k < 2 || ', '')
LOAD['c'] = LOAD['a'].replace('k < 2 || ', '')
STORE['a'] = STORE['f'].replace('sl + (long)k * 2', 'sl + k * 2')
STORE['c'] = STORE['f'].replace('if (k >= 2 && q >= m / 4)', 'if (q >= m / 4)')
STORE['d'] = STORE['a'].replace('if (k >= 2 && q >= m / 4)', 'if (q >= m / 4)')
STORE['e'] = STORE['g'].replace('sl + k * 2', 'sl + (long)k * 2')
STORE['h'] = STORE['g'].replace('if (q >= 5)', 'if (k >= 2 && q >= 5)')
for d in (LOAD, STORE):
    for key in 'acdeh':
        if key in d:
            assert d[key] != d['f' if key in 'acd' else 'g'], key

code = sys.argv[1]
assert len(code) == 4 and code[0] in LOAD and code[1] in MAX and code[2] in SUM and code[3] in STORE
sys.stdout.write(HEAD.replace('KNAME', code) + LOAD[code[0]] + MAX[code[1]] + SUM[code[2]] + STORE[code[3]])
