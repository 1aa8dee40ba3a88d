#!/usr/bin/env python3
"""Session 46, call 11: fusecl's layer norm kernels (kernels/layer_norm-*.cl)
with the output phase's row-invariant values computed once a work-item
instead of at every chunk, the same bits. argv: kernel variant
  sqrt4: sqrt((float4)(r4) + (float4)(s2)) once, before the loops;
  sqrt1: the same as one float sqrt, broadcast (the same value in every lane);
  z:     sqrt1, and the reciprocal's z = 1/b with its range test once too
         (fcl_rdiv_float4 split into the divisor's part and the quotient's)."""
import sys

src, how = open(sys.argv[1]).read(), sys.argv[2]
loop_defs = ("const float4 v5 = (float4)(s2);", "const float4 v6 = ((v4) + (v5));", "const float4 v7 = sqrt(v6);")
for d in loop_defs:
    assert src.count(d) == 2, d
    src = src.replace(d, "")
hoisted = {"sqrt4": "  const float4 v7 = sqrt((float4)(r4) + (float4)(s2));\n",
           "sqrt1": "  const float4 v7 = (float4)(sqrt(r4 + s2));\n",
           "z": "  const float4 v7 = (float4)(sqrt(r4 + s2));\n"
                "  const float4 z7 = select((float4)(NAN), (float4)(1.0f) / v7, isgreaterequal(fabs(v7), (float4)(0x1p-16f)) & islessequal(fabs(v7), (float4)(0x1p125f)));\n"}[how]
assert src.count("  if (o < n) {\n") == 1
src = src.replace("  if (o < n) {\n", hoisted + "  if (o < n) {\n")
if how == "z":
    helper = """inline float4 fcl_rdiv_z_float4(const float4 a, const float4 b, const float4 z, uint* range) {
  const float4 q = a * z, q1 = fma(fma(-q, b, a), z, q);
  const uint4 t = (as_uint4(q1) << 1) - 0x2a000000u;
  const uint2 t2 = max(t.lo, t.hi);
  const uint t1 = max(t2.s0, t2.s1);
  *range = max(*range, t1);
  return q1;
}
"""
    src = src.replace("\n__kernel", "\n" + helper + "\n__kernel", 1)
    assert src.count("fcl_rdiv_float4(v2, v7, &rq_)") == 1
    src = src.replace("fcl_rdiv_float4(v2, v7, &rq_)", "fcl_rdiv_z_float4(v2, v7, z7, &rq_)")
sys.stdout.write(src)
