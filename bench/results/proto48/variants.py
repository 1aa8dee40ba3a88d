#!/usr/bin/env python3
"""Session 48, diagnostics for the short rows (call 3): a whole-vector row
kernel of fusecl's (rows of m floats, m a multiple of 4, R rows a group of L)
rewritten one of two ways.
  --nostore  stores only where an output's first lane has one NaN pattern no
             input gives: the time of the loads and the arithmetic alone.
  --stagein  the group first reads its rows' span (R * m floats, contiguous)
             into local memory in float4s, work-item i taking vectors i,
             i + L, ...; after a barrier each work-item takes its vectors from
             there (the input's offset off0 must be 0). Same outputs.
  --rotate   rows that start 16 bytes into a 32-byte sector (rows of an odd
             number V of float4s, every other row) take their vectors rotated
             by one: chunk slot q holds vector (q + 1) mod V. Each store (and
             load) instruction then covers whole sectors: an even row's last
             vector and the next row's first go out together. The sums add in
             another order there (results within rounding, not bit for bit).
  --rotate2  the same rotation in cheaper arithmetic: the parity in int,
             p = o * m + (q + s_) * 4, less m where q + s_ is V (the row's
             first vector; past the row's end nothing is stored).
  --rotate3  --rotate2 with the wrap tested only in the chunk holding the
             row's last vector, k == (V - 1) / T, a constant per unrolled chunk
             (the loads, whose clamped chunks past the row may wrap, test it
             in every chunk).
usage: variants.py MODE in.cl out.cl"""
import re, sys

mode, src = sys.argv[1], open(sys.argv[2]).read()
m = int(re.search(r"const long m = (\d+)L;", src).group(1))
R = int(re.search(r"get_group_id\(0\) \* (\d+) \+ lid", src).group(1))
L = int(re.search(r"reqd_work_group_size\((\d+),", src).group(1))
assert m % 4 == 0, "whole vectors only"
if mode == "--nostore":
    src, k = re.subn(r"(\*\(__global float4\*\)\(out0 \+ p\) = (v\d+);)", r"if (as_uint(\2.x) == 0x7fc00123u) \1", src)
    assert k >= 1
elif mode == "--stagein":
    anchor = re.search(r"  const long mo = [^\n]*\n", src)
    stage = (f"  __local float4 si0v[{R * m // 4}];\n"
             f"  const long sb_ = (long)get_group_id(0) * {R * m}L;\n"
             "  {\n"
             f"    const int nv_ = (int)((min(sb_ + {R * m}L, n * m) - sb_) / 4);\n"
             f"    for (int i = lid; i < nv_; i += {L})\n"
             "      si0v[i] = *(__global const float4*)(in0 + sb_ + (long)i * 4);\n"
             "  }\n"
             "  barrier(CLK_LOCAL_MEM_FENCE);\n")
    src = src[:anchor.end()] + stage + src[anchor.end():]
    src, k = re.subn(r"\*\(__global const float4\*\)\(in0 \+ off0 \+ p\)", "si0v[(int)((p - sb_) / 4)]", src)
    assert k == 1, k
elif mode == "--rotate":
    anchor = re.search(r"  const long mo = [^\n]*\n", src)
    src = src[:anchor.end()] + "  const long s_ = (o * (m / 4)) & 1;\n" + src[anchor.end():]
    src, k = re.subn(r"const long p = oc \* m \+ r \* 4;", "const long p = oc * m + (r + s_ < m / 4 ? r + s_ : r + s_ - m / 4) * 4;", src)
    assert k == 1, k
    src, k = re.subn(r"const long p = o \* m \+ q \* 4;", "const long p = o * m + (q >= m / 4 ? q : q + s_ < m / 4 ? q + s_ : q + s_ - m / 4) * 4;", src)
    assert k >= 1
elif mode == "--rotate2":
    anchor = re.search(r"  const long mo = [^\n]*\n", src)
    src = src[:anchor.end()] + "  const int s_ = (int)(o & 1) & (int)((m / 4) & 1);\n" + src[anchor.end():]
    src, k = re.subn(r"const long p = oc \* m \+ r \* 4;", "const long p = oc * m + (r + s_) * 4 - (r + s_ == m / 4 ? m : 0);", src)
    assert k == 1, k
    src, k = re.subn(r"const long p = o \* m \+ q \* 4;", "const long p = o * m + (q + s_) * 4 - (q + s_ == m / 4 ? m : 0);", src)
    assert k >= 1
elif mode == "--rotate3":
    T = L // R
    kl = (m // 4 - 1) // T
    anchor = re.search(r"  const long mo = [^\n]*\n", src)
    src = src[:anchor.end()] + "  const int s_ = (int)(o & 1) & (int)((m / 4) & 1);\n" + src[anchor.end():]
    src, k = re.subn(r"const long p = oc \* m \+ r \* 4;", "const long p = oc * m + (r + s_) * 4 - (r + s_ == m / 4 ? m : 0);", src)
    assert k == 1, k
    src, k = re.subn(r"const long p = o \* m \+ q \* 4;", f"const long p = o * m + (q + s_) * 4 - (k == {kl} && q + s_ == m / 4 ? m : 0);", src)
    assert k >= 1
else:
    sys.exit("mode: --nostore, --stagein, --rotate, --rotate2 or --rotate3")
open(sys.argv[3], "w").write(src)
